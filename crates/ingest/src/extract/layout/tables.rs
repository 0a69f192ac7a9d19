//! Tables on a laid-out page: runs of lines split into aligned cells, their columns, their header and caption, and
//! each body row rendered as a fact that carries its header ("Beamwidth: Narrow; Angle: 0.75°"), so that a row can
//! be retrieved, judged and quoted on its own instead of as numbers run together with the rows around it.
//!
//! Columns are found as a table reader finds them: the cells of the body rows, projected on the x axis, fall into
//! bands that no cell crosses. A header is the first line (or, over a body of figures, the first lines without
//! figures); a caption is a "Table N" paragraph just above or below.

use super::{is_rtl, Segment};

/// Gaps of at least this many font sizes split a line into cells (justified word spaces are narrower).
const CELL_GAP: f64 = 1.0;
/// Body rows lie at most this many font sizes apart, baseline to baseline.
const ROW_GAP: f64 = 2.3;
/// The header may stand further from the first body row (a rule between them).
const HEAD_GAP: f64 = 3.6;
/// A caption is looked for this many lines above and below the table.
const CAPTION_REACH: usize = 3;
/// At most this many lines of header over a body of figures ("Zero-augmented" over "Hurdle-NB").
const MAX_HEAD_LINES: usize = 3;
/// A row label (the first column's cell) longer than this many characters is prose, not a table.
const MAX_LABEL: usize = 60;
/// At most this many lines make one table (a page holds far fewer), so that looking for tables stays linear in
/// the lines of a hostile page whose every line looks like the start of one.
const MAX_LINES: usize = 400;

/// One cell of a line: its text between gaps of a font size or more.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cell {
    pub x0: f64,
    pub x1: f64,
    pub text: String,
}

/// A table found on a page. `[start, end)` is the byte range of the page text it covers, caption included;
/// `head` is its caption and header line as the page has them; each row is a body row rendered with its header.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Table {
    pub start: usize,
    pub end: usize,
    pub head: String,
    pub rows: Vec<TableRow>,
}

/// One body row of a table: `[start, end)` bytes of the page text, and the row as a fact ("Mode: Narrow;
/// Beamwidth: 0.75°").
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TableRow {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A line's cells: its segments joined across gaps narrower than [`CELL_GAP`] font sizes.
pub(super) fn cells_of(segs: &[Segment]) -> Vec<Cell> {
    let mut cells: Vec<(Cell, f64)> = Vec::new();
    for s in segs {
        match cells.last_mut() {
            Some((c, size)) if s.x0 - c.x1 < CELL_GAP * size.max(s.size) => {
                c.text.push(' ');
                c.text.push_str(&s.text);
                c.x1 = c.x1.max(s.x1);
                *size = size.max(s.size);
            }
            _ => cells.push((
                Cell {
                    x0: s.x0,
                    x1: s.x1,
                    text: s.text.clone(),
                },
                s.size,
            )),
        }
    }
    cells.into_iter().map(|(c, _)| c).collect()
}

/// The tables among a page's ordered `lines`; `at` is where each line lies in `text` (`None` for a line left out).
pub(super) fn find(lines: &[Segment], at: &[Option<(usize, usize)>], text: &str) -> Vec<Table> {
    // Each line's range without the space that joins it to the next line of its paragraph.
    let at: Vec<Option<(usize, usize)>> = at
        .iter()
        .map(|r| r.map(|(s, e)| (s, s + text.get(s..e).map_or(e - s, |t| t.trim_end().len()))))
        .collect();
    let at = at.as_slice();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match table_at(lines, at, text, i) {
            Some((table, next)) => {
                out.push(table);
                i = next;
            }
            None => i += 1,
        }
    }
    out
}

/// Whether a cell holds a figure: a digit, and at most three letters ("0.75°", "24210.1", "8 MB").
fn numeric(cell: &str) -> bool {
    cell.chars().any(|c| c.is_ascii_digit()) && cell.chars().filter(|c| c.is_alphabetic()).count() <= 3
}

/// A line usable in a table: not right to left (its cells would be in visual order).
fn plain(line: &Segment) -> bool {
    !line.text.chars().any(is_rtl)
}

/// The lines `i..j` of a run that starts at `i` with a line of two or more cells: each next line close below the
/// one before, over the same stretch of the page, with the shape of a row ([`celled`]) or a section's title
/// ([`section`]).
fn block_end(lines: &[Segment], i: usize) -> usize {
    let first = &lines[i];
    let (mut x0, mut x1) = (first.x0, first.x1);
    let left = first.x0;
    let mut j = i + 1;
    while let Some(line) = lines.get(j).filter(|_| j - i < MAX_LINES) {
        let prev = &lines[j - 1];
        let size = prev.size.max(line.size);
        let gap = prev.y - line.y;
        let limit = if j == i + 1 { HEAD_GAP } else { ROW_GAP } * size;
        let overlap = line.x1.min(x1) - line.x0.max(x0);
        let within = overlap >= 0.5 * (line.x1 - line.x0).min(x1 - x0);
        let shaped = celled(first, line, size) || section(lines, j, left);
        if gap <= 0.0 || gap > limit || !within || !shaped || !plain(line) || opens_caption(&line.text) {
            break;
        }
        (x0, x1) = (x0.min(line.x0), x1.max(line.x1));
        j += 1;
    }
    j
}

/// Whether a line under a table's `first` line has the shape of a row: two or more cells, or one cell right of
/// the first column (a wrapped cell) or within it (a row label set level with the middle of its wrapped row).
/// `size` is the font size the distances are measured in.
fn celled(first: &Segment, line: &Segment, size: f64) -> bool {
    let second = first.cells.get(1).map_or(first.x1, |c| c.x0);
    line.cells.len() >= 2 || line.x0 > first.x0 + 3.0 * size || line.x1 < second
}

/// Whether line `j` is a section's title inside a table ("CMOS Level Inputs", "Supply Current (VDDIO = 3.3V)"): one
/// cell that starts no further right than the first column, words, not a figure, with a body row of two or more
/// cells close below it (a table's own title stands over its header row instead).
fn section(lines: &[Segment], j: usize, left: f64) -> bool {
    let line = &lines[j];
    let next = lines.get(j + 1);
    let code = |t: &str| code_like(t, '#');
    line.cells.len() == 1
        && !code(&line.text)
        && line.x0 <= left + line.size
        && !numeric(&line.text)
        && next.is_some_and(|n| {
            n.cells.len() >= 2
                && !header_like(&n.cells)
                && !code(&n.text)
                && line.y - n.y > 0.0
                && line.y - n.y <= ROW_GAP * line.size.max(n.size)
        })
}

/// The column bands of some lines: where their cells lie, split wherever at most a tenth of the lines have a cell
/// (none in a table of fewer than ten lines). A few cells that run over a gap (a section's title in the first
/// column, a wrapped condition) do not merge the columns beside it, as they would if bands were the cells' extents
/// merged wherever two overlap. Gaps narrower than 0.3 of a font size are not gaps.
fn bands(lines: &[Segment]) -> Vec<(f64, f64)> {
    let spans: Vec<(f64, f64, f64)> = lines
        .iter()
        .flat_map(|l| l.cells.iter().map(move |c| (c.x0, c.x1, l.size)))
        .filter(|(a, b, _)| a.is_finite() && b.is_finite() && b >= a)
        .collect();
    let Some(lo) = spans.iter().map(|s| s.0).reduce(f64::min) else {
        return Vec::new();
    };
    let hi = spans.iter().map(|s| s.1).fold(lo, f64::max);
    // Half-point bins, or wider ones for absurd extents, so memory stays bounded.
    let step = ((hi - lo) / 4096.0).max(0.5);
    let bins = ((hi - lo) / step).ceil() as usize + 1;
    let bin = |x: f64| (((x - lo) / step) as usize).min(bins - 1);
    let mut cover = vec![0usize; bins];
    for &(a, b, _) in &spans {
        for c in &mut cover[bin(a)..=bin(b)] {
            *c += 1;
        }
    }
    let few = lines.len() / 10;
    let size = {
        let mut sizes: Vec<f64> = spans.iter().map(|s| s.2).collect();
        sizes.sort_by(f64::total_cmp);
        sizes[sizes.len() / 2]
    };
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut start: Option<usize> = None;
    for b in 0..=bins {
        match (cover.get(b).is_some_and(|&c| c > few), start) {
            (true, None) => start = Some(b),
            (false, Some(s)) => {
                let (a, e) = (lo + s as f64 * step, lo + b as f64 * step);
                match out.last_mut() {
                    Some(band) if a < band.1 + 0.3 * size => band.1 = e,
                    _ => out.push((a, e)),
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The band a cell belongs to: the one that holds its middle (the nearest when none does).
fn band_of(bands: &[(f64, f64)], cell: &Cell) -> usize {
    let mid = (cell.x0 + cell.x1) / 2.0;
    let dist = |b: &(f64, f64)| {
        if mid < b.0 {
            b.0 - mid
        } else if mid > b.1 {
            mid - b.1
        } else {
            0.0
        }
    };
    (0..bands.len())
        .min_by(|&a, &b| dist(&bands[a]).total_cmp(&dist(&bands[b])))
        .unwrap_or(0)
}

/// The table whose header line is `i`, and the line after it; `None` when the lines there are not a table.
fn table_at(lines: &[Segment], at: &[Option<(usize, usize)>], text: &str, i: usize) -> Option<(Table, usize)> {
    let first = &lines[i];
    // A running header is never a table's header, whatever it looks like.
    if first.cells.len() < 2
        || first.furniture
        || !plain(first)
        || !header_like(&first.cells)
        || opens_caption(&first.text)
    {
        return None;
    }
    let j = block_end(lines, i);
    // Over a body of figures, the header may take several lines without figures.
    let figures = |l: &Segment| l.cells.iter().any(|c| numeric(&c.text));
    let body_figures = lines[i + 1..j].iter().filter(|l| figures(l)).count();
    let mut h = 1;
    if 10 * body_figures >= 6 * (j - i - 1) {
        // A section's title under the header opens the body.
        while h < MAX_HEAD_LINES && i + h + 2 < j && !figures(&lines[i + h]) && !section(lines, i + h, first.x0) {
            h += 1;
        }
    }
    let body = &lines[i + h..j];
    // Two rows make a table; one does under a "Table N" caption (an ordering table of one part).
    let caption = caption(lines, at, text, i, j);
    let least = if caption.is_some() { 1 } else { 2 };
    if body.iter().filter(|l| l.cells.len() >= 2).count() < least {
        return None;
    }
    // Sections' titles that run over the columns take no part in finding them.
    let rows_only: Vec<Segment> = (i + h..j)
        .filter(|&k| celled(first, &lines[k], lines[k - 1].size.max(lines[k].size)))
        .map(|k| lines[k].clone())
        .collect();
    let bands = bands(&rows_only);
    let (lo, hi) = (bands.first()?.0, bands.last()?.1);
    let title = first.cells.iter().any(|c| c.x1 - c.x0 > 0.5 * (hi - lo));
    if !(2..=12).contains(&bands.len()) || title || !cells_are_words(body) {
        return None;
    }
    let labels = header_labels(&lines[i..i + h], &bands);
    if labels.iter().all(String::is_empty) {
        return None;
    }
    let mut rows = body_rows(body, &at[i + h..j], &bands);
    // Row labels and units printed once for several rows go to each of them (the unit column: a header that
    // names units).
    let unit = labels.iter().position(|l| {
        let l = l.trim().to_lowercase();
        l == "unit" || l == "units" || l == "unit." || l == "units."
    });
    let spanned: Vec<usize> = std::iter::once(0).chain(unit.filter(|&u| u > 0)).collect();
    // The unit first: a row's label given first would hide that it has no words of its own.
    let carriers: Vec<usize> = spanned
        .iter()
        .rev()
        .flat_map(|&band| spans::fill(&mut rows, band))
        .collect();
    spans::drop_carriers(&mut rows, carriers, &spanned);
    let mut label_lens: Vec<usize> = rows.iter().filter_map(|r| r.cell(0).map(|c| c.len())).collect();
    label_lens.sort_unstable();
    if label_lens.get(label_lens.len() / 2).is_some_and(|&m| m > MAX_LABEL) {
        return None;
    }
    let (head_start, head_end) = span(&at[i..i + h])?;
    let header = text.get(head_start..head_end)?;
    let mut start = head_start;
    let mut end = rows.iter().map(BodyRow::end).max().unwrap_or(head_end);
    let mut head = String::new();
    if let Some((cs, ce)) = caption {
        head.push_str(text.get(cs..ce)?);
        head.push('\n');
        start = start.min(cs);
        end = end.max(ce);
    }
    head.push_str(header);
    let rows = rows
        .into_iter()
        .filter_map(|r| {
            let fact = r.render(&labels);
            (!fact.is_empty()).then_some(TableRow {
                start: r.start(),
                end: r.end(),
                text: fact,
            })
        })
        .collect::<Vec<_>>();
    (rows.len() >= least).then_some((Table { start, end, head, rows }, j))
}

/// Whether a line's cells can be a header: each holds a word, none is a figure, at most half hold a digit
/// ("m328p" over "ATmega328P" is a row of a list), and none holds code (";", "=", braces, comments).
fn header_like(cells: &[Cell]) -> bool {
    let code = |t: &str| code_like(t, '=');
    let digits = cells
        .iter()
        .filter(|c| c.text.chars().any(|ch| ch.is_ascii_digit()))
        .count();
    cells
        .iter()
        .all(|c| c.text.chars().filter(|ch| ch.is_alphabetic()).count() >= 2 && !numeric(&c.text) && !code(&c.text))
        && 2 * digits <= cells.len()
}

/// Whether text reads as code: a statement's ";", braces, a comment, or `also` (a header's "=", a section's "#";
/// a body row's "VDDIO = 3.3V" is no code).
fn code_like(t: &str, also: char) -> bool {
    t.contains([';', '{', '}', also]) || t.contains("//") || t.contains("/*")
}

/// Whether the body's cells are words and figures, not letters one by one (rotated text, a figure's marks).
fn cells_are_words(body: &[Segment]) -> bool {
    let mut lens: Vec<usize> = body
        .iter()
        .flat_map(|l| l.cells.iter().map(|c| c.text.chars().count()))
        .collect();
    lens.sort_unstable();
    lens.get(lens.len() / 2).is_some_and(|&m| m >= 2)
}

/// The header's label for each band: the header cells over it, top line first.
fn header_labels(head: &[Segment], bands: &[(f64, f64)]) -> Vec<String> {
    let mut labels = vec![String::new(); bands.len()];
    for line in head {
        for c in &line.cells {
            for (k, b) in bands.iter().enumerate() {
                if c.x1.min(b.1) - c.x0.max(b.0) > 0.0 || band_of(bands, c) == k {
                    if !labels[k].is_empty() {
                        labels[k].push(' ');
                    }
                    labels[k].push_str(c.text.trim());
                }
            }
        }
    }
    labels
}

/// A piece of a body row: one line's cell, with the line's baseline and byte range.
struct Part {
    y: f64,
    band: usize,
    text: String,
    start: usize,
    end: usize,
}

/// A body row: its lines' cells in reading order.
struct BodyRow {
    parts: Vec<Part>,
}

impl BodyRow {
    /// The text of band `k`'s cell: its parts joined.
    fn cell(&self, k: usize) -> Option<String> {
        let texts: Vec<&str> = (self.parts.iter())
            .filter(|p| p.band == k)
            .map(|p| p.text.trim())
            .collect();
        (!texts.is_empty()).then(|| texts.join(" "))
    }

    fn start(&self) -> usize {
        self.parts.iter().map(|p| p.start).min().unwrap_or(0)
    }

    fn end(&self) -> usize {
        self.parts.iter().map(|p| p.end).max().unwrap_or(0)
    }

    /// "label: cell; label: cell", leaving out empty cells and the label of an unlabelled column.
    fn render(&self, labels: &[String]) -> String {
        let parts: Vec<String> = (labels.iter().enumerate())
            .filter_map(|(k, l)| {
                let c = self.cell(k)?;
                Some(if l.is_empty() || *l == c {
                    c
                } else {
                    format!("{l}: {c}")
                })
            })
            .collect();
        parts.join("; ")
    }
}

/// The body's rows: a line with a first-column cell or two cells starts a row; a lone cell further right
/// continues the row above (a cell that wraps). A row label alone on its line, set level with the middle of its
/// wrapped row, also takes the wrapped lines just above it (within a font size).
fn body_rows(body: &[Segment], at: &[Option<(usize, usize)>], bands: &[(f64, f64)]) -> Vec<BodyRow> {
    let mut rows: Vec<BodyRow> = Vec::new();
    for (line, &place) in body.iter().zip(at) {
        let Some((start, end)) = place else { continue };
        let mut parts: Vec<Part> = (line.cells.iter())
            .map(|c| Part {
                y: line.y,
                band: band_of(bands, c),
                text: c.text.clone(),
                start,
                end,
            })
            .collect();
        // A section's title from the first column runs over the columns beside it: it opens a row of its own.
        if let [title] = parts.as_mut_slice() {
            if line.x0 <= bands[0].1 && line.x1 > bands[0].1 && !numeric(&title.text) {
                title.band = 0;
            }
        }
        let lone_label = parts.len() == 1 && parts[0].band == 0;
        let starts_row = parts.len() >= 2 || lone_label;
        match rows.last_mut() {
            Some(row) if !starts_row => row.parts.append(&mut parts),
            prev => {
                if let Some(prev) = prev.filter(|_| lone_label) {
                    let above = |p: &Part| p.band != 0 && p.y - line.y <= line.size && p.y > line.y;
                    let keep = prev.parts.len() - prev.parts.iter().rev().take_while(|p| above(p)).count();
                    if keep > 0 {
                        let mut moved = prev.parts.split_off(keep);
                        moved.append(&mut parts);
                        parts = moved;
                    }
                }
                rows.push(BodyRow { parts });
            }
        }
    }
    rows
}

/// The byte range from the first placed line to the last.
fn span(at: &[Option<(usize, usize)>]) -> Option<(usize, usize)> {
    let start = at.iter().flatten().next()?.0;
    let end = at.iter().flatten().last()?.1;
    Some((start, end))
}

/// Whether a line opens a table's caption: "Table 2:", "TABLE IV.", "Tab. 3".
fn opens_caption(line: &str) -> bool {
    let line = line.trim_start();
    let rest = ["Table ", "TABLE ", "Tab. "].iter().find_map(|p| line.strip_prefix(p));
    rest.is_some_and(|r| {
        let number: String = r
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
            .collect();
        number.chars().any(|c| c.is_ascii_digit()) || number.trim_end_matches('.').chars().all(|c| "IVXL".contains(c))
    })
}

/// The byte range of the caption paragraph nearest the table `i..j`, within [`CAPTION_REACH`] lines.
fn caption(lines: &[Segment], at: &[Option<(usize, usize)>], text: &str, i: usize, j: usize) -> Option<(usize, usize)> {
    let above = (i.saturating_sub(CAPTION_REACH)..i).rev();
    let below = j..(j + CAPTION_REACH).min(lines.len());
    let k = below.chain(above).find(|&k| opens_caption(&lines[k].text))?;
    let (start, mut end) = at[k]?;
    // The caption's paragraph: the lines after it with no paragraph break between, up to four.
    for next in at.iter().skip(k + 1).take(4).flatten() {
        if text.get(end..next.0).is_none_or(|gap| gap.contains("\n\n")) || (k < i && next.0 >= at[i]?.0) {
            break;
        }
        end = next.1;
    }
    Some((start, end))
}

mod spans;

#[cfg(test)]
mod tests;

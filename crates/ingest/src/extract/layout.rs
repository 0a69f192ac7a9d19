//! Reading order for one PDF page: positioned glyphs → rows → column regions → paragraphs.
//!
//! Glyph decoding (encodings, ToUnicode CMaps) is pdf-extract's; this module only decides order and spacing,
//! which is where naive extraction goes wrong (interleaved two-column text, missing spaces, broken words).
//!
//! Columns are found from whitespace, as pdftotext and pdfminer look for them: rows are split into word chunks,
//! and a gutter is the widest emptiest vertical band near the middle of a region, counted over the rows that
//! hold no long stretch of text (so a title, an abstract or a footnote running across the page does not hide
//! it). Rows with text across the band are read in place and cut the region into runs; a run whose two sides
//! look like columns of text (lines side by side, stacked, filling their column) is read left column first,
//! any other run row by row. What lies between column runs, and a column spanning most of its region, is
//! searched again for a gutter of its own, so the layout may change below a full-width block.
//!
//! Long because it is the reading-order algorithm in one piece (rows, regions, gutters); its parts are in `layout/`.

use columns::looks_like_columns;
use headings::LaidHeading;
use paragraphs::paragraphs;
use rails::drop_line_numbers;
use rows::build_rows;
pub use tables::{Table, TableRow};

mod columns;
mod headings;
mod paragraphs;
mod rails;
mod rows;
mod tables;
mod turns;

pub(crate) use turns::turn_of;

/// One decoded glyph in PDF user space (y grows upwards), with its effective font size and advance width.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Glyph {
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub width: f64,
    pub text: String,
    /// The angle of its baseline in whole degrees counter-clockwise, 0 for upright text (see [`turns::turn_of`]).
    #[serde(default)]
    pub turn: i16,
}

/// A run of glyphs on one baseline without a gap wider than a stretched word space: a word or a few words.
#[derive(Debug, Clone)]
struct Segment {
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    text: String,
    /// After [`merge_line`]: the line's cells, its text split at gaps of a font size or more (table cells). Empty
    /// before merging.
    cells: Vec<tables::Cell>,
    /// Page furniture (a running header or footer): laid out with the rest, so that every decision about columns,
    /// tables and paragraphs is the same as with it, then left out of the text. A merged line is furniture when
    /// all its segments are.
    furniture: bool,
}

/// The segments of one baseline, left to right (possibly from several columns).
type Row = Vec<Segment>;

/// Gaps wider than this many font sizes split a row into segments; narrower ones are word spaces.
const SPLIT_GAP: f64 = 0.5;
/// At most this many bins cover a region's width when looking for a gutter (a page is at most 14,400 pt wide).
const MAX_BINS: f64 = 16_384.0;
/// At most this many candidate gutters (the widest) are weighed against each other in one region.
const MAX_BANDS: usize = 32;
/// How deep regions are searched for gutters inside gutters (columns of a column, a block with its own grid).
const MAX_DEPTH: usize = 3;

/// A page laid out: its text, where each line of it lies (in PDF user space, y up) and its headings.
#[derive(Debug, Clone, Default)]
pub struct Laid {
    pub text: String,
    pub lines: Vec<LaidLine>,
    pub headings: Vec<LaidHeading>,
    /// The tables found on the page, each with its rows rendered as header-keyed facts.
    pub tables: Vec<Table>,
    /// The body's text is set at an angle on the page (a landscape table on a portrait page): its lines' places are
    /// in a turned frame.
    pub turned: bool,
    /// Text set at another angle than the body (a stamp up the margin, a diagonal watermark), one entry per angle.
    pub aside: Vec<String>,
}

/// One line of a laid-out page: its byte range `[start, end)` in the text, its horizontal extent, baseline and
/// font size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaidLine {
    pub start: usize,
    pub end: usize,
    pub x0: f64,
    pub x1: f64,
    pub y: f64,
    pub size: f64,
}

/// Lays out the glyphs of a page as text: paragraphs separated by a blank line. Columns are found relative to
/// the text itself, so the page size is not needed.
pub fn page_text(glyphs: &[Glyph]) -> String {
    page_layout(glyphs).text
}

/// [`page_text`] with each line's place on the page and the page's headings. The body is the text at the page's own
/// turn (see [`turns`]); text at any other angle is laid out on its own into [`Laid::aside`].
pub fn page_layout(glyphs: &[Glyph]) -> Laid {
    page_layout_apart(glyphs, &|_, _, _| false)
}

/// [`page_layout`], setting apart (into [`Laid::aside`], before columns and tables are found) each piece of upright
/// text that `apart(text, baseline, size)` says is page furniture.
pub fn page_layout_apart(glyphs: &[Glyph], apart: &dyn Fn(&str, f64, f64) -> bool) -> Laid {
    if glyphs.iter().all(|g| g.turn == 0) {
        return lay(glyphs, apart);
    }
    let (turn, body, others) = turns::by_turn(glyphs);
    let mut laid = lay(&body, if turn == 0 { apart } else { &|_, _, _| false });
    laid.turned = turn != 0;
    laid.aside.extend(
        others
            .iter()
            .map(|gs| lay(gs, &|_, _, _| false).text)
            .filter(|t| !t.trim().is_empty()),
    );
    laid
}

/// Furniture is looked for in this many rows at the top of a page and as many at its bottom.
const FURNITURE_ROWS: usize = 5;
/// Text on one row further apart than this many font sizes is separate pieces (a header's title and its page
/// number); nearer, one piece (a line of text, however justified).
const PIECE_GAP: f64 = 2.0;

/// The pieces of a row: runs of its segments without a gap of [`PIECE_GAP`] font sizes, as ranges of segments with
/// their text.
fn pieces(row: &Row) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (k, s) in row.iter().enumerate() {
        match out.last_mut() {
            Some((range, text)) if s.x0 - row[range.end - 1].x1 < PIECE_GAP * s.size.max(row[range.end - 1].size) => {
                range.end = k + 1;
                text.push(' ');
                text.push_str(&s.text);
            }
            _ => out.push((k..k + 1, s.text.clone())),
        }
    }
    out
}

/// The rows where furniture may be: the first and the last [`FURNITURE_ROWS`] of a page's rows (top to bottom).
fn outer_rows(rows: usize) -> impl Iterator<Item = usize> {
    let top = 0..FURNITURE_ROWS.min(rows);
    let bottom = rows.saturating_sub(FURNITURE_ROWS).max(top.end)..rows;
    top.chain(bottom)
}

/// The largest font size of a piece's segments.
fn piece_size(segs: &[Segment]) -> f64 {
    segs.iter().map(|s| s.size).fold(0.0, f64::max)
}

/// The pieces of upright text (see [`pieces`]) in the outer rows of those whose baseline lies above `top` or below
/// `bottom`, with their baselines and font sizes: what may be a running header or footer.
pub fn band_text(glyphs: &[Glyph], top: f64, bottom: f64) -> Vec<(String, f64, f64)> {
    let band: Vec<Glyph> = glyphs
        .iter()
        .filter(|g| g.turn == 0 && (g.y >= top || g.y <= bottom))
        .cloned()
        .collect();
    let rows = build_rows(&band);
    let (above, below): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| r.first().is_some_and(|s| s.y >= top));
    let outer = |rows: &[&Row], from_top: bool| -> Vec<(String, f64, f64)> {
        let picked: Vec<&&Row> = if from_top {
            rows.iter().take(FURNITURE_ROWS).collect()
        } else {
            rows.iter().rev().take(FURNITURE_ROWS).collect()
        };
        picked
            .into_iter()
            .flat_map(|row| {
                pieces(row)
                    .into_iter()
                    .map(|(range, text)| (text, row[0].y, piece_size(&row[range])))
            })
            .collect()
    };
    let mut out = outer(&above, true);
    out.extend(outer(&below, false));
    out
}

/// Lays out upright glyphs, marking as furniture each piece of the outer rows that `apart(text, baseline, size)` says is
/// (its text goes to [`Laid::aside`]; a paragraph made only of furniture is left out of the text).
fn lay(glyphs: &[Glyph], apart: &dyn Fn(&str, f64, f64) -> bool) -> Laid {
    // Line numbers go first, wherever their rail runs: in a gutter they would join the lines beside them.
    let (rails, numbered) = rails::line_number_rails(glyphs);
    let unnumbered: Vec<Glyph>;
    let glyphs = if rails.is_empty() {
        glyphs
    } else {
        unnumbered = (glyphs.iter().zip(&numbered))
            .filter(|(_, &n)| !n)
            .map(|(g, _)| g.clone())
            .collect();
        &unnumbered
    };
    let mut aside = Vec::new();
    let mut rows = build_rows(glyphs);
    for r in outer_rows(rows.len()).collect::<Vec<_>>() {
        let row = &mut rows[r];
        for (range, text) in pieces(row) {
            if apart(&text, row[range.start].y, piece_size(&row[range.clone()])) {
                aside.push(text);
                for s in &mut row[range] {
                    s.furniture = true;
                }
            }
        }
    }
    let rows = drop_line_numbers(rows);
    let mut laid = lay_rows(rows);
    laid.aside = aside;
    laid.aside.extend(rails);
    laid
}

/// Lays out rows of upright text.
fn lay_rows(rows: Vec<Row>) -> Laid {
    if rows.is_empty() {
        return Laid::default();
    }
    let ordered = title_first(order(rows, 0));
    let mut paras = paragraphs(&ordered);
    for p in &mut paras {
        trim_furniture(p, &ordered);
    }
    paras.retain(|p| !p.lines.is_empty());
    let mut laid = Laid::default();
    let mut offsets = Vec::with_capacity(paras.len());
    // Where each ordered line lies in the text, when it was kept.
    let mut at: Vec<Option<(usize, usize)>> = vec![None; ordered.len()];
    for p in &paras {
        if !laid.text.is_empty() {
            laid.text.push_str("\n\n");
        }
        let base = laid.text.len();
        offsets.push(base);
        laid.text.push_str(&p.text);
        for (k, &(start, i)) in p.lines.iter().enumerate() {
            let end = p.lines.get(k + 1).map_or(p.text.len(), |next| next.0);
            let s = &ordered[i];
            at[i] = Some((base + start, base + end));
            laid.lines.push(LaidLine {
                start: base + start,
                end: base + end,
                x0: s.x0,
                x1: s.x1,
                y: s.y,
                size: s.size,
            });
        }
    }
    laid.headings = headings::find(&paras, &offsets, &ordered, body_size(&ordered));
    laid.tables = tables::find(&ordered, &at, &laid.text);
    laid
}

/// Leaves out the furniture lines at the start and the end of a paragraph (a running header set close above the
/// first line of text joins its paragraph); all of them when the paragraph is only furniture.
fn trim_furniture(p: &mut paragraphs::Paragraph, lines: &[Segment]) {
    let keep = |&&(_, i): &&(usize, usize)| !lines[i].furniture;
    let (Some(first), Some(last)) = (
        p.lines.iter().position(|l| keep(&l)),
        p.lines.iter().rposition(|l| keep(&l)),
    ) else {
        p.lines.clear();
        p.text.clear();
        return;
    };
    if first == 0 && last == p.lines.len() - 1 {
        return;
    }
    let start = p.lines[first].0;
    let end = p.lines.get(last + 1).map_or(p.text.len(), |next| next.0);
    p.text = p.text[start..end].trim_end().to_string();
    p.lines = p.lines[first..=last].iter().map(|&(o, i)| (o - start, i)).collect();
}

/// The page's title read first: the lines of the largest text in the top quarter of the page, at least 1.6 times
/// the body's size, when the reading order put text that lies below them ahead of them (a datasheet's title set
/// at the top of its right column, beside the features list that starts level with it).
fn title_first(mut ordered: Vec<Segment>) -> Vec<Segment> {
    let body = body_size(&ordered);
    let (lo, hi) = (ordered.iter()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
        (lo.min(s.y), hi.max(s.y))
    });
    let top = |s: &Segment| s.y >= hi - 0.25 * (hi - lo) && !s.furniture;
    let largest = ordered.iter().filter(|s| top(s)).map(|s| s.size).fold(0.0, f64::max);
    if body <= 0.0 || largest < 1.6 * body {
        return ordered;
    }
    let title = |s: &Segment| top(s) && s.size >= 0.9 * largest;
    let Some(start) = ordered.iter().position(title) else {
        return ordered;
    };
    let end = start + ordered[start..].iter().take_while(|s| title(s)).count();
    let lowest = ordered[start..end].iter().map(|s| s.y).fold(f64::INFINITY, f64::min);
    if !ordered[..start].iter().any(|s| !s.furniture && s.y < lowest) {
        return ordered;
    }
    let block: Vec<Segment> = ordered.drain(start..end).collect();
    ordered.splice(0..0, block);
    ordered
}

/// The font size of most of the page's text (the median over characters).
fn body_size(lines: &[Segment]) -> f64 {
    weighted_median(lines.iter().map(|l| (l.size, l.text.len()))).unwrap_or(0.0)
}

/// The median of `values` each counted `weight` times (`None` when the weights sum to nothing).
pub(crate) fn weighted_median(values: impl IntoIterator<Item = (f64, usize)>) -> Option<f64> {
    let mut values: Vec<(f64, usize)> = values.into_iter().collect();
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let half = values.iter().map(|v| v.1).sum::<usize>() / 2;
    let mut seen = 0;
    for (value, n) in values {
        seen += n;
        if seen > half {
            return Some(value);
        }
    }
    None
}

/// The empty band `x0..x1` between two columns.
#[derive(Debug, Clone, Copy)]
struct Gutter {
    x0: f64,
    x1: f64,
}

impl Gutter {
    fn center(self) -> f64 {
        (self.x0 + self.x1) / 2.0
    }

    /// True when the row runs across the columns: a segment spans the middle half of the band, or the text on
    /// its two sides is no further apart than a wide word space (under 3/4 of the font size; gutters are wider).
    /// A segment that only starts or ends in the band, such as a heading set a little left of its column,
    /// stays on its side.
    fn crossed_by(self, row: &[Segment]) -> bool {
        let margin = (self.x1 - self.x0) / 4.0;
        let (l, r) = (
            row.iter().rev().find(|s| self.is_left(s)),
            row.iter().find(|s| !self.is_left(s)),
        );
        row.iter().any(|s| s.x0 <= self.x0 + margin && s.x1 >= self.x1 - margin)
            || l.zip(r).is_some_and(|(l, r)| r.x0 - l.x1 < 0.75 * l.size.min(r.size))
    }

    fn is_left(self, s: &Segment) -> bool {
        (s.x0 + s.x1) / 2.0 < self.center()
    }

    /// Splits a column row into its left and right parts.
    fn split(self, row: Row) -> (Row, Row) {
        row.into_iter().partition(|s| self.is_left(s))
    }
}

/// Orders rows for reading: with a gutter, rows that cross it are read in place, and each run of rows that
/// leave it empty and look like two columns is read left column first (see the module notes).
fn order(rows: Vec<Row>, depth: usize) -> Vec<Segment> {
    let gutter = if depth < MAX_DEPTH { find_gutter(&rows) } else { None };
    let Some(gutter) = gutter else {
        return rows.into_iter().filter_map(merge_line).collect();
    };
    // Runs of rows: those that cross the gutter (and a page's running header and footer), and those that do not.
    let running = if depth == 0 {
        running_rows(&rows)
    } else {
        (false, false)
    };
    let last = rows.len() - 1;
    let whole = {
        let (a, b) = extent(rows.iter().flatten());
        b - a
    };
    // Table rows count only in a stack of two or more (a table has rows; a loose line of text is alone), or
    // alone when they stand apart from the text above and below (a figure's row of labels between columns).
    let tabular: Vec<bool> = rows
        .iter()
        .map(|r| table_row(r, whole, gutter) || table_across(r, whole))
        .collect();
    let apart: Vec<bool> = isolated(&rows)
        .into_iter()
        .zip(&rows)
        .map(|(alone, row)| alone && cells(row).len() >= 5 && labels(row, gutter))
        .collect();
    let table = |i: usize| tabular[i] && (i > 0 && tabular[i - 1] || tabular.get(i + 1) == Some(&true)) || apart[i];
    let mut runs: Vec<(bool, Vec<Row>)> = Vec::new();
    for (i, row) in rows.into_iter().enumerate() {
        let wide = gutter.crossed_by(&row) || table(i) || (i == 0 && running.0) || (i == last && running.1);
        match runs.last_mut() {
            Some((w, run)) if *w == wide => run.push(row),
            _ => runs.push((wide, vec![row])),
        }
    }
    // A run that does not itself look like two columns (a few lines that happen to leave the band empty, a
    // table) is read row by row with its neighbours.
    let mut regions: Vec<(bool, Vec<Row>)> = Vec::new();
    for (wide, run) in runs {
        let columns = !wide && looks_like_columns(&run, gutter);
        match regions.last_mut() {
            Some((false, region)) if !columns => region.extend(run),
            _ => regions.push((columns, run)),
        }
    }
    // A region between columns is searched again for a gutter of its own; a column only when it spans most of
    // the region (two of three columns), since within one column of two, tables and code read better row by row.
    let width = |rows: &[Row]| {
        let (a, b) = extent(rows.iter().flatten());
        b - a
    };
    if regions.iter().all(|(columns, _)| !columns) {
        return regions
            .into_iter()
            .flat_map(|(_, r)| r)
            .filter_map(merge_line)
            .collect();
    }
    let whole = regions.iter().map(|(_, r)| width(r)).fold(0.0, f64::max);
    let mut out = Vec::new();
    for (columns, region) in regions {
        if !columns {
            out.extend(order(region, depth + 1));
            continue;
        }
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for row in region {
            let (l, r) = gutter.split(row);
            left.extend((!l.is_empty()).then_some(l));
            right.extend((!r.is_empty()).then_some(r));
        }
        for side in [left, right] {
            if width(&side) > 0.6 * whole {
                out.extend(order(side, depth + 1));
            } else {
                out.extend(side.into_iter().filter_map(merge_line));
            }
        }
    }
    out
}

/// True for a row of short table cells laid across the region: four or more, most of them a few characters,
/// spread over most of its width, or, on both sides of the gutter, none longer than a short phrase and spread
/// over a third of it (a narrow centred table between columns). It is read in place, so that a full-width table
/// is not split between the columns beside it; a line of column text is one long cell, and is not a table row.
fn table_row(row: &[Segment], width: f64, gutter: Gutter) -> bool {
    spread_cells(row, width) || sparse(row) && labels(row, gutter) && extent_of(row) >= 0.35 * width
}

/// True for a row of four or more short cells (a median of four font sizes at most) that leave most of the row
/// empty and spread over at least 0.6 of `width`.
fn spread_cells(row: &[Segment], width: f64) -> bool {
    let cells = cells(row);
    let size = median(cells.iter().map(|c| c.2).collect());
    let cell = median(cells.iter().map(|c| c.1 - c.0).collect());
    sparse(row) && extent_of(row) >= 0.6 * width && cell <= 4.0 * size
}

/// True for a row of five or more cells, none longer than a short phrase (eight font sizes), spread over at least
/// 3/4 of `width` and leaving a quarter of it empty: a row of a table set across the page, figures and all.
fn table_across(row: &[Segment], width: f64) -> bool {
    let cells = cells(row);
    let ink: f64 = cells.iter().map(|c| c.1 - c.0).sum();
    let span = extent_of(row);
    cells.len() >= 5 && cells.iter().all(|c| c.1 - c.0 <= 8.0 * c.2) && span >= 0.75 * width && ink <= 0.75 * span
}

/// Four or more cells whose ink fills no more than 0.55 of the row's extent.
fn sparse(row: &[Segment]) -> bool {
    let cells = cells(row);
    let ink: f64 = cells.iter().map(|c| c.1 - c.0).sum();
    cells.len() >= 4 && ink <= 0.55 * extent_of(row)
}

fn extent_of(row: &[Segment]) -> f64 {
    let (a, b) = extent(row.iter());
    b - a
}

/// True when a row's cells lie two or more on each side of the gutter and none is longer than a short phrase
/// (eight font sizes): labels or table cells, where a line of column text would be one long cell. (A table's row
/// beside a column's short last line, "easily.", has one cell on that side.)
fn labels(row: &[Segment], gutter: Gutter) -> bool {
    let cells = cells(row);
    cells.iter().filter(|c| c.1 < gutter.center()).count() >= 2
        && cells.iter().filter(|c| c.0 > gutter.center()).count() >= 2
        && cells.iter().all(|c| c.1 - c.0 <= 8.0 * c.2)
}

/// A row's cells: its segments merged across gaps narrower than a font size (justified word spaces), as
/// `(x0, x1, size)`.
fn cells(row: &[Segment]) -> Vec<(f64, f64, f64)> {
    let mut cells: Vec<(f64, f64, f64)> = Vec::new();
    for s in row {
        match cells.last_mut() {
            Some(c) if s.x0 - c.1 < c.2.max(s.size) => c.1 = c.1.max(s.x1),
            _ => cells.push((s.x0, s.x1, s.size)),
        }
    }
    cells
}

/// For each row, whether it stands apart from the rows above and below it: more than three font sizes from
/// either baseline, as a figure's labels stand in their frame.
fn isolated(rows: &[Row]) -> Vec<bool> {
    let baseline = |row: &Row| row.iter().map(|s| s.y).fold(f64::NAN, f64::max);
    let size = |row: &Row| row.iter().map(|s| s.size).fold(0.0, f64::max);
    (0..rows.len())
        .map(|i| {
            let (y, s) = (baseline(&rows[i]), size(&rows[i]));
            let above = i.checked_sub(1).is_none_or(|j| baseline(&rows[j]) - y > 3.0 * s);
            let below = rows.get(i + 1).is_none_or(|r| y - baseline(r) > 3.0 * s);
            above && below
        })
        .collect()
}

/// Whether the first and the last row of a page are a running header and footer: two lines or more apart from
/// the body, and reaching from the left edge of the text to its right edge ("Seltzer & Yigit ... A New Hashing
/// Package"), so read whole rather than split between the columns.
fn running_rows(rows: &[Row]) -> (bool, bool) {
    let (lo, hi) = extent(rows.iter().flatten());
    let baseline = |row: &Row| row.iter().map(|s| s.y).fold(f64::NAN, f64::max);
    let size = |row: &Row| row.iter().map(|s| s.size).fold(0.0, f64::max);
    let edges = |row: &Row| {
        let (a, b) = extent(row.iter());
        a <= lo + 2.0 * size(row) && b >= hi - 2.0 * size(row)
    };
    let apart = |a: &Row, b: &Row| baseline(a) - baseline(b) > 2.0 * size(a).max(size(b));
    // A header or footer on one side only ("ragsift fixture: Writer sections" over the left column): one short
    // stretch of text.
    let lone = |row: &Row| {
        let (a, b) = extent(row.iter());
        row.len() <= 2 && b - a < 0.5 * (hi - lo)
    };
    match rows {
        [first, second, .., before_last, last] => (
            (edges(first) || lone(first)) && apart(first, second),
            (edges(last) || lone(last)) && apart(before_last, last),
        ),
        _ => (false, false),
    }
}

/// The horizontal extent `(x0, x1)` of some segments.
fn extent<'a>(segs: impl Iterator<Item = &'a Segment>) -> (f64, f64) {
    segs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), s| {
        (a.min(s.x0), b.max(s.x1))
    })
}

/// Joins the segments of one row (or one column's part of it) with spaces.
fn merge_line(mut segs: Row) -> Option<Segment> {
    // A running footer level with a body line (a last line set low on the page) is not part of that line; a bare
    // number beside text may be the text's own (a contents entry's page), so it stays.
    if segs.iter().any(|s| !s.furniture) {
        segs.retain(|s| !s.furniture || s.text.chars().all(|c| c.is_ascii_digit()));
    }
    let cells = tables::cells_of(&segs);
    let mut it = segs.into_iter();
    let mut first = it.next()?;
    first.cells = cells;
    for s in it {
        first.text.push(' ');
        first.text.push_str(&s.text);
        first.x1 = s.x1;
        first.size = first.size.max(s.size);
        first.furniture &= s.furniture;
    }
    first.text = logical_order(&first.text);
    Some(first)
}

/// Hebrew, Arabic, Syriac, Thaana, NKo and their presentation forms: scripts written right to left.
fn is_rtl(c: char) -> bool {
    matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
}

/// A line's glyphs are placed left to right as they are seen; text with right-to-left runs is read in another
/// order. The Unicode bidi algorithm (the `unicode-bidi` crate) reorders the visual line, at the direction most of
/// its strong characters have, which puts right-to-left runs back in logical (reading) order.
fn logical_order(visual: &str) -> String {
    if !visual.chars().any(is_rtl) {
        return visual.to_string();
    }
    let rtl = visual.chars().filter(|&c| is_rtl(c)).count();
    let ltr = visual.chars().filter(|&c| c.is_alphabetic() && !is_rtl(c)).count();
    let level = if rtl > ltr {
        unicode_bidi::Level::rtl()
    } else {
        unicode_bidi::Level::ltr()
    };
    let info = unicode_bidi::BidiInfo::new(visual, Some(level));
    info.paragraphs
        .iter()
        .map(|p| info.reorder_line(p, p.range.clone()))
        .collect()
}

/// Finds a candidate gutter in a region: of the bands in the middle 60% of its text that no more rows touch than
/// the emptiest spot does (plus a little slack for stray marks), at least 0.6 of a font size wide, the one with
/// the most text along its edges. Full-width rows touch every spot alike, so they do not hide the gutter of the
/// columns below or above them. When there is none, it looks once more past a full-width table above or below
/// the text (`table_block`), whose cells may fill the gutter row after row.
fn find_gutter(rows: &[Row]) -> Option<Gutter> {
    find_gutter_past(rows, None).or_else(|| find_gutter_past(rows, Some(table_block(rows, find_width(rows)?)?)))
}

fn find_width(rows: &[Row]) -> Option<f64> {
    let (lo, hi) = extent(rows.iter().flatten());
    (hi > lo).then_some(hi - lo)
}

/// `find_gutter`, leaving rows `skip.0..=skip.1` (a table) out of the count.
fn find_gutter_past(rows: &[Row], skip: Option<(usize, usize)>) -> Option<Gutter> {
    let segs: Vec<&Segment> = rows.iter().flatten().collect();
    if segs.len() < 6 {
        return None;
    }
    let lo = segs.iter().map(|s| s.x0).fold(f64::INFINITY, f64::min);
    let hi = segs.iter().map(|s| s.x1).fold(f64::NEG_INFINITY, f64::max);
    let width = hi - lo;
    if width.is_nan() || width <= 0.0 {
        return None;
    }
    // Coverage: how many rows have ink in each 1pt bin, leaving out the rows that hold a stretch of text (no gap
    // of 0.8 font sizes) over more than half the width: titles and full-width lines, whatever their length, would
    // otherwise make the gutter look no emptier than the columns beside it.
    // 1pt bins, or wider ones when glyphs lie absurdly far apart (a damaged text matrix), so memory stays bounded.
    let step = (width / MAX_BINS).max(1.0);
    let bins = (width / step).ceil() as usize + 1;
    let bin = |x: f64| (((x - lo) / step).max(0.0) as usize).min(bins - 1);
    let mut coverage = vec![0usize; bins];
    let mut stamp = vec![usize::MAX; bins];
    for (i, row) in rows
        .iter()
        .enumerate()
        .filter(|&(i, r)| longest_stretch(r) <= 0.5 * width && !skip.is_some_and(|(a, b)| (a..=b).contains(&i)))
    {
        for s in row {
            for b in bin(s.x0)..bin(s.x1) {
                if stamp[b] != i {
                    stamp[b] = i;
                    coverage[b] += 1;
                }
            }
        }
    }
    let (from, to) = (bin(lo + 0.2 * width), bin(lo + 0.8 * width));
    let floor = *coverage[from..=to].iter().min()?;
    let size = median(segs.iter().map(|s| s.size).collect());
    // The low bands wide enough to be a gutter: no more than a little over the emptiest spot.
    let low_bands = |allowed: usize| {
        let mut bands: Vec<(usize, usize)> = Vec::new();
        let mut start = None;
        for b in from..=to + 1 {
            let low = coverage.get(b).is_some_and(|&c| b <= to && c <= allowed);
            match (low, start) {
                (true, None) => start = Some(b),
                (false, Some(s)) => {
                    if (b - s) as f64 * step >= 0.6 * size {
                        bands.push((s, b));
                    }
                    start = None;
                }
                _ => {}
            }
        }
        bands
    };
    let mut bands = low_bands(floor + (rows.len() / 25).max(1));
    if bands.is_empty() {
        // None: a few centred lines (a title block, its authors on lines of their own) may cover parts of the
        // gutter unevenly. Then a band that holds at most a fifth of what the middle typically holds will do.
        let mut middle = coverage[from..=to].to_vec();
        middle.sort_unstable();
        bands = low_bands(middle[middle.len() / 2] / 5);
    }
    // Of those, the one with the most text right beside it (within two font sizes on either side; the widest
    // when tied): a column's edge, not the empty end of a short column's lines.
    bands.sort_by_key(|(s, e)| std::cmp::Reverse(e - s));
    bands.truncate(MAX_BANDS);
    let reach = 2.0 * size;
    let beside = |(s, e): (usize, usize)| {
        let (x0, x1) = (lo + s as f64 * step, lo + e as f64 * step);
        let touches = |a: f64, b: f64| {
            rows.iter()
                .filter(|r| r.iter().any(|seg| seg.x0 < b && seg.x1 > a))
                .count()
        };
        touches(x0 - reach, x0) + touches(x1, x1 + reach)
    };
    let (s, e) = bands
        .iter()
        .copied()
        .enumerate()
        .max_by_key(|&(k, band)| (beside(band), std::cmp::Reverse(k)))?
        .1;
    Some(Gutter {
        x0: lo + s as f64 * step,
        x1: lo + e as f64 * step,
    })
}

/// The rows of a full-width table set above or below the region's text (at most four rows, such as a running
/// header and a caption, beyond it): rows of short cells spread over most of the width, two or more, with no
/// line of text among them, and no more than a quarter of the region's rows. Such a table sets cells in the
/// gutter of the columns below or above it, row after row, so `find_gutter` may look again without it.
fn table_block(rows: &[Row], width: f64) -> Option<(usize, usize)> {
    let across: Vec<usize> = (0..rows.len()).filter(|&i| table_across(&rows[i], width)).collect();
    let (&first, &last) = (across.first()?, across.last()?);
    let text_among = (first..=last).any(|i| !across.contains(&i) && longest_stretch(&rows[i]) >= 0.3 * width);
    let at_edge = first <= 4 || rows.len() - 1 - last <= 4;
    (across.len() >= 2 && across.len() * 4 <= rows.len() && !text_among && at_edge).then_some((first, last))
}

/// The widest stretch of a row's text that has no gap of 0.8 font sizes (wider than word spaces, narrower than
/// gutters).
fn longest_stretch(row: &[Segment]) -> f64 {
    let (mut best, mut start) = (0.0f64, f64::NAN);
    let mut prev: Option<&Segment> = None;
    for s in row {
        if prev.is_none_or(|p| s.x0 - p.x1 >= 0.8 * p.size.min(s.size)) {
            start = s.x0;
        }
        best = best.max(s.x1 - start);
        prev = Some(s);
    }
    best
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests;

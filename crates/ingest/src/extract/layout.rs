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

use super::normalize::{clean_line, join_lines_keeping};
use std::collections::HashSet;

/// One decoded glyph in PDF user space (y grows upwards), with its effective font size and advance width.
#[derive(Debug, Clone)]
pub struct Glyph {
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub width: f64,
    pub text: String,
}

/// A run of glyphs on one baseline without a gap wider than a stretched word space: a word or a few words.
#[derive(Debug, Clone)]
struct Segment {
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    text: String,
}

/// The segments of one baseline, left to right (possibly from several columns).
type Row = Vec<Segment>;

/// Gaps wider than this many font sizes split a row into segments; narrower ones are word spaces.
const SPLIT_GAP: f64 = 0.5;
/// At most this many bins cover a region's width when looking for a gutter (a page is at most 14,400 pt wide).
const MAX_BINS: f64 = 16_384.0;
/// How deep regions are searched for gutters inside gutters (columns of a column, a block with its own grid).
const MAX_DEPTH: usize = 3;

/// Lays out the glyphs of a page as text: paragraphs separated by a blank line. Columns are found relative to
/// the text itself, so the page size is not needed.
pub fn page_text(glyphs: &[Glyph]) -> String {
    let rows = drop_line_numbers(build_rows(glyphs));
    if rows.is_empty() {
        return String::new();
    }
    let ordered = order(rows, 0);
    paragraphs(&ordered).join("\n\n")
}

/// Groups glyphs into rows by baseline, then splits each row into segments at gaps wider than a word space.
fn build_rows(glyphs: &[Glyph]) -> Vec<Row> {
    let runs = stream_runs(glyphs);
    let mut gs: Vec<(usize, &Glyph)> = glyphs
        .iter()
        .zip(runs)
        .filter(|(g, _)| g.size > 0.0 && g.text.chars().any(|c| !c.is_whitespace() && !c.is_control()))
        .map(|(g, r)| (r, g))
        .collect();
    gs.sort_by(|(_, a), (_, b)| b.y.total_cmp(&a.y).then(a.x.total_cmp(&b.x)));
    // A row's baseline is that of its largest glyph so far: a superscript that comes first (it sits higher) takes
    // in the larger glyphs of its line up to 0.6 of their size below it and hands the baseline over to them,
    // while a smaller glyph must sit within 0.25 of the baseline's size (a subscript), so that small labels
    // around a large one in a figure do not chain into one row.
    let mut rows: Vec<(&Glyph, Vec<(usize, &Glyph)>)> = Vec::new();
    for (run, g) in gs {
        let joins = |base: &Glyph| {
            let reach = if g.size > 1.05 * base.size {
                0.6 * g.size
            } else if g.size < 0.95 * base.size {
                0.25 * base.size
            } else {
                0.4 * base.size.max(g.size)
            };
            (base.y - g.y).abs() <= reach
        };
        match rows.last_mut() {
            Some((base, row)) if joins(base) => {
                if g.size > base.size {
                    *base = g;
                }
                row.push((run, g));
            }
            _ => rows.push((g, vec![(run, g)])),
        }
    }
    rows.into_iter()
        .flat_map(|(_, row)| layers(row))
        .map(|mut layer| {
            layer.sort_by(|a, b| a.x.total_cmp(&b.x));
            split_row(&layer)
        })
        .collect()
}

/// Numbers the runs of the content stream: a glyph continues the run of the glyph drawn before it when it sits
/// on the same baseline at a like size, no further back than a fraction of a letter and no further on than a
/// wide gap.
fn stream_runs(glyphs: &[Glyph]) -> Vec<usize> {
    let mut run = 0;
    let mut out = Vec::with_capacity(glyphs.len());
    let mut prev: Option<&Glyph> = None;
    for g in glyphs {
        if let Some(p) = prev {
            let s = p.size.max(g.size);
            let dx = g.x - (p.x + p.width.max(0.0));
            let same =
                (g.y - p.y).abs() <= 0.2 * s && (g.size - p.size).abs() <= 0.3 * s && dx >= -0.35 * s && dx <= 2.5 * s;
            if !same {
                run += 1;
            }
        }
        out.push(run);
        prev = Some(g);
    }
    out
}

/// Whether any two runs of a row overlap on one baseline (glyph origins, as in [`layers`]): most rows have none,
/// and are read as one layer without further work.
fn any_overlap(runs: &[(usize, Vec<&Glyph>)]) -> bool {
    let mut spans: Vec<(f64, f64, f64, f64)> = runs
        .iter()
        .map(|(_, gs)| {
            let x0 = gs.iter().map(|g| g.x).fold(f64::INFINITY, f64::min);
            let x1 = gs.iter().map(|g| g.x).fold(f64::NEG_INFINITY, f64::max);
            let size = gs.iter().map(|g| g.size).fold(0.0, f64::max);
            (x0, x1, gs[0].y, 0.3 * size)
        })
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    spans.iter().enumerate().any(|(i, a)| {
        spans[i + 1..]
            .iter()
            .take_while(|b| b.0 < a.1)
            .any(|b| b.0 < a.1 - a.3.max(b.3) && b.1 > a.0 + a.3.max(b.3) && (a.2 - b.2).abs() < a.3.max(b.3))
    })
}

/// One run of a layer: where its glyphs start, on which baseline, and what they say.
struct Span {
    x0: f64,
    x1: f64,
    y: f64,
    text: String,
}

/// At most this many runs on one row are sorted into layers (beyond it, the row is read as one layer).
const MAX_RUNS: usize = 256;

/// Splits one row's glyphs into layers: runs that overlap text drawn before them on the row move to a layer of
/// their own (read after it), and a run repeating the text it overlaps (drawn twice for boldness or a shadow) is
/// dropped. A lone mark over a letter (an accent set as its own glyph) stays where it is.
fn layers(row: Vec<(usize, &Glyph)>) -> Vec<Vec<&Glyph>> {
    let mut runs: Vec<(usize, Vec<&Glyph>)> = Vec::new();
    for (r, g) in row {
        match runs.iter_mut().rev().find(|(id, _)| *id == r) {
            Some((_, gs)) => gs.push(g),
            None => runs.push((r, vec![g])),
        }
        if runs.len() > MAX_RUNS {
            break;
        }
    }
    if runs.len() == 1 || runs.len() > MAX_RUNS || !any_overlap(&runs) {
        let all: Vec<&Glyph> = runs.into_iter().flat_map(|(_, g)| g).collect();
        return vec![all];
    }
    runs.sort_by_key(|(id, _)| *id);
    // Each layer: its glyphs, and the span, baseline and text of each run in it.
    let mut out: Vec<(Vec<&Glyph>, Vec<Span>)> = Vec::new();
    // Lone marks (accents set over a letter) go with the first layer, whatever order they were drawn in.
    let mut marks: Vec<&Glyph> = Vec::new();
    for (_, gs) in runs {
        let x0 = gs.iter().map(|g| g.x).fold(f64::INFINITY, f64::min);
        // Glyph origins only: advance widths may be wrong (a font without widths), origins are where ink is.
        let x1 = gs.iter().map(|g| g.x).fold(f64::NEG_INFINITY, f64::max);
        let size = gs.iter().map(|g| g.size).fold(0.0, f64::max);
        let (slack, y) = (0.3 * size, gs[0].y);
        let mut sorted = gs.clone();
        sorted.sort_by(|a, b| a.x.total_cmp(&b.x));
        let text: String = sorted.iter().map(|g| g.text.as_str()).collect();
        let mark = gs.len() == 1 && !text.chars().any(char::is_alphanumeric);
        // Text on another baseline (a superscript, a subscript) is never in the way.
        let hits = |spans: &[Span]| -> Vec<usize> {
            (0..spans.len())
                .filter(|&k| x0 < spans[k].x1 - slack && x1 > spans[k].x0 + slack && (spans[k].y - y).abs() < slack)
                .collect()
        };
        let free = out.iter().position(|(_, spans)| hits(spans).is_empty());
        let repeat = out
            .iter()
            .any(|(_, spans)| hits(spans).into_iter().any(|k| spans[k].text.contains(text.as_str())));
        match free {
            _ if mark => marks.extend(gs),
            _ if repeat => {}
            Some(k) => {
                out[k].0.extend(gs);
                out[k].1.push(Span { x0, x1, y, text });
            }
            None => out.push((gs, vec![Span { x0, x1, y, text }])),
        }
    }
    match out.first_mut() {
        Some(first) => first.0.extend(marks),
        None => out.push((marks, Vec::new())),
    }
    out.into_iter().map(|(g, _)| g).collect()
}

/// Removes line numbers: a rail of five or more numbers set down the page at one edge (left- or right-aligned
/// within 2pt), counting up by one to three from line to line, as LaTeX's `lineno`, legal and draft documents
/// set them. A column of figures in a table rarely counts up that way.
fn drop_line_numbers(mut rows: Vec<Row>) -> Vec<Row> {
    let mut numbers: Vec<(usize, usize, u32)> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (k, s) in row.iter().enumerate() {
            let t = s.text.trim();
            if (1..=4).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()) {
                numbers.push((r, k, t.parse().unwrap_or(0)));
            }
        }
    }
    if numbers.len() < 5 {
        return rows;
    }
    let mut drop = std::collections::HashSet::new();
    for edge in [|s: &Segment| s.x0, |s: &Segment| s.x1] {
        let mut sorted = numbers.clone();
        sorted.sort_by(|a, b| edge(&rows[a.0][a.1]).total_cmp(&edge(&rows[b.0][b.1])));
        let mut start = 0;
        for i in 1..=sorted.len() {
            let split = i == sorted.len() || {
                let (a, b) = (sorted[i - 1], sorted[i]);
                edge(&rows[b.0][b.1]) - edge(&rows[a.0][a.1]) > 2.0
            };
            if !split {
                continue;
            }
            let mut rail: Vec<(usize, usize, u32)> = sorted[start..i].to_vec();
            start = i;
            if rail.len() < 5 {
                continue;
            }
            rail.sort_by_key(|n| n.0);
            let counting = rail
                .windows(2)
                .filter(|w| (1..=3).contains(&w[1].2.wrapping_sub(w[0].2)))
                .count();
            if counting * 10 >= (rail.len() - 1) * 8 {
                drop.extend(rail.iter().map(|n| (n.0, n.1)));
            }
        }
    }
    if drop.is_empty() {
        return rows;
    }
    for (r, row) in rows.iter_mut().enumerate() {
        let mut k = 0;
        row.retain(|_| {
            k += 1;
            !drop.contains(&(r, k - 1))
        });
    }
    rows.retain(|row| !row.is_empty());
    rows
}

/// Accents set as glyphs of their own over (or under) a letter, as TeX's `\accent` and old PostScript fonts do:
/// (mark index, letter index, combining character). The letter then carries the combining character, which the
/// line's normalisation composes ("o" + "¨" → "ö"), and the mark is not read on its own.
fn accents(row: &[&Glyph]) -> Vec<(usize, usize, char)> {
    let mut out = Vec::new();
    for (i, g) in row.iter().enumerate() {
        let Some(combining) = combining_accent(&g.text) else {
            continue;
        };
        let center = g.x + g.width.max(0.0) / 2.0;
        // The row is in x order, so the letter under a mark is one of its near neighbours.
        let letter = (i.saturating_sub(3)..(i + 4).min(row.len()))
            .filter(|&k| k != i && row[k].text.chars().count() == 1 && row[k].text.chars().all(char::is_alphabetic))
            .map(|k| (k, (row[k].x + row[k].width.max(0.0) / 2.0 - center).abs()))
            .filter(|&(k, d)| d <= 0.35 * row[k].width.max(g.width).max(0.2 * g.size))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((k, _)) = letter {
            out.push((i, k, combining));
        }
    }
    out
}

/// The combining form of a spacing accent.
fn combining_accent(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    Some(match c {
        '\u{a8}' => '\u{308}',
        '\u{b4}' | '\u{2ca}' => '\u{301}',
        '`' | '\u{2cb}' => '\u{300}',
        '^' | '\u{2c6}' => '\u{302}',
        '~' | '\u{2dc}' => '\u{303}',
        '\u{b8}' => '\u{327}',
        '\u{2d8}' => '\u{306}',
        '\u{2c7}' => '\u{30c}',
        '\u{2d9}' => '\u{307}',
        '\u{2da}' => '\u{30a}',
        '\u{2db}' => '\u{328}',
        '\u{2dd}' => '\u{30b}',
        '\u{af}' | '\u{2c9}' => '\u{304}',
        _ => return None,
    })
}

fn split_row(row: &[&Glyph]) -> Row {
    let accents = accents(row);
    let mut segs: Row = Vec::new();
    let mut last_end = f64::NEG_INFINITY;
    for (i, g) in row.iter().enumerate() {
        if accents.iter().any(|&(mark, _, _)| mark == i) {
            continue;
        }
        let gap = g.x - last_end;
        let start_new = match segs.last() {
            None => true,
            Some(s) => gap > SPLIT_GAP * s.size.max(g.size),
        };
        if start_new {
            segs.push(Segment {
                x0: g.x,
                x1: g.x,
                y: g.y,
                size: g.size,
                text: String::new(),
            });
        }
        let seg = segs.last_mut().expect("a segment was just pushed");
        if !start_new && gap > 0.15 * g.size {
            seg.text.push(' ');
        }
        if g.text.chars().count() > 1 && g.text.chars().all(is_rtl) {
            // One glyph for several right-to-left characters (a lam-alef ligature): its text is already in reading
            // order, so it goes in reversed, and the line's reordering turns it back.
            seg.text.extend(g.text.chars().rev());
        } else {
            seg.text.push_str(&g.text);
        }
        seg.text.extend(accents.iter().filter(|a| a.1 == i).map(|a| a.2));
        seg.x1 = seg.x1.max(g.x + g.width.max(0.0));
        seg.size = seg.size.max(g.size);
        last_end = last_end.max(g.x + g.width.max(0.0));
    }
    segs
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
    // Table rows count only in a stack of two or more (a table has rows; a loose line of text is alone).
    let tabular: Vec<bool> = rows.iter().map(|r| table_row(r, whole)).collect();
    let table = |i: usize| tabular[i] && (i > 0 && tabular[i - 1] || tabular.get(i + 1) == Some(&true));
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

/// True for a row of short table cells laid across the region (four or more, most of them a few characters,
/// spread over most of its width). It is read in place, so that a full-width table is not split between the
/// columns beside it.
fn table_row(row: &[Segment], width: f64) -> bool {
    // Cells: the row's segments merged across gaps narrower than a font size (justified word spaces).
    let mut cells: Vec<(f64, f64, f64)> = Vec::new();
    for s in row {
        match cells.last_mut() {
            Some(c) if s.x0 - c.1 < c.2.max(s.size) => c.1 = c.1.max(s.x1),
            _ => cells.push((s.x0, s.x1, s.size)),
        }
    }
    if cells.len() < 4 {
        return false;
    }
    let (a, b) = extent(row.iter());
    let size = median(cells.iter().map(|c| c.2).collect());
    let cell = median(cells.iter().map(|c| c.1 - c.0).collect());
    let ink: f64 = cells.iter().map(|c| c.1 - c.0).sum();
    b - a >= 0.6 * width && cell <= 4.0 * size && ink <= 0.55 * (b - a)
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
    match rows {
        [first, second, .., before_last, last] => (
            edges(first) && apart(first, second),
            edges(last) && apart(before_last, last),
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
fn merge_line(segs: Row) -> Option<Segment> {
    let mut it = segs.into_iter();
    let mut first = it.next()?;
    for s in it {
        first.text.push(' ');
        first.text.push_str(&s.text);
        first.x1 = s.x1;
        first.size = first.size.max(s.size);
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

/// Finds a candidate gutter in a region: the widest band in the middle 60% of its text that no more rows touch
/// than the emptiest spot does (plus a little slack for stray marks), at least 0.6 of a font size wide. Full-width
/// rows touch every spot alike, so they do not hide the gutter of the columns below or above them.
fn find_gutter(rows: &[Row]) -> Option<Gutter> {
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
        .filter(|(_, r)| longest_stretch(r) <= 0.5 * width)
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
    let allowed = floor + (rows.len() / 25).max(1);
    let mut best: Option<(usize, usize)> = None;
    let mut start = None;
    for b in from..=to + 1 {
        let low = coverage.get(b).is_some_and(|&c| b <= to && c <= allowed);
        match (low, start) {
            (true, None) => start = Some(b),
            (false, Some(s)) => {
                if best.is_none_or(|(bs, be)| be - bs < b - s) {
                    best = Some((s, b));
                }
                start = None;
            }
            _ => {}
        }
    }
    let (s, e) = best?;
    let gutter = Gutter {
        x0: lo + s as f64 * step,
        x1: lo + e as f64 * step,
    };
    let size = median(segs.iter().map(|s| s.size).collect());
    (gutter.x1 - gutter.x0 >= 0.6 * size).then_some(gutter)
}

/// True when a run of rows that leave the gutter empty forms two columns: three or more lines on each side, side
/// by side, each side spanning a quarter of the region and holding a block of at least three stacked lines, and
/// at least one side made of text lines that mostly fill their column (a table of short cells, or a few notes
/// beside a paragraph, is not two columns).
fn looks_like_columns(rows: &[Row], gutter: Gutter) -> bool {
    let (mut left, mut right): (Vec<Segment>, Vec<Segment>) = (Vec::new(), Vec::new());
    for row in rows {
        let (l, r) = gutter.split(row.clone());
        left.extend(merge_line(l));
        right.extend(merge_line(r));
    }
    if left.len() < 3 || right.len() < 3 {
        return false;
    }
    let beside = |a: &[Segment], b: &[Segment]| {
        let top = b.iter().map(|s| s.y + s.size).fold(f64::NEG_INFINITY, f64::max);
        let bottom = b.iter().map(|s| s.y - s.size).fold(f64::INFINITY, f64::min);
        a.iter().filter(|s| s.y <= top && s.y >= bottom).count() >= 2
    };
    let stacked = |side: &[Segment]| {
        let (mut best, mut run) = (1, 1);
        for w in side.windows(2) {
            let gap = w[0].y - w[1].y;
            run = if gap > 0.0 && gap <= 2.0 * w[0].size.max(w[1].size) {
                run + 1
            } else {
                1
            };
            best = best.max(run);
        }
        best >= 3
    };
    let text = |side: &[Segment]| {
        let x0 = side.iter().map(|s| s.x0).fold(f64::INFINITY, f64::min);
        let x1 = side.iter().map(|s| s.x1).fold(f64::NEG_INFINITY, f64::max);
        let line = median(side.iter().map(|s| s.x1 - s.x0).collect());
        line >= 0.4 * (x1 - x0) && line >= 10.0 * median(side.iter().map(|s| s.size).collect())
    };
    let (lo, hi) = extent(rows.iter().flatten());
    let broad = |side: &[Segment]| {
        let (a, b) = extent(side.iter());
        b - a >= 0.25 * (hi - lo)
    };
    broad(&left)
        && broad(&right)
        && beside(&left, &right)
        && beside(&right, &left)
        && stacked(&left)
        && stacked(&right)
        && (text(&left) || text(&right))
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

/// Splits ordered lines into paragraphs at wide vertical gaps, font-size changes and column jumps; a sentence (or
/// a hyphenated word) that runs on from the foot of one column to the head of the next stays one paragraph.
fn paragraphs(lines: &[Segment]) -> Vec<String> {
    // Line spacing is the smallest plausible gap (at least ~one font size); paragraph gaps are wider.
    let size = median(lines.iter().map(|l| l.size).collect());
    let typical = lines
        .windows(2)
        .map(|w| w[0].y - w[1].y)
        .filter(|g| *g >= 0.9 * size)
        .fold(f64::INFINITY, f64::min);
    let typical = if typical.is_finite() { typical } else { 0.0 };
    let compounds = compounds(lines);
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(prev) = i.checked_sub(1).map(|j| &lines[j]) {
            let gap = prev.y - line.y;
            let limit = if typical > 0.0 { 1.4 * typical } else { 1.6 * prev.size };
            let size_change = (prev.size - line.size).abs() > 0.15 * prev.size.max(line.size);
            let bullet = line.text.trim_start().starts_with(['•', '◦', '▪', '‣', '●', '■', '–']);
            let jump = gap < -0.5 * line.size && !runs_on(current.last(), &line.text);
            if gap > limit || jump || size_change || bullet {
                flush(&mut current, &mut out, &compounds);
            }
        }
        let text = clean_line(&line.text);
        if !text.is_empty() {
            current.push(text);
        }
    }
    flush(&mut current, &mut out, &compounds);
    out
}

/// True when the next line continues the sentence of the line before it: that line ends without a full stop (or
/// with a hyphenated word) and the next begins in lower case.
fn runs_on(last: Option<&String>, next: &str) -> bool {
    let Some(last) = last.map(|l| l.trim_end()) else {
        return false;
    };
    let open = last
        .chars()
        .last()
        .is_some_and(|c| c.is_alphabetic() || c == ',' || c == '-');
    open && next.trim_start().chars().next().is_some_and(char::is_lowercase)
}

/// The hyphenated compounds the page writes whole inside a line ("retrieval-augmented"), lower-cased: a line
/// that ends in "retrieval-" before "augmented" keeps its hyphen.
fn compounds(lines: &[Segment]) -> HashSet<String> {
    let mut out = HashSet::new();
    for line in lines {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        for w in words.iter().take(words.len().saturating_sub(1)) {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            if let Some((a, b)) = w.split_once('-') {
                if !a.is_empty() && !b.is_empty() && a.chars().chain(b.chars()).all(char::is_alphabetic) {
                    out.insert(w.to_lowercase());
                }
            }
        }
    }
    out
}

fn flush(current: &mut Vec<String>, out: &mut Vec<String>, compounds: &HashSet<String>) {
    if !current.is_empty() {
        let compound = |a: &str, b: &str| {
            let b = b.trim_end_matches(|c: char| !c.is_alphanumeric());
            compounds.contains(&format!("{a}-{b}").to_lowercase())
        };
        out.push(join_lines_keeping(current, &compound));
        current.clear();
    }
}

#[cfg(test)]
mod tests;

//! Reading order for one PDF page: positioned glyphs → lines → columns → paragraphs of plain text.
//!
//! Glyph decoding (encodings, ToUnicode CMaps) is pdf-extract's; this module only decides order and spacing,
//! which is where naive extraction goes wrong (interleaved two-column text, missing spaces, broken words).

use super::normalize::{clean_line, join_lines};

/// One decoded glyph in PDF user space (y grows upwards), with its effective font size and advance width.
#[derive(Debug, Clone)]
pub struct Glyph {
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub width: f64,
    pub text: String,
}

/// A run of glyphs on one baseline without a gutter-sized gap: a line of one column.
#[derive(Debug, Clone)]
struct Segment {
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    text: String,
}

/// Lays out the glyphs of a page of width `page_width` as text: paragraphs separated by a blank line.
pub fn page_text(glyphs: &[Glyph], page_width: f64) -> String {
    let lines = build_lines(glyphs);
    if lines.is_empty() {
        return String::new();
    }
    let ordered = order_by_columns(lines, page_width);
    paragraphs(&ordered).join("\n\n")
}

/// Groups glyphs into lines by baseline, then splits each line into segments at gaps wider than a gutter.
fn build_lines(glyphs: &[Glyph]) -> Vec<Vec<Segment>> {
    let mut gs: Vec<&Glyph> = glyphs
        .iter()
        .filter(|g| !g.text.trim().is_empty() && g.size > 0.0)
        .collect();
    gs.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x.total_cmp(&b.x)));
    let mut rows: Vec<Vec<&Glyph>> = Vec::new();
    for g in gs {
        match rows.last_mut() {
            Some(row) if (row[0].y - g.y).abs() <= 0.4 * row[0].size.max(g.size) => row.push(g),
            _ => rows.push(vec![g]),
        }
    }
    rows.into_iter()
        .map(|mut row| {
            row.sort_by(|a, b| a.x.total_cmp(&b.x));
            split_row(&row)
        })
        .collect()
}

fn split_row(row: &[&Glyph]) -> Vec<Segment> {
    let mut segs: Vec<Segment> = Vec::new();
    let mut last_end = f64::NEG_INFINITY;
    for g in row {
        let gap = g.x - last_end;
        let start_new = match segs.last() {
            None => true,
            Some(s) => gap > 1.5 * s.size.max(g.size),
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
        seg.text.push_str(&g.text);
        seg.x1 = seg.x1.max(g.x + g.width.max(0.0));
        seg.size = seg.size.max(g.size);
        last_end = last_end.max(g.x + g.width.max(0.0));
    }
    segs
}

/// Finds a vertical gutter (an empty band in the middle of the page with text on both sides of it) and, if
/// there is one, emits each run of columnar lines left column first; lines that cross the gutter (titles,
/// full-width paragraphs) stay where they are.
fn order_by_columns(lines: Vec<Vec<Segment>>, page_width: f64) -> Vec<Segment> {
    let Some((g0, g1)) = find_gutter(&lines, page_width) else {
        return lines.into_iter().flat_map(merge_line).collect();
    };
    let mut out = Vec::new();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for line in lines {
        let crosses = line.iter().any(|s| s.x0 < g0 && s.x1 > g1);
        if crosses {
            out.append(&mut left);
            out.append(&mut right);
            out.extend(merge_line(line));
            continue;
        }
        let (l, r): (Vec<Segment>, Vec<Segment>) = line.into_iter().partition(|s| s.x1 <= g1);
        left.extend(merge_line(l));
        right.extend(merge_line(r));
    }
    out.append(&mut left);
    out.append(&mut right);
    out
}

/// Joins the segments of one line (or one column's part of it) with spaces.
fn merge_line(segs: Vec<Segment>) -> Option<Segment> {
    let mut it = segs.into_iter();
    let mut first = it.next()?;
    for s in it {
        first.text.push(' ');
        first.text.push_str(&s.text);
        first.x1 = s.x1;
        first.size = first.size.max(s.size);
    }
    Some(first)
}

fn find_gutter(lines: &[Vec<Segment>], page_width: f64) -> Option<(f64, f64)> {
    let segs: Vec<&Segment> = lines.iter().flatten().collect();
    let width = page_width.max(segs.iter().map(|s| s.x1).fold(0.0, f64::max));
    if segs.len() < 6 || width <= 0.0 {
        return None;
    }
    const BIN: f64 = 2.0;
    let bins = (width / BIN).ceil() as usize + 1;
    let mut coverage = vec![0usize; bins];
    for s in &segs {
        let (a, b) = ((s.x0 / BIN).floor().max(0.0) as usize, (s.x1 / BIN).ceil() as usize);
        for c in coverage.iter_mut().take(b.min(bins)).skip(a) {
            *c += 1;
        }
    }
    let allowed = (lines.len() / 10).max(1);
    let (lo, hi) = ((0.2 * width / BIN) as usize, (0.8 * width / BIN) as usize);
    let mut best: Option<(usize, usize)> = None;
    let mut start = None;
    for (i, &c) in coverage.iter().enumerate().take(hi + 1).skip(lo) {
        match (c <= allowed, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                best = wider(best, (s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        best = wider(best, (s, hi + 1));
    }
    let (s, e) = best?;
    let (g0, g1) = (s as f64 * BIN, e as f64 * BIN);
    let median_size = median(segs.iter().map(|s| s.size).collect());
    let left = segs.iter().filter(|s| s.x1 <= g0 + BIN).count();
    let right = segs.iter().filter(|s| s.x0 >= g1 - BIN).count();
    let both = lines
        .iter()
        .filter(|l| l.iter().any(|s| s.x1 <= g0 + BIN) && l.iter().any(|s| s.x0 >= g1 - BIN))
        .count();
    (g1 - g0 >= median_size && left >= 3 && right >= 3 && both >= 2).then_some((g0, g1))
}

fn wider(best: Option<(usize, usize)>, cand: (usize, usize)) -> Option<(usize, usize)> {
    match best {
        Some(b) if b.1 - b.0 >= cand.1 - cand.0 => Some(b),
        _ => Some(cand),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Splits ordered lines into paragraphs at wide vertical gaps, font-size changes and column jumps.
fn paragraphs(lines: &[Segment]) -> Vec<String> {
    // Line spacing is the smallest plausible gap (at least ~one font size); paragraph gaps are wider.
    let size = median(lines.iter().map(|l| l.size).collect());
    let typical = lines
        .windows(2)
        .map(|w| w[0].y - w[1].y)
        .filter(|g| *g >= 0.9 * size)
        .fold(f64::INFINITY, f64::min);
    let typical = if typical.is_finite() { typical } else { 0.0 };
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(prev) = i.checked_sub(1).map(|j| &lines[j]) {
            let gap = prev.y - line.y;
            let limit = if typical > 0.0 { 1.4 * typical } else { 1.6 * prev.size };
            let size_change = (prev.size - line.size).abs() > 0.15 * prev.size.max(line.size);
            let bullet = line.text.trim_start().starts_with(['•', '◦', '▪', '‣', '●', '■', '–']);
            if gap > limit || gap < -0.5 * line.size || size_change || bullet {
                flush(&mut current, &mut out);
            }
        }
        let text = clean_line(&line.text);
        if !text.is_empty() {
            current.push(text);
        }
    }
    flush(&mut current, &mut out);
    out
}

fn flush(current: &mut Vec<String>, out: &mut Vec<String>) {
    if !current.is_empty() {
        out.push(join_lines(current));
        current.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(x: f64, y: f64, text: &str) -> Vec<Glyph> {
        let mut gs = Vec::new();
        let mut cx = x;
        for c in text.chars() {
            gs.push(Glyph {
                x: cx,
                y,
                size: 10.0,
                width: 5.0,
                text: c.to_string(),
            });
            cx += 5.0;
        }
        gs
    }

    #[test]
    fn spaces_come_from_gaps() {
        let mut g = word(72.0, 700.0, "hello");
        g.extend(word(100.0, 700.0, "world"));
        assert_eq!(page_text(&g, 612.0), "hello world");
    }

    #[test]
    fn two_columns_are_read_left_then_right() {
        let mut g = word(
            72.0,
            760.0,
            "A title that spans the whole page width across the gutter and more words",
        );
        for i in 0..5 {
            let y = 700.0 - 12.0 * i as f64;
            g.extend(word(320.0, y, &format!("right{i}")));
            g.extend(word(72.0, y, &format!("left{i}")));
        }
        let text = page_text(&g, 612.0);
        let words: Vec<&str> = text.split_whitespace().collect();
        let l4 = words.iter().position(|w| *w == "left4").unwrap();
        let r0 = words.iter().position(|w| *w == "right0").unwrap();
        assert!(l4 < r0, "left column must come first: {text}");
        assert!(text.starts_with("A title"));
    }

    #[test]
    fn wide_gaps_make_paragraphs() {
        let mut g = word(72.0, 700.0, "one");
        g.extend(word(72.0, 688.0, "two"));
        g.extend(word(72.0, 650.0, "three"));
        assert_eq!(page_text(&g, 612.0), "one two\n\nthree");
    }
}

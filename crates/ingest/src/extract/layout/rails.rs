//! Line numbers set apart. Before rows are built, wherever their rail runs: down the outer margin, or in the gutter
//! between two columns (LibreOffice's and Word's review numbering puts the right column's numbers there, a few
//! points from its text, so that on rows each number would join the line beside it and every row would run across
//! both columns). A rail is found from the glyphs: numbers of one to four digits, each a run of the content stream
//! of its own, aligned at one edge, counting up line by line; either in the margin beside all the page's other text,
//! or in a gutter: text on both sides of it, none across its band over its height, and the numbers set smaller
//! than that text (a table's column of pin numbers or codes is set at the table's size). After rows are built, a
//! rail left in the margin is dropped from them ([`drop_line_numbers`]).

use super::rows::stream_runs;
use super::{Glyph, Row, Segment};

/// The fewest numbers a rail holds.
const MIN_NUMBERS: usize = 5;
/// The fewest numbers of a rail beside one already found, at its size.
const MIN_BESIDE: usize = 2;
/// Numbers of a rail end (or start) within this many points of each other.
const ALIGN: f64 = 2.0;
/// Between texts, a rail's numbers are at most this fraction of the size of the text beside them.
const SMALLER: f64 = 0.8;

/// A number drawn on its own: its glyphs, extent, baseline, size and value.
#[derive(Clone)]
struct Number {
    glyphs: Vec<usize>,
    x0: f64,
    x1: f64,
    y: f64,
    size: f64,
    value: u32,
}

/// The numbers of the page's line-number rails, top to bottom (each a string of the rail's numbers), and which
/// glyphs they are.
pub(super) fn line_number_rails(glyphs: &[Glyph]) -> (Vec<String>, Vec<bool>) {
    let mut apart = vec![false; glyphs.len()];
    let numbers = numbers(glyphs);
    if numbers.len() < MIN_NUMBERS {
        return (Vec::new(), apart);
    }
    let mut numbered = vec![false; glyphs.len()];
    for n in &numbers {
        for &g in &n.glyphs {
            numbered[g] = true;
        }
    }
    let mut rails = Vec::new();
    let mut sizes: Vec<f64> = Vec::new();
    // First rails of five numbers or more; then, beside one, the short rail of a column with few lines (the page's
    // last lines, a column under a figure) numbered at the same size.
    for pass in 0..2 {
        for edge in [|n: &Number| n.x0, |n: &Number| n.x1] {
            let mut sorted: Vec<&Number> = numbers.iter().filter(|n| !apart[n.glyphs[0]]).collect();
            sorted.sort_by(|a, b| edge(a).total_cmp(&edge(b)));
            let mut start = 0;
            for i in 1..=sorted.len() {
                if i < sorted.len() && edge(sorted[i]) - edge(sorted[i - 1]) <= ALIGN {
                    continue;
                }
                let mut rail: Vec<&Number> = sorted[start..i].to_vec();
                start = i;
                rail.sort_by(|a, b| b.y.total_cmp(&a.y));
                // A number at either end that does not continue the count (a footnote mark under the column, a
                // page number) is not the rail's.
                let steps = |a: &Number, b: &Number| (1..=3).contains(&b.value.wrapping_sub(a.value));
                while rail.len() > 2 && !steps(rail[rail.len() - 2], rail[rail.len() - 1]) {
                    rail.pop();
                }
                while rail.len() > 2 && !steps(rail[0], rail[1]) {
                    rail.remove(0);
                }
                let fewest = if pass == 0 { MIN_NUMBERS } else { MIN_BESIDE };
                let like = |n: &&Number| sizes.iter().any(|&s| (n.size - s).abs() <= 0.05 * s);
                if rail.len() < fewest
                    || (pass == 1 && !rail.iter().all(like))
                    || !is_rail(glyphs, &numbered, &rail, pass == 1)
                {
                    continue;
                }
                for n in &rail {
                    for &g in &n.glyphs {
                        apart[g] = true;
                    }
                }
                sizes.extend(rail.iter().map(|n| n.size));
                rails.push(rail.iter().map(|n| n.value.to_string()).collect::<Vec<_>>().join(" "));
            }
        }
        if rails.is_empty() {
            break;
        }
    }
    (rails, apart)
}

/// The runs of the content stream that are a number of one to four digits and nothing else.
fn numbers(glyphs: &[Glyph]) -> Vec<Number> {
    let runs = stream_runs(glyphs);
    let mut out: Vec<Number> = Vec::new();
    let mut i = 0;
    while i < glyphs.len() {
        let mut j = i;
        while j < glyphs.len() && runs[j] == runs[i] {
            j += 1;
        }
        let run = &glyphs[i..j];
        let digits = run
            .iter()
            .all(|g| g.text.len() == 1 && g.text.as_bytes()[0].is_ascii_digit());
        if digits && run.len() <= 4 && run.iter().all(|g| g.turn == 0 && g.size > 0.0) {
            let text: String = run.iter().map(|g| g.text.as_str()).collect();
            out.push(Number {
                glyphs: (i..j).collect(),
                x0: run.iter().map(|g| g.x).fold(f64::INFINITY, f64::min),
                x1: run
                    .iter()
                    .map(|g| g.x + g.width.max(0.0))
                    .fold(f64::NEG_INFINITY, f64::max),
                y: run[0].y,
                size: run.iter().map(|g| g.size).fold(0.0, f64::max),
                value: text.parse().unwrap_or(0),
            });
        }
        i = j;
    }
    out
}

/// Whether numbers aligned at one edge (top to bottom) are a rail of line numbers; `beside` when they are set
/// at the size of a rail already found on the page. `numbered`: the glyphs of numbers drawn on their own.
fn is_rail(glyphs: &[Glyph], numbered: &[bool], rail: &[&Number], beside_one: bool) -> bool {
    if rail.len() < MIN_BESIDE || !rail.iter().all(|n| n.x0.is_finite() && n.x1.is_finite()) {
        return false;
    }
    // One number a line, counting up by one to three from line to line (blank lines and display lines skip some).
    let counting = rail
        .windows(2)
        .filter(|w| w[0].y - w[1].y > 0.5 * w[0].size && (1..=3).contains(&w[1].value.wrapping_sub(w[0].value)))
        .count();
    if counting * 10 < (rail.len() - 1) * 8 {
        return false;
    }
    let size = rail.iter().map(|n| n.size).fold(0.0, f64::max);
    let (x0, x1) = rail.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), n| {
        (a.min(n.x0), b.max(n.x1))
    });
    let (top, bottom) = (rail[0].y + size, rail[rail.len() - 1].y - size);
    let member: std::collections::HashSet<usize> = rail.iter().flat_map(|n| n.glyphs.iter().copied()).collect();
    // Where the page's other text lies against the band: over the whole page (a rail in the margin is beside all of
    // it), and over the rail's height (a rail in a gutter has text on both sides and none across).
    let (mut page_left, mut page_right) = (false, false);
    let (mut left, mut right, mut crossing) = (false, false, 0usize);
    let mut beside: Vec<f64> = Vec::new();
    for (k, g) in glyphs.iter().enumerate() {
        if member.contains(&k) || !g.text.chars().any(char::is_alphanumeric) {
            continue;
        }
        let (gx0, gx1) = (g.x, g.x + g.width.clamp(0.0, g.size.max(0.0)));
        let (is_left, is_right) = (gx1 <= x0 + 0.5, gx0 >= x1 - 0.5);
        // Numbers of their own do not count (the rail's numbers of a footnote, restarting at 1).
        if !numbered[k] {
            page_left |= !is_right;
            page_right |= !is_left;
        }
        if g.y > top || g.y < bottom {
            continue;
        }
        left |= is_left;
        right |= is_right;
        if is_left || is_right {
            beside.push(g.size);
        } else {
            crossing += 1;
        }
    }
    if !(page_left && page_right) {
        return true;
    }
    // In a gutter: no text across the band (a stray glyph or two, a figure's label, is let pass), text on both
    // sides, and numbers smaller than that text. A rail beside another, at its size, may have text on one side
    // only (a column's last lines, with nothing left of them).
    if crossing * 10 > rail.len() {
        return false;
    }
    if !(left && right) {
        return beside_one;
    }
    beside.sort_by(f64::total_cmp);
    let median = beside.get(beside.len() / 2).copied().unwrap_or(0.0);
    size <= SMALLER * median
}

/// Removes line numbers: a rail of five or more numbers set down the page at one edge (left- or right-aligned
/// within 2pt), counting up by one to three from line to line, in the margin beside all the page's other text,
/// as LaTeX's `lineno`, legal and draft documents set them. A table's column of codes or modes (0, 1, 2 …) also
/// counts up, but it lies in the text block, so it stays.
pub(super) fn drop_line_numbers(mut rows: Vec<Row>) -> Vec<Row> {
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
            if counting * 10 >= (rail.len() - 1) * 8 && in_margin(&rows, &rail) {
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

/// Whether a rail of numbers lies wholly left or wholly right of every other segment of the page.
fn in_margin(rows: &[Row], rail: &[(usize, usize, u32)]) -> bool {
    let member: std::collections::HashSet<(usize, usize)> = rail.iter().map(|n| (n.0, n.1)).collect();
    let seg = |n: &(usize, usize, u32)| &rows[n.0][n.1];
    let (rail_x0, rail_x1) = rail.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), n| {
        (a.min(seg(n).x0), b.max(seg(n).x1))
    });
    let (mut others_x0, mut others_x1) = (f64::INFINITY, f64::NEG_INFINITY);
    for (r, row) in rows.iter().enumerate() {
        for (_, s) in row.iter().enumerate().filter(|(k, _)| !member.contains(&(r, *k))) {
            others_x0 = others_x0.min(s.x0);
            others_x1 = others_x1.max(s.x1);
        }
    }
    const GAP: f64 = 1.0;
    rail_x1 < others_x0 - GAP || rail_x0 > others_x1 + GAP
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(out: &mut Vec<Glyph>, text: &str, x: f64, y: f64, size: f64) {
        let w = 0.5 * size;
        for (i, c) in text.chars().enumerate() {
            out.push(Glyph {
                x: x + i as f64 * w,
                y,
                size,
                width: w,
                text: c.to_string(),
                turn: 0,
            });
        }
    }

    /// Two columns of lines, with numbers drawn last: the gutter's at x 296, the margin's at x 60.
    fn page(number_size: f64) -> Vec<Glyph> {
        let mut g = Vec::new();
        for k in 0..8 {
            let y = 700.0 - 12.0 * k as f64;
            word(&mut g, "left column text", 72.0, y, 10.0);
            word(&mut g, "right column text", 312.0, y, 10.0);
        }
        for k in 0..8 {
            let y = 700.0 - 12.0 * k as f64;
            word(&mut g, &(k + 1).to_string(), 60.0, y, number_size);
            word(&mut g, &(k + 9).to_string(), 296.0, y, number_size);
        }
        g
    }

    #[test]
    fn small_numbers_in_the_gutter_and_the_margin_are_rails() {
        let g = page(5.5);
        let (rails, apart) = line_number_rails(&g);
        assert_eq!(rails.len(), 2, "{rails:?}");
        assert!(rails.contains(&"9 10 11 12 13 14 15 16".to_string()), "{rails:?}");
        assert_eq!(
            apart.iter().filter(|&&a| a).count(),
            8 + 1 + 7 * 2,
            "every digit of both rails"
        );
    }

    #[test]
    fn numbers_as_large_as_the_text_between_columns_stay() {
        // A table's column of row numbers between its other columns, at the table's own size.
        let g = page(10.0);
        let (rails, apart) = line_number_rails(&g);
        assert_eq!(rails, vec!["1 2 3 4 5 6 7 8".to_string()], "only the margin's");
        assert!(!apart.iter().enumerate().any(|(k, &a)| a && g[k].x > 290.0));
    }
}

//! Rows of a page: glyphs grouped by baseline into rows of segments, keeping apart text drawn over other text
//! (each run of the content stream stays together, and one that overlaps text already on its baseline becomes a
//! layer of its own), and composing accents set as glyphs of their own.

use super::{is_rtl, Glyph, Row, Segment, SPLIT_GAP};

/// Groups glyphs into rows by baseline, then splits each row into segments at gaps wider than a word space.
pub(super) fn build_rows(glyphs: &[Glyph]) -> Vec<Row> {
    let runs = stream_runs(glyphs);
    let spaced = after_spaces(glyphs);
    let boxes = run_boxes(glyphs, &runs);
    let struck = overstruck(glyphs);
    let mut gs: Vec<(usize, &Glyph)> = glyphs
        .iter()
        .zip(runs)
        .zip(struck)
        .filter(|(_, struck)| !struck)
        .map(|(gr, _)| gr)
        .filter(|(g, _)| g.size > 0.0 && g.text.chars().any(|c| !c.is_whitespace() && !c.is_control()))
        .map(|(g, r)| (r, g))
        .collect();
    gs.sort_by(|(_, a), (_, b)| b.y.total_cmp(&a.y).then(a.x.total_cmp(&b.x)));
    // A row's baseline is that of its largest glyph so far: a superscript that comes first (it sits higher) takes
    // in the larger glyphs of its line up to 0.6 of their size below it and hands the baseline over to them,
    // while a smaller glyph must sit within 0.35 of the baseline's size (a subscript; Chromium lowers one by 0.3), so
    // that small labels around a large one in a figure do not chain into one row. Whatever the reach, a run of text
    // never joins a row holding another run on a different baseline under it (two lines that overlap vertically, a
    // figure's label over a body line): rows are lines as the page draws them, never two lines interleaved.
    let mut rows: Vec<OpenRow> = Vec::new();
    for (run, g) in gs {
        let joins = |row: &OpenRow| {
            let base = row.base;
            let reach = if g.size > 1.05 * base.size {
                0.6 * g.size
            } else if g.size < 0.95 * base.size {
                0.35 * base.size
            } else {
                0.4 * base.size.max(g.size)
            };
            (base.y - g.y).abs() <= reach && !row.runs.iter().any(|&r| r != run && stacked(&boxes[r], &boxes[run]))
        };
        match rows.last_mut() {
            Some(row) if joins(row) => {
                if g.size > row.base.size {
                    row.base = g;
                }
                if row.runs.last() != Some(&run) && row.runs.len() < MAX_RUNS && !row.runs.contains(&run) {
                    row.runs.push(run);
                }
                row.glyphs.push((run, g));
            }
            _ => rows.push(OpenRow {
                base: g,
                glyphs: vec![(run, g)],
                runs: vec![run],
            }),
        }
    }
    rows.into_iter()
        .flat_map(|row| layers(row.glyphs))
        .map(|mut layer| {
            layer.sort_by(|a, b| a.x.total_cmp(&b.x));
            split_row(&layer, &spaced)
        })
        .collect()
}

/// A row being built: its base glyph (the largest so far), its glyphs with their runs, and its runs (at most
/// [`MAX_RUNS`] of them are remembered).
struct OpenRow<'a> {
    base: &'a Glyph,
    glyphs: Vec<(usize, &'a Glyph)>,
    runs: Vec<usize>,
}

/// Where a run of the content stream lies: its letters' spans `(start, end)` in x order, its baseline and its largest
/// size.
#[derive(Debug, Clone)]
struct RunBox {
    spans: Vec<(f64, f64)>,
    y: f64,
    size: f64,
}

/// The box of each run (indexed by run number).
fn run_boxes(glyphs: &[Glyph], runs: &[usize]) -> Vec<RunBox> {
    let mut out: Vec<RunBox> = Vec::new();
    for (g, &r) in glyphs.iter().zip(runs) {
        if r == out.len() {
            out.push(RunBox {
                spans: Vec::new(),
                y: g.y,
                size: 0.0,
            });
        }
        let b = &mut out[r];
        b.size = b.size.max(g.size);
        if g.text.chars().any(char::is_alphanumeric) && g.x.is_finite() {
            // An advance is believed up to one font size (a font without widths, or a broken one, says anything).
            b.spans.push((g.x, g.x + g.width.clamp(0.0, g.size.max(0.0))));
        }
    }
    for b in &mut out {
        b.spans.sort_by(|p, q| p.0.total_cmp(&q.0));
    }
    out
}

/// Whether two runs are lines of their own, one over the other: their baselines lie more than a quarter of the
/// larger size apart, and two letters or more of one sit over letters of the other (each overlapping by more than
/// a quarter of its width). A superscript beside its word, or an index stacked over another, never counts.
fn stacked(a: &RunBox, b: &RunBox) -> bool {
    let size = a.size.max(b.size);
    if a.spans.len() < 2 || b.spans.len() < 2 || (a.y - b.y).abs() <= 0.25 * size {
        return false;
    }
    let (few, many) = if a.spans.len() <= b.spans.len() { (a, b) } else { (b, a) };
    let (lo, hi) = (many.spans[0].0, many.spans.iter().map(|s| s.1).fold(f64::MIN, f64::max));
    let mut over = 0;
    for &(s, e) in few.spans.iter().filter(|&&(s, e)| e > lo && s < hi) {
        let k = many.spans.partition_point(|p| p.0 < e);
        let hit = many.spans[k.saturating_sub(3)..k]
            .iter()
            .any(|&(ms, me)| e.min(me) - s.max(ms) > 0.25 * (e - s).min(me - ms).max(0.1));
        if hit {
            over += 1;
            if over >= 2 {
                return true;
            }
        }
    }
    false
}

/// Glyphs struck a second time over themselves, each right after the first and a hair to the side (bold faked
/// by overstriking, as texinfo's index and old typewriter-style PDFs do): read once. A doubled letter ("ll") is
/// a whole advance further on, so it stays.
fn overstruck(glyphs: &[Glyph]) -> Vec<bool> {
    let mut out = vec![false; glyphs.len()];
    for i in 1..glyphs.len() {
        let (a, b) = (&glyphs[i - 1], &glyphs[i]);
        let near = 0.25 * a.width.max(0.3 * a.size);
        out[i] = !out[i - 1]
            && a.text == b.text
            && (a.size - b.size).abs() <= 0.01 * a.size
            && (a.x - b.x).abs() < near
            && (a.y - b.y).abs() <= 0.05 * a.size;
    }
    out
}

/// Numbers the runs of the content stream: a glyph continues the run of the glyph drawn before it when it sits
/// on the same baseline at a like size, no further back than a fraction of a letter and no further on than a
/// wide gap.
pub(super) fn stream_runs(glyphs: &[Glyph]) -> Vec<usize> {
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

/// The glyphs that the content stream draws right after a space of their line: a space glyph drawn between
/// the glyph before it and this one, on their baseline. Where a producer writes its spaces, they say where words
/// end, however tight the print (small print set with a negative spacing, words a tenth of a size apart).
fn after_spaces(glyphs: &[Glyph]) -> std::collections::HashSet<*const Glyph> {
    let mut out = std::collections::HashSet::new();
    let mut last: Option<&Glyph> = None;
    let mut space: Option<&Glyph> = None;
    for g in glyphs {
        if g.text.chars().all(char::is_whitespace) {
            if last.is_some() && !g.text.is_empty() {
                space = Some(g);
            }
            continue;
        }
        if let (Some(p), Some(s)) = (last, space) {
            let near = |a: &Glyph| (a.y - g.y).abs() < 0.2 * g.size.max(a.size);
            if near(p) && near(s) && p.x < s.x && s.x <= g.x + 0.1 * g.size {
                out.insert(std::ptr::from_ref(g));
            }
        }
        last = Some(g);
        space = None;
    }
    out
}

/// The gaps between letters of a word, as the row sets them: its median gap between neighbouring glyphs, when that
/// is below zero (a font whose advances are wider than its glyphs are set, or text set tight with a negative
/// letter spacing: every gap is then short of its width, word spaces too), else zero. In font sizes.
fn letter_gap(row: &[&Glyph]) -> f64 {
    let mut gaps: Vec<f64> = row
        .windows(2)
        .filter(|w| w[0].size > 0.0 && (w[1].y - w[0].y).abs() < 0.2 * w[0].size)
        .map(|w| (w[1].x - (w[0].x + w[0].width.max(0.0))) / w[0].size)
        .filter(|g| g.abs() < SPLIT_GAP)
        .collect();
    if gaps.len() < LETTER_GAPS {
        return 0.0;
    }
    let mid = gaps.len() / 2;
    let (_, median, _) = gaps.select_nth_unstable_by(mid, f64::total_cmp);
    median.clamp(-MAX_TIGHT, 0.0)
}

/// The fewest gaps in a row for its median to tell how its letters are set.
const LETTER_GAPS: usize = 12;
/// The most a row's letters may be set closer than their advances (in font sizes) for word spaces to be measured
/// from there.
const MAX_TIGHT: f64 = 0.12;
/// A gap this much wider than the row's gaps between letters (in font sizes) is a word space.
const WORD_GAP: f64 = 0.15;

/// A glyph after a space the producer wrote starts a word when it lies at least this much (in font sizes) further
/// from the glyph before than the row's letters do.
const WRITTEN_GAP: f64 = 0.03;

fn split_row(row: &[&Glyph], spaced: &std::collections::HashSet<*const Glyph>) -> Row {
    let accents = accents(row);
    let tight = letter_gap(row);
    let mut segs: Row = Vec::new();
    let mut last_end = f64::NEG_INFINITY;
    let mut last_size = 0.0_f64;
    let mut prev: Option<&Glyph> = None;
    for (i, g) in row.iter().enumerate() {
        if accents.iter().any(|&(mark, _, _)| mark == i) {
            continue;
        }
        let gap = g.x - last_end;
        // The gap is weighed against the glyphs on either side of it, not the segment's largest: a drop cap (a
        // 28 pt initial beside 10 pt lines) would make every gap after it on the row a word space, the gutter too.
        let start_new = match segs.last() {
            None => true,
            Some(_) => gap > SPLIT_GAP * last_size.max(g.size),
        };
        if start_new {
            segs.push(Segment {
                x0: g.x,
                x1: g.x,
                y: g.y,
                size: g.size,
                text: String::new(),
                cells: Vec::new(),
                furniture: false,
            });
        }
        let seg = segs.last_mut().expect("a segment was just pushed");
        let written = spaced.contains(&std::ptr::from_ref(*g)) && gap > (tight + WRITTEN_GAP) * g.size;
        let marker = !start_new && footnote_marker(prev, g, &seg.text);
        if !start_new && (gap > (tight + WORD_GAP) * g.size || written || marker) {
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
        last_size = g.size;
        prev = Some(g);
    }
    segs
}

/// Whether `g` is a footnote's number set as a superscript right after a word ("temperature³" in a table's label):
/// a digit, smaller than the letter before it and raised above its baseline, after a word of three letters or more
/// (a unit's square, "cm²", and a variable's power, "x²", follow shorter ones). pdftotext reads it apart too.
fn footnote_marker(prev: Option<&Glyph>, g: &Glyph, text: &str) -> bool {
    let Some(p) = prev else { return false };
    let word = text.rsplit(' ').next().unwrap_or_default();
    g.text.chars().all(|c| c.is_ascii_digit())
        && !g.text.is_empty()
        && p.text.chars().all(char::is_alphabetic)
        && word.chars().rev().take_while(|c| c.is_alphabetic()).count() >= 3
        && g.size <= 0.8 * p.size
        && g.y - p.y >= 0.2 * p.size
}

//! Cells that span several rows of a table (a merged cell): a row label or a unit printed once, on a line of its
//! own between its rows or level with the middle one. Each row of the span gets the cell, so that every row read on
//! its own keeps its label and its unit ("Voltage (with respect to GND); VCC…; MAX: 33; UNIT: V").
//!
//! Without the table's rules, the span is read from where the cell sits. A row that holds figures but no cell in
//! the column (a receiver) takes it from a donor next to its run of receivers:
//! - a donor without figures of its own (a label or unit alone on its line: a few words, not a sentence) set
//!   between two rows, closer to each
//!   than rows are to one another, is centred on its span: it gives to the receivers just above and just below;
//!   one that stands a row's height above the next row heads its group and gives only below;
//! - a donor with figures gives only when it is the middle of a span in a table whose first row of figures lacks
//!   the cell too (cells set level with the middle of their rows): as many receivers just above it as below;
//!   or, in any table, to as many receivers above it as below that hold nothing left of their figures (no label,
//!   no symbol: both printed once for the span). A label given so brings the cells between it and the receiver's
//!   first cell (the symbol) along, and such a receiver goes to that donor rather than to a section's title above.
//!
//! A receiver claimed twice goes to the donor nearer to it, or to neither when they are as near.

use super::{numeric, BodyRow, Part};

/// Gives the cells of column `band` that span rows to each row of their span; returns the donors without figures
/// that gave (see [`drop_carriers`]).
pub(super) fn fill(rows: &mut [BodyRow], band: usize) -> Vec<usize> {
    let n = rows.len();
    let has: Vec<bool> = rows.iter().map(|r| r.parts.iter().any(|p| p.band == band)).collect();
    let figures: Vec<bool> = (rows.iter())
        .map(|r| r.parts.iter().any(|p| p.band != band && numeric(&p.text)))
        .collect();
    let y: Vec<f64> = rows.iter().map(|r| r.parts.first().map_or(0.0, |p| p.y)).collect();
    let mut steps: Vec<f64> = y.windows(2).map(|w| w[0] - w[1]).filter(|d| *d > 0.0).collect();
    steps.sort_by(f64::total_cmp);
    let pitch = steps.get(steps.len() / 2).copied().unwrap_or(0.0);
    let receiver = |i: usize| figures[i] && !has[i];
    let first_row_lacks = (0..n).find(|&i| figures[i]).is_some_and(|i| !has[i]);
    // Each receiver's claims: (donor, distance).
    let mut claims: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for d in (0..n).filter(|&d| has[d]) {
        let above: Vec<usize> = (0..d).rev().take_while(|&i| receiver(i)).collect();
        let below: Vec<usize> = (d + 1..n).take_while(|&i| receiver(i)).collect();
        let between = |i: usize, j: usize| y[i] - y[j] > 0.0 && y[i] - y[j] < 0.75 * pitch;
        let centred = d > 0 && d + 1 < n && between(d - 1, d) && between(d, d + 1);
        let targets: Vec<usize> = if !figures[d] && !label_like(&rows[d], band) {
            Vec::new()
        } else if !figures[d] {
            below.into_iter().chain(above.into_iter().filter(|_| centred)).collect()
        } else if first_row_lacks && !above.is_empty() && above.len() == below.len() {
            above.into_iter().chain(below).collect()
        } else {
            // Rows with nothing left of their figures around a row with its label: the label (and the unit) set
            // level with the middle of their span, as many rows above it as below.
            let k = above.len().min(below.len());
            let span: Vec<usize> = above[..k].iter().chain(&below[..k]).copied().collect();
            if k > 0 && span.iter().all(|&i| bare(&rows[i])) {
                span
            } else {
                Vec::new()
            }
        };
        for t in targets {
            claims[t].push((d, (y[t] - y[d]).abs()));
        }
    }
    let mut carriers = Vec::new();
    for t in 0..n {
        let mut c = claims[t].clone();
        // A row with nothing left of its figures belongs to the span of a row with figures around it rather than
        // under a section's title above.
        if bare(&rows[t]) && c.iter().any(|&(d, _)| figures[d]) {
            c.retain(|&(d, _)| figures[d]);
        }
        c.sort_by(|a, b| a.1.total_cmp(&b.1));
        let d = match c.as_slice() {
            [] => continue,
            [only] => only.0,
            [near, next, ..] if next.1 - near.1 > 0.1 * pitch => near.0,
            _ => continue,
        };
        if !figures[d] {
            carriers.push(d);
        }
        // A row label set in the middle of its span gives the cells beside it too (the symbol), up to the row's
        // own first cell.
        let given: Vec<usize> = if figures[d] && band == 0 {
            let first = rows[t].parts.iter().map(|p| p.band).min().unwrap_or(0);
            (0..first.max(1)).collect()
        } else {
            vec![band]
        };
        let (start, end) = (rows[t].start(), rows[t].end());
        for b in given {
            let text: Vec<String> = (rows[d].parts.iter())
                .filter(|p| p.band == b)
                .map(|p| p.text.clone())
                .collect();
            if !text.is_empty() {
                rows[t].parts.push(Part {
                    y: y[t],
                    band: b,
                    text: text.join(" "),
                    start,
                    end,
                });
            }
        }
    }
    carriers
}

/// Whether a row holds nothing left of its first figure: no label, no symbol (they are printed once for its span).
fn bare(row: &BodyRow) -> bool {
    let first = row.parts.iter().min_by_key(|p| p.band);
    first.is_some_and(|p| numeric(&p.text) || p.text.trim() == "—" || p.text.trim() == "-")
}

/// Whether a row's cell in column `band` reads as a label or a unit printed once for several rows: a letter or
/// more, at most six words, not a sentence (a wrapped line of a description ends in a full stop).
fn label_like(row: &BodyRow, band: usize) -> bool {
    let text: Vec<&str> = (row.parts.iter())
        .filter(|p| p.band == band)
        .map(|p| p.text.trim())
        .collect();
    let text = text.join(" ");
    text.chars().any(char::is_alphabetic) && text.split_whitespace().count() <= 6 && !text.ends_with('.')
}

/// Drops the `carriers` (rows that gave their spanning cells) that hold nothing but cells of the `bands` given out:
/// a label and unit alone on their line, now in each row of their span.
pub(super) fn drop_carriers(rows: &mut Vec<BodyRow>, mut carriers: Vec<usize>, bands: &[usize]) {
    carriers.sort_unstable();
    carriers.dedup();
    for d in carriers.into_iter().rev() {
        if rows[d].parts.iter().all(|p| bands.contains(&p.band)) {
            rows.remove(d);
        }
    }
}

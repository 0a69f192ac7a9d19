//! Whether a run of rows beside a gutter is two columns of text, or a table whose cells merely leave the
//! gutter empty (short cells level with the lines beside them, read row by row).

use super::{cells, extent, median, merge_line, Gutter, Row, Segment};

/// True when a run of rows that leave the gutter empty forms two columns: three or more lines on each side, side
/// by side, each side spanning a quarter of the region and holding a block of at least three stacked lines (or
/// of two long lines of prose beside three), and
/// at least one side made of text lines that mostly fill their column (a table of short cells, or a few notes
/// beside a paragraph, is not two columns).
pub(super) fn looks_like_columns(rows: &[Row], gutter: Gutter) -> bool {
    let (mut left, mut right): (Vec<Segment>, Vec<Segment>) = (Vec::new(), Vec::new());
    // Each side's runs before they are merged into lines: a line takes its first run's baseline, and a label that
    // shares a row with another at a slightly different height must still count as level with its cells.
    let (mut left_runs, mut right_runs): (Vec<Segment>, Vec<Segment>) = (Vec::new(), Vec::new());
    // Per side and row: how many cells, and the widest.
    let (mut left_cells, mut right_cells): (Vec<CellShape>, Vec<CellShape>) = (Vec::new(), Vec::new());
    // Running headers and footers stand apart from both: they tell nothing of columns.
    for row in rows {
        let row: Row = row.iter().filter(|s| !s.furniture).cloned().collect();
        if row.is_empty() {
            continue;
        }
        let (l, r) = gutter.split(row);
        for (side, cells_of) in [(&l, &mut left_cells), (&r, &mut right_cells)] {
            let c = cells(side);
            if !c.is_empty() {
                cells_of.push((c.len(), c.iter().map(|c| c.1 - c.0).fold(0.0, f64::max)));
            }
        }
        left_runs.extend(l.iter().cloned());
        right_runs.extend(r.iter().cloned());
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
    let stacked = |side: &[Segment], lines: usize| {
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
        best >= lines
    };
    // Lines that mostly fill their column: at least `fill` of its width and `sizes` font sizes long.
    let filled = |side: &[Segment], fill: f64, sizes: f64| {
        let x0 = side.iter().map(|s| s.x0).fold(f64::INFINITY, f64::min);
        let x1 = side.iter().map(|s| s.x1).fold(f64::NEG_INFINITY, f64::max);
        let line = median(side.iter().map(|s| s.x1 - s.x0).collect());
        line >= fill * (x1 - x0) && line >= sizes * median(side.iter().map(|s| s.size).collect())
    };
    let text = |side: &[Segment]| filled(side, 0.4, 10.0);
    // A block of three stacked lines on each side, or of two on a side of long lines of prose (a column that
    // ends two lines into the page, above its footnote).
    let block = |side: &[Segment]| stacked(side, 3) || stacked(side, 2) && filled(side, 0.6, 15.0);
    let (lo, hi) = extent(rows.iter().flatten());
    let broad = |side: &[Segment]| {
        let (a, b) = extent(side.iter());
        b - a >= 0.25 * (hi - lo)
    };
    // A table whose cells wrap (an option and its meaning over two lines) leaves a gutter too; but one side holds
    // short cells, each level with a line of the other side: it is read row by row.
    if cells_beside_lines(&left, &left_cells, &right_runs) || cells_beside_lines(&right, &right_cells, &left_runs) {
        return false;
    }
    broad(&left)
        && broad(&right)
        && beside(&left, &right)
        && beside(&right, &left)
        && block(&left)
        && block(&right)
        && (stacked(&left, 3) || stacked(&right, 3))
        && (text(&left) || text(&right))
}

/// A row side's cell count and widest cell.
type CellShape = (usize, f64);

/// Whether one side's lines are a table's cells beside the other side's `lines`: short (a median of at most three
/// words a cell, the widest cell of a row at most 80% of the side's width unless cells hold two words or fewer)
/// and nearly all level with a line of the other side (all but two, beside five or more; a wrapped cell's lines
/// beside its row's one line count as level). Two columns of prose share baselines too, but their lines fill
/// their column, however narrow.
/// `shape` holds each row's cell count and widest cell.
fn cells_beside_lines(cells: &[Segment], shape: &[CellShape], lines: &[Segment]) -> bool {
    if cells.len() < 4 {
        return false;
    }
    let words = median(
        cells
            .iter()
            .zip(shape)
            .map(|(s, (n, _))| s.text.split_whitespace().count() as f64 / (*n).max(1) as f64)
            .collect(),
    );
    let (x0, x1) = extent(cells.iter());
    let widest = median(shape.iter().map(|(_, w)| *w).collect());
    // Cells of one or two words (an instruction and its operands, a pin name) may fill a narrow side; a line of
    // prose never holds so few words.
    if words > 3.0 || widest > 0.8 * (x1 - x0) && words > 2.0 {
        return false;
    }
    // Baselines of the other side, sorted, so each cell looks only at the lines near its own.
    let mut ys: Vec<(f64, f64)> = lines.iter().map(|l| (l.y, l.size)).collect();
    ys.sort_by(|a, b| a.0.total_cmp(&b.0));
    let reach = 0.25 * cells.iter().chain(lines).map(|s| s.size).fold(0.0, f64::max);
    let mut level: Vec<bool> = cells
        .iter()
        .map(|c| {
            let from = ys.partition_point(|l| l.0 < c.y - reach);
            ys[from..]
                .iter()
                .take_while(|l| l.0 <= c.y + reach)
                .any(|l| (l.0 - c.y).abs() <= 0.25 * c.size.max(l.1))
        })
        .collect();
    // Where the other side is a table's cells too (a few words a run), cells above its first line or under its
    // last are beside nothing: a table's title and notes, a section row, the notes under the table. Beside prose
    // (a code listing beside its typeset output), every cell counts.
    let table_beside = median(lines.iter().map(|l| l.text.split_whitespace().count() as f64).collect()) <= 3.0;
    // Only where cells are a word or two (figures, units), and at least half of them already stand level: lines
    // of three or more words stacked beside one line are as often a column's equation and its indices, and a
    // column of code beside its output is cut by its few level lines into stacks of a few lines each.
    let level_now = level.iter().filter(|&&l| l).count();
    if words <= 2.0 && 2 * level_now >= cells.len() {
        wrapped_beside_one_line(cells, &mut level, &ys, reach);
    } else if words <= 2.0 && table_beside && 3 * level_now >= cells.len() {
        wrapped_under_row_lines(cells, shape, &mut level, &ys);
    }
    let (low, high) = (
        ys.first().map_or(0.0, |l| l.0) - reach,
        ys.last().map_or(0.0, |l| l.0) + reach,
    );
    let within: Vec<bool> = cells
        .iter()
        .map(|c| !table_beside || (low..=high).contains(&c.y))
        .collect();
    let n = within.iter().filter(|&&w| w).count();
    let level = level.iter().zip(&within).filter(|&(&l, &w)| l && w).count();
    // A table's header over its figures and a unit cell spanning several rows stand level with no line: two such
    // cells are allowed beside five or more that are level.
    level as f64 >= 0.8 * n as f64 || level >= 5 && n - level <= 2
}

/// Marks as level the lines of a cell that wraps (two or more stacked lines of `cells`, each at most 1.6 font sizes
/// below the one before, none of them level with a line) when exactly one baseline of the other side (`ys`,
/// sorted) lies within their height: a table's wrapped cell beside its row's label ("see Section 6.3.14: Absolute
/// maximum ratings…" beside "VESD(HBM)"). A column of text beside another has many lines within any stretch. Then
/// marks as level a line next to a level line of its side with no line of the other side between them: a cell
/// wrapped around its row's line, one line above it and one below.
fn wrapped_beside_one_line(cells: &[Segment], level: &mut [bool], ys: &[(f64, f64)], reach: f64) {
    let mut k = 0;
    while k < cells.len() {
        if level[k] {
            k += 1;
            continue;
        }
        let mut end = k + 1;
        while end < cells.len()
            && !level[end]
            && cells[end - 1].y - cells[end].y > 0.0
            && cells[end - 1].y - cells[end].y <= 1.6 * cells[end - 1].size.max(cells[end].size)
        {
            end += 1;
        }
        if end - k >= 2 {
            let (low, high) = (cells[end - 1].y - reach, cells[k].y + reach);
            let mut baselines: Vec<f64> = Vec::new();
            for &(y, _) in ys.iter().filter(|l| (low..=high).contains(&l.0)) {
                if baselines.last().is_none_or(|&b| y - b > reach) {
                    baselines.push(y);
                }
            }
            if baselines.len() == 1 {
                level[k..end].iter_mut().for_each(|l| *l = true);
            }
        }
        k = end;
    }
    // A cell wrapped around its row's line: one line above the row's level line and one below ("Ethernet cable
    // disconnected" / "— mA" / "(Reg. 18h.11 = 0)"). A line next to a level line of its side, no further than
    // 1.6 font sizes, with no line of the other side between the two, belongs to that row.
    let was = level.to_vec();
    for k in 0..cells.len() {
        if was[k] {
            continue;
        }
        let near = |j: usize| {
            let (a, b) = (&cells[k], &cells[j]);
            was[j] && (a.y - b.y).abs() <= 1.6 * a.size.max(b.size) && {
                let (lo, hi) = (a.y.min(b.y), a.y.max(b.y));
                // The other side's lines between the two, the one level with the neighbour aside.
                !ys.iter().any(|&(y, _)| y > lo + reach && y < hi - reach)
            }
        };
        if (k > 0 && near(k - 1)) || (k + 1 < cells.len() && near(k + 1)) {
            level[k] = true;
        }
    }
}

/// Marks as level the lines of figures that hang under a level line of their side, one or two, each at most 1.6
/// font sizes below the one before and within 1.6 font sizes of a line of the other side: beside another table's cells, both
/// sides of a row whose label and figures wrap, when the row's level line holds two cells or more ("Relative accuracy / pressure / VDD = 3.3V" beside "700 … 900hPa ±0.12 hPa / 25 … 40 °C / ±1.0 m"),
/// where only the row's first line is level.
fn wrapped_under_row_lines(cells: &[Segment], shape: &[CellShape], level: &mut [bool], ys: &[(f64, f64)]) {
    let was = level.to_vec();
    for k in 0..cells.len() {
        // A row's first line holds two cells or more on this side (a label and its symbol, a figure and its unit);
        // a line of code or a caption level with the other side is one.
        if !was[k] || shape.get(k).is_none_or(|s| s.0 < 2) {
            continue;
        }
        let mut above = k;
        for j in k + 1..cells.len().min(k + 3) {
            let (a, b) = (&cells[above], &cells[j]);
            let gap = a.y - b.y;
            let beside = ys.iter().any(|l| (l.0 - b.y).abs() <= 1.6 * b.size.max(l.1));
            // A figure: a datasheet's conditions and values ("25 … 40 °C", "±1.0 m"); never code or a label.
            let figure = b.text.starts_with(|c: char| c.is_ascii_digit() || "±+-−–.".contains(c));
            if was[j] || gap <= 0.0 || gap > 1.6 * a.size.max(b.size) || !beside || !figure {
                break;
            }
            level[j] = true;
            above = j;
        }
    }
}

//! `ragsift-bench answers --refit-support`: the answer's support probability on the labelled set. Each extractive
//! answer's support signals against whether its quoted passage holds a labelled answer span (what the probability
//! says, and what "well supported" promises), whether the answer holds the reference phrase anywhere, and in its
//! first 300 characters (unanswerable questions: never right). Out of fold by document: the fitted support model's
//! and the judge's evidence probability's AUC, Brier score and reliability, and the three bands ("well",
//! "partly", "weakly") with their edges chosen on the other documents: how often each occurs and how often its
//! answers are right. `--refit-support` writes the model fitted on all rows, with the edges chosen on all
//! out-of-fold predictions, to the pipeline's `support_fit.json` (edges that cannot be reached are written as
//! such, and the app then shows "support not assessed").

use ragsift_engine::judge::local::model::{auc, brier, cross_validate, reliability, Logistic};
use ragsift_engine::pipeline::support::{self, SupportFit, SupportLevel, SUPPORT_FEATURES};
use ragsift_engine::Result;

/// One answered question (`RAGSIFT_BENCH_SUPPORT_ROWS=FILE` writes them as JSON lines, `ragsift-bench
/// support-rows FILE` reports on them again).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Row {
    /// The document fold.
    pub fold: usize,
    /// The support model's inputs (`support::SUPPORT_FEATURES`).
    pub signals: Vec<f64>,
    /// The judge's evidence probability of the quoted passage (the baseline).
    pub evidence: f64,
    /// The quoted passage holds a labelled answer span (what the support probability predicts).
    pub holds: bool,
    /// The answer holds the reference phrase in its first 300 characters.
    pub right: bool,
    /// The answer holds the reference phrase anywhere.
    pub right_any: bool,
    pub unanswerable: bool,
}

/// Regularisation of the support model (as the judge's).
const L2: f64 = 1.0;
/// Goal: the share of well-supported answers that are right (on held-out documents).
const WELL_PRECISION: f64 = 0.85;
/// The share the "well" edge is chosen for on the training documents: above the goal, since an edge chosen where
/// the training share just reaches it falls short on documents it was not chosen on.
const WELL_CHOICE: f64 = 0.90;
/// "Partly" ends where the fitted rate of holding the answer falls below this share ("weakly": more likely not).
const WEAK_RIGHT: f64 = 0.50;
/// Each edge needs at least this many answers on its side.
const MIN_BAND: usize = 10;

/// The rows of a `RAGSIFT_BENCH_SUPPORT_ROWS` file.
pub fn read_rows(path: &std::path::Path) -> Result<Vec<Row>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).map_err(|e| ragsift_engine::Error::Invalid(e.to_string())))
        .collect()
}

/// Prints the figures, and writes the fit when `write`.
pub fn report(rows: &[Row], unanswered_unanswerable: usize, write: bool) -> Result<()> {
    if let Some(path) = std::env::var_os("RAGSIFT_BENCH_SUPPORT_ROWS") {
        let lines: Vec<String> = rows.iter().filter_map(|r| serde_json::to_string(r).ok()).collect();
        if let Err(e) = std::fs::write(&path, lines.join("\n") + "\n") {
            eprintln!("support rows: {e}");
        }
    }
    if rows.len() < 20 {
        println!("\n(support: only {} answered questions, not assessed)\n", rows.len());
        return Ok(());
    }
    let names: Vec<String> = SUPPORT_FEATURES.iter().map(|s| s.to_string()).collect();
    let x: Vec<Vec<f64>> = rows.iter().map(|r| r.signals.clone()).collect();
    let y: Vec<bool> = rows.iter().map(|r| r.holds).collect();
    let right: Vec<bool> = rows.iter().map(|r| r.right).collect();
    let folds: Vec<usize> = rows.iter().map(|r| r.fold).collect();
    let oof = cross_validate(&names, &x, &y, &folds, L2);
    let judge: Vec<f64> = rows.iter().map(|r| r.evidence).collect();
    println!(
        "\n## Support: does the quoted passage hold the answer? ({} extractive answers; the quoted passage holds a labelled span for {}, the answer holds the reference phrase for {} (in its first 300 characters for {}); out of fold by document)\n",
        rows.len(),
        y.iter().filter(|&&r| r).count(),
        rows.iter().filter(|r| r.right_any).count(),
        right.iter().filter(|&&r| r).count()
    );
    println!("| support from | AUC: passage holds the answer | Brier | AUC: answer right (first 300) | unanswerable never marked well |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let mut banded = Vec::new();
    for (name, p) in [
        ("judge's evidence probability of the quoted passage (baseline)", &judge),
        ("fitted support model", &oof),
    ] {
        let b = nested(rows, p);
        println!(
            "| {name} | {} | {:.3} | {} | {}/{} |",
            auc(p, &y).map_or("—".into(), |a| format!("{a:.3}")),
            brier(p, &y),
            auc(p, &right).map_or("—".into(), |a| format!("{a:.3}")),
            b.unanswerable_not_well + unanswered_unanswerable,
            b.unanswerable + unanswered_unanswerable,
        );
        banded.push((name, b));
    }
    println!("\nBands on held-out documents (edges chosen on the other documents' out-of-fold predictions):\n");
    println!("| support from | band | answers | share of answers | quoted passage holds the answer | answer holds the phrase | in its first 300 characters |");
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for (name, b) in &banded {
        for (level, c) in &b.bands {
            println!(
                "| {name} | {} | {} | {:.0}% | {} | {} | {} |",
                level.words(),
                c.n,
                100.0 * c.n as f64 / rows.len() as f64,
                pct(c.holds, c.n),
                pct(c.right_any, c.n),
                pct(c.right, c.n),
            );
        }
    }
    println!("\nThe \"well\" edge chosen for other shares on the training documents (fitted support, held out by document):\n");
    println!("| chosen for | well supported: answers | passage holds the answer | answer holds the phrase | partly: answers | holds | weakly: answers | holds | not assessed |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for target in [WELL_PRECISION, 0.88, WELL_CHOICE, 0.92, 0.95] {
        let b = nested_at(rows, &oof, target);
        let get = |l: SupportLevel| {
            b.bands
                .iter()
                .find(|(x, _)| *x == l)
                .map(|(_, c)| *c)
                .unwrap_or_default()
        };
        let (w, pa, we, na) = (
            get(SupportLevel::Well),
            get(SupportLevel::Partly),
            get(SupportLevel::Weak),
            get(SupportLevel::NotAssessed),
        );
        println!(
            "| {target:.2} | {} | {} | {} | {} | {} | {} | {} | {} |",
            w.n,
            pct(w.holds, w.n),
            pct(w.right_any, w.n),
            pa.n,
            pct(pa.holds, pa.n),
            we.n,
            pct(we.holds, we.n),
            na.n
        );
    }
    println!("\nReliability of the fitted support (out of fold):\n");
    println!("| predicted | mean predicted | share whose passage holds the answer | answers |");
    println!("| --- | ---: | ---: | ---: |");
    for b in reliability(&oof, &y, 10) {
        println!(
            "| {:.1}–{:.1} | {:.2} | {:.2} | {} |",
            b.lo, b.hi, b.p_mean, b.frac_positive, b.n
        );
    }
    let all: Vec<usize> = (0..rows.len()).collect();
    let (well, partly) = thresholds(&oof, &y, &all);
    let fit = SupportFit {
        model: Logistic::fit(&names, &x, &y, L2),
        well,
        partly,
        fitted_on: format!(
            "{} extractive answers of the labelled set (fixtures/qa); the quoted passage holds a labelled span for {}",
            rows.len(),
            y.iter().filter(|&&r| r).count()
        ),
    };
    println!(
        "\nShipped edges (chosen on all out-of-fold predictions): well supported ≥ {well:.3}, partly ≥ {partly:.3}, weakly below{}.",
        if fit.reachable() { "" } else { " — unreachable: the app shows \"support not assessed\"" }
    );
    if write {
        let path = crate::repo_root().join("crates/pipeline/src/support_fit.json");
        let json =
            serde_json::to_string_pretty(&Some(fit)).map_err(|e| ragsift_engine::Error::Invalid(e.to_string()))?;
        std::fs::write(&path, json + "\n")
            .map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))?;
        println!("Wrote {}", path.display());
    }
    Ok(())
}

/// One band's answers on held-out documents.
#[derive(Debug, Default, Clone, Copy)]
struct BandCount {
    n: usize,
    holds: usize,
    right_any: usize,
    right: usize,
}

/// The bands on held-out documents, and how unanswerable questions were marked.
struct Banded {
    bands: Vec<(SupportLevel, BandCount)>,
    unanswerable_not_well: usize,
    unanswerable: usize,
}

/// Per held-out document: edges chosen on the other documents' predictions, applied to this one (a fold whose
/// training edges cannot be reached gives no band: "not assessed").
fn nested(rows: &[Row], p: &[f64]) -> Banded {
    nested_at(rows, p, WELL_CHOICE)
}

fn nested_at(rows: &[Row], p: &[f64], target: f64) -> Banded {
    let y: Vec<bool> = rows.iter().map(|r| r.holds).collect();
    let mut folds: Vec<usize> = rows.iter().map(|r| r.fold).collect();
    folds.sort_unstable();
    folds.dedup();
    let order = [
        SupportLevel::Well,
        SupportLevel::Partly,
        SupportLevel::Weak,
        SupportLevel::NotAssessed,
    ];
    let mut bands: Vec<(SupportLevel, BandCount)> = order.iter().map(|&l| (l, BandCount::default())).collect();
    let (mut un_not_well, mut un) = (0, 0);
    for f in folds {
        let train: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].fold != f).collect();
        let (well, partly) = thresholds_at(p, &y, &train, target);
        let reachable = 0.0 < partly && partly < well && well < 1.0;
        for i in (0..rows.len()).filter(|&i| rows[i].fold == f) {
            let level = if reachable {
                support::level(p[i], well, partly)
            } else {
                SupportLevel::NotAssessed
            };
            let c = &mut bands.iter_mut().find(|(l, _)| *l == level).expect("a band").1;
            c.n += 1;
            c.holds += usize::from(rows[i].holds);
            c.right_any += usize::from(rows[i].right_any);
            c.right += usize::from(rows[i].right);
            if rows[i].unanswerable {
                un += 1;
                un_not_well += usize::from(level != SupportLevel::Well);
            }
        }
    }
    bands.retain(|(l, c)| c.n > 0 || *l != SupportLevel::NotAssessed);
    Banded {
        bands,
        unanswerable_not_well: un_not_well,
        unanswerable: un,
    }
}

/// The edges: "well" is the lowest prediction whose answers at or above it hold the answer at least 90% of the
/// time (at least ten of them; 1.0 when none does), "partly" the lowest below it where the isotonic fit of the labels
/// still says "at least half" (at least ten answers on each side; "well" itself when none: no partly band).
pub fn thresholds(p: &[f64], y: &[bool], rows: &[usize]) -> (f64, f64) {
    thresholds_at(p, y, rows, WELL_CHOICE)
}

/// [`thresholds`] with the "well" edge chosen for the share `target`.
fn thresholds_at(p: &[f64], y: &[bool], rows: &[usize], target: f64) -> (f64, f64) {
    let mut order: Vec<usize> = rows.to_vec();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    let mut well = 1.0;
    let mut right = 0;
    for (k, &i) in order.iter().enumerate() {
        right += usize::from(y[i]);
        let n = k + 1;
        let next_differs = order.get(k + 1).is_none_or(|&j| p[j] < p[i]);
        if n >= MIN_BAND && next_differs && right as f64 / n as f64 >= target {
            well = p[i];
        }
    }
    // "Partly" ends where the answers stop holding the answer more often than not: the lowest prediction below
    // "well" whose rate on the isotonic (pool-adjacent-violators) fit of the labels is still at least one half, with
    // at least ten answers on each side. A cumulative count from either end would let a very good top or a very poor
    // bottom move the edge into the other band.
    let below: Vec<usize> = order.iter().copied().filter(|&i| p[i] < well).collect();
    let rate = isotonic(&below.iter().map(|&i| (p[i], y[i])).collect::<Vec<_>>());
    let mut partly = well;
    for (k, &i) in below.iter().enumerate() {
        let (above, under) = (k + 1, below.len() - k - 1);
        let next_differs = below.get(k + 1).is_none_or(|&j| p[j] < p[i]);
        if rate[k] >= WEAK_RIGHT && next_differs && above >= MIN_BAND && under >= MIN_BAND {
            partly = p[i];
        }
    }
    (well, partly.min(well))
}

/// The isotonic fit of `(prediction, label)` pairs given highest prediction first: each pair's rate, never rising as
/// the prediction falls (tied predictions share one rate).
fn isotonic(pairs: &[(f64, bool)]) -> Vec<f64> {
    // Blocks of (sum of labels, count, pairs covered), merged while a block's rate exceeds the one above it.
    let mut blocks: Vec<(f64, f64, usize)> = Vec::new();
    for (k, &(p, y)) in pairs.iter().enumerate() {
        let tied = k > 0 && pairs[k - 1].0 == p;
        match blocks.last_mut() {
            Some(last) if tied => *last = (last.0 + f64::from(u8::from(y)), last.1 + 1.0, last.2 + 1),
            _ => blocks.push((f64::from(u8::from(y)), 1.0, 1)),
        }
        while blocks.len() > 1 {
            let (b, a) = (blocks[blocks.len() - 1], blocks[blocks.len() - 2]);
            if b.0 / b.1 <= a.0 / a.1 {
                break;
            }
            blocks.pop();
            *blocks.last_mut().expect("a block") = (a.0 + b.0, a.1 + b.1, a.2 + b.2);
        }
    }
    blocks
        .iter()
        .flat_map(|&(sum, n, len)| std::iter::repeat_n(sum / n, len))
        .collect()
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "—".into()
    } else {
        format!("{:.0}% ({a}/{b})", 100.0 * a as f64 / b as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_fall_where_the_labels_change() {
        // 60 answers: the top 20 all hold the answer, the middle 20 half of them, the bottom 20 none.
        let p: Vec<f64> = (0..60).map(|i| 1.0 - (i as f64 + 0.5) / 60.0).collect();
        let y: Vec<bool> = (0..60).map(|i| i < 20 || (20..40).contains(&i) && i % 2 == 0).collect();
        let all: Vec<usize> = (0..60).collect();
        let (well, partly) = thresholds(&p, &y, &all);
        assert!(0.0 < partly && partly < well && well < 1.0, "{well} {partly}");
        let band = |lo: f64, hi: f64| {
            let ids: Vec<usize> = all.iter().copied().filter(|&i| lo <= p[i] && p[i] < hi).collect();
            (ids.len(), ids.iter().filter(|&&i| y[i]).count())
        };
        let (n, r) = band(well, f64::INFINITY);
        assert!(r as f64 / n as f64 >= WELL_CHOICE && n >= MIN_BAND, "well: {r}/{n}");
        let (n, r) = band(partly, well);
        assert!(n >= MIN_BAND && 2 * r >= n, "partly: {r}/{n}");
        let (n, r) = band(f64::NEG_INFINITY, partly);
        assert!(n >= MIN_BAND && 2 * r <= n, "weakly: {r}/{n}");
        // No answer holds: no edge can be reached.
        let (well, _) = thresholds(&p, &[false; 60], &all);
        assert_eq!(well, 1.0);
    }
}

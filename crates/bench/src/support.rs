//! `ragsift-bench answers --refit-support`: the answer's support probability on the labelled set. Each extractive
//! answer's support signals against whether its quoted passage holds a labelled answer span (what the probability
//! says), and whether the answer holds the reference phrase in its first 300 characters (unanswerable questions:
//! never right). Out of fold by document: the fitted support model's and the judge's evidence probability's AUC,
//! Brier score and reliability, the share of answers marked well supported that are right (thresholds chosen on
//! the other documents), and how unanswerable questions are marked. `--refit-support` writes the model fitted on all rows to the pipeline's `support_fit.json`.

use ragsift_engine::judge::local::model::{auc, brier, cross_validate, reliability, Logistic};
use ragsift_engine::pipeline::support::{self, SupportFit, SupportLevel, SUPPORT_FEATURES};
use ragsift_engine::Result;

/// One answered question.
#[derive(Debug, Clone)]
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
    pub unanswerable: bool,
}

/// Regularisation of the support model (as the judge's).
const L2: f64 = 1.0;
/// Goal: the share of well-supported answers that are right.
const WELL_PRECISION: f64 = 0.85;
/// At most this share of answers marked "none" may be right.
const NONE_RIGHT: f64 = 0.10;

/// Prints the figures, and writes the fit when `write`.
pub fn report(rows: &[Row], unanswered_unanswerable: usize, write: bool) -> Result<()> {
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
        "\n## Support: does the quoted passage hold the answer? ({} extractive answers; the quoted passage holds a labelled span for {}, the answer holds the reference phrase in its first 300 characters for {}; out of fold by document)\n",
        rows.len(),
        y.iter().filter(|&&r| r).count(),
        right.iter().filter(|&&r| r).count()
    );
    println!("| support from | AUC: passage holds the answer | Brier | AUC: answer right | well supported: right | share marked well | unanswerable marked weak or none |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (name, p) in [
        ("judge's evidence probability of the quoted passage (baseline)", &judge),
        ("fitted support model", &oof),
    ] {
        let (ok, well, un_weak, un) = nested(rows, p);
        println!(
            "| {name} | {} | {:.3} | {} | {} | {:.0}% | {}/{} |",
            auc(p, &y).map_or("—".into(), |a| format!("{a:.3}")),
            brier(p, &y),
            auc(p, &right).map_or("—".into(), |a| format!("{a:.3}")),
            pct(ok, well),
            100.0 * well as f64 / rows.len() as f64,
            un_weak + unanswered_unanswerable,
            un + unanswered_unanswerable,
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
    let (well, none) = thresholds(&oof, &right, &all);
    println!(
        "\nShipped thresholds (chosen on all out-of-fold predictions): well supported ≥ {well:.3}, none < {none:.3}."
    );
    if write {
        let fit = SupportFit {
            model: Logistic::fit(&names, &x, &y, L2),
            well,
            none,
            fitted_on: format!(
                "{} extractive answers of the labelled set (fixtures/qa); the quoted passage holds a labelled span for {}",
                rows.len(),
                y.iter().filter(|&&r| r).count()
            ),
        };
        let path = crate::repo_root().join("crates/pipeline/src/support_fit.json");
        let json =
            serde_json::to_string_pretty(&Some(fit)).map_err(|e| ragsift_engine::Error::Invalid(e.to_string()))?;
        std::fs::write(&path, json + "\n")
            .map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))?;
        println!("Wrote {}", path.display());
    }
    Ok(())
}

/// Per held-out document: thresholds chosen on the other documents' predictions, applied to this one. Returns
/// (well-supported answers that are right, answers marked well, unanswerable marked weak or none, unanswerable).
fn nested(rows: &[Row], p: &[f64]) -> (usize, usize, usize, usize) {
    let y: Vec<bool> = rows.iter().map(|r| r.right).collect();
    let mut folds: Vec<usize> = rows.iter().map(|r| r.fold).collect();
    folds.sort_unstable();
    folds.dedup();
    let (mut right, mut well, mut un_weak, mut un) = (0, 0, 0, 0);
    for f in folds {
        let train: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].fold != f).collect();
        let (t_well, t_none) = thresholds(p, &y, &train);
        for i in (0..rows.len()).filter(|&i| rows[i].fold == f) {
            let level = support::level(p[i], t_well, t_none);
            if level == SupportLevel::Well {
                well += 1;
                right += usize::from(y[i]);
            }
            if rows[i].unanswerable {
                un += 1;
                un_weak += usize::from(level != SupportLevel::Well);
            }
        }
    }
    (right, well, un_weak, un)
}

/// The lowest threshold whose answers at or above it are right at least 85% of the time (at least 10 of them),
/// and the highest below which at most 10% are right.
fn thresholds(p: &[f64], y: &[bool], rows: &[usize]) -> (f64, f64) {
    let mut order: Vec<usize> = rows.to_vec();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    let mut well = 1.0;
    let mut right = 0;
    for (k, &i) in order.iter().enumerate() {
        right += usize::from(y[i]);
        let n = k + 1;
        let next_differs = order.get(k + 1).is_none_or(|&j| p[j] < p[i]);
        if n >= 10 && next_differs && right as f64 / n as f64 >= WELL_PRECISION {
            well = p[i];
        }
    }
    let mut none = 0.0;
    let mut right = 0;
    for (k, &i) in order.iter().rev().enumerate() {
        right += usize::from(y[i]);
        let n = k + 1;
        let next_differs = order.len() - 1 - k == 0 || p[order[order.len() - 2 - k]] > p[i];
        if n >= 10 && next_differs && right as f64 / n as f64 <= NONE_RIGHT {
            none = next_above(p, &order, i);
        }
    }
    (well, none.min(well))
}

/// The smallest prediction above `p[i]` (so that `p[i]` falls below it), or `p[i]` itself at the top.
fn next_above(p: &[f64], order: &[usize], i: usize) -> f64 {
    order
        .iter()
        .map(|&j| p[j])
        .filter(|&v| v > p[i])
        .fold(f64::INFINITY, f64::min)
        .min(1.0)
        .max(p[i])
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "—".into()
    } else {
        format!("{:.0}% ({a}/{b})", 100.0 * a as f64 / b as f64)
    }
}

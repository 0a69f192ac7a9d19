//! The measures (reliability bins, Brier, AUC) and the fits (Platt, isotonic) with their cross-validation.

use super::*;
use ragsift_core::rng::mix;
use ragsift_judge::local::model;

/// The reliability diagram: [`BINS`] equal-width bins, empty ones omitted. Non-finite probabilities are skipped and
/// the rest clamped to 0..=1. The bins are the judge's own ([`model::reliability`]): one home for the measures.
pub fn reliability_bins(p: &[f64], y: &[bool]) -> Vec<ReliabilityBin> {
    let (p, y): (Vec<f64>, Vec<bool>) = (p.iter().zip(y))
        .filter(|(pi, _)| pi.is_finite())
        .map(|(&pi, &yi)| (pi.clamp(0.0, 1.0), yi))
        .unzip();
    (model::reliability(&p, &y, BINS).into_iter())
        .map(|b| ReliabilityBin {
            p_mean: b.p_mean,
            frac_positive: b.frac_positive,
            n: b.n,
        })
        .collect()
}

/// Mean of `(p − y)²` ([`model::brier`]); `None` without labels.
pub fn brier(p: &[f64], y: &[bool]) -> Option<f64> {
    let n = p.len().min(y.len());
    (n > 0).then(|| model::brier(&p[..n], &y[..n]))
}

/// ROC AUC ([`model::auc`]): P(score of a positive > score of a negative), ties counted half. `None` unless both
/// classes are present.
pub fn auc(p: &[f64], y: &[bool]) -> Option<f64> {
    let n = p.len().min(y.len());
    model::auc(&p[..n], &y[..n])
}

/// Platt scaling on logit(p) (see the module's notes). `None` when the fit ranks backwards (`a ≤ 0`) or fails.
pub fn fit_platt(p: &[f64], y: &[bool]) -> Option<Calibrator> {
    let z: Vec<f64> = p.iter().map(|&pi| logit(pi)).collect();
    let t: Vec<f64> = y.iter().map(|&yi| f64::from(u8::from(yi))).collect();
    let lambda = PLATT_PENALTY;
    let loss = |a: f64, b: f64| -> f64 {
        let nll: f64 = (z.iter().zip(&t))
            .map(|(&zi, &ti)| {
                let s = a * zi + b;
                // log(1 + e^s) − t·s, stably.
                s.max(0.0) + (-s.abs()).exp().ln_1p() - ti * s
            })
            .sum();
        nll + 0.5 * lambda * ((a - 1.0).powi(2) + b * b)
    };
    let (mut a, mut b) = (1.0, 0.0);
    let mut current = loss(a, b);
    for _ in 0..100 {
        let (mut ga, mut gb, mut haa, mut hab, mut hbb) = (lambda * (a - 1.0), lambda * b, lambda, 0.0, lambda);
        for (&zi, &ti) in z.iter().zip(&t) {
            let s = sigmoid(a * zi + b);
            let w = s * (1.0 - s);
            ga += (s - ti) * zi;
            gb += s - ti;
            haa += w * zi * zi;
            hab += w * zi;
            hbb += w;
        }
        let det = haa * hbb - hab * hab;
        if !(det.is_finite() && det > 0.0) {
            break;
        }
        let (da, db) = ((hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det);
        // Backtracking: halve the Newton step until the penalised loss does not rise.
        let mut step = 1.0;
        let mut moved = false;
        for _ in 0..30 {
            let (na, nb) = (a - step * da, b - step * db);
            let next = loss(na, nb);
            if next <= current {
                (a, b, moved) = (na, nb, true);
                let done = current - next < 1e-12 * (1.0 + current.abs());
                current = next;
                if done {
                    return (a > 0.0 && a.is_finite() && b.is_finite()).then_some(Calibrator::Platt { a, b });
                }
                break;
            }
            step /= 2.0;
        }
        if !moved {
            break;
        }
    }
    (a > 0.0 && a.is_finite() && b.is_finite()).then_some(Calibrator::Platt { a, b })
}

/// Isotonic regression by pool-adjacent-violators, piecewise constant (see the module's notes).
pub fn fit_isotonic(p: &[f64], y: &[bool]) -> Calibrator {
    let mut pairs: Vec<(f64, f64)> = (p.iter().zip(y))
        .filter(|(pi, _)| pi.is_finite())
        .map(|(&pi, &yi)| (pi, f64::from(u8::from(yi))))
        .collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Blocks: (lowest x, highest x, sum of y, count). Equal x always share a block.
    let mut blocks: Vec<(f64, f64, f64, f64)> = Vec::new();
    for (x, t) in pairs {
        match blocks.last_mut() {
            Some(last) if last.1 == x => {
                last.2 += t;
                last.3 += 1.0;
            }
            _ => blocks.push((x, x, t, 1.0)),
        }
        // Pool while the last block's mean is not above the one before it.
        while blocks.len() >= 2 {
            let (prev, last) = (blocks[blocks.len() - 2], blocks[blocks.len() - 1]);
            if prev.2 / prev.3 < last.2 / last.3 {
                break;
            }
            blocks.pop();
            let merged = blocks.last_mut().expect("two blocks");
            merged.1 = last.1;
            merged.2 += last.2;
            merged.3 += last.3;
        }
    }
    Calibrator::Isotonic {
        x: blocks.iter().map(|b| b.0).collect(),
        y: blocks.iter().map(|b| b.2 / b.3).collect(),
    }
}

/// Stratified, deterministic fold of each label: within each class, in a fixed pseudo-random order of the labels'
/// positions (a hash of the index), round-robin. The order must not follow the probability: folds dealt in order of
/// p leave each training fold with the whole sample's local frequencies, held-out labels included, and flatter a
/// flexible fit.
pub(super) fn folds(y: &[bool], k: usize) -> Vec<usize> {
    let mut fold = vec![0; y.len()];
    for class in [false, true] {
        let mut idx: Vec<usize> = (0..y.len()).filter(|&i| y[i] == class).collect();
        idx.sort_by_key(|&i| (mix(i as u64), i));
        for (r, i) in idx.into_iter().enumerate() {
            fold[i] = r % k;
        }
    }
    fold
}

pub(super) fn fit(method: Method, p: &[f64], y: &[bool]) -> Option<Calibrator> {
    match method {
        Method::None => Some(Calibrator::None),
        Method::Platt => fit_platt(p, y),
        Method::Isotonic => Some(fit_isotonic(p, y)),
    }
}

/// Out-of-fold predictions of `method`; `None` when a fold's fit is refused.
pub(super) fn out_of_fold(method: Method, p: &[f64], y: &[bool], fold: &[usize], k: usize) -> Option<Vec<f64>> {
    let mut out = vec![f64::NAN; p.len()];
    for f in 0..k {
        let (mut tp, mut ty) = (Vec::new(), Vec::new());
        for i in (0..p.len()).filter(|&i| fold[i] != f) {
            tp.push(p[i]);
            ty.push(y[i]);
        }
        let c = fit(method, &tp, &ty)?;
        for i in (0..p.len()).filter(|&i| fold[i] == f) {
            out[i] = c.apply(p[i]);
        }
    }
    Some(out)
}

/// Whether predictions `new` beat `old` (whose Brier is `old_brier`) by more than noise: the mean paired Brier
/// gain must exceed both [`MIN_GAIN`] (relative) and two standard errors of the per-label gains.
pub(super) fn clearly_better(new: &[f64], old: &[f64], y: &[bool], old_brier: f64) -> bool {
    let gains: Vec<f64> = (new.iter().zip(old).zip(y))
        .map(|((&n, &o), &yi)| {
            let t = f64::from(u8::from(yi));
            (o - t).powi(2) - (n - t).powi(2)
        })
        .collect();
    let count = gains.len() as f64;
    if count < 2.0 {
        return false;
    }
    let mean = gains.iter().sum::<f64>() / count;
    let var = gains.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (count - 1.0);
    let se = (var / count).sqrt();
    mean > MIN_GAIN * old_brier && mean > 2.0 * se
}

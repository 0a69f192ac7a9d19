//! The local judge's fitted combination: an L2-regularised logistic regression per question over standardised
//! signals, fitted by Newton's method, with the measures used to choose and report it (ROC AUC, Brier score,
//! reliability bins) and grouped cross-validation so that every reported figure is out of fold.

use serde::{Deserialize, Serialize};

/// A logistic model over named signals: P = σ(bias + Σ wᵢ (xᵢ − meanᵢ) / scaleᵢ).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Logistic {
    pub features: Vec<String>,
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub weights: Vec<f64>,
    pub bias: f64,
}

impl Logistic {
    /// The probability for one row of feature values (in `features` order).
    pub fn predict(&self, x: &[f64]) -> f64 {
        let z = self.bias
            + self
                .weights
                .iter()
                .zip(x)
                .zip(self.mean.iter().zip(&self.scale))
                .map(|((w, v), (m, s))| w * (v - m) / s)
                .sum::<f64>();
        sigmoid(z)
    }

    /// Fits on rows `x` (one value per feature) and labels `y`, with L2 penalty `l2` on the weights (not the
    /// bias). Non-finite values must be removed before.
    pub fn fit(features: &[String], x: &[Vec<f64>], y: &[bool], l2: f64) -> Logistic {
        let d = features.len();
        let (mean, scale) = standardise(x, d);
        let z: Vec<Vec<f64>> = x
            .iter()
            .map(|r| {
                let mut row = vec![1.0];
                row.extend((0..d).map(|j| (r[j] - mean[j]) / scale[j]));
                row
            })
            .collect();
        let mut beta = vec![0.0; d + 1];
        for _ in 0..50 {
            let mut grad = vec![0.0; d + 1];
            let mut hess = vec![vec![0.0; d + 1]; d + 1];
            for (row, &label) in z.iter().zip(y) {
                let p = sigmoid(dot(&beta, row));
                let err = p - f64::from(u8::from(label));
                let w = (p * (1.0 - p)).max(1e-9);
                for a in 0..=d {
                    grad[a] += err * row[a];
                    for b in 0..=d {
                        hess[a][b] += w * row[a] * row[b];
                    }
                }
            }
            for a in 1..=d {
                grad[a] += l2 * beta[a];
                hess[a][a] += l2;
            }
            let step = solve(hess, grad);
            let mut moved = 0.0f64;
            for a in 0..=d {
                beta[a] -= step[a];
                moved = moved.max(step[a].abs());
            }
            if moved < 1e-8 {
                break;
            }
        }
        Logistic {
            features: features.to_vec(),
            mean,
            scale,
            weights: beta[1..].to_vec(),
            bias: beta[0],
        }
    }
}

impl Logistic {
    /// Fits a ranking within groups (the sentences of one question): a pairwise logistic regression on the
    /// differences of standardised rows, each positive against each negative of its group in both orders, then
    /// Platt scaling of the ranking score to the labels, so that [`Logistic::predict`] is still a probability
    /// and the order within a group is the one the pairs taught. A group without both classes adds no pair.
    pub fn fit_ranking(features: &[String], x: &[Vec<f64>], y: &[bool], groups: &[usize], l2: f64) -> Logistic {
        let d = features.len();
        let (mean, scale) = standardise(x, d);
        let z: Vec<Vec<f64>> = (x.iter())
            .map(|r| (0..d).map(|j| (r[j] - mean[j]) / scale[j]).collect())
            .collect();
        let mut members: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
        for (i, &g) in groups.iter().enumerate() {
            members.entry(g).or_default().push(i);
        }
        let (mut pairs, mut order) = (Vec::new(), Vec::new());
        for rows in members.values() {
            for &p in rows.iter().filter(|&&i| y[i]) {
                for &n in rows.iter().filter(|&&i| !y[i]) {
                    let diff: Vec<f64> = (0..d).map(|j| z[p][j] - z[n][j]).collect();
                    pairs.push(diff.iter().map(|v| -v).collect());
                    order.push(false);
                    pairs.push(diff);
                    order.push(true);
                }
            }
        }
        let pairwise = Logistic::fit(features, &pairs, &order, l2);
        // The ranking score of a row: the pairwise model's linear part on its standardised values.
        let direction: Vec<f64> = (0..d).map(|j| pairwise.weights[j] / pairwise.scale[j]).collect();
        let score = |zr: &[f64]| dot(&direction, zr);
        let scores: Vec<Vec<f64>> = z.iter().map(|zr| vec![score(zr)]).collect();
        let platt = Logistic::fit(&["rank".to_string()], &scores, y, 0.0);
        let slope = platt.weights[0] / platt.scale[0];
        Logistic {
            features: features.to_vec(),
            mean,
            scale,
            weights: direction.iter().map(|w| slope * w).collect(),
            bias: platt.bias - slope * platt.mean[0],
        }
    }
}

/// Each column's mean and standard deviation (1 for a constant column), over the first `d` values of each row.
fn standardise(x: &[Vec<f64>], d: usize) -> (Vec<f64>, Vec<f64>) {
    let n = x.len().max(1) as f64;
    let mean: Vec<f64> = (0..d).map(|j| x.iter().map(|r| r[j]).sum::<f64>() / n).collect();
    let scale = (0..d)
        .map(|j| {
            let var = x.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n;
            if var > 1e-12 {
                var.sqrt()
            } else {
                1.0
            }
        })
        .collect();
    (mean, scale)
}

pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting (a is small and positive definite here).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let p = if a[col][col].abs() < 1e-12 { 1e-12 } else { a[col][col] };
        for row in col + 1..n {
            let f = a[row][col] / p;
            let pivot_row = a[col].clone();
            for (k, v) in a[row].iter_mut().enumerate().skip(col) {
                *v -= f * pivot_row[k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        let p = if a[row][row].abs() < 1e-12 { 1e-12 } else { a[row][row] };
        x[row] = (b[row] - s) / p;
    }
    x
}

/// ROC AUC: the probability that a random positive scores above a random negative (ties count half).
/// `None` without both classes.
pub fn auc(scores: &[f64], labels: &[bool]) -> Option<f64> {
    let mut idx: Vec<usize> = (0..scores.len()).filter(|&i| scores[i].is_finite()).collect();
    idx.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let pos = idx.iter().filter(|&&i| labels[i]).count() as f64;
    let neg = idx.len() as f64 - pos;
    if pos == 0.0 || neg == 0.0 {
        return None;
    }
    // Mann-Whitney U with average ranks for ties.
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && scores[idx[j + 1]] == scores[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        rank_sum += (i..=j).filter(|&k| labels[idx[k]]).count() as f64 * avg;
        i = j + 1;
    }
    Some((rank_sum - pos * (pos + 1.0) / 2.0) / (pos * neg))
}

/// Mean squared error of probabilities against 0/1 outcomes.
pub fn brier(probs: &[f64], labels: &[bool]) -> f64 {
    probs
        .iter()
        .zip(labels)
        .map(|(p, &y)| (p - f64::from(u8::from(y))).powi(2))
        .sum::<f64>()
        / probs.len().max(1) as f64
}

/// One bin of a reliability table: the mean predicted probability, the observed share of positives, the count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub p_mean: f64,
    pub frac_positive: f64,
    pub n: u32,
}

/// Reliability table over `bins` equal-width bins (empty bins left out).
pub fn reliability(probs: &[f64], labels: &[bool], bins: usize) -> Vec<Bin> {
    (0..bins)
        .filter_map(|b| {
            let lo = b as f64 / bins as f64;
            let hi = (b + 1) as f64 / bins as f64;
            let members: Vec<usize> = (0..probs.len())
                .filter(|&i| probs[i] >= lo && (probs[i] < hi || (b + 1 == bins && probs[i] <= hi)))
                .collect();
            if members.is_empty() {
                return None;
            }
            let n = members.len() as f64;
            Some(Bin {
                lo,
                hi,
                p_mean: members.iter().map(|&i| probs[i]).sum::<f64>() / n,
                frac_positive: members.iter().filter(|&&i| labels[i]).count() as f64 / n,
                n: members.len() as u32,
            })
        })
        .collect()
}

/// Out-of-fold predictions: rows are grouped (e.g. by document), each group is predicted by a model fitted on
/// the other groups.
pub fn cross_validate(features: &[String], x: &[Vec<f64>], y: &[bool], groups: &[usize], l2: f64) -> Vec<f64> {
    let mut out = vec![f64::NAN; x.len()];
    let mut ids: Vec<usize> = groups.to_vec();
    ids.sort_unstable();
    ids.dedup();
    for g in ids {
        let (train_x, train_y): (Vec<Vec<f64>>, Vec<bool>) = (0..x.len())
            .filter(|&i| groups[i] != g)
            .map(|i| (x[i].clone(), y[i]))
            .unzip();
        let model = Logistic::fit(features, &train_x, &train_y, l2);
        for i in (0..x.len()).filter(|&i| groups[i] == g) {
            out[i] = model.predict(&x[i]);
        }
    }
    out
}

/// Out-of-fold predictions of [`Logistic::fit_ranking`]: rows of each fold are predicted by a ranking fitted on
/// the other folds; `groups` are the ranking's groups (questions), `folds` the held-out units (documents).
pub fn cross_validate_ranking(
    features: &[String],
    x: &[Vec<f64>],
    y: &[bool],
    (groups, folds): (&[usize], &[usize]),
    l2: f64,
) -> Vec<f64> {
    let mut out = vec![f64::NAN; x.len()];
    let mut ids: Vec<usize> = folds.to_vec();
    ids.sort_unstable();
    ids.dedup();
    for f in ids {
        let train: Vec<usize> = (0..x.len()).filter(|&i| folds[i] != f).collect();
        let model = Logistic::fit_ranking(
            features,
            &train.iter().map(|&i| x[i].clone()).collect::<Vec<_>>(),
            &train.iter().map(|&i| y[i]).collect::<Vec<_>>(),
            &train.iter().map(|&i| groups[i]).collect::<Vec<_>>(),
            l2,
        );
        for i in (0..x.len()).filter(|&i| folds[i] == f) {
            out[i] = model.predict(&x[i]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_counts_ties_half() {
        assert_eq!(auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true]), Some(0.75));
        assert_eq!(auc(&[0.5, 0.5], &[false, true]), Some(0.5));
        assert_eq!(auc(&[0.5], &[true]), None);
    }

    #[test]
    fn fit_recovers_a_known_sigmoid() {
        // y ~ Bernoulli(σ(2x − 1)) on a fixed grid with exact expected frequencies.
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..200 {
            let v = -2.0 + 4.0 * i as f64 / 199.0;
            let p = sigmoid(2.0 * v - 1.0);
            let positives = (p * 20.0).round() as usize;
            for k in 0..20 {
                x.push(vec![v]);
                y.push(k < positives);
            }
        }
        let m = Logistic::fit(&["x".into()], &x, &y, 0.0);
        let slope = m.weights[0] / m.scale[0];
        let intercept = m.bias - m.weights[0] * m.mean[0] / m.scale[0];
        assert!(
            (slope - 2.0).abs() < 0.1 && (intercept + 1.0).abs() < 0.1,
            "{slope} {intercept}"
        );
        let probs: Vec<f64> = x.iter().map(|r| m.predict(r)).collect();
        assert!(brier(&probs, &y) < brier(&vec![0.5; y.len()], &y));
    }

    #[test]
    fn a_ranking_fit_orders_within_groups_and_stays_a_probability() {
        // In every group the positive has the larger second feature; the first feature only shifts whole
        // groups (a pointwise fit is misled by it, a ranking within groups is not).
        let (mut x, mut y, mut groups) = (Vec::new(), Vec::new(), Vec::new());
        for g in 0..40 {
            let level = g as f64;
            for k in 0..5 {
                let positive = k == (g % 5);
                let local = if positive { 1.0 } else { 0.1 * k as f64 };
                x.push(vec![level, local + 0.01 * level]);
                y.push(positive && (g % 2 == 0 || g < 10));
                groups.push(g);
            }
        }
        let names = vec!["level".to_string(), "local".to_string()];
        let m = Logistic::fit_ranking(&names, &x, &y, &groups, 1.0);
        assert!(
            m.weights[1] > 0.0,
            "the within-group signal raises the score: {:?}",
            m.weights
        );
        assert!(
            m.weights[1].abs() > m.weights[0].abs(),
            "the between-group shift counts less: {:?}",
            m.weights
        );
        for g in (0..40).filter(|g| g % 2 == 0) {
            let rows: Vec<usize> = (0..x.len()).filter(|&i| groups[i] == g).collect();
            let best = (rows.iter().copied()).max_by(|&a, &b| m.predict(&x[a]).total_cmp(&m.predict(&x[b])));
            assert!(best.is_some_and(|b| y[b]), "group {g}: the positive ranks first");
        }
        assert!(x.iter().all(|r| (0.0..=1.0).contains(&m.predict(r))));
        let folds: Vec<usize> = groups.iter().map(|g| g % 4).collect();
        let held = cross_validate_ranking(&names, &x, &y, (&groups, &folds), 1.0);
        assert!(held.iter().all(|p| p.is_finite()));
    }

    #[test]
    fn reliability_bins_cover_all_rows() {
        let bins = reliability(&[0.05, 0.15, 0.95, 1.0], &[false, true, true, true], 10);
        assert_eq!(bins.iter().map(|b| b.n).sum::<u32>(), 4);
        assert_eq!(bins.last().unwrap().n, 2);
    }
}

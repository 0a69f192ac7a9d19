//! Judge calibration from labels: how far a judge's probabilities are from the frequencies the labels show, and a
//! monotone map that brings them closer, chosen by cross-validation.
//!
//! Per judge (name + model + prompt version) and question key, from labelled candidates:
//! - a reliability diagram: [`BINS`] equal-width bins over [0, 1] (the last one closed, `p = 1` falls in it);
//!   **empty bins are omitted**, so the counts `n` of the bins add up to the number of labels;
//! - the Brier score (mean squared difference between probability and 0/1 label) and the ROC AUC (the
//!   probability that a positive scores above a negative, ties counted half; `None` with one class only);
//! - three candidates, compared on the out-of-fold Brier of a [`FOLDS`]-fold cross-validation with a
//!   deterministic, stratified fold assignment (within each class, in a fixed hashed order of the positions,
//!   round-robin):
//!   - `none`: the raw probability;
//!   - `platt`: `sigmoid(a·logit(p) + b)`, a logistic regression **on logit(p)** (p clipped to
//!     [1e-6, 1 − 1e-6]) fitted by Newton's method with an L2 penalty of [`PLATT_PENALTY`] pulling (a, b)
//!     towards the identity (1, 0), so separable labels give a finite fit; a fit with `a ≤ 0` (the judge
//!     ranks backwards) is refused, since a calibration must keep the judge's order;
//!   - `isotonic`: pool-adjacent-violators on the sorted raw probabilities, **piecewise constant**: a raw p takes
//!     the value of the last block whose lowest raw probability is ≤ p (the first block's value below it).
//!
//!   The simplest method wins unless a more flexible one lowers the cross-validated Brier clearly: by more than
//!   [`MIN_GAIN`] (relative) and by more than two standard errors of the paired per-label gains (in the order
//!   none → platt → isotonic, each against the one kept so far), so a judge already calibrated keeps `none`.
//! - Fewer than [`MIN_LABELS`] labels, or fewer than [`MIN_PER_CLASS`] of either class, give `none` with a note:
//!   no fit is invented.
//!
//! `brier_calibrated` and `bins_calibrated` are measured on the **out-of-fold** predictions of the chosen
//! method (for `none`, the raw ones), not in-sample, so they do not flatter a flexible fit.
//!
//! Only questions whose truth is the relevance label are calibrated ([`LABELLED_QUESTIONS`]): `is_relevant`,
//! `contains_answer_evidence` and `useful`. A label "relevant" is a positive; every other labelled candidate of a
//! labelled run is a negative.
//!
//! A threshold set in calibrated probability becomes a raw one with the same decisions:
//! [`Calibrator::raw_threshold`] finds, by bisection over the f64 values in [0, 1], the smallest raw p whose
//! calibrated value passes the comparison the policy makes (`≥` or `>`, [`Comparison`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{fingerprint, EvalCase, RagJevTrace, ScoringStrategy};
use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT, USEFUL};

/// Bins of the reliability diagram (equal width over [0, 1]).
pub const BINS: usize = 10;
/// Fewest labels a fit is attempted on.
pub const MIN_LABELS: usize = 10;
/// Fewest labels of each class a fit is attempted on.
pub const MIN_PER_CLASS: usize = 3;
/// Cross-validation folds (fewer when the smaller class has fewer labels, never below [`MIN_PER_CLASS`]).
pub const FOLDS: usize = 5;
/// The L2 penalty on (a − 1, b) of the Platt fit.
pub const PLATT_PENALTY: f64 = 1e-2;
/// The relative cross-validated Brier improvement a more flexible method needs to be chosen.
pub const MIN_GAIN: f64 = 0.01;
/// The questions whose ground truth is the relevance label.
pub const LABELLED_QUESTIONS: [&str; 3] = [IS_RELEVANT, CONTAINS_ANSWER_EVIDENCE, USEFUL];

const CLIP: f64 = 1e-6;

/// One bin of a reliability diagram.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReliabilityBin {
    /// Mean predicted probability in the bin.
    pub p_mean: f64,
    /// Fraction of the bin's candidates labelled positive.
    pub frac_positive: f64,
    /// Candidates in the bin (never 0: empty bins are omitted).
    pub n: u32,
}

/// How raw probabilities are calibrated.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Method {
    None,
    Platt,
    Isotonic,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::None => "none",
            Method::Platt => "platt",
            Method::Isotonic => "isotonic",
        }
    }
}

/// A monotone (non-decreasing) map from a raw probability to a calibrated one.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Calibrator {
    /// The raw probability.
    None,
    /// `sigmoid(a·logit(clip(p)) + b)`, `a > 0`.
    Platt { a: f64, b: f64 },
    /// Piecewise constant: `x` the lowest raw probability of each block (ascending), `y` its calibrated value
    /// (ascending); p takes the `y` of the last block with `x ≤ p`, the first block's below `x[0]`.
    Isotonic { x: Vec<f64>, y: Vec<f64> },
}

/// How the policy compares a probability with its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Passes when `p ≥ t` (`is_relevant` kept, `min_relevance`).
    AtLeast,
    /// Passes when `p > t` (evidence retained, injection and contradiction flagged).
    Above,
}

impl Comparison {
    fn passes(self, p: f64, t: f64) -> bool {
        match self {
            Comparison::AtLeast => p >= t,
            Comparison::Above => p > t,
        }
    }
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(CLIP, 1.0 - CLIP);
    (p / (1.0 - p)).ln()
}

impl Calibrator {
    pub fn method(&self) -> Method {
        match self {
            Calibrator::None => Method::None,
            Calibrator::Platt { .. } => Method::Platt,
            Calibrator::Isotonic { .. } => Method::Isotonic,
        }
    }

    /// The calibrated probability of raw `p` (non-finite p is returned as it is).
    pub fn apply(&self, p: f64) -> f64 {
        if !p.is_finite() {
            return p;
        }
        match self {
            Calibrator::None => p,
            Calibrator::Platt { a, b } => sigmoid(a * logit(p) + b),
            Calibrator::Isotonic { x, y } => {
                let i = x.partition_point(|&xi| xi <= p);
                y.get(i.saturating_sub(1)).copied().unwrap_or(p)
            }
        }
    }

    /// The raw threshold making the same decisions as `calibrated` does on calibrated probabilities: for
    /// [`Comparison::AtLeast`], the smallest raw p in [0, 1] with `apply(p) ≥ calibrated` (then `p ≥ raw` ⟺
    /// `apply(p) ≥ calibrated`); for [`Comparison::Above`], the largest raw p with `apply(p) ≤ calibrated`
    /// (then `p > raw` ⟺ `apply(p) > calibrated`). `None` when no raw p in [0, 1] passes (`AtLeast`) or when
    /// every raw p passes (`Above`): no threshold in [0, 1] makes the same decisions there.
    pub fn raw_threshold(&self, calibrated: f64, comparison: Comparison) -> Option<f64> {
        let pass = |p: f64| comparison.passes(self.apply(p), calibrated);
        if !pass(1.0) {
            // Nothing passes: `p > 1` never holds, so 1 is exact for Above; AtLeast has no exact value.
            return (comparison == Comparison::Above).then_some(1.0);
        }
        if pass(0.0) {
            return (comparison == Comparison::AtLeast).then_some(0.0);
        }
        // Non-negative f64s order as their bit patterns: bisect for the first passing one in (0, 1].
        let (mut lo, mut hi) = (0.0f64.to_bits(), 1.0f64.to_bits()); // !pass(lo), pass(hi)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if pass(f64::from_bits(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(match comparison {
            Comparison::AtLeast => f64::from_bits(hi),
            Comparison::Above => f64::from_bits(lo),
        })
    }
}

/// The reliability diagram: [`BINS`] equal-width bins, empty ones omitted. Non-finite probabilities are skipped.
pub fn reliability_bins(p: &[f64], y: &[bool]) -> Vec<ReliabilityBin> {
    let mut sums = [(0.0f64, 0u32, 0u32); BINS];
    for (&pi, &yi) in p.iter().zip(y) {
        if !pi.is_finite() {
            continue;
        }
        let i = ((pi.clamp(0.0, 1.0) * BINS as f64) as usize).min(BINS - 1);
        sums[i].0 += pi;
        sums[i].1 += u32::from(yi);
        sums[i].2 += 1;
    }
    (sums.iter())
        .filter(|s| s.2 > 0)
        .map(|&(sum, pos, n)| ReliabilityBin {
            p_mean: sum / f64::from(n),
            frac_positive: f64::from(pos) / f64::from(n),
            n,
        })
        .collect()
}

/// Mean of `(p − y)²`; `None` without labels.
pub fn brier(p: &[f64], y: &[bool]) -> Option<f64> {
    let n = p.len().min(y.len());
    (n > 0).then(|| {
        p.iter()
            .zip(y)
            .map(|(&pi, &yi)| (pi - f64::from(u8::from(yi))).powi(2))
            .sum::<f64>()
            / n as f64
    })
}

/// ROC AUC: P(score of a positive > score of a negative), ties counted half (the Mann–Whitney statistic with
/// mid-ranks). `None` unless both classes are present.
pub fn auc(p: &[f64], y: &[bool]) -> Option<f64> {
    let mut pairs: Vec<(f64, bool)> = p.iter().copied().zip(y.iter().copied()).collect();
    let positives = pairs.iter().filter(|(_, yi)| *yi).count();
    let negatives = pairs.len() - positives;
    if positives == 0 || negatives == 0 {
        return None;
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Sum of the positives' mid-ranks (1-based).
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < pairs.len() {
        let mut j = i;
        while j < pairs.len() && pairs[j].0.total_cmp(&pairs[i].0).is_eq() {
            j += 1;
        }
        let mid_rank = (i + 1 + j) as f64 / 2.0;
        rank_sum += mid_rank * pairs[i..j].iter().filter(|(_, yi)| *yi).count() as f64;
        i = j;
    }
    let (np, nn) = (positives as f64, negatives as f64);
    Some((rank_sum - np * (np + 1.0) / 2.0) / (np * nn))
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
fn folds(y: &[bool], k: usize) -> Vec<usize> {
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

/// SplitMix64's finaliser: a fixed scrambling of an index.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn fit(method: Method, p: &[f64], y: &[bool]) -> Option<Calibrator> {
    match method {
        Method::None => Some(Calibrator::None),
        Method::Platt => fit_platt(p, y),
        Method::Isotonic => Some(fit_isotonic(p, y)),
    }
}

/// Out-of-fold predictions of `method`; `None` when a fold's fit is refused.
fn out_of_fold(method: Method, p: &[f64], y: &[bool], fold: &[usize], k: usize) -> Option<Vec<f64>> {
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
fn clearly_better(new: &[f64], old: &[f64], y: &[bool], old_brier: f64) -> bool {
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

/// One question's calibration, as reported: `{n, auc, brier_raw, brier_calibrated, method, bins,
/// bins_calibrated, note}`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct QuestionCalibration {
    /// Labelled candidates with a finite probability.
    pub n: u32,
    pub auc: Option<f64>,
    pub brier_raw: Option<f64>,
    /// Out-of-fold Brier of the chosen method (the raw Brier for `none`).
    pub brier_calibrated: Option<f64>,
    pub method: Method,
    /// The reliability diagram of the raw probabilities (empty bins omitted).
    pub bins: Vec<ReliabilityBin>,
    /// The diagram of the out-of-fold calibrated probabilities.
    pub bins_calibrated: Vec<ReliabilityBin>,
    /// Why no fit was made, or what the cross-validation compared.
    pub note: Option<String>,
}

/// A question's report and the fit chosen (fitted on all its labels).
#[derive(Clone, Debug, PartialEq)]
pub struct QuestionFit {
    pub report: QuestionCalibration,
    pub calibrator: Calibrator,
}

/// Calibrates one question from its labels (`p[i]` the judge's probability, `y[i]` the label). Non-finite
/// probabilities are dropped.
pub fn calibrate_question(p: &[f64], y: &[bool]) -> QuestionFit {
    let (p, y): (Vec<f64>, Vec<bool>) = (p.iter().zip(y))
        .filter(|(pi, _)| pi.is_finite())
        .map(|(&pi, &yi)| (pi, yi))
        .unzip();
    let positives = y.iter().filter(|&&yi| yi).count();
    let minority = positives.min(y.len() - positives);
    let brier_raw = brier(&p, &y);
    let bins = reliability_bins(&p, &y);
    let mut report = QuestionCalibration {
        n: u32::try_from(p.len()).unwrap_or(u32::MAX),
        auc: auc(&p, &y),
        brier_raw,
        brier_calibrated: brier_raw,
        method: Method::None,
        bins: bins.clone(),
        bins_calibrated: bins,
        note: None,
    };
    let none = |mut report: QuestionCalibration, note: String| {
        report.note = Some(note);
        QuestionFit {
            report,
            calibrator: Calibrator::None,
        }
    };
    if p.len() < MIN_LABELS {
        return none(
            report,
            format!("{} labels: at least {MIN_LABELS} are needed for a fit", p.len()),
        );
    }
    if minority < MIN_PER_CLASS {
        return none(
            report,
            format!(
                "{positives} positive and {} negative labels: at least {MIN_PER_CLASS} of each are needed for a fit",
                p.len() - positives
            ),
        );
    }
    let k = FOLDS.min(minority);
    let fold = folds(&y, k);
    let raw = brier_raw.unwrap_or(f64::NAN);
    let mut best = (Method::None, raw, p.clone());
    let mut compared = vec![format!("none {raw:.4}")];
    for method in [Method::Platt, Method::Isotonic] {
        match out_of_fold(method, &p, &y, &fold, k) {
            Some(pred) => {
                let score = brier(&pred, &y).unwrap_or(f64::NAN);
                compared.push(format!("{} {score:.4}", method.name()));
                if clearly_better(&pred, &best.2, &y, best.1) {
                    best = (method, score, pred);
                }
            }
            None => compared.push(format!("{} refused (ranks backwards)", method.name())),
        }
    }
    let (method, score, pred) = best;
    let calibrator = match fit(method, &p, &y) {
        Some(c) => c,
        None => {
            return none(
                report,
                format!(
                    "{}-fold cross-validated Brier: {}; the final fit was refused",
                    k,
                    compared.join(", ")
                ),
            )
        }
    };
    report.method = method;
    report.brier_calibrated = Some(score);
    report.bins_calibrated = reliability_bins(&pred, &y);
    report.note = Some(format!(
        "{k}-fold cross-validated Brier: {}; {} chosen",
        compared.join(", "),
        method.name()
    ));
    QuestionFit { report, calibrator }
}

/// Which judge made a probability: name, model and prompt version. A fit holds for this triple only.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeKey {
    pub judge: String,
    pub model: String,
    pub prompt_version: String,
}

/// Labelled probabilities per question.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Samples {
    pub p: Vec<f64>,
    pub y: Vec<bool>,
}

/// One candidate's answers and whether it is labelled relevant.
type Labelled = (BTreeMap<String, f64>, bool);

/// Labelled probabilities gathered per judge and question, from any source of labels (run labels, span labels,
/// rag-jev eval cases).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelledScores {
    pub judges: BTreeMap<JudgeKey, JudgeSamples>,
}

/// One judge's labelled probabilities and how many labelled sets (runs, cases) they came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JudgeSamples {
    pub sets: u32,
    pub questions: BTreeMap<String, Samples>,
}

impl LabelledScores {
    /// Adds one labelled set (a run, a case) of `judge`: each candidate's answers with whether it is relevant.
    /// Only [`LABELLED_QUESTIONS`] and finite probabilities are kept.
    pub fn add_set<'a>(
        &mut self,
        judge: &JudgeKey,
        candidates: impl IntoIterator<Item = (&'a BTreeMap<String, f64>, bool)>,
    ) {
        let entry = self.judges.entry(judge.clone()).or_default();
        entry.sets += 1;
        for (answers, relevant) in candidates {
            for (key, &p) in answers {
                if p.is_finite() && LABELLED_QUESTIONS.contains(&key.as_str()) {
                    let s = entry.questions.entry(key.clone()).or_default();
                    s.p.push(p);
                    s.y.push(relevant);
                }
            }
        }
    }

    /// Adds rag-jev eval cases with their saved traces (paired by case id, the fingerprint checked): the key is
    /// `useful`, the judge `jev-ragjev` (independent scoring) or `jev-contextual`, the model the judgments'.
    pub fn add_rag_jev(&mut self, cases: &[EvalCase], traces: &[RagJevTrace]) -> Result<(), String> {
        for case in cases {
            let trace = (traces.iter().find(|t| t.case_id == case.id))
                .ok_or_else(|| format!("no trace for case `{}`", case.id))?;
            let expected = fingerprint(case);
            if trace.input_hash != expected {
                return Err(format!(
                    "stale trace for case `{}`: its fingerprint {} is not the case's {expected}",
                    case.id, trace.input_hash
                ));
            }
            if trace.judgments.len() != case.documents.len() {
                return Err(format!(
                    "case `{}` has {} documents but its trace {} judgments",
                    case.id,
                    case.documents.len(),
                    trace.judgments.len()
                ));
            }
            let judge = match trace.scoring_strategy {
                ScoringStrategy::Independent => "jev-ragjev",
                ScoringStrategy::Contextual => "jev-contextual",
            };
            // One set per judging model (a trace normally has one).
            let mut by_model: BTreeMap<&str, Vec<Labelled>> = BTreeMap::new();
            for (d, j) in case.documents.iter().zip(&trace.judgments) {
                let answers = BTreeMap::from([(USEFUL.to_string(), j.relevance)]);
                by_model
                    .entry(j.model.as_str())
                    .or_default()
                    .push((answers, case.relevant_ids.contains(&d.id)));
            }
            for (model, rows) in by_model {
                let key = JudgeKey {
                    judge: judge.into(),
                    model: model.into(),
                    prompt_version: trace.prompt_version.clone(),
                };
                self.add_set(&key, rows.iter().map(|(a, r)| (a, *r)));
            }
        }
        Ok(())
    }

    /// Calibrates every judge's every question.
    pub fn calibrate(&self) -> BTreeMap<JudgeKey, JudgeFits> {
        (self.judges.iter())
            .map(|(key, s)| {
                let questions = (s.questions.iter())
                    .map(|(q, samples)| (q.clone(), calibrate_question(&samples.p, &samples.y)))
                    .collect();
                (
                    key.clone(),
                    JudgeFits {
                        sets: s.sets,
                        questions,
                    },
                )
            })
            .collect()
    }
}

/// One judge's fits: per question, and how many labelled sets they came from.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeFits {
    pub sets: u32,
    pub questions: BTreeMap<String, QuestionFit>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64: a tiny deterministic generator for synthetic labels.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn uniform(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// n raw probabilities spread over (0, 1), labels drawn from `truth(p)`.
    fn synthetic(n: usize, seed: u64, truth: impl Fn(f64) -> f64) -> (Vec<f64>, Vec<bool>) {
        let mut rng = Rng(seed);
        let p: Vec<f64> = (0..n).map(|_| 0.01 + 0.98 * rng.uniform()).collect();
        let y = p.iter().map(|&pi| rng.uniform() < truth(pi)).collect();
        (p, y)
    }

    #[test]
    fn auc_counts_ties_half() {
        assert_eq!(auc(&[0.1, 0.9], &[false, true]), Some(1.0));
        assert_eq!(auc(&[0.9, 0.1], &[false, true]), Some(0.0));
        assert_eq!(auc(&[0.5, 0.5], &[false, true]), Some(0.5));
        // Positives 0.8, 0.4; negatives 0.4, 0.2: pairs (0.8>0.4)=1, (0.8>0.2)=1, (0.4=0.4)=½, (0.4>0.2)=1.
        assert_eq!(auc(&[0.8, 0.4, 0.4, 0.2], &[true, true, false, false]), Some(3.5 / 4.0));
        assert_eq!(auc(&[0.1, 0.2], &[true, true]), None);
    }

    #[test]
    fn brier_and_bins_add_up() {
        assert_eq!(brier(&[1.0, 0.0, 0.5], &[true, false, true]), Some(0.25 / 3.0));
        assert_eq!(brier(&[], &[]), None);
        let (p, y) = synthetic(537, 7, |p| p);
        let bins = reliability_bins(&p, &y);
        assert_eq!(bins.iter().map(|b| b.n as usize).sum::<usize>(), p.len());
        assert!(bins.iter().all(|b| b.n > 0));
        let edges = reliability_bins(&[0.0, 0.1, 0.95, 1.0], &[false, false, true, true]);
        assert_eq!(
            edges.iter().map(|b| b.n).collect::<Vec<_>>(),
            [1, 1, 2],
            "1.0 falls in the last bin"
        );
        assert_eq!(edges[2].frac_positive, 1.0);
    }

    #[test]
    fn platt_recovers_a_known_miscalibration() {
        let (a, b) = (2.0, -0.7);
        let (p, y) = synthetic(20_000, 42, |p| sigmoid(a * logit(p) + b));
        let Some(Calibrator::Platt { a: fa, b: fb }) = fit_platt(&p, &y) else {
            panic!("no fit")
        };
        assert!((fa - a).abs() < 0.1 && (fb - b).abs() < 0.1, "a {fa}, b {fb}");
        let fit = calibrate_question(&p, &y);
        assert_eq!(fit.report.method, Method::Platt, "{:?}", fit.report.note);
        assert!(fit.report.brier_calibrated.unwrap() < fit.report.brier_raw.unwrap() - 0.005);
        let bins = &fit.report.bins_calibrated;
        assert!(
            bins.iter()
                .filter(|b| b.n >= 200)
                .all(|b| (b.p_mean - b.frac_positive).abs() < 0.06),
            "{bins:?}"
        );
    }

    #[test]
    fn separable_labels_give_a_finite_platt_fit() {
        let p: Vec<f64> = (0..20).map(|i| f64::from(i) / 20.0).collect();
        let y: Vec<bool> = (0..20).map(|i| i >= 10).collect();
        let Some(Calibrator::Platt { a, b }) = fit_platt(&p, &y) else {
            panic!("no fit")
        };
        assert!(a.is_finite() && b.is_finite() && a > 1.0, "a {a} b {b}");
        let backwards: Vec<bool> = y.iter().map(|v| !v).collect();
        assert_eq!(
            fit_platt(&p, &backwards),
            None,
            "a fit that reverses the order is refused"
        );
    }

    #[test]
    fn isotonic_is_monotone_and_fixes_a_step() {
        // The truth jumps at 0.6: 0.1 below, 0.9 above; the raw p says nothing of it.
        let (p, y) = synthetic(3000, 9, |p| if p < 0.6 { 0.1 } else { 0.9 });
        let c = fit_isotonic(&p, &y);
        let Calibrator::Isotonic { x, y: v } = &c else { panic!() };
        assert!(x.windows(2).all(|w| w[0] < w[1]) && v.windows(2).all(|w| w[0] < w[1]));
        let grid: Vec<f64> = (0..=1000).map(|i| f64::from(i) / 1000.0).collect();
        assert!(grid.windows(2).all(|w| c.apply(w[0]) <= c.apply(w[1])));
        let fit = calibrate_question(&p, &y);
        assert_eq!(fit.report.method, Method::Isotonic, "{:?}", fit.report.note);
        assert!(fit.report.brier_calibrated.unwrap() < fit.report.brier_raw.unwrap() - 0.02);
        assert!((fit.calibrator.apply(0.3) - 0.1).abs() < 0.07 && (fit.calibrator.apply(0.8) - 0.9).abs() < 0.07);
    }

    /// Also guards the fold assignment: folds dealt in order of p leaked the held-out labels and made isotonic
    /// "beat" the true probabilities on every seed.
    #[test]
    fn a_calibrated_judge_keeps_none() {
        for seed in [1, 2, 3, 4, 5, 6, 7, 8] {
            let (p, y) = synthetic(2000, seed, |p| p);
            let fit = calibrate_question(&p, &y);
            let r = &fit.report;
            assert!(
                r.brier_calibrated.unwrap() <= r.brier_raw.unwrap(),
                "seed {seed}: {:?}",
                r.note
            );
            assert_eq!(r.method, Method::None, "seed {seed}: {:?}", r.note);
        }
    }

    #[test]
    fn too_few_labels_or_one_class_invent_no_fit() {
        let few = calibrate_question(&[0.2, 0.8, 0.4], &[false, true, true]);
        assert_eq!((few.report.method, few.calibrator), (Method::None, Calibrator::None));
        assert!(few.report.note.unwrap().contains("at least 10"));
        let p: Vec<f64> = (0..30).map(|i| f64::from(i) / 30.0).collect();
        let one = calibrate_question(&p, &[true; 30]);
        assert_eq!(one.report.method, Method::None);
        assert_eq!(one.report.auc, None);
        assert!(one.report.note.unwrap().contains("0 negative"));
    }

    #[test]
    fn raw_thresholds_reproduce_the_decisions() {
        let (p, y) = synthetic(500, 5, |p| sigmoid(1.7 * logit(p) - 0.4));
        let calibrators = [
            Calibrator::None,
            fit_platt(&p, &y).unwrap(),
            fit_isotonic(&p, &y),
            Calibrator::Platt { a: 0.5, b: 3.0 },
        ];
        let mut probe = p.clone();
        probe.extend([0.0, 1.0, 0.5]);
        for c in &calibrators {
            // Probe the raw values themselves and their neighbours too.
            let near: Vec<f64> = (probe.iter())
                .flat_map(|&v| {
                    [
                        v,
                        f64::from_bits(v.to_bits().saturating_sub(1)),
                        f64::from_bits(v.to_bits() + 1),
                    ]
                })
                .filter(|v| (0.0..=1.0).contains(v))
                .collect();
            for t in [0.05, 0.2, 0.45, 0.55, 0.7, 0.95, c.apply(0.3), c.apply(p[17])] {
                for cmp in [Comparison::AtLeast, Comparison::Above] {
                    match c.raw_threshold(t, cmp) {
                        Some(raw) => {
                            assert!((0.0..=1.0).contains(&raw));
                            for &v in &near {
                                assert_eq!(cmp.passes(v, raw), cmp.passes(c.apply(v), t), "{c:?} t {t} v {v}");
                            }
                        }
                        None => {
                            let all = near.iter().all(|&v| cmp.passes(c.apply(v), t));
                            let nothing = near.iter().all(|&v| !cmp.passes(c.apply(v), t));
                            assert!(all || nothing, "{c:?} t {t}");
                        }
                    }
                }
            }
        }
        // The identity gives the threshold back.
        assert_eq!(Calibrator::None.raw_threshold(0.45, Comparison::AtLeast), Some(0.45));
        assert_eq!(Calibrator::None.raw_threshold(0.55, Comparison::Above), Some(0.55));
    }

    #[test]
    fn calibrators_serialise_with_their_method() {
        let c = Calibrator::Platt { a: 2.0, b: -1.0 };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v, serde_json::json!({"method": "platt", "a": 2.0, "b": -1.0}));
        assert_eq!(serde_json::from_value::<Calibrator>(v).unwrap(), c);
        let none = serde_json::to_value(Calibrator::None).unwrap();
        assert_eq!(none, serde_json::json!({"method": "none"}));
    }
}

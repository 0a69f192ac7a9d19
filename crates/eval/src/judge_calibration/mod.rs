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

use crate::{fingerprint, EvalCase, EvalError, RagJevTrace, ScoringStrategy};
use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT, USEFUL};

mod fit;

pub use fit::{auc, brier, fit_isotonic, fit_platt, reliability_bins};
use fit::{clearly_better, folds, out_of_fold};

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
    let calibrator = match fit::fit(method, &p, &y) {
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
    pub fn add_rag_jev(&mut self, cases: &[EvalCase], traces: &[RagJevTrace]) -> Result<(), EvalError> {
        for case in cases {
            let trace = (traces.iter().find(|t| t.case_id == case.id))
                .ok_or_else(|| EvalError::Invalid(format!("no trace for case `{}`", case.id)))?;
            let expected = fingerprint(case);
            if trace.input_hash != expected {
                return Err(EvalError::FingerprintMismatch {
                    case_id: case.id.clone(),
                    expected,
                    found: trace.input_hash.clone(),
                });
            }
            if trace.judgments.len() != case.documents.len() {
                return Err(EvalError::Invalid(format!(
                    "case `{}` has {} documents but its trace {} judgments",
                    case.id,
                    case.documents.len(),
                    trace.judgments.len()
                )));
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
mod tests;

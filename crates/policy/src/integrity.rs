//! Threshold-integrity checks: warnings, with their numbers, that a selection's thresholds or scores cannot mean
//! what the user may think — a threshold no score comes near, a judge whose scores barely vary, scores that run
//! against the retrieval order, and a filter that was configured but not applied. Pure, like [`crate::select`].
//!
//! What holds for every run of a judge rather than for this run's numbers — a rule skipped because the judge
//! does not assess its question — is a [`SelectionNote`], not a warning.

use crate::{ChunkJudgment, PolicyOptions, Selection, Status};
use crate::{CONTAINS_ANSWER_EVIDENCE, DEFAULT_THRESHOLDS, IS_RELEVANT, USEFUL};
use serde::{Deserialize, Serialize};

/// A threshold decides nothing when no score lies within this distance of it (all on one side).
pub const REACH: f64 = 0.10;
/// Scores vary "barely" when their spread (max − min) is below this across at least [`MIN_CHUNKS`] chunks.
pub const FLAT_SPREAD: f64 = 0.02;
/// Scores "run against" the retrieval order when their rank correlation with it is below this.
pub const INVERTED_BELOW: f64 = -0.6;
/// The fewest scored chunks the score-shape checks look at.
pub const MIN_CHUNKS: usize = 4;

/// A question's (or option's) name, its threshold, and the (input index, score) pairs it reads.
type ThresholdScores<'a> = (&'a str, f64, Vec<(usize, f64)>);

/// What a warning is about.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Every score is far on one side of a threshold: moving it a little changes nothing.
    ThresholdDecidesNothing,
    /// A question's scores barely vary across passages (a degenerate judge).
    FlatScores,
    /// Higher scores go with worse retrieval ranks across the run (a possibly inverted score).
    AgainstRetrievalOrder,
    /// A filter was configured but not applied (bypass or shadow).
    NotApplied,
}

/// One integrity warning, with the numbers behind it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct IntegrityWarning {
    /// What it is about.
    pub kind: WarningKind,
    /// The question key or option concerned (`is_relevant`, `min_relevance`, …).
    pub subject: String,
    /// One sentence with the numbers.
    pub message: String,
}

/// What a note is about.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// A classification rule was skipped because the judge does not assess its question: a property of the
    /// judge, true of every run it judges.
    RuleNotAssessed,
}

/// One note about a selection: true, worth knowing, but not about this run's numbers (see [`IntegrityWarning`]).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SelectionNote {
    /// What it is about.
    pub kind: NoteKind,
    /// The question key concerned (`contradicts_query_premise`, …).
    pub subject: String,
    /// One sentence.
    pub message: String,
}

/// The notes for `selection`: each rule some decision skipped because the judge does not assess it, once, in
/// key order.
pub fn notes(selection: &Selection) -> Vec<SelectionNote> {
    let mut skipped: Vec<&str> = selection
        .decisions
        .iter()
        .flat_map(|d| d.skipped_rules.iter().map(String::as_str))
        .collect();
    skipped.sort_unstable();
    skipped.dedup();
    skipped.into_iter().map(rule_not_assessed).collect()
}

/// The note that `key`'s rule was skipped because the judge does not assess its question.
fn rule_not_assessed(key: &str) -> SelectionNote {
    SelectionNote {
        kind: NoteKind::RuleNotAssessed,
        subject: key.to_string(),
        message: format!("the `{key}` rule was skipped: the judge does not assess it"),
    }
}

impl Selection {
    /// Reads a selection stored before notes existed as one made today. Such a selection carried each rule skipped
    /// because the judge does not assess its question as a warning: kind [`WarningKind::NotApplied`], subject the
    /// rule's question key, which some decision lists in its `skipped_rules` (bypass and shadow, the other
    /// `not_applied` warnings, have the subjects `selection` and `shadow`). Those warnings become notes, once each
    /// and in key order as [`notes`] makes them; every other warning stays. Idempotent; a selection made since
    /// notes exist is unchanged.
    pub fn move_skipped_rule_warnings_to_notes(&mut self) {
        let skipped: std::collections::BTreeSet<&str> = self
            .decisions
            .iter()
            .flat_map(|d| d.skipped_rules.iter().map(String::as_str))
            .collect();
        let was_skipped_rule =
            |w: &IntegrityWarning| w.kind == WarningKind::NotApplied && skipped.contains(w.subject.as_str());
        let moved: std::collections::BTreeSet<String> = self
            .warnings
            .iter()
            .filter(|w| was_skipped_rule(w))
            .map(|w| w.subject.clone())
            .collect();
        if moved.is_empty() {
            return;
        }
        self.warnings.retain(|w| !was_skipped_rule(w));
        for key in moved {
            let known = self
                .notes
                .iter()
                .any(|n| n.kind == NoteKind::RuleNotAssessed && n.subject == key);
            if !known {
                self.notes.push(rule_not_assessed(&key));
            }
        }
        self.notes.sort_by(|a, b| a.subject.cmp(&b.subject));
    }
}

/// The warnings for `selection`, made from `judgments` with `options`: only what this run's numbers say.
pub fn warnings(judgments: &[ChunkJudgment], options: &PolicyOptions, selection: &Selection) -> Vec<IntegrityWarning> {
    let mut out = Vec::new();
    let scores = |key: &str| -> Vec<(usize, f64)> {
        judgments
            .iter()
            .filter_map(|j| j.scores.get(key).filter(|s| s.is_finite()).map(|&s| (j.input_index, s)))
            .collect()
    };
    let warn = |kind, subject: &str, message: String| IntegrityWarning {
        kind,
        subject: subject.to_string(),
        message,
    };
    match selection.status {
        Status::Bypassed => out.push(warn(
            WarningKind::NotApplied,
            "selection",
            format!(
                "the filter was not applied: {} of {} passages lack the scores the mode needs, so the original \
                 context was used",
                selection.decisions.iter().filter(|d| d.score.is_none()).count(),
                selection.decisions.len()
            ),
        )),
        Status::Shadow => out.push(warn(
            WarningKind::NotApplied,
            "shadow",
            format!(
                "shadow mode: the selection keeps {} of {} passages, but the original context is sent",
                selection.selected().len(),
                selection.decisions.len()
            ),
        )),
        Status::Applied => {}
    }
    // Thresholds in force, with the scores they read.
    // The detectors (injection, contradiction) sit far below their thresholds on almost every passage, as they
    // should: only the rules that sort ordinary passages are checked.
    let sorting = |k: &str| k == IS_RELEVANT || k == CONTAINS_ANSWER_EVIDENCE;
    let thresholds: Vec<ThresholdScores> = if options.mode.classifies() {
        DEFAULT_THRESHOLDS
            .iter()
            .filter(|&&(k, _)| sorting(k))
            .map(|&(k, default)| (k, options.thresholds.get(k).copied().unwrap_or(default), scores(k)))
            .collect()
    } else if options.mode.filters() {
        let key = if judgments.iter().any(|j| j.scores.contains_key(USEFUL)) {
            USEFUL
        } else {
            IS_RELEVANT
        };
        vec![("min_relevance", options.min_relevance(), scores(key))]
    } else {
        Vec::new()
    };
    // The Spring reranker's minimum score, when one is set, reads the same usefulness score.
    let mut thresholds = thresholds;
    if let Some(minimum) = options.minimum_score.filter(|_| options.mode.spring_reranker()) {
        let key = if judgments.iter().any(|j| j.scores.contains_key(USEFUL)) {
            USEFUL
        } else {
            IS_RELEVANT
        };
        thresholds.push(("minimum_score", minimum, scores(key)));
    }
    for (subject, t, s) in &thresholds {
        if s.len() < 2 {
            continue;
        }
        let nearest = s.iter().map(|(_, v)| (v - t).abs()).fold(f64::INFINITY, f64::min);
        let all_above = s.iter().all(|(_, v)| v > t);
        let all_below = s.iter().all(|(_, v)| v < t);
        if nearest > REACH && (all_above || all_below) {
            out.push(warn(
                WarningKind::ThresholdDecidesNothing,
                subject,
                format!(
                    "`{subject}` at {t:.2} decides nothing here: all {} scores are {} it (the nearest is {nearest:.2} away)",
                    s.len(),
                    if all_above { "above" } else { "below" }
                ),
            ));
        }
    }
    for key in [IS_RELEVANT, CONTAINS_ANSWER_EVIDENCE, USEFUL] {
        let s = scores(key);
        if s.len() < MIN_CHUNKS {
            continue;
        }
        let (lo, hi) = s.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(_, v)| {
            (lo.min(v), hi.max(v))
        });
        if hi - lo < FLAT_SPREAD {
            out.push(warn(
                WarningKind::FlatScores,
                key,
                format!("`{key}` barely varies: all {} passages score {lo:.2}–{hi:.2}", s.len()),
            ));
        } else if key == USEFUL || key == CONTAINS_ANSWER_EVIDENCE {
            let rho = spearman(&s);
            if rho < INVERTED_BELOW {
                out.push(warn(
                    WarningKind::AgainstRetrievalOrder,
                    key,
                    format!(
                        "`{key}` runs against the retrieval order (rank correlation {rho:.2} over {} passages): \
                         is the score inverted?",
                        s.len()
                    ),
                ));
            }
        }
    }
    out
}

/// Spearman's rank correlation between retrieval goodness (earlier input = better) and the score.
fn spearman(s: &[(usize, f64)]) -> f64 {
    let ranks = |values: Vec<f64>| -> Vec<f64> {
        let mut idx: Vec<usize> = (0..values.len()).collect();
        idx.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let mut r = vec![0.0; values.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && values[idx[j + 1]] == values[idx[i]] {
                j += 1;
            }
            for &k in &idx[i..=j] {
                r[k] = (i + j) as f64 / 2.0;
            }
            i = j + 1;
        }
        r
    };
    let goodness = ranks(s.iter().map(|&(i, _)| -(i as f64)).collect());
    let score = ranks(s.iter().map(|&(_, v)| v).collect());
    let n = s.len() as f64;
    let mean = (n - 1.0) / 2.0;
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (a, b) in goodness.iter().zip(&score) {
        cov += (a - mean) * (b - mean);
        va += (a - mean) * (a - mean);
        vb += (b - mean) * (b - mean);
    }
    if va == 0.0 || vb == 0.0 {
        0.0
    } else {
        cov / (va * vb).sqrt()
    }
}

//! What a calibration writes: the frozen choice ([`Frozen`]) and the held-out report ([`Report`]), in rag-jev's
//! field order with ragsift's additions marked.

use serde::Serialize;

use super::{Artifacts, Assessment, CalibrationSummary, GridResult, Keyed, PairedInterval, Policy};
use crate::ScoringStrategy;

/// The frozen file: rag-jev's `choose` output and its context, in rag-jev's field order, plus ragsift's
/// `policy_version` and `context_tokens_estimator`.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Frozen {
    pub eligible: bool,
    /// The chosen policy (`null` when none qualified); a [`ragsift_policy::PolicyOptions`] document as well.
    pub policy: Option<Policy>,
    /// Every candidate on the development split: `{version: {"summary", "rows"}}`.
    pub development: Keyed<Assessment>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub scoring_strategy: ScoringStrategy,
    pub min_recall: f64,
    /// sha256 of Python's `json.dumps([case.model_dump() …], sort_keys=True)` of each split.
    pub development_hash: String,
    pub evaluation_hash: String,
    pub candidate_policies: Vec<Policy>,
    pub sources: Vec<String>,
    pub models: Vec<String>,
    /// ragsift: the chosen policy's rag-jev version.
    pub policy_version: Option<String>,
    /// ragsift: how context tokens were counted.
    pub context_tokens_estimator: &'static str,
}

/// A development summary of one candidate, as the report repeats it (ragsift's addition).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct DevelopmentRow {
    pub policy: Policy,
    pub summary: CalibrationSummary,
    /// Whether its development recall met `min_recall`.
    pub eligible: bool,
    pub chosen: bool,
}

/// One held-out case: baseline against the frozen policy (ragsift's addition).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct PairedRow {
    pub case_id: String,
    /// The resampling unit: `family:<family_id>`, else `question:<case id>`, as rag-jev labels them.
    pub unit: String,
    pub baseline_context_tokens: usize,
    pub frozen_context_tokens: usize,
    pub context_token_difference: i64,
    pub baseline_evidence_recall: Option<f64>,
    pub frozen_evidence_recall: Option<f64>,
}

/// Scoring tokens of all traces: a contextual trace's shared usage, else the sum over its judgments.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// The held-out report: rag-jev's `held_out` plus its context fields, then ragsift's additions.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Report {
    pub baseline: Assessment,
    /// Every candidate on the held-out split, descriptive only: `{version: {"policy", "summary", "rows"}}`.
    pub policies: Keyed<GridResult>,
    pub frozen_policy: Option<Policy>,
    pub eligible: bool,
    pub answer_quality: &'static str,
    pub selection_rule: &'static str,
    pub scope: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frozen_policy_held_out: Option<GridResult>,
    /// Frozen minus baseline context tokens per held-out question, with its family-resampled interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_token_difference: Option<PairedInterval>,
    /// sha256 of Python's `json.dumps(frozen, sort_keys=True)` of the frozen file's content.
    pub freeze_hash: String,
    pub development_questions: usize,
    pub evaluation_questions: usize,
    pub minimum_development_recall: f64,
    pub sources: Vec<String>,
    pub models: Vec<String>,
    pub scoring_usage: TokenUsage,
    pub data_warning: &'static str,
    /// ragsift: the frozen policy's version.
    pub frozen_policy_version: Option<String>,
    /// ragsift: the development grid (summaries; the rows are in the frozen file).
    pub development: Keyed<DevelopmentRow>,
    /// ragsift: frozen minus baseline evidence recall over the held-out questions with labelled evidence, resampled
    /// by family the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_recall_difference: Option<PairedInterval>,
    /// ragsift: the per-question differences behind the intervals.
    pub paired_differences: Vec<PairedRow>,
    /// ragsift: how context tokens were counted.
    pub context_tokens_estimator: &'static str,
}

/// What [`super::run`] wrote and found.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    pub frozen: Frozen,
    pub report: Report,
    pub artifacts: Artifacts,
    /// Whether the policy config was written (only when a policy qualified).
    pub policy_written: bool,
    /// Whether live traces were written.
    pub traces_written: bool,
}

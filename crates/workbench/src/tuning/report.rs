//! What a comparison of two configurations reports: per side, per question, and the evidence one kept and the
//! other lost.

use crate::answers::AskOptions;
use serde::{Deserialize, Serialize};

/// One side of a comparison: a name, the answer options, and the chunk size it expects (`None`: the library's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareConfig {
    pub name: String,
    pub chunk_tokens: Option<u32>,
    pub options: AskOptions,
}

/// Where a comparison's labelled questions come from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum CaseSource {
    /// The library's own span labels, as `ragsift labels export` would write them (no file in between).
    Labels,
    /// A JSON file of cases: the library case format `eval --from-library` reads (`id`, `query`,
    /// `relevant_ids` naming chunk ids or document file names or paths), or an export of labels.
    File { path: String },
}

/// Two configurations over the same labelled questions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareRequest {
    pub cases: CaseSource,
    pub a: CompareConfig,
    pub b: CompareConfig,
}

/// A labelled passage, named for people: where it lies and what it says.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvidenceRef {
    pub chunk_id: String,
    pub document: String,
    pub page_start: u32,
    pub page_end: u32,
    /// The passage's text (a chunk, a few hundred tokens at most).
    pub text: String,
}

/// One configuration on one question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareSide {
    pub run_id: String,
    /// Labelled evidence in the context / the question's evidence (pooled over both sides); `None` when the
    /// question has none (unanswerable).
    pub evidence_recall: Option<f64>,
    /// Labelled evidence in the context / passages in the context; 0 for an empty context.
    pub precision: f64,
    /// Tokens of the context handed to the answer.
    pub context_tokens: u64,
    pub documents: usize,
    pub candidates: usize,
    /// Passages sent to the judge (not found in the cache).
    pub fresh_judgments: usize,
    pub cached_judgments: usize,
    pub judge_input_tokens: u64,
    pub judge_output_tokens: u64,
}

/// B − A on one question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareDelta {
    pub evidence_recall: Option<f64>,
    pub precision: f64,
    pub context_tokens: i64,
}

/// One question under both configurations, and the labelled evidence one found and the other lost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareQuestion {
    pub id: String,
    pub query: String,
    /// Labelled evidence chunks retrieved by A or B.
    pub evidence: usize,
    pub a: CompareSide,
    pub b: CompareSide,
    pub delta: CompareDelta,
    /// Evidence in A's context and not in B's.
    pub kept_only_a: Vec<EvidenceRef>,
    pub kept_only_b: Vec<EvidenceRef>,
    /// Evidence A retrieved and B did not.
    pub retrieved_only_a: Vec<EvidenceRef>,
    pub retrieved_only_b: Vec<EvidenceRef>,
}

/// One configuration over all questions: query-level means and judge totals.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareSummary {
    pub config: CompareConfig,
    pub evidence_recall: Option<f64>,
    pub precision: Option<f64>,
    pub context_tokens: f64,
    pub documents: f64,
    pub fresh_judgments: usize,
    pub cached_judgments: usize,
    pub judge_input_tokens: u64,
    pub judge_output_tokens: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareReport {
    pub cases: usize,
    /// What recall is measured against.
    pub recall_scope: String,
    pub a: CompareSummary,
    pub b: CompareSummary,
    pub questions: Vec<CompareQuestion>,
}

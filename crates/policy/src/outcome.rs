//! What a selection says: one [`Reason`] per chunk with its [`Decision`], the [`Selection`] they make, and the
//! [`Change`]s between two selections (what a replay highlights).

use crate::{IntegrityWarning, SelectionNote};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Why a chunk was kept or dropped; exactly one per chunk. A policy explanation, not a model rationale.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Kept: its scores passed the mode's rules.
    Retained,
    /// Dropped (filter modes): its usefulness score is below `min_relevance`.
    BelowThreshold,
    /// Dropped: it (or its group) passed the rules, but `top_n` chunks were already selected.
    BeyondTopN,
    /// Dropped: it (or its group) passed the rules, but did not fit the remaining token budget.
    BeyondTokenBudget,
    /// Kept: pinned, so selected whatever its scores and the limits.
    Pinned,
    /// Kept: its own scores would drop it, but another member of its group was kept.
    GroupRetained,
    /// Kept: no chunk had the scores its mode needs, so the original context was used.
    Bypassed,
    /// Dropped: it, or a member of its group, scored above the prompt-injection threshold.
    Injection,
    /// Kept and flagged: it scored above the contradicts-premise threshold.
    Conflicting,
    /// Dropped: its relevance score is below the relevance threshold.
    NotRelevant,
    /// Dropped: relevant, but its answer-evidence score is not above the evidence threshold.
    NoEvidence,
    /// Kept in its place (Spring's per-passage fail-open, classify only): it lacks the scores its mode needs.
    Unscored,
    /// Kept (the Spring filters' fail-open): its classification failed — no judgment, or no score for a question
    /// it needs — and `fail_closed` is off (the community filter in `jev_chain` always fails open).
    FailedKept,
    /// Dropped (Spring AI 2.1's `failClosed(true)`): its classification failed.
    FailedDropped,
    /// Dropped (the Spring rerankers): its score is below `minimum_score`.
    BelowMinimumScore,
    /// Dropped (the Spring rerankers): it ranked below the `rerank_top_k` cut, which counts unscored chunks too.
    BeyondTopK,
    /// Kept after every scored chunk, in arrival order (the Spring rerankers' fail-open): the reranker has no
    /// score for it; it still counts toward `rerank_top_k`.
    UnscoredLast,
}

impl Reason {
    /// Every reason, in declaration order.
    pub const ALL: [Reason; 17] = [
        Reason::Retained,
        Reason::BelowThreshold,
        Reason::BeyondTopN,
        Reason::BeyondTokenBudget,
        Reason::Pinned,
        Reason::GroupRetained,
        Reason::Bypassed,
        Reason::Injection,
        Reason::Conflicting,
        Reason::NotRelevant,
        Reason::NoEvidence,
        Reason::Unscored,
        Reason::FailedKept,
        Reason::FailedDropped,
        Reason::BelowMinimumScore,
        Reason::BeyondTopK,
        Reason::UnscoredLast,
    ];

    /// Whether a chunk with this reason is in the selected context.
    pub fn is_kept(&self) -> bool {
        use Reason::*;
        matches!(
            self,
            Retained | Pinned | GroupRetained | Bypassed | Conflicting | Unscored | FailedKept | UnscoredLast
        )
    }

    /// One short sentence for the UI.
    pub fn explain(&self) -> &'static str {
        match self {
            Reason::Retained => "Kept: its scores passed the selection rules.",
            Reason::BelowThreshold => "Dropped: its usefulness score is below the minimum relevance.",
            Reason::BeyondTopN => "Dropped: it passed the rules but ranked below the top-N cut.",
            Reason::BeyondTokenBudget => "Dropped: it passed the rules but the context token budget was used up.",
            Reason::Pinned => "Kept: pinned, so it is selected whatever its scores and the limits.",
            Reason::GroupRetained => "Kept: another chunk of its group was kept, and groups stay together.",
            Reason::Bypassed => {
                "Kept unfiltered: the judge scores the mode needs were missing, so the original context was used."
            }
            Reason::Injection => "Dropped: it, or a chunk of its group, looks like a prompt-injection attempt.",
            Reason::Conflicting => "Kept and flagged: it appears to contradict a premise of the question.",
            Reason::NotRelevant => "Dropped: judged not relevant to the question.",
            Reason::NoEvidence => "Dropped: relevant, but judged not to contain evidence for the answer.",
            Reason::Unscored => "Kept unscreened in its place: the judge could not score it (fail-open).",
            Reason::FailedKept => {
                "Kept: its classification failed (no judgment, or a question's score is missing), and failClosed \
                 is off, so the filter fails open."
            }
            Reason::FailedDropped => {
                "Dropped: its classification failed, and failClosed drops what was not classified."
            }
            Reason::BelowMinimumScore => "Dropped: its reranker score is below minimumScore.",
            Reason::BeyondTopK => {
                "Dropped: it ranked below the reranker's topK cut (unscored passages count toward it)."
            }
            Reason::UnscoredLast => {
                "Kept after every scored passage: the reranker could not score it (fail-open); it counts toward topK."
            }
        }
    }
}

/// What a selection's result was used for.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The selection is returned as the context.
    Applied,
    /// Shadow mode: the selection is only reported; the original context is returned.
    Shadow,
    /// No chunk had the scores its mode needs: nothing was filtered, the original context is returned.
    Bypassed,
}

/// The policy's decision for one chunk.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Decision {
    /// The chunk's id, from [`ChunkJudgment::chunk_id`].
    pub chunk_id: String,
    /// The chunk's position in the retrieved list.
    pub input_index: usize,
    /// In the proposed selection (also in shadow mode); `None` when the selection was bypassed (rag-jev's null:
    /// nothing was selected or dropped).
    pub selected: Option<bool>,
    /// In what is actually handed to the answer model: everything in shadow and bypass.
    pub returned: bool,
    /// 1-based position in the selected context.
    pub rank: Option<usize>,
    /// Rerank/filter: the usefulness score that ordered it; classify: the probability of the deciding question;
    /// Spring chains: the reranker's score for what the filter kept, the deciding probability for what it dropped.
    pub score: Option<f64>,
    /// rag-jev's `jev_rank`: 1-based position by the ranking score, ties in input order (rag-jev modes only).
    #[serde(default)]
    pub jev_rank: Option<usize>,
    /// rag-jev's `fusion_score`: reciprocal-rank fusion of the input and judge ranks (fusion mode only).
    #[serde(default)]
    pub fusion_score: Option<f64>,
    /// Why it was kept or dropped.
    pub reason: Reason,
    /// Classified as contradicting the query premise, whatever happened to it afterwards.
    pub conflicting: bool,
    /// Classification rules skipped because the judge does not assess their question (e.g. the contradicted
    /// premise, offline): the reason was reached without them.
    #[serde(default)]
    pub skipped_rules: Vec<String>,
}

impl Decision {
    /// In the proposed selection (`false` when bypassed: nothing was selected).
    pub fn is_selected(&self) -> bool {
        self.selected == Some(true)
    }
}

/// The result of [`select`]: one decision per chunk and the context it yields.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Selection {
    /// One per chunk, in input order.
    pub decisions: Vec<Decision>,
    /// The proposed context, in final order; `None` when bypassed (rag-jev's null).
    pub selected_ids: Option<Vec<String>>,
    /// What is returned: `selected_ids`, or every chunk in input order in shadow and bypass.
    pub returned_ids: Vec<String>,
    /// Whether the selection was applied, only reported (shadow), or bypassed.
    pub status: Status,
    /// Total tokens of the selected chunks (saturating at `u32::MAX`); `None` when bypassed.
    pub selected_tokens: Option<u32>,
    /// Total characters of the selected chunks (saturating at `u32::MAX`); `None` when bypassed.
    pub selected_characters: Option<u32>,
    /// Number of chunks per reason; reasons that no chunk got are absent.
    pub counts: BTreeMap<Reason, usize>,
    /// [`PolicyOptions::policy_version`] of the options the selection was made with.
    pub policy_version: String,
    /// Threshold-integrity warnings about this run's numbers: thresholds that decide nothing, flat or inverted
    /// scores, filters not applied.
    #[serde(default)]
    pub warnings: Vec<IntegrityWarning>,
    /// Notes that hold whatever the numbers, e.g. a rule skipped because the judge does not assess its question.
    /// Absent from traces stored before notes existed (where such a rule was a warning).
    #[serde(default)]
    pub notes: Vec<SelectionNote>,
}

impl Selection {
    /// The proposed context's ids; empty when bypassed.
    pub fn selected(&self) -> &[String] {
        self.selected_ids.as_deref().unwrap_or_default()
    }
}

/// A chunk whose selection or reason differs between two selections (absent on one side → `None`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Change {
    /// The chunk's id.
    pub chunk_id: String,
    /// Its reason in the `before` selection; `None` if it was absent there.
    pub before_reason: Option<Reason>,
    /// Its reason in the `after` selection; `None` if it was absent there.
    pub after_reason: Option<Reason>,
    /// Whether it is selected in the `after` selection (`false` if absent there).
    pub now_selected: bool,
}

/// Whether `a` and `b` decide the same chunks in the same order.
pub fn same_ids_in_order(a: &Selection, b: &Selection) -> bool {
    a.decisions.len() == b.decisions.len()
        && (a.decisions.iter().zip(&b.decisions)).all(|(x, y)| x.chunk_id == y.chunk_id)
}

/// Chunks whose selected flag or reason changed from `before` to `after`, in `after`'s order, then the chunks
/// only `before` had. Chunk ids are assumed unique within a selection.
pub fn diff(before: &Selection, after: &Selection) -> Vec<Change> {
    // The common case (a replay of the same candidates in the same order): pairwise, without hashing ids.
    if same_ids_in_order(before, after) {
        return (before.decisions.iter().zip(&after.decisions))
            .filter(|(b, d)| b.selected != d.selected || b.reason != d.reason)
            .map(|(b, d)| Change {
                chunk_id: d.chunk_id.clone(),
                before_reason: Some(b.reason),
                after_reason: Some(d.reason),
                now_selected: d.is_selected(),
            })
            .collect();
    }
    let old: HashMap<&str, &Decision> = before.decisions.iter().map(|d| (d.chunk_id.as_str(), d)).collect();
    let new: HashSet<&str> = after.decisions.iter().map(|d| d.chunk_id.as_str()).collect();
    let changed = after
        .decisions
        .iter()
        .filter_map(|d| match old.get(d.chunk_id.as_str()) {
            Some(b) if b.selected == d.selected && b.reason == d.reason => None,
            b => Some(Change {
                chunk_id: d.chunk_id.clone(),
                before_reason: b.map(|b| b.reason),
                after_reason: Some(d.reason),
                now_selected: d.is_selected(),
            }),
        });
    let gone = before
        .decisions
        .iter()
        .filter(|d| !new.contains(d.chunk_id.as_str()))
        .map(|d| Change {
            chunk_id: d.chunk_id.clone(),
            before_reason: Some(d.reason),
            after_reason: None,
            now_selected: false,
        });
    changed.chain(gone).collect()
}

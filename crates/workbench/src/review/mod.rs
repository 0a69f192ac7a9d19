//! Blinded human review of baseline against selected answers, as rag-jev has it: a packet showing each question
//! with two anonymous answers ("A", "B") in a seeded random order, a separate key saying which is which, the
//! reviewers' labels as CSV, their completeness, and — only with the key, once every answer is labelled — the
//! unblinded comparison.

mod blind;
mod build;
mod csv;
mod files;
mod results;

pub use blind::blind_order;
pub use csv::review_csv;
pub use results::review_results;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One of the two anonymous answers of a review item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum AnswerLabel {
    A,
    B,
}

impl AnswerLabel {
    /// Both labels, in the order the packet shows them.
    pub const BOTH: [AnswerLabel; 2] = [AnswerLabel::A, AnswerLabel::B];

    /// `"A"` or `"B"`.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerLabel::A => "A",
            AnswerLabel::B => "B",
        }
    }

    /// The other answer.
    pub fn other(self) -> AnswerLabel {
        match self {
            AnswerLabel::A => AnswerLabel::B,
            AnswerLabel::B => AnswerLabel::A,
        }
    }

    fn parse(s: &str) -> Option<AnswerLabel> {
        match s.trim() {
            "A" | "a" => Some(AnswerLabel::A),
            "B" | "b" => Some(AnswerLabel::B),
            _ => None,
        }
    }
}

/// Which answer an anonymous one really is: the baseline context's, or the run's selection's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Arm {
    Baseline,
    Selected,
}

impl Arm {
    /// `"baseline"` or `"selected"` (rag-jev's `by_arm` keys).
    pub fn as_str(self) -> &'static str {
        match self {
            Arm::Baseline => "baseline",
            Arm::Selected => "selected",
        }
    }
}

/// A reviewer's yes / no / unclear, for correctness and for ambiguity alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Yes,
    No,
    Unclear,
}

impl Verdict {
    /// `"yes"`, `"no"` or `"unclear"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Yes => "yes",
            Verdict::No => "no",
            Verdict::Unclear => "unclear",
        }
    }

    /// Trimmed, case-insensitive, as rag-jev reads it.
    fn parse(s: &str) -> Option<Verdict> {
        match s.trim().to_lowercase().as_str() {
            "yes" => Some(Verdict::Yes),
            "no" => Some(Verdict::No),
            "unclear" => Some(Verdict::Unclear),
            _ => None,
        }
    }
}

/// What reviewers get: questions with two anonymous answers, never a hint of which is the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewPacket {
    /// A hash of the packet's content: the key and the labels name it, so results are matched to their packet and
    /// an edited packet is refused.
    pub packet_id: String,
    /// `unreviewed`, as rag-jev's packet.
    pub status: String,
    /// What reviewers are asked to judge.
    pub instructions: String,
    pub items: Vec<ReviewItem>,
}

/// One question and its two anonymous answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewItem {
    /// `q1`, `q2`, …: opaque, never a run id.
    pub item_id: String,
    pub query: String,
    /// The run's labelled reference answer, when it has one (rag-jev's list).
    pub reference_answers: Vec<String>,
    /// Every candidate the run retrieved, in retrieval order: both answers' contexts are drawn from it, and the
    /// answers' `[n]` citations are renumbered to it.
    pub full_candidate_evidence: Vec<ReviewEvidence>,
    /// `"A"` and `"B"`.
    pub answers: BTreeMap<String, ReviewAnswer>,
}

/// A numbered passage of evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewEvidence {
    /// 1-based; what the answers' `[n]` citations name.
    pub number: usize,
    pub title: String,
    /// `p. 3` or `pp. 3-4`.
    pub pages: String,
    pub text: String,
}

/// An anonymous answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewAnswer {
    pub text: String,
}

/// The answer key, kept from reviewers until the labels are complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewKey {
    /// The packet this key unblinds.
    pub packet_id: String,
    /// The seed the answers' order was drawn with.
    pub seed: u64,
    pub items: Vec<ReviewKeyItem>,
}

/// Which anonymous answer of an item is which, and the runs behind them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewKeyItem {
    pub item_id: String,
    /// The anonymous answer that is the baseline's (the other is the selection's).
    pub baseline_answer: AnswerLabel,
    /// The run the item was made from.
    pub run_id: String,
    /// The run whose answer is the selected one: `run_id`, or a new run when it had no answer yet.
    pub selected_run_id: String,
    /// The new run that answered from the baseline context.
    pub baseline_run_id: String,
    /// The baseline context: the run's labelled `baseline_ids`, else every candidate in retrieval order.
    pub baseline_ids: Vec<String>,
    /// Whether `baseline_ids` came from the run's labels.
    pub baseline_labelled: bool,
    /// What the selected answer was made from (the selection's returned ids).
    pub selected_ids: Vec<String>,
    /// Both answers saw the same context (the selection kept the baseline as it was).
    pub same_context: bool,
}

impl ReviewKeyItem {
    /// The anonymous answer that is `arm`'s.
    pub fn answer_of(&self, arm: Arm) -> AnswerLabel {
        match arm {
            Arm::Baseline => self.baseline_answer,
            Arm::Selected => self.baseline_answer.other(),
        }
    }
}

/// A packet and its key, written to separate files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewPacketFiles {
    pub packet: ReviewPacket,
    pub key: ReviewKey,
}

/// What a reviewer entered for one anonymous answer (one row of the labels CSV).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewLabel {
    pub item_id: String,
    pub anonymous_answer: AnswerLabel,
    pub reviewer: String,
    /// `None`: not labelled yet.
    pub semantically_correct: Option<Verdict>,
    pub ambiguous_question_or_reference: Option<Verdict>,
    pub notes: String,
}

/// Whether every answer of the packet is labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    Complete,
    Incomplete,
}

/// An anonymous answer of an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewAnswerRef {
    pub item_id: String,
    pub anonymous_answer: AnswerLabel,
}

/// rag-jev's review summary: completeness, the labels' counts, and with the key the unblinded comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReviewResults {
    pub packet_id: String,
    pub status: ReviewStatus,
    pub expected_answers: usize,
    pub labeled_answers: usize,
    pub unlabeled_answers: usize,
    /// The answers not labelled yet, in packet order.
    pub missing: Vec<ReviewAnswerRef>,
    pub reviewers: Vec<String>,
    /// Labelled answers by correctness (`yes`, `no`, `unclear`; absent when none).
    pub correctness_counts: BTreeMap<String, usize>,
    /// Labelled answers by "question or reference ambiguous?".
    pub ambiguity_counts: BTreeMap<String, usize>,
    /// With the key and complete labels only; `None` otherwise.
    pub unblinded: Option<Unblinded>,
    /// Why the key was not applied, when one was given.
    pub key_note: Option<String>,
    /// What these numbers do and do not establish.
    pub scope: String,
}

/// The comparison once the key is applied: per item and paired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Unblinded {
    /// rag-jev's `by_arm`: correctness counts per arm (`baseline`, `selected`).
    pub by_arm: BTreeMap<String, BTreeMap<String, usize>>,
    pub items: Vec<UnblindedItem>,
    /// Items whose baseline answer is correct (whatever the other).
    pub baseline_yes: usize,
    /// Items whose selected answer is correct (whatever the other).
    pub selected_yes: usize,
    /// Both correct.
    pub both: usize,
    /// Neither correct.
    pub neither: usize,
    /// Only the baseline correct: the baseline won.
    pub baseline_only: usize,
    /// Only the selected answer correct: the selection won.
    pub selected_only: usize,
    /// Either answer labelled unclear: kept out of the paired difference.
    pub unclear: usize,
    /// Items with both answers labelled yes or no.
    pub paired_items: usize,
    /// (selected_only − baseline_only) / paired_items: selected accuracy minus baseline accuracy on the same
    /// questions; `None` without paired items.
    pub paired_difference: Option<f64>,
}

/// One item unblinded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct UnblindedItem {
    pub item_id: String,
    pub run_id: String,
    pub baseline_run_id: String,
    pub selected_run_id: String,
    pub baseline_answer: AnswerLabel,
    pub baseline: Verdict,
    pub selected: Verdict,
    pub outcome: PairOutcome,
    /// The arm whose answer alone is correct; `None` for a tie or an unclear label.
    pub winner: Option<Arm>,
    /// Either answer's question or reference was labelled ambiguous.
    pub ambiguous: bool,
}

/// How an item's two labels compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum PairOutcome {
    Both,
    Neither,
    BaselineOnly,
    SelectedOnly,
    Unclear,
}

//! The policy's words for people, in one place: each reason's label and explanation, and each judge question's
//! label, default threshold and direction. The app exports them into its TypeScript bindings as constants, so
//! the UI shows exactly what Rust decides with.

use crate::{GroupBy, Mode, Reason, DEFAULT_THRESHOLDS, USEFUL};
use serde::Serialize;

/// How the UI names and explains one reason.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ReasonText {
    /// The reason.
    pub reason: Reason,
    /// A few words for a badge.
    pub label: &'static str,
    /// One sentence: what happened to the chunk and why ([`Reason::explain`]).
    pub explain: &'static str,
    /// Whether a chunk with this reason is in the context ([`Reason::is_kept`]).
    pub kept: bool,
}

/// How the UI names one judge question and reads its threshold.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct QuestionText {
    /// The question's key in judgments and thresholds.
    pub key: &'static str,
    /// Its column header.
    pub label: &'static str,
    /// A three-letter abbreviation.
    pub short: &'static str,
    /// Spring's default threshold; `None` for the usefulness score, which has no threshold.
    pub threshold: Option<f64>,
    /// How the threshold acts.
    pub direction: &'static str,
}

/// How the UI names one mode and which controls act in it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ModeText {
    /// The mode.
    pub mode: Mode,
    /// Its name in the mode picker.
    pub label: &'static str,
    /// One sentence: what the mode keeps and in which order.
    pub explain: &'static str,
    /// Takes `min_relevance` (and requires it: rag-jev refuses a filter without a threshold).
    pub threshold: bool,
    /// Reads the four classification thresholds.
    pub classifies: bool,
}

/// How the UI names and explains one grouping.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct GroupByText {
    /// The grouping.
    pub group_by: GroupBy,
    /// Its name in the picker ([`GroupBy::name`]).
    pub label: &'static str,
    /// One sentence: which chunks are kept or cut together.
    pub explain: &'static str,
}

/// Every grouping, in [`GroupBy::ALL`] order, with its name and explanation.
pub fn group_by_texts() -> Vec<GroupByText> {
    (GroupBy::ALL.iter())
        .map(|&g| GroupByText {
            group_by: g,
            label: g.name(),
            explain: match g {
                GroupBy::None => "Every chunk on its own",
                GroupBy::Document => "Chunks of the same document are kept or cut together",
                GroupBy::Page => "Chunks starting on the same page of the same document are kept or cut together",
                GroupBy::Section => {
                    "Chunks starting under the same heading of the same document are kept or cut together"
                }
            },
        })
        .collect()
}

/// Every mode, classify first, with its label and the controls it reads.
pub fn mode_texts() -> Vec<ModeText> {
    let m = |mode: Mode, label, explain| ModeText {
        mode,
        label,
        explain,
        threshold: mode.filters(),
        classifies: mode == Mode::Classify,
    };
    vec![
        m(
            Mode::Classify,
            "classify",
            "Spring's four questions, first rule wins; input order kept.",
        ),
        m(
            Mode::Filter,
            "filter",
            "Keeps usefulness at or above the minimum; input order kept.",
        ),
        m(Mode::Rerank, "rerank", "Keeps every passage, most useful first."),
        m(
            Mode::FilterAndRerank,
            "filter + rerank",
            "Keeps usefulness at or above the minimum, most useful first.",
        ),
        m(
            Mode::Fusion,
            "fusion",
            "Keeps every passage, ordered by reciprocal rank fusion of retrieval and judge ranks (k = 60).",
        ),
    ]
}

impl Reason {
    /// A few words for a badge.
    pub fn label(&self) -> &'static str {
        match self {
            Reason::Retained => "retained",
            Reason::BelowThreshold => "below threshold",
            Reason::BeyondTopN => "beyond top-N",
            Reason::BeyondTokenBudget => "beyond budget",
            Reason::Pinned => "pinned",
            Reason::GroupRetained => "group kept",
            Reason::Bypassed => "bypassed",
            Reason::Injection => "injection",
            Reason::Conflicting => "conflicting",
            Reason::NotRelevant => "not relevant",
            Reason::NoEvidence => "no evidence",
            Reason::Unscored => "unscored",
        }
    }
}

/// Every reason, in [`Reason::ALL`] order, with its label and explanation.
pub fn reason_texts() -> Vec<ReasonText> {
    Reason::ALL
        .iter()
        .map(|r| ReasonText {
            reason: *r,
            label: r.label(),
            explain: r.explain(),
            kept: r.is_kept(),
        })
        .collect()
}

/// The four questions of Spring's JevDocumentFilter in display order, each with its default threshold, then
/// rag-jev's usefulness score.
pub fn question_texts() -> Vec<QuestionText> {
    let threshold = |key: &str| DEFAULT_THRESHOLDS.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let q = |key: &'static str, label, short, direction| QuestionText {
        key,
        label,
        short,
        threshold: threshold(key),
        direction,
    };
    vec![
        q(crate::IS_RELEVANT, "Relevant", "rel", "dropped when below"),
        q(
            crate::CONTAINS_ANSWER_EVIDENCE,
            "Has evidence",
            "evi",
            "kept when above",
        ),
        q(
            crate::CONTRADICTS_QUERY_PREMISE,
            "Contradicts premise",
            "con",
            "flagged when above",
        ),
        q(
            crate::CONTAINS_PROMPT_INJECTION,
            "Prompt injection",
            "inj",
            "dropped when above",
        ),
        q(USEFUL, "Useful", "use", "filter/rerank score"),
    ]
}

#[cfg(test)]
mod texts_tests {
    use super::*;

    #[test]
    fn every_reason_and_question_has_words() {
        let reasons = reason_texts();
        assert_eq!(reasons.len(), Reason::ALL.len());
        assert!(reasons.iter().all(|r| !r.label.is_empty() && r.explain.ends_with('.')));
        let questions = question_texts();
        let with_threshold: Vec<_> = questions.iter().filter(|q| q.threshold.is_some()).collect();
        assert_eq!(with_threshold.len(), DEFAULT_THRESHOLDS.len());
        assert_eq!(questions.last().map(|q| q.key), Some(USEFUL));
        let modes = mode_texts();
        assert_eq!(modes.iter().filter(|m| m.threshold).count(), 2);
        assert!(modes.iter().all(|m| m.explain.ends_with('.')));
    }
}

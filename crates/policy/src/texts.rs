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
    /// Reads `fail_closed` (Spring AI 2.1's filter).
    pub fail_closed: bool,
    /// Reads the Spring reranker's `rerank_top_k` and `minimum_score`.
    pub reranker: bool,
    /// Whose post-processor it replays: `community` (spring-ai-typesafe), `spring-ai-2.1` or `rag-jev`.
    pub family: &'static str,
    /// What the mode takes that its source does not publish, and where the value comes from; empty when none.
    pub unpublished: &'static str,
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

/// Every mode in [`Mode::ALL`] order, with its label and the controls it reads.
pub fn mode_texts() -> Vec<ModeText> {
    Mode::ALL
        .iter()
        .map(|&mode| {
            let (label, explain) = mode_words(mode);
            ModeText {
                mode,
                label,
                explain,
                threshold: mode.filters(),
                classifies: mode.classifies(),
                fail_closed: mode.reads_fail_closed(),
                reranker: mode.spring_reranker(),
                family: if mode.is_spring_ai_2_1() {
                    "spring-ai-2.1"
                } else if mode.is_rag_jev() {
                    "rag-jev"
                } else {
                    "community"
                },
                unpublished: match mode {
                    Mode::DecisionFilter | Mode::DecisionChain => SPRING_2_1_UNPUBLISHED,
                    Mode::DecisionRerank => {
                        "Spring AI 2.1 publishes no topK or minimumScore default, tie-break or question wording: \
                         the community reranker's are used (all kept, no minimum, ties in input order)."
                    }
                    _ => "",
                },
            }
        })
        .collect()
}

/// What Spring AI 2.1's filter does not publish, said wherever its modes are offered.
pub const SPRING_2_1_UNPUBLISHED: &str = "Spring AI 2.1 publishes no threshold values, comparison strictness or \
     question wording: the community JevDocumentFilter's are used (injection > 0.70 dropped, contradiction > 0.70 \
     conflicting, relevance < 0.45 dropped, evidence > 0.55 kept), each one a setting.";

/// A mode's picker label and one-sentence explanation.
fn mode_words(mode: Mode) -> (&'static str, &'static str) {
    match mode {
        Mode::Classify => (
            "classify (community JevDocumentFilter)",
            "Spring's four questions, first rule wins; input order kept; a passage that could not be classified is kept.",
        ),
        Mode::Filter => (
            "filter",
            "Keeps usefulness at or above the minimum; input order kept.",
        ),
        Mode::Rerank => ("rerank", "Keeps every passage, most useful first."),
        Mode::FilterAndRerank => (
            "filter + rerank",
            "Keeps usefulness at or above the minimum, most useful first.",
        ),
        Mode::Fusion => (
            "fusion",
            "Keeps every passage, ordered by reciprocal rank fusion of retrieval and judge ranks (k = 60).",
        ),
        Mode::JevRerank => (
            "rerank (community JevDocumentReranker)",
            "Most useful first, ties in input order, unscored passages last and counted toward topK.",
        ),
        Mode::JevChain => (
            "filter → rerank (community)",
            "The community filter, then its reranker over what the filter keeps.",
        ),
        Mode::DecisionFilter => (
            "DecisionDocumentFilter (Spring AI 2.1)",
            "The four questions with the community thresholds; a failed classification is kept unless failClosed.",
        ),
        Mode::DecisionRerank => (
            "DecisionDocumentReranker (Spring AI 2.1)",
            "Score descending, ties in input order, minimumScore inclusive, unscored last and counted in topK.",
        ),
        Mode::DecisionChain => (
            "filter → rerank (Spring AI 2.1)",
            "DecisionDocumentFilter, then DecisionDocumentReranker over what it keeps (the published example: \
             failClosed, topK 5).",
        ),
    }
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
            Reason::FailedKept => "failed, kept",
            Reason::FailedDropped => "failed, dropped",
            Reason::BelowMinimumScore => "below minimum score",
            Reason::BeyondTopK => "beyond top-K",
            Reason::UnscoredLast => "unscored, last",
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
        assert_eq!(modes.len(), Mode::ALL.len());
        assert_eq!(modes.iter().filter(|m| m.threshold).count(), 2);
        assert!(modes.iter().all(|m| m.explain.ends_with('.')));
        // Every mode is named as it serialises, and the 2.1 ones say what 2.1 leaves unpublished.
        for m in &modes {
            assert_eq!(serde_json::to_value(m.mode).unwrap(), m.mode.name());
            assert_eq!(m.family == "spring-ai-2.1", !m.unpublished.is_empty(), "{:?}", m.mode);
        }
        let families: std::collections::BTreeSet<&str> = modes.iter().map(|m| m.family).collect();
        assert_eq!(families.len(), 3);
    }
}

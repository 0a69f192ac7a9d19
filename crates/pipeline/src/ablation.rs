//! Variant ablation from a run's cached hits and judgments: for each query variant, the candidates it alone
//! found (dropping the variant would lose them), the labelled evidence it alone found, and the tokens it cost —
//! in candidates to judge, in judge tokens, and in the selected context. No retrieval and no judge call.
//!
//! "Found by" is the joiner's provenance ([`crate::join::Candidate::found_by`]); a candidate found by one variant
//! only is that variant's own. Evidence is the run's labels ([`crate::labels::RunLabels::relevant_ids`]); without
//! them the evidence fields are `None`.

use super::Trace;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashSet};

/// What one query variant contributed to a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct VariantAblation {
    /// The variant's index (0 is the first query searched).
    pub variant: usize,
    /// The query the variant searched.
    pub query: String,
    /// Candidates it found (shared or not).
    pub candidates: usize,
    /// Candidates no other variant found, in candidate order.
    pub unique_ids: Vec<String>,
    /// Labelled-relevant candidates it found; `None` when the run has no relevance labels.
    pub relevant_found: Option<usize>,
    /// Labelled-relevant candidates only it found; `None` when the run has no relevance labels.
    pub unique_relevant_ids: Option<Vec<String>>,
    /// Tokens of every candidate it found.
    pub tokens: u64,
    /// Tokens of the candidates only it found: what dropping it saves in passages to judge.
    pub unique_tokens: u64,
    /// Judge tokens (input + output, as recorded in the run) spent on the candidates only it found.
    pub unique_judge_tokens: u64,
    /// Its own candidates the selection kept, in candidate order.
    pub unique_selected_ids: Vec<String>,
    /// Their tokens: what it cost in the selected context.
    pub unique_selected_tokens: u64,
}

/// One [`VariantAblation`] per variant of `trace`, in variant order.
pub fn ablate(trace: &Trace) -> Vec<VariantAblation> {
    let relevant: Option<HashSet<&str>> =
        (trace.labels.relevant_ids.as_ref()).map(|ids| ids.iter().map(String::as_str).collect());
    let selected: HashSet<&str> = trace.selection.selected().iter().map(String::as_str).collect();
    let judge_tokens = |id: &str| -> u64 {
        (trace.judge.judgments.iter())
            .filter(|j| j.chunk_id == id)
            .map(|j| u64::from(j.input_tokens) + u64::from(j.output_tokens))
            .sum()
    };
    let count = trace.variants.len().max(
        (trace.candidates.iter().flat_map(|c| &c.found_by))
            .map(|p| p.variant + 1)
            .max()
            .unwrap_or(0),
    );
    (0..count)
        .map(|v| {
            let found: Vec<_> = (trace.candidates.iter())
                .filter(|c| c.found_by.iter().any(|p| p.variant == v))
                .collect();
            let own: Vec<_> = (found.iter())
                .filter(|c| c.found_by.iter().map(|p| p.variant).collect::<BTreeSet<_>>().len() == 1)
                .copied()
                .collect();
            let own_selected: Vec<_> = own.iter().filter(|c| selected.contains(c.chunk_id.as_str())).collect();
            let ids = |cs: &mut dyn Iterator<Item = &str>| cs.map(String::from).collect::<Vec<_>>();
            VariantAblation {
                variant: v,
                query: trace.variants.get(v).map(|h| h.query.clone()).unwrap_or_default(),
                candidates: found.len(),
                unique_ids: ids(&mut own.iter().map(|c| c.chunk_id.as_str())),
                relevant_found: (relevant.as_ref())
                    .map(|r| found.iter().filter(|c| r.contains(c.chunk_id.as_str())).count()),
                unique_relevant_ids: relevant
                    .as_ref()
                    .map(|r| ids(&mut (own.iter().map(|c| c.chunk_id.as_str())).filter(|id| r.contains(id)))),
                tokens: found.iter().map(|c| u64::from(c.tokens)).sum(),
                unique_tokens: own.iter().map(|c| u64::from(c.tokens)).sum(),
                unique_judge_tokens: own.iter().map(|c| judge_tokens(&c.chunk_id)).sum(),
                unique_selected_ids: ids(&mut own_selected.iter().map(|c| c.chunk_id.as_str())),
                unique_selected_tokens: own_selected.iter().map(|c| u64::from(c.tokens)).sum(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::AnsweredBy;
    use crate::join::{Candidate, Provenance};
    use crate::labels::RunLabels;
    use crate::query::Query;
    use crate::trace::{chunk_judgments, Answer, VariantHit, VariantHits};
    use ragsift_interfaces::llm::{Completion, FinishReason};
    use ragsift_policy::{select, GroupBy, Mode, PolicyOptions, USEFUL};
    use std::collections::BTreeMap;

    fn candidate(id: &str, tokens: u32, variants: &[usize]) -> Candidate {
        Candidate {
            chunk_id: id.into(),
            document_id: "d".into(),
            document: "d.pdf".into(),
            title: "d".into(),
            page_start: 1,
            page_end: 1,
            char_start: 0,
            char_end: 1,
            tokens,
            text: format!("text of {id}"),
            score: 0.5,
            found_by: (variants.iter())
                .map(|&variant| Provenance {
                    variant,
                    rank: 1,
                    score: 0.5,
                })
                .collect(),
            metadata: None,
            group_id: None,
            pinned: false,
            section: Vec::new(),
        }
    }

    /// Three variants over five candidates: a (0, 1), b (0), c (1), d (2), e (1, 2); relevant b, c, e; kept
    /// a, b, d, e (filter at 0.5).
    fn trace(labelled: bool) -> Trace {
        let candidates = vec![
            candidate("a", 10, &[0, 1]),
            candidate("b", 20, &[0]),
            candidate("c", 30, &[1]),
            candidate("d", 40, &[2]),
            candidate("e", 50, &[1, 2]),
        ];
        let mut judge = crate::unjudged(&candidates);
        for (j, p) in judge.judgments.iter_mut().zip([0.9, 0.8, 0.1, 0.7, 0.6]) {
            j.scores = BTreeMap::from([(USEFUL.to_string(), p)]);
            (j.input_tokens, j.output_tokens) = (100, 1);
        }
        judge.judgments[1].cached = true;
        let policy = PolicyOptions {
            mode: Mode::Filter,
            min_relevance: Some(0.5),
            ..PolicyOptions::default()
        };
        let selection = select(
            &chunk_judgments(&candidates, &judge.judgments, &[], GroupBy::None),
            &policy,
        );
        let hits = |q: &str, ids: &[&str]| VariantHits {
            query: q.into(),
            hits: (ids.iter().enumerate())
                .map(|(rank, id)| VariantHit {
                    chunk_id: id.to_string(),
                    rank: rank + 1,
                    score: 0.5,
                    similarity: None,
                    bm25: None,
                })
                .collect(),
        };
        let answer = Answer {
            sources: Vec::new(),
            prompt: String::new(),
            completion: Completion {
                text: String::new(),
                model: String::new(),
                usage: Default::default(),
                finish_reason: FinishReason::Stop,
            },
            answered_by: AnsweredBy::NotAnswered,
            support: Default::default(),
        };
        let query = Query {
            text: "q".into(),
            history: Vec::new(),
        };
        let variants = vec![
            hits("q", &["a", "b"]),
            hits("q1", &["a", "c", "e"]),
            hits("q2", &["d", "e"]),
        ];
        let mut t = Trace::new(
            &query,
            Vec::new(),
            variants,
            candidates,
            judge,
            policy,
            selection,
            answer,
            BTreeMap::new(),
        );
        if labelled {
            t.labels = RunLabels {
                relevant_ids: Some(vec!["b".into(), "c".into(), "e".into()]),
                ..RunLabels::default()
            };
        }
        t
    }

    #[test]
    fn exact_counts_per_variant() {
        let a = ablate(&trace(true));
        assert_eq!(a.len(), 3);
        let summary: Vec<_> = (a.iter())
            .map(|v| (v.query.as_str(), v.candidates, v.unique_ids.join(","), v.relevant_found))
            .collect();
        assert_eq!(
            summary,
            [
                ("q", 2, "b".to_string(), Some(1)),
                ("q1", 3, "c".into(), Some(2)),
                ("q2", 2, "d".into(), Some(1))
            ]
        );
        let evidence: Vec<_> = a.iter().map(|v| v.unique_relevant_ids.clone().unwrap()).collect();
        assert_eq!(evidence, [vec!["b".to_string()], vec!["c".into()], vec![]]);
        let tokens: Vec<_> = a
            .iter()
            .map(|v| (v.tokens, v.unique_tokens, v.unique_judge_tokens))
            .collect();
        assert_eq!(tokens, [(30, 20, 101), (90, 30, 101), (90, 40, 101)]);
        // c was dropped by the filter: variant 1's own candidate costs no context.
        let context: Vec<_> = a
            .iter()
            .map(|v| (v.unique_selected_ids.join(","), v.unique_selected_tokens))
            .collect();
        assert_eq!(context, [("b".to_string(), 20), (String::new(), 0), ("d".into(), 40)]);

        let unlabelled = ablate(&trace(false));
        assert!(unlabelled
            .iter()
            .all(|v| v.relevant_found.is_none() && v.unique_relevant_ids.is_none()));
        assert_eq!(unlabelled[1].unique_ids, ["c"]);
    }
}

//! Labels on a run — which candidates hold relevant evidence, and which candidates a baseline would have sent —
//! and what a selection does against them, as rag-jev's replay reports it: evidence recall, the labelled evidence
//! dropped, and baseline → selected tokens.

use super::join::Candidate;
use ragsift_policy::Selection;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Sets and maps keyed by chunk id in [`RunLabels::report`], which runs on every slider move over thousands of
/// candidates: foldhash, as ids are not attacker-chosen keys and SipHash stood out in a 2,000-candidate profile.
type FastSet<'a> = foldhash::HashSet<&'a str>;
type FastMap<'a, V> = foldhash::HashMap<&'a str, V>;

/// A run's labels. `relevant_ids: Some([])` says no candidate is relevant (an unanswerable question); `None` says
/// nobody labelled the run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunLabels {
    /// Candidates holding useful evidence.
    #[serde(default)]
    pub relevant_ids: Option<Vec<String>>,
    /// The context a baseline sends (rag-jev's `baseline_ids`); without it the baseline is every candidate.
    #[serde(default)]
    pub baseline_ids: Option<Vec<String>>,
    /// The expected answer, when the labels came with one.
    #[serde(default)]
    pub reference_answer: Option<String>,
}

/// A selection measured against a run's labels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LabelReport {
    /// How many candidates are labelled relevant (`None`: relevance not labelled).
    pub relevant: Option<usize>,
    /// Relevant selected / relevant; `None` when nothing is labelled relevant (recall is undefined there).
    pub evidence_recall: Option<f64>,
    /// Relevant selected / selected; 0 for an empty selection, `None` when relevance is not labelled.
    pub precision: Option<f64>,
    /// Labelled-relevant candidates the selection dropped, in input order.
    pub relevant_dropped: Vec<String>,
    /// No relevant candidate is labelled, and the selection is empty: rag-jev's `correctly_empty`.
    pub correctly_empty: Option<bool>,
    /// What the baseline sends: the labelled `baseline_ids`, else every candidate.
    pub baseline_ids: Vec<String>,
    /// Whether `baseline_ids` came from the labels (else it is every candidate).
    pub baseline_labelled: bool,
    pub baseline_tokens: u64,
    pub selected_tokens: u64,
}

impl RunLabels {
    /// Whether any label is set.
    pub fn is_empty(&self) -> bool {
        self.relevant_ids.is_none() && self.baseline_ids.is_none() && self.reference_answer.is_none()
    }

    /// Checks that every labelled id names a candidate, once.
    pub fn validate(&self, candidates: &[Candidate]) -> Result<(), String> {
        let known: HashSet<&str> = candidates.iter().map(|c| c.chunk_id.as_str()).collect();
        for (name, ids) in [
            ("relevant_ids", &self.relevant_ids),
            ("baseline_ids", &self.baseline_ids),
        ] {
            let ids = ids.as_deref().unwrap_or_default();
            if let Some(bad) = ids.iter().find(|id| !known.contains(id.as_str())) {
                return Err(format!(
                    "{name} names `{bad}`, which is not one of the run's candidates"
                ));
            }
            if ids.iter().collect::<HashSet<_>>().len() != ids.len() {
                return Err(format!("{name} must be unique"));
            }
        }
        Ok(())
    }

    /// `selection` against these labels; `None` when the run has neither relevance nor baseline labels.
    pub fn report(&self, candidates: &[Candidate], selection: &Selection) -> Option<LabelReport> {
        if self.relevant_ids.is_none() && self.baseline_ids.is_none() {
            return None;
        }
        let selected: FastSet<'_> = selection.selected().iter().map(String::as_str).collect();
        // One lookup per id (a run may hold thousands of candidates); the first candidate of an id counts.
        let mut tokens_of: FastMap<'_, u32> = FastMap::with_capacity_and_hasher(candidates.len(), Default::default());
        for c in candidates {
            tokens_of.entry(c.chunk_id.as_str()).or_insert(c.tokens);
        }
        let tokens = |ids: &mut dyn Iterator<Item = &str>| -> u64 {
            ids.filter_map(|id| tokens_of.get(id)).map(|&t| u64::from(t)).sum()
        };
        let baseline_ids: Vec<String> = match &self.baseline_ids {
            Some(ids) => ids.clone(),
            None => candidates.iter().map(|c| c.chunk_id.clone()).collect(),
        };
        let (mut relevant, mut evidence_recall, mut precision, mut dropped, mut correctly_empty) =
            (None, None, None, Vec::new(), None);
        if let Some(ids) = &self.relevant_ids {
            let labelled: FastSet<'_> = ids.iter().map(String::as_str).collect();
            let hit = selected.iter().filter(|id| labelled.contains(*id)).count();
            relevant = Some(labelled.len());
            evidence_recall = (!labelled.is_empty()).then(|| hit as f64 / labelled.len() as f64);
            precision = Some(if selected.is_empty() {
                0.0
            } else {
                hit as f64 / selected.len() as f64
            });
            dropped = (candidates.iter())
                .filter(|c| labelled.contains(c.chunk_id.as_str()) && !selected.contains(c.chunk_id.as_str()))
                .map(|c| c.chunk_id.clone())
                .collect();
            correctly_empty = labelled.is_empty().then_some(selected.is_empty());
        }
        Some(LabelReport {
            relevant,
            evidence_recall,
            precision,
            relevant_dropped: dropped,
            correctly_empty,
            baseline_tokens: tokens(&mut baseline_ids.iter().map(String::as_str)),
            selected_tokens: tokens(&mut selection.selected().iter().map(String::as_str)),
            baseline_labelled: self.baseline_ids.is_some(),
            baseline_ids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragsift_policy::{select, ChunkJudgment, Mode, PolicyOptions, USEFUL};
    use std::collections::BTreeMap;

    fn candidate(id: &str, tokens: u32) -> Candidate {
        Candidate {
            chunk_id: id.into(),
            document_id: "d".into(),
            document: "d".into(),
            title: "d".into(),
            page_start: 1,
            page_end: 1,
            char_start: 0,
            char_end: 1,
            tokens,
            text: id.into(),
            score: 0.0,
            found_by: Vec::new(),
            metadata: None,
            group_id: None,
            pinned: false,
            section: Vec::new(),
        }
    }

    fn selection(scores: &[f64], min: f64) -> Selection {
        let judgments: Vec<ChunkJudgment> = (scores.iter().enumerate())
            .map(|(i, &p)| ChunkJudgment {
                chunk_id: format!("c{i}"),
                input_index: i,
                tokens: 10,
                characters: 2,
                pinned: false,
                group: None,
                scores: BTreeMap::from([(USEFUL.to_string(), p)]),
                not_assessed: Vec::new(),
            })
            .collect();
        let options = PolicyOptions {
            mode: Mode::Filter,
            min_relevance: Some(min),
            ..PolicyOptions::default()
        };
        select(&judgments, &options)
    }

    #[test]
    fn recall_dropped_evidence_and_tokens_against_the_labels() {
        let candidates: Vec<Candidate> = (0..4).map(|i| candidate(&format!("c{i}"), 10 * (i + 1))).collect();
        let kept = selection(&[0.9, 0.2, 0.8, 0.1], 0.5); // keeps c0, c2
        assert!(RunLabels::default().report(&candidates, &kept).is_none());
        let labels = RunLabels {
            relevant_ids: Some(vec!["c1".into(), "c2".into()]),
            baseline_ids: Some(vec!["c0".into(), "c1".into()]),
            reference_answer: None,
        };
        let r = labels.report(&candidates, &kept).unwrap();
        assert_eq!(
            (r.relevant, r.evidence_recall, r.precision),
            (Some(2), Some(0.5), Some(0.5))
        );
        assert_eq!(r.relevant_dropped, ["c1"]);
        assert_eq!((r.baseline_tokens, r.selected_tokens), (10 + 20, 10 + 30));
        assert!(r.baseline_labelled && r.correctly_empty.is_none());

        // Nothing relevant (unanswerable): recall is undefined; an empty selection is correctly empty.
        let unanswerable = RunLabels {
            relevant_ids: Some(Vec::new()),
            ..RunLabels::default()
        };
        let empty = selection(&[0.1, 0.1, 0.1, 0.1], 0.5);
        let r = unanswerable.report(&candidates, &empty).unwrap();
        assert_eq!(
            (r.evidence_recall, r.precision, r.correctly_empty),
            (None, Some(0.0), Some(true))
        );
        assert_eq!(
            r.baseline_tokens, 100,
            "without baseline ids the baseline is every candidate"
        );
        assert_eq!(
            unanswerable.report(&candidates, &kept).unwrap().correctly_empty,
            Some(false)
        );

        let unknown = RunLabels {
            relevant_ids: Some(vec!["nope".into()]),
            ..RunLabels::default()
        };
        assert!(unknown.validate(&candidates).is_err());
    }
}

//! rag-jev's retrieval metrics (`measure` and the summary in `src/rag_jev/evaluation.py` @fa73e740), per case and
//! as query-level means. They measure the selected context against labels, not answer correctness.

use std::collections::HashSet;

use serde::Serialize;

use super::ragjev::{Document, EvalCase};

/// How `context_tokens` is counted: rag-jev uses cl100k_base; ragsift has no such tokenizer, so it estimates.
pub const TOKEN_ESTIMATOR: &str = "estimate: ceil(characters / 4) per passage, not cl100k_base";

/// The token estimate for one passage: its characters (Unicode scalar values, as Python's `len`) / 4, rounded up.
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// One policy's selection for one case.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Metrics {
    /// Relevant selected / selected; 0 for an empty selection.
    pub precision: f64,
    /// Relevant selected / relevant candidates; `None` when the case has no relevant candidate.
    pub evidence_recall: Option<f64>,
    /// Binary nDCG: DCG over the whole selection (1 / log2(rank + 1) per relevant passage) divided by the ideal
    /// DCG of min(relevant, cutoff) hits, cutoff = `top_n` or the candidate count. A shorter selection counts as
    /// padded with non-relevant slots; like rag-jev's, the DCG is not cut at the cutoff, so a selection that
    /// overshoots `top_n` (a kept group, pins, an explicit baseline) can score above 1. `None` without relevant
    /// candidates.
    pub ndcg: Option<f64>,
    pub relevant_dropped: usize,
    pub documents: usize,
    /// Characters of passage text, counted as Python's `len`.
    pub characters: usize,
    /// Estimated tokens of passage text, see [`TOKEN_ESTIMATOR`].
    pub context_tokens: usize,
    /// The case has relevant candidates and none was selected.
    pub all_evidence_lost: bool,
    /// Only for cases without relevant candidates: whether the selection is empty.
    pub correctly_empty: Option<bool>,
    /// Always `None`: ragsift does not generate or grade answers here.
    pub answer_correct: Option<bool>,
}

/// Metrics of `selected` (in final order) against the case's labels.
pub fn measure(case: &EvalCase, selected: &[&Document], cutoff: Option<usize>) -> Metrics {
    let gold: HashSet<&str> = case.relevant_ids.iter().map(String::as_str).collect();
    let is_gold: Vec<bool> = selected.iter().map(|d| gold.contains(d.id.as_str())).collect();
    let hits = is_gold.iter().filter(|&&g| g).count();
    let gain = |rank: usize| 1.0 / ((rank + 2) as f64).log2(); // rank is 0-based
    let dcg: f64 = is_gold
        .iter()
        .enumerate()
        .filter(|(_, &g)| g)
        .map(|(i, _)| gain(i))
        .sum();
    let k = cutoff.unwrap_or(case.documents.len());
    let ideal: f64 = (0..gold.len().min(k)).map(gain).sum();
    let has_gold = !gold.is_empty();
    Metrics {
        precision: if selected.is_empty() {
            0.0
        } else {
            hits as f64 / selected.len() as f64
        },
        evidence_recall: has_gold.then(|| hits as f64 / gold.len() as f64),
        ndcg: if ideal > 0.0 {
            Some(dcg / ideal)
        } else {
            has_gold.then_some(0.0)
        },
        relevant_dropped: gold.len() - hits,
        documents: selected.len(),
        characters: selected.iter().map(|d| d.text.chars().count()).sum(),
        context_tokens: selected.iter().map(|d| estimate_tokens(&d.text)).sum(),
        all_evidence_lost: (has_gold && hits == 0) || case.evidence_lost,
        correctly_empty: (!has_gold && !case.evidence_lost).then_some(selected.is_empty()),
        answer_correct: None,
    }
}

/// Query-level means of one policy's [`Metrics`]; each mean skips the cases where the metric is `None`, and is
/// `None` when every case does (booleans count as 0 or 1). So recall and nDCG cover only cases with relevant
/// candidates, and `correctly_empty` only cases without.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Summary {
    pub precision: Option<f64>,
    pub evidence_recall: Option<f64>,
    pub ndcg: Option<f64>,
    pub relevant_dropped: Option<f64>,
    pub documents: Option<f64>,
    pub characters: Option<f64>,
    pub context_tokens: Option<f64>,
    pub all_evidence_lost: Option<f64>,
    pub correctly_empty: Option<f64>,
    pub answer_correct: Option<f64>,
}

/// Mean of the present values with Neumaier-compensated summation ([`crate::calibrate::mean`]), so that it agrees
/// with Python's exact `statistics.mean` to the last bit in ordinary cases (three cases of 2/3 and one of 1/2
/// average to 0.5, not 0.4999999999999999).
fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    crate::calibrate::mean(values.flatten())
}

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

pub fn summarize<'a>(rows: impl Iterator<Item = &'a Metrics> + Clone) -> Summary {
    let of = |f: fn(&Metrics) -> Option<f64>| mean(rows.clone().map(f));
    Summary {
        precision: of(|m| Some(m.precision)),
        evidence_recall: of(|m| m.evidence_recall),
        ndcg: of(|m| m.ndcg),
        relevant_dropped: of(|m| Some(m.relevant_dropped as f64)),
        documents: of(|m| Some(m.documents as f64)),
        characters: of(|m| Some(m.characters as f64)),
        context_tokens: of(|m| Some(m.context_tokens as f64)),
        all_evidence_lost: of(|m| Some(flag(m.all_evidence_lost))),
        correctly_empty: of(|m| m.correctly_empty.map(flag)),
        answer_correct: of(|m| m.answer_correct.map(flag)),
    }
}

/// rag-jev's p95: the value at 1-based rank ceil(0.95 n) of the sorted values; 0 for none.
pub fn p95(values: impl Iterator<Item = f64>) -> f64 {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let rank = (0.95 * v.len() as f64).ceil() as usize;
    v.get(rank.saturating_sub(1)).copied().unwrap_or(0.0)
}

//! Live scoring of eval cases: every case's documents judged with rag-jev's usefulness question, giving rag-jev
//! traces (the same shape `--replay` reads back).

use super::{fingerprint, EvalCase, Judgment, RagJevTrace, PROMPT_VERSION};
use crate::{Error, Result};
use ragsift_judge::jev::useful_question;
use ragsift_judge::Judge;
use ragsift_models::llm::CancelToken;
use std::time::Instant;

/// Scores each case's documents with `judge`; `on_case(done, total)` reports progress. Stops with
/// [`Error::Cancelled`] when `cancel` is set between cases.
pub fn score_cases(
    judge: &dyn Judge,
    cases: &[EvalCase],
    cancel: &CancelToken,
    on_case: &mut dyn FnMut(usize, usize),
) -> Result<Vec<RagJevTrace>> {
    let question = [useful_question()];
    let mut traces = Vec::with_capacity(cases.len());
    for (i, case) in cases.iter().enumerate() {
        if cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        let started = Instant::now();
        let texts: Vec<String> = case.documents.iter().map(|d| d.text.clone()).collect();
        // rag-jev judges `retrieval_query or query`: the query the documents were retrieved for.
        let query = case.retrieval_query.as_deref().unwrap_or(&case.query);
        let judged = judge.judge(query, &texts, &question)?;
        let judgments = judged
            .iter()
            .map(|j| Judgment {
                relevance: j.answers.get(&question[0].key).copied().unwrap_or(0.0) as f64,
                model: j.model.clone(),
                input_tokens: j.input_tokens as u64,
                output_tokens: j.output_tokens as u64,
            })
            .collect();
        traces.push(RagJevTrace {
            case_id: case.id.clone(),
            input_hash: fingerprint(case),
            prompt_version: PROMPT_VERSION.to_string(),
            relevance_guidance: None,
            judgments,
            elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
            source: format!("live:{}:{}", judge.name(), judge.model()),
            scoring_strategy: Default::default(),
            scoring_usage: None,
        });
        on_case(i + 1, cases.len());
    }
    Ok(traces)
}

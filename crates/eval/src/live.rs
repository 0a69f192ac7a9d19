//! Live scoring of eval cases: every case's documents judged with rag-jev's usefulness question, giving rag-jev
//! traces (the same shape `--from-traces` reads back). Each trace carries the judge's own prompt version: rag-jev's
//! (`useful-evidence-v1`, `contextual-evidence-v1`) only when Jev was sent rag-jev's own request.

use super::{fingerprint, EvalCase, RagJevJudgment, RagJevTrace, ScoringStrategy, Usage};
use crate::{Error, Result};
use ragsift_interfaces::llm::CancelToken;
use ragsift_judge::jev::useful_question;
use ragsift_judge::Judge;
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
        let contextual = judge.contextual();
        // A contextual request's usage is shared, never per passage (rag-jev's `scoring_usage`).
        let per_passage = |n: u32| if contextual { 0 } else { u64::from(n) };
        let judgments = judged
            .iter()
            .map(|j| RagJevJudgment {
                relevance: j.scores.get(&question[0].key).copied().unwrap_or(0.0),
                model: j.model.clone(),
                input_tokens: per_passage(j.input_tokens),
                output_tokens: per_passage(j.output_tokens),
            })
            .collect();
        traces.push(RagJevTrace {
            case_id: case.id.clone(),
            input_hash: fingerprint(case),
            prompt_version: judge.prompt_version(),
            relevance_guidance: None,
            judgments,
            elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
            source: format!("live:{}:{}", judge.name(), judge.model()),
            scoring_strategy: if contextual {
                ScoringStrategy::Contextual
            } else {
                ScoringStrategy::Independent
            },
            scoring_usage: contextual.then(|| Usage {
                input_tokens: judged.iter().map(|j| u64::from(j.input_tokens)).sum(),
                output_tokens: judged.iter().map(|j| u64::from(j.output_tokens)).sum(),
                completed_documents: judged.len() as u64,
                complete: true,
            }),
        });
        on_case(i + 1, cases.len());
    }
    Ok(traces)
}

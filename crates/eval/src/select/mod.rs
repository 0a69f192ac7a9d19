//! rag-jev's selection contract (`rag-jev select FILE|-`, `POST /v1/select`): its request, checked as its pydantic
//! models check it (unknown fields refused, the same limits and messages), judged by any [`Judge`], and turned by
//! the pure [`ragsift_policy::select`] into its `SelectionResult`, field for field. Tokens are `cl100k_base` counts
//! of the passage text, as rag-jev's `selected_context_tokens`. A judge failure raises (rag-jev's CLI) or, with
//! [`OnError::Passthrough`] (its library and service default), gives the `bypassed` result: the whole original
//! context, `selected_ids: null`, the judgments that did complete, and `usage.complete: false`.

mod datetime;
mod issue;
mod request;
mod result;
pub mod schema;
mod scored;
mod study;

pub use datetime::normalized_datetime;
pub use issue::Issue;
pub use request::{parse_request, request_from, RagJevMode, SelectRequest};
pub use result::{apply, bypassed, RagJevDecision, SelectionResult, TOKEN_ESTIMATOR};
pub use scored::{
    bundle_from, input_hash, parse_bundle, replay, Answer, AnswerStatus, Comparison, ImportedRun, Policy, ReplayBundle,
    RunSource, RunView, ScoredRun, RUN_VIEW_TOKEN_ESTIMATOR,
};
pub use study::{own_policy, scored_run, study_from, StudyRequest};

use crate::ragjev::{RagJevJudgment, Usage};
use ragsift_judge::jev::useful_question;
use ragsift_judge::Judge;
use ragsift_policy::USEFUL;
use std::time::Instant;

/// What the judge may do when it fails: rag-jev's CLI raises, its library and service pass the context through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnError {
    #[default]
    Raise,
    Passthrough,
}

/// A judge failure under [`OnError::Raise`]: rag-jev's sanitised code and the message.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectFailure {
    pub code: String,
    pub message: String,
}

/// Judges the request's documents with `judge` (rag-jev's usefulness question, about `retrieval_query or query`)
/// and applies the policy. Empty input asks nothing. Partial judgments are never applied.
pub fn select_with(
    judge: &dyn Judge,
    request: &SelectRequest,
    on_error: OnError,
) -> Result<SelectionResult, SelectFailure> {
    let started = Instant::now();
    let version = judge.prompt_version();
    let texts: Vec<String> = request.documents.iter().map(|d| d.text.clone()).collect();
    let question = [useful_question()];
    let results = if texts.is_empty() {
        Vec::new()
    } else {
        judge.judge_each(request.judged_query(), &texts, &question)
    };
    let contextual = judge.contextual();
    let mut completed = Vec::with_capacity(results.len());
    let mut failure = None;
    for r in results {
        match r.map(|j| (j.scores.get(USEFUL).copied(), j)) {
            Ok((Some(p), j)) => completed.push(Some(RagJevJudgment {
                relevance: p,
                model: j.model,
                input_tokens: u64::from(j.input_tokens),
                output_tokens: u64::from(j.output_tokens),
            })),
            Ok((None, _)) => {
                completed.push(None);
                failure.get_or_insert((
                    "invalid_provider_response".to_string(),
                    "no usefulness answer".to_string(),
                ));
            }
            Err(e) => {
                completed.push(None);
                let code = match &e {
                    ragsift_core::Error::Judge { code, .. } => code.rag_jev().to_string(),
                    other => other.code().to_string(),
                };
                failure.get_or_insert((code, e.to_string()));
            }
        }
    }
    let elapsed = started.elapsed().as_secs_f64() * 1e3;
    if let Some((code, message)) = failure {
        return match on_error {
            OnError::Raise => Err(SelectFailure { code, message }),
            OnError::Passthrough => {
                // A contextual request stands or falls together: none of its judgments count.
                let done = if contextual {
                    vec![None; completed.len()]
                } else {
                    completed
                };
                Ok(bypassed(request, &done, &code, &version, elapsed))
            }
        };
    }
    let judgments: Vec<RagJevJudgment> = completed.into_iter().flatten().collect();
    let shared = contextual.then(|| Usage {
        input_tokens: judgments.iter().map(|j| j.input_tokens).sum(),
        output_tokens: judgments.iter().map(|j| j.output_tokens).sum(),
        completed_documents: judgments.len() as u64,
        complete: true,
    });
    Ok(apply(request, &judgments, shared, &version, elapsed))
}

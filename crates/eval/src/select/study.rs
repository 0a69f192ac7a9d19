//! rag-jev's `POST /v1/runs`: a `StudyRequest` (a request with optional relevance labels and baseline) scored
//! live into a `ScoredRun`, as its `score_run` makes one from a selection, ready to replay into a `RunView`.

use super::issue::Issue;
use super::request::SelectRequest;
use super::result::SelectionResult;
use super::schema;
use super::scored::{input_hash, Policy, ReplayBundle, RunSource, ScoredRun};
use crate::ragjev::{RagJevJudgment, ScoringStrategy};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashSet;

/// rag-jev's `StudyRequest`.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StudyRequest {
    pub request: SelectRequest,
    #[serde(default)]
    pub relevant_ids: Option<Vec<String>>,
    #[serde(default)]
    pub baseline_ids: Option<Vec<String>>,
}

/// A `StudyRequest` body (`None`: no body) checked as rag-jev checks it: fields, the request's rules, then the
/// labels' (unique candidate IDs).
pub fn study_from(body: Option<&Value>) -> Result<StudyRequest, Vec<Issue>> {
    let study: StudyRequest = schema::typed(schema::check(body, schema::STUDY_REQUEST)?, &[])?;
    study.request.validate().map_err(|issues| {
        (issues.into_iter())
            .map(|mut i| {
                i.loc.insert(0, "request".into());
                i
            })
            .collect::<Vec<_>>()
    })?;
    let known: HashSet<&str> = study.request.documents.iter().map(|d| d.id.as_str()).collect();
    for ids in [&study.relevant_ids, &study.baseline_ids].into_iter().flatten() {
        let unique: HashSet<&str> = ids.iter().map(String::as_str).collect();
        if unique.len() != ids.len() || !unique.is_subset(&known) {
            return Err(vec![Issue::value_error(
                &[],
                "labels and baseline IDs must be unique candidate IDs",
            )]);
        }
    }
    Ok(study)
}

/// rag-jev's `score_run`: the live run a selection makes, created at `created_at` (pydantic's text), or the code of
/// the failure that bypassed it (`scoring_bypassed` when it names none).
pub fn scored_run(study: &StudyRequest, result: &SelectionResult, created_at: String) -> Result<ScoredRun, String> {
    if result.status == ragsift_policy::Status::Bypassed {
        return Err((result.error_code.clone()).unwrap_or_else(|| "scoring_bypassed".into()));
    }
    let judgments = (result.decisions.iter())
        .map(|d| {
            Some(RagJevJudgment {
                relevance: d.relevance?,
                model: d.model.clone()?,
                input_tokens: d.input_tokens.unwrap_or(0),
                output_tokens: d.output_tokens.unwrap_or(0),
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| "invalid_provider_response".to_string())?;
    let contextual = study.request.scoring_strategy == ScoringStrategy::Contextual;
    Ok(ScoredRun {
        request: study.request.clone(),
        relevant_ids: study.relevant_ids.clone(),
        baseline_ids: study.baseline_ids.clone(),
        schema_version: 1,
        created_at,
        source: RunSource::Live,
        prompt_version: result.prompt_version.clone(),
        input_hash: input_hash(&study.request),
        judgments,
        scoring_elapsed_ms: result.elapsed_ms,
        scoring_usage: contextual.then(|| result.usage.clone()),
    })
}

/// The bundle that replays `record` under its own request's policy (rag-jev's `body.request.policy`).
pub fn own_policy(record: ScoredRun) -> ReplayBundle {
    let r = &record.request;
    let policy = Policy {
        mode: r.mode,
        min_relevance: r.min_relevance,
        top_n: r.top_n,
        max_context_tokens: r.max_context_tokens,
        shadow: r.shadow,
        relevance_guidance: r.relevance_guidance.clone(),
    };
    ReplayBundle {
        record,
        policy,
        comparison: None,
    }
}

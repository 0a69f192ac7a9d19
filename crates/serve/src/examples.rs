//! rag-jev's example routes over ragsift's own hand-authored examples (`data/examples.json`, passages from the
//! bundled samples, scores written by hand and labelled as such, never a judge's): `GET /v1/examples` (the cases,
//! as rag-jev's `EvalCase`), `GET /v1/fixtures/{id}` (a case's `RunView` at `min_relevance` 0.2, from its
//! hand-authored scores) and `GET /v1/recordings` (each case as a replayable bundle, `path` to fetch it).

use crate::guard::{detail, reply, unauthorized};
use crate::tokens::Access;
use crate::Service;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use ragsift_workbench::eval::ragjev::{Document, RagJevJudgment};
use ragsift_workbench::eval::select::{
    input_hash, own_policy, replay, request_from, ReplayBundle, RunSource, ScoredRun,
};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::{Arc, OnceLock};

/// The examples file, as shipped.
#[derive(Deserialize)]
struct Examples {
    note: String,
    model: String,
    cases: Vec<Case>,
}

/// One example: rag-jev's `EvalCase` fields and its hand-authored score per document.
#[derive(Deserialize)]
struct Case {
    id: String,
    query: String,
    documents: Vec<Document>,
    relevant_ids: Vec<String>,
    reference_answer: Option<String>,
    scores: Vec<f64>,
}

fn examples() -> &'static Examples {
    static EXAMPLES: OnceLock<Examples> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        serde_json::from_str(include_str!("../data/examples.json")).expect("data/examples.json is valid (tested)")
    })
}

/// `GET /v1/examples`: the cases, as rag-jev's `EvalCase` dumps them.
pub async fn list(State(service): State<Arc<Service>>, headers: HeaderMap) -> Response {
    if service.options.tokens.check(&headers) == Access::Denied {
        return unauthorized();
    }
    let cases: Vec<Value> = (examples().cases.iter())
        .map(|c| {
            json!({
                "id": c.id, "query": c.query, "documents": c.documents, "relevant_ids": c.relevant_ids,
                "reference_answer": c.reference_answer, "baseline_ids": null, "retrieval_query": null,
                "family_id": null,
            })
        })
        .collect();
    reply(StatusCode::OK, &cases)
}

/// `GET /v1/fixtures/{id}`: the case's `RunView` at `min_relevance` 0.2 (404 `unknown_fixture`).
pub async fn fixture(State(service): State<Arc<Service>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if service.options.tokens.check(&headers) == Access::Denied {
        return unauthorized();
    }
    match bundle(&id).map(|b| replay(&b)) {
        Some(Ok(view)) => reply(StatusCode::OK, &view),
        Some(Err(_)) => detail(StatusCode::INTERNAL_SERVER_ERROR, "internal_error"),
        None => detail(StatusCode::NOT_FOUND, "unknown_fixture"),
    }
}

/// `GET /v1/recordings`: each example as a replayable bundle: `id`, `label`, `path` and `note`.
pub async fn recordings(State(service): State<Arc<Service>>, headers: HeaderMap) -> Response {
    if service.options.tokens.check(&headers) == Access::Denied {
        return unauthorized();
    }
    let all = examples();
    let list: Vec<Value> = (all.cases.iter())
        .map(|c| {
            json!({"id": c.id, "label": format!("Example · {}", c.query), "path": format!("/v1/recordings/{}", c.id),
                "note": all.note})
        })
        .collect();
    reply(StatusCode::OK, &list)
}

/// `GET /v1/recordings/{id}`: the example's bundle (`record`, `policy`, `comparison: null`), for `/v1/replay` and
/// `/v1/import`.
pub async fn recording(State(service): State<Arc<Service>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if service.options.tokens.check(&headers) == Access::Denied {
        return unauthorized();
    }
    match bundle(&id) {
        Some(b) => reply(StatusCode::OK, &b),
        None => detail(StatusCode::NOT_FOUND, "unknown_recording"),
    }
}

/// The case `id` as a fixture run under its own policy, or `None`.
fn bundle(id: &str) -> Option<ReplayBundle> {
    let all = examples();
    let case = all.cases.iter().find(|c| c.id == id)?;
    fixture_bundle(case, &all.model)
}

fn fixture_bundle(case: &Case, model: &str) -> Option<ReplayBundle> {
    let body = json!({"query": case.query, "documents": case.documents, "min_relevance": 0.2});
    let request = request_from(Some(&body)).ok()?;
    let judgments = (case.scores.iter())
        .map(|p| RagJevJudgment {
            relevance: *p,
            model: model.to_string(),
            input_tokens: 0,
            output_tokens: 0,
        })
        .collect();
    Some(own_policy(ScoredRun {
        input_hash: input_hash(&request),
        request,
        relevant_ids: Some(case.relevant_ids.clone()),
        baseline_ids: None,
        schema_version: 1,
        created_at: crate::study::now(),
        source: RunSource::Fixture,
        prompt_version: ragsift_workbench::eval::PROMPT_VERSION.to_string(),
        judgments,
        scoring_elapsed_ms: 0.0,
        scoring_usage: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_is_a_valid_case_that_replays() {
        let all = examples();
        assert!(all.note.contains("NOT a judge"));
        for case in &all.cases {
            assert_eq!(case.scores.len(), case.documents.len(), "{}", case.id);
            let ids: Vec<&str> = case.documents.iter().map(|d| d.id.as_str()).collect();
            assert!(
                case.relevant_ids.iter().all(|r| ids.contains(&r.as_str())),
                "{}",
                case.id
            );
            let b = bundle(&case.id).unwrap();
            let view = replay(&b).unwrap();
            // The hand-authored scores keep exactly the relevant passages at 0.2.
            let mut kept = view.selection.selected_ids.clone().unwrap();
            kept.sort();
            let mut relevant = case.relevant_ids.clone();
            relevant.sort();
            assert_eq!(kept, relevant, "{}", case.id);
        }
        assert!(bundle("nope").is_none());
    }
}

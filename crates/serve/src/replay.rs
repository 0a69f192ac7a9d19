//! `POST /v1/replay` and `POST /v1/import`: rag-jev's scored runs under another policy, from their recorded
//! judgments with no judge call (so both work under `--replay-only`). An import is also stored in the library as a
//! run of origin `imported`, with its labels, unless the service does not record. Checks run in rag-jev's order:
//! body size, JSON, token, schema.

use crate::guard::{admit, refuse, reply};
use crate::select::client_of;
use crate::Service;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use ragsift_workbench::eval::select::{bundle_from, replay as replay_bundle, ImportedRun, ReplayBundle, RunView};
use std::sync::Arc;

/// `POST /v1/replay`: a `ReplayRequest` in, its `RunView` out.
pub async fn replay(State(service): State<Arc<Service>>, headers: HeaderMap, body: Body) -> Response {
    match checked(&service, &headers, body, false).await {
        Ok((_, view, _)) => reply(StatusCode::OK, &view),
        Err(refusal) => refusal,
    }
}

/// `POST /v1/import`: a `ReplayBundle` in, `ImportedRun {view, comparison}` out; the run is kept in the library.
pub async fn import(State(service): State<Arc<Service>>, headers: HeaderMap, body: Body) -> Response {
    let (bundle, view, label) = match checked(&service, &headers, body, true).await {
        Ok(v) => v,
        Err(refusal) => return refusal,
    };
    if service.options.record {
        let client = label.unwrap_or_else(|| client_of(&headers));
        let (wb, stored) = (service.workbench.clone(), view.clone());
        match tokio::task::spawn_blocking(move || wb.import_scored_run(&stored, &client)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => eprintln!("ragsift serve: an import was replayed but not stored: {}", e.code()),
            Err(_) => eprintln!("ragsift serve: an import was replayed but not stored"),
        }
    }
    reply(
        StatusCode::OK,
        &ImportedRun {
            view,
            comparison: bundle.comparison,
        },
    )
}

/// The body read, authorised, checked and replayed (with the label of the token that let it in), or the response
/// that refuses it.
async fn checked(
    service: &Service,
    headers: &HeaderMap,
    body: Body,
    comparison_allowed: bool,
) -> Result<(ReplayBundle, RunView, Option<String>), Response> {
    let (parsed, label) = admit(&service.options.tokens, headers, body).await?;
    let value = parsed.value().map_err(|i| refuse(&[i]))?.cloned();
    // Replaying can take a while for 256 long passages (cl100k counts): off the async threads.
    let work = tokio::task::spawn_blocking(move || {
        let bundle = bundle_from(value.as_ref(), comparison_allowed)?;
        let view = replay_bundle(&bundle)?;
        Ok::<_, Vec<_>>((bundle, view))
    });
    match work.await {
        Ok(Ok((bundle, view))) => Ok((bundle, view, label)),
        Ok(Err(issues)) => Err(refuse(&issues)),
        Err(_) => Err(crate::guard::detail(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
        )),
    }
}

//! `POST /v1/select`: rag-jev's request in, its `SelectionResult` out, judged under one shared bound and one
//! total deadline, and stored as a run of origin `served` (the result the client received, a bypass included).
//! Checks run in rag-jev's order: body size, JSON, token, schema, replay-only, then the judge.

use crate::guard::{admit, detail, failed, refuse, reply};
use crate::Service;
use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use ragsift_workbench::eval::select::{bypassed, request_from, OnError, SelectRequest, SelectionResult};
use ragsift_workbench::{JudgeKind, ServeBounds, Workbench};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub async fn select(State(service): State<Arc<Service>>, headers: HeaderMap, body: Body) -> Response {
    let (parsed, label) = match admit(&service.options.tokens, &headers, body).await {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal,
    };
    let request = match parsed.value().map_err(|i| vec![i]).and_then(request_from) {
        Ok(r) => r,
        Err(issues) => return refuse(&issues),
    };
    if service.options.replay_only {
        return detail(StatusCode::SERVICE_UNAVAILABLE, "replay_only_live_scoring_disabled");
    }
    let request = if service.options.saved_policy {
        match saved(&service, &request).await {
            Ok(r) => r,
            Err(problem) => {
                eprintln!("ragsift serve: --policy saved: {problem}");
                return detail(StatusCode::SERVICE_UNAVAILABLE, "saved_policy_not_applicable");
            }
        }
    } else {
        request
    };
    let client = label.unwrap_or_else(|| client_of(&headers));
    let result = judged(&service, request.clone()).await;
    service.served.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match result {
        Ok(selection) => {
            if service.options.record {
                record(&service, request, &selection, client).await;
            }
            reply(StatusCode::OK, &selection)
        }
        Err(code) => failed(&code),
    }
}

/// How long past the deadline the service waits for the judge's own deadline answer before it bypasses without it.
const DEADLINE_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// `request` with the library's saved default policy, as it is on disk now.
async fn saved(service: &Arc<Service>, request: &SelectRequest) -> Result<SelectRequest, String> {
    let wb = service.workbench.clone();
    let policy = tokio::task::spawn_blocking(move || wb.saved_policy())
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    request.with_policy(&policy)
}

/// The selection, or under `raise` the judge's failure code. The deadline covers waiting for a judge slot too; the
/// judge's own calls stop at it, so nothing keeps running (or costing) after the reply.
pub(crate) async fn judged(service: &Arc<Service>, request: SelectRequest) -> Result<SelectionResult, String> {
    let started = Instant::now();
    let (options, wb) = (&service.options, service.workbench.clone());
    let (kind, on_error) = (options.judge, options.on_error);
    // The prompt version, as soon as the judge is built: a bypass at the deadline names it.
    let version = Arc::new(Mutex::new(None::<String>));
    let work = {
        let (version, request, bounds) = (version.clone(), request.clone(), service.bounds.clone());
        tokio::task::spawn_blocking(move || judge_blocking(&wb, &request, kind, on_error, &bounds, &version))
    };
    // The judge keeps the request's deadline itself and then answers with the judgments that completed, as
    // rag-jev does; this outer bound only catches a judge that overran it (so it must not race the inner one).
    match tokio::time::timeout(options.timeout + DEADLINE_GRACE, work).await {
        Ok(Ok(Ok(selection))) => Ok(selection),
        Ok(Err(_)) => fail_open(&request, "provider_error".into(), on_error, &version, started),
        Ok(Ok(Err(code))) => fail_open(&request, code, on_error, &version, started),
        Err(_) => fail_open(&request, "deadline_exceeded".into(), on_error, &version, started),
    }
}

/// Under `raise` the failure's code, under `passthrough` rag-jev's bypass naming it.
fn fail_open(
    request: &SelectRequest,
    code: String,
    on_error: OnError,
    version: &Mutex<Option<String>>,
    started: Instant,
) -> Result<SelectionResult, String> {
    match on_error {
        OnError::Raise => Err(code),
        OnError::Passthrough => Ok(bypass(request, &code, version, started)),
    }
}

fn judge_blocking(
    wb: &Workbench,
    request: &SelectRequest,
    kind: JudgeKind,
    on_error: OnError,
    bounds: &ServeBounds,
    version: &Mutex<Option<String>>,
) -> Result<SelectionResult, String> {
    // A judge that cannot be built (no key, a model file missing) is a provider failure: its code, no detail.
    let failed = |e: ragsift_workbench::Error| {
        eprintln!("ragsift serve: the judge failed: {}", e.code());
        e.code().to_string()
    };
    let v = wb.served_prompt_version(kind, request).map_err(failed)?;
    *version.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
    match wb.select_served(request, kind, on_error, bounds).map_err(failed)? {
        Ok(selection) => Ok(selection),
        Err(failure) => Err(failure.code),
    }
}

/// rag-jev's `bypassed` result: every document, in order, unscreened.
fn bypass(request: &SelectRequest, code: &str, version: &Mutex<Option<String>>, started: Instant) -> SelectionResult {
    let version = version.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let version = version.unwrap_or_else(|| ragsift_workbench::eval::PROMPT_VERSION.to_string());
    let none = vec![None; request.documents.len()];
    bypassed(request, &none, code, &version, started.elapsed().as_secs_f64() * 1e3)
}

/// Stores what the client received as a run; a failure to store is reported, never the client's problem.
pub(crate) async fn record(
    service: &Arc<Service>,
    request: SelectRequest,
    selection: &SelectionResult,
    client: String,
) {
    let (wb, kind, selection) = (service.workbench.clone(), service.options.judge, selection.clone());
    let stored = tokio::task::spawn_blocking(move || wb.record_served(kind, &request, &selection, &client)).await;
    match stored {
        Ok(Ok(_)) => {
            let n = service.recorded.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if n.is_multiple_of(crate::PRUNE_EVERY) {
                prune(service).await;
            }
        }
        Ok(Err(e)) => eprintln!("ragsift serve: a selection was served but not recorded: {}", e.code()),
        Err(_) => eprintln!("ragsift serve: a selection was served but not recorded"),
    }
}

/// Removes the served runs the retention does not keep.
pub async fn prune(service: &Arc<Service>) {
    let (wb, retention) = (service.workbench.clone(), service.options.retention);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    if let Ok(Err(e)) = tokio::task::spawn_blocking(move || wb.prune_served(retention, now)).await {
        eprintln!("ragsift serve: pruning served runs failed: {}", e.code());
    }
}

/// Who asked: the user agent, printable and at most 120 characters.
pub(crate) fn client_of(headers: &HeaderMap) -> String {
    let agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let clean: String = agent.chars().filter(|c| !c.is_control()).take(120).collect();
    if clean.trim().is_empty() {
        "unnamed client".into()
    } else {
        clean
    }
}

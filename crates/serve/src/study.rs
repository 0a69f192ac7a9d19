//! `POST /v1/runs` and `POST /v1/compare`, as rag-jev's service answers them: a study request scored live into a
//! scored run and returned as its `RunView` (stored as a served run, like a selection), and the answer comparison,
//! which needs a generator this service does not have (503 `generation_not_configured`, as rag-jev without one).

use crate::guard::{admit, detail, failed, refuse, reply};
use crate::select::{client_of, judged, record};
use crate::Service;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use ragsift_workbench::eval::select::{bundle_from, own_policy, replay, schema, scored_run, study_from};
use std::sync::Arc;

/// `POST /v1/runs`: a `StudyRequest` in, the `RunView` of its live scoring out (502/504 with the failure's code
/// when the judge failed, never a bypassed run).
pub async fn runs(State(service): State<Arc<Service>>, headers: HeaderMap, body: Body) -> Response {
    let (parsed, label) = match admit(&service.options.tokens, &headers, body).await {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal,
    };
    let study = match parsed.value().map_err(|i| vec![i]).and_then(study_from) {
        Ok(s) => s,
        Err(issues) => return refuse(&issues),
    };
    if service.options.replay_only {
        return detail(StatusCode::SERVICE_UNAVAILABLE, "replay_only_live_scoring_disabled");
    }
    let selection = match judged(&service, study.request.clone()).await {
        Ok(s) => s,
        Err(code) => return failed(&code),
    };
    service.served.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if service.options.record {
        let client = label.unwrap_or_else(|| client_of(&headers));
        record(&service, study.request.clone(), &selection, client).await;
    }
    let record = match scored_run(&study, &selection, now()) {
        Ok(r) => r,
        Err(code) => return failed(&code),
    };
    match replay(&own_policy(record)) {
        Ok(view) => reply(StatusCode::OK, &view),
        Err(issues) => refuse(&issues),
    }
}

/// `POST /v1/compare`: a `ReplayRequest`, checked, then 503: ragsift's service generates no answers (Chat and
/// Replay's "Regenerate" in the app do).
pub async fn compare(State(service): State<Arc<Service>>, headers: HeaderMap, body: Body) -> Response {
    let (parsed, _) = match admit(&service.options.tokens, &headers, body).await {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal,
    };
    let checked = parsed.value().map_err(|i| vec![i]).and_then(|v| bundle_from(v, false));
    match checked {
        Ok(_) => detail(StatusCode::SERVICE_UNAVAILABLE, "generation_not_configured"),
        Err(issues) => refuse(&issues),
    }
}

/// Now, as pydantic writes `datetime.now(UTC)`.
pub(crate) fn now() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    schema::unix_time(seconds).unwrap_or_else(|| "1970-01-01T00:00:00Z".into())
}

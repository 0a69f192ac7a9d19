//! `ragsift serve`: rag-jev's HTTP service contract (`rag-jev serve`) over the workbench, so a client written for
//! rag-jev's service (its Python and TypeScript clients, LangChain compressor, Dify plugin) works unchanged, and
//! every selection it serves is kept as a run the app can inspect, replay and label.
//!
//! The third front end after the app and the CLI; like them it reaches the library and the judge through the
//! workbench only. Routes: `GET /healthz` and `GET /openapi.json` (no token), `GET /v1/config`, `POST /v1/select`,
//! `POST /v1/runs`, `POST /v1/replay` and `POST /v1/import` over rag-jev's scored runs, `POST /v1/compare` (503:
//! no generator), and ragsift's own examples at rag-jev's `/v1/examples`, `/v1/fixtures/{id}` and
//! `/v1/recordings`. rag-jev's browser pages (`/`, `/review`, `/benchmarks`) are the workbench app here. No access
//! log, and no request or response body in any log.

mod examples;
mod guard;
pub mod openapi;
pub mod options;
mod proxy;
mod replay;
mod select;
mod study;
pub mod tokens;

pub use options::{Flags, Options, MAX_BODY_BYTES};

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{extract::State, Router};
use ragsift_workbench::{Error, Result, Workbench};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The running service's state.
pub struct Service {
    pub workbench: Arc<Workbench>,
    pub options: Options,
    /// One shared bound on the judge calls in flight, and each request's deadline.
    bounds: ragsift_workbench::ServeBounds,
    /// Selections served since start.
    pub served: AtomicU64,
    /// The recording Jev proxy (`--jev-proxy`).
    proxy: Option<proxy::Proxy>,
    /// Selections recorded since start (every [`PRUNE_EVERY`]th prunes the served runs).
    recorded: AtomicU64,
    /// The judge's models are loaded (`/healthz` says so).
    pub ready: std::sync::atomic::AtomicBool,
}

/// Served runs are pruned to the retention at start and after this many recordings.
const PRUNE_EVERY: u64 = 20;

impl Service {
    pub fn new(workbench: Arc<Workbench>, options: Options) -> Service {
        Service {
            bounds: ragsift_workbench::ServeBounds {
                slots: ragsift_workbench::Slots::new(options.max_concurrency),
                timeout: options.timeout,
            },
            proxy: options.jev_proxy.as_deref().map(proxy::Proxy::new),
            workbench,
            options,
            served: AtomicU64::new(0),
            recorded: AtomicU64::new(0),
            ready: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// The routes, with rag-jev's checks around them (security headers outermost, then the origin check).
pub fn router(service: Arc<Service>) -> Router {
    Router::new()
        .route("/healthz", get(health))
        .route("/openapi.json", get(openapi::openapi))
        .route("/v1/config", get(config))
        .route("/v1/recordings", get(examples::recordings))
        .route("/v1/recordings/{case_id}", get(examples::recording))
        .route("/v1/examples", get(examples::list))
        .route("/v1/fixtures/{case_id}", get(examples::fixture))
        .route("/v1/runs", post(study::runs))
        .route("/v1/compare", post(study::compare))
        .route("/v1/select", post(select::select))
        .route("/v1/replay", post(replay::replay))
        .route("/v1/import", post(replay::import))
        .route("/v1/systemone", post(proxy::decisions))
        .route("/v1/decisions", post(proxy::decisions))
        .fallback(proxy::passthrough)
        .method_not_allowed_fallback(|| async { guard::detail(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed") })
        .layer(axum::middleware::from_fn(guard::same_origin))
        .layer(axum::middleware::from_fn(guard::security_headers))
        .with_state(service)
}

/// `GET /healthz` (no token): rag-jev's `{"status": "ok"}` once the judge is loaded, 503 `{"status": "starting"}`
/// before.
async fn health(State(service): State<Arc<Service>>) -> Response {
    if service.ready.load(std::sync::atomic::Ordering::Acquire) {
        guard::reply(StatusCode::OK, &json!({ "status": "ok" }))
    } else {
        guard::reply(StatusCode::SERVICE_UNAVAILABLE, &json!({ "status": "starting" }))
    }
}

/// Loads what the judge needs before the first request (nothing under `--replay-only`), then marks the service
/// ready. A judge that cannot load is reported and left to fail per request, as it would without warming.
async fn warm(service: &Arc<Service>) {
    if !service.options.replay_only {
        let (wb, kind) = (service.workbench.clone(), service.options.judge);
        match tokio::task::spawn_blocking(move || wb.warm_served(kind)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => eprintln!("ragsift serve: the judge did not load: {}", e.code()),
            Err(_) => eprintln!("ragsift serve: the judge did not load"),
        }
    }
    service.ready.store(true, std::sync::atomic::Ordering::Release);
}

/// `GET /v1/config`: what this service can do (ragsift generates no answers here).
async fn config(State(service): State<Arc<Service>>, headers: HeaderMap) -> Response {
    if service.options.tokens.check(&headers) == tokens::Access::Denied {
        return guard::unauthorized();
    }
    let replay_only = service.options.replay_only;
    guard::reply(
        StatusCode::OK,
        &json!({
            "replay_only": replay_only,
            "scoring_configured": !replay_only,
            "generation_configured": false,
            "generation_model": null,
        }),
    )
}

/// Binds `options`' address, calls `ready` with it (port 0 picks a free one), and serves until Ctrl-C.
pub fn run(workbench: Arc<Workbench>, options: Options, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Setup(format!("starting the service's runtime: {e}")))?;
    runtime.block_on(async move {
        let address = (options.host.as_str(), options.port);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| Error::Setup(format!("binding {}:{}: {e}", options.host, options.port)))?;
        let bound = listener
            .local_addr()
            .map_err(|e| Error::Setup(format!("the bound address: {e}")))?;
        if let Some(upstream) = &options.jev_proxy {
            proxy::check_upstream(upstream, bound)?;
        }
        let service = Arc::new(Service::new(workbench, options));
        if service.options.record {
            select::prune(&service).await;
        }
        let status = tokio::spawn(keep_status(service.clone(), format!("http://{bound}")));
        let flusher = tokio::spawn(proxy::keep_flushing(service.clone()));
        let app = router(service.clone());
        let serving = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
        });
        // `/healthz` answers 503 `starting` until the judge's models are loaded; then the service says it is ready.
        warm(&service).await;
        ready(bound);
        let served = match serving.await {
            Ok(r) => r.map_err(|e| Error::Setup(format!("serving: {e}"))),
            Err(e) => Err(Error::Setup(format!("serving: {e}"))),
        };
        status.abort();
        flusher.abort();
        proxy::flush(&service, true).await;
        let _ = ragsift_workbench::write_serve_status(service.workbench.home(), None);
        served
    })
}

/// Keeps the library's serve status (what the app's status line shows) current: written at start and whenever
/// the count of served selections moved, checked every second; removed when the service stops.
async fn keep_status(service: Arc<Service>, address: String) {
    let started_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let mut written = None;
    loop {
        let served = service.served.load(std::sync::atomic::Ordering::Relaxed);
        if written != Some(served) {
            let status = ragsift_workbench::ServeStatus {
                address: address.clone(),
                pid: std::process::id(),
                recording: service.options.record,
                token: service.options.tokens.is_set(),
                served,
                started_at,
                jev_proxy: service.proxy.is_some(),
            };
            let home = service.workbench.home().to_path_buf();
            let wrote =
                tokio::task::spawn_blocking(move || ragsift_workbench::write_serve_status(&home, Some(&status)));
            if matches!(wrote.await, Ok(Ok(()))) {
                written = Some(served);
            }
        }
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
}

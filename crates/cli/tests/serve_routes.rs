//! The rest of rag-jev 0.2.0's service on `ragsift serve`, over real HTTP on loopback: `/openapi.json`, the
//! examples, fixtures and recordings (ragsift's own hand-authored ones), `POST /v1/runs` (scored live by a stand-in
//! Jev in its documented wire format), `POST /v1/compare` (no generator: 503), a readiness `/healthz`, and the Jev
//! proxy's upstream from `TYPESAFE_BASE_URL`.

mod common;

use common::service::{client, serve_in};
use ragsift_test_support::http::{Reply, Request, Server};
use serde_json::{json, Value};

const TOKEN: &str = "routes-secret";

/// Jev's answer: a passage's relevance is its first number (`"0.8 …"`).
fn answer(r: &Request) -> Reply {
    let text = r.json()["state"]["passage"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let p: f64 = text
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0.5);
    let body = json!({"model": "test-v1", "answers": {"relevant": {"type": "noul", "noul": p}},
        "usage": {"input_tokens": 7, "output_tokens": 0}});
    Reply::Json(200, vec![], body.to_string())
}

fn get(url: &str, token: bool) -> (u16, Value) {
    let mut r = client().get(url);
    if token {
        r = r.bearer_auth(TOKEN);
    }
    let r = r.send().unwrap();
    (r.status().as_u16(), r.json().unwrap_or(Value::Null))
}

fn post(url: &str, body: &Value) -> (u16, Value) {
    let r = (client().post(url).bearer_auth(TOKEN))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap_or(Value::Null))
}

#[test]
fn the_rest_of_rag_jevs_service() {
    let jev = Server::with_handler(answer);
    let home = std::sync::Arc::new(tempfile::tempdir().unwrap());
    let s = serve_in(home, &jev.url, &[("RAG_JEV_API_TOKEN", TOKEN)], &[]);
    // Ready once it said its address; the Jev judge is built, never called to warm.
    assert_eq!(
        get(&format!("{}/healthz", s.url), false),
        (200, json!({"status": "ok"}))
    );
    assert!(jev.requests().is_empty(), "warming called Jev");

    // The OpenAPI document, without a token, names every route.
    let (status, doc) = get(&format!("{}/openapi.json", s.url), false);
    assert_eq!(status, 200);
    for path in [
        "/v1/select",
        "/v1/runs",
        "/v1/replay",
        "/v1/import",
        "/v1/compare",
        "/v1/examples",
    ] {
        assert!(doc["paths"][path].is_object(), "{path}");
    }

    // Examples, fixtures and recordings: the token guards them; the fixture replays to its labels.
    assert_eq!(get(&format!("{}/v1/examples", s.url), false).0, 401);
    let (status, examples) = get(&format!("{}/v1/examples", s.url), true);
    assert_eq!(status, 200);
    let first = &examples[0];
    let id = first["id"].as_str().unwrap();
    let (status, view) = get(&format!("{}/v1/fixtures/{id}", s.url), true);
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["record"]["source"], "fixture");
    assert_eq!(view["selection"]["selected_ids"], first["relevant_ids"]);
    assert_eq!(view["evidence_recall"], 1.0);
    assert_eq!(
        get(&format!("{}/v1/fixtures/nope", s.url), true),
        (404, json!({"detail": "unknown_fixture"}))
    );
    let (_, recordings) = get(&format!("{}/v1/recordings", s.url), true);
    let path = recordings[0]["path"].as_str().unwrap();
    let (status, bundle) = get(&format!("{}{path}", s.url), true);
    assert_eq!(status, 200);
    // A recording imports as it is, and replays without its (empty) comparison, as rag-jev's.
    let replay = json!({"record": bundle["record"], "policy": bundle["policy"]});
    let (status, replayed) = post(&format!("{}/v1/replay", s.url), &replay);
    assert_eq!(
        (status, &replayed["selection"]["selected_ids"]),
        (200, &first["relevant_ids"])
    );
    assert_eq!(post(&format!("{}/v1/import", s.url), &bundle).0, 200);

    // POST /v1/runs: scored live, its run view under the request's own policy, labels measured.
    let request = json!({"query": "q", "min_relevance": 0.5, "documents": [
        {"id": "a", "text": "0.9 the answer"}, {"id": "b", "text": "0.2 noise"}, {"id": "c", "text": "0.7 more"}]});
    let study = json!({"request": request, "relevant_ids": ["a", "b"], "baseline_ids": ["a"]});
    let (status, view) = post(&format!("{}/v1/runs", s.url), &study);
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["record"]["source"], "live");
    assert_eq!(
        view["record"]["judgments"][0],
        json!({"relevance": 0.9, "model": "test-v1",
        "input_tokens": 7, "output_tokens": 0})
    );
    assert_eq!(view["selection"]["selected_ids"], json!(["a", "c"]));
    assert_eq!(
        (&view["evidence_recall"], &view["relevant_dropped"]),
        (&json!(0.5), &json!(["b"]))
    );
    assert_eq!(view["baseline_ids"], json!(["a"]));
    assert!(view["record"]["created_at"].as_str().unwrap().ends_with('Z'));
    // The run view replays as it came, and so compares: but there is no generator.
    let replay = json!({"record": view["record"], "policy": view["policy"]});
    assert_eq!(post(&format!("{}/v1/replay", s.url), &replay).0, 200);
    assert_eq!(
        post(&format!("{}/v1/compare", s.url), &replay),
        (503, json!({"detail": "generation_not_configured"}))
    );
    // Labels that are not candidates are refused, as rag-jev refuses them.
    let bad = json!({"request": request, "relevant_ids": ["zzz"]});
    let (status, v) = post(&format!("{}/v1/runs", s.url), &bad);
    assert_eq!((status, v["issues"][0]["type"].as_str()), (422, Some("value_error")));
}

#[test]
fn a_judge_failure_fails_a_study_run_and_replay_only_scores_nothing() {
    let jev = Server::with_handler(|_| Reply::Json(500, vec![], "{}".into()));
    let home = std::sync::Arc::new(tempfile::tempdir().unwrap());
    let s = serve_in(home.clone(), &jev.url, &[("RAG_JEV_API_TOKEN", TOKEN)], &[]);
    let study = json!({"request": {"query": "q", "min_relevance": 0.5,
        "documents": [{"id": "a", "text": "t"}]}});
    let started = std::time::Instant::now();
    assert_eq!(
        post(&format!("{}/v1/runs", s.url), &study),
        (502, json!({"detail": "provider_error"}))
    );
    // rag-jev's service retries once, after 0.1 to 0.5 s: two calls, well inside a second.
    assert_eq!(jev.requests().len(), 2);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    drop(s);
    let s = serve_in(home, &jev.url, &[("RAG_JEV_API_TOKEN", TOKEN)], &["--replay-only"]);
    assert_eq!(
        post(&format!("{}/v1/runs", s.url), &study),
        (503, json!({"detail": "replay_only_live_scoring_disabled"}))
    );
}

#[test]
fn the_jev_proxy_forwards_to_typesafe_base_url_and_never_to_itself() {
    let jev = Server::with_handler(answer);
    let home = std::sync::Arc::new(tempfile::tempdir().unwrap());
    // serve_in sets TYPESAFE_BASE_URL to the stand-in: the proxy forwards there without --jev-upstream.
    let s = serve_in(home.clone(), &jev.url, &[], &["--jev-proxy"]);
    let call = json!({"model": "jev-latest", "state": {"query": "q", "passage": {"text": "0.8 x"}},
        "questions": {"relevant": {"type": "noul", "instructions": "i", "criteria": {"true": "t", "false": "f"}}}});
    let r = (client().post(format!("{}/v1/systemone", s.url)))
        .bearer_auth("sk-app")
        .header("content-type", "application/json")
        .body(call.to_string())
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(jev.requests().len(), 1, "forwarded to TYPESAFE_BASE_URL");
    drop(s);
    // Pointed at itself, it refuses to start.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = common::ragsift(home.path())
        .args(["serve", "--port", &port.to_string(), "--jev-proxy", "--judge", "jev"])
        .args(["--jev-upstream", &format!("http://127.0.0.1:{port}")])
        .env("TYPESAFE_API_KEY", "sk-test")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is this service itself"), "{err}");
}

//! rag-jev 0.2.0's released Python client (from PyPI, pinned by hash; `scripts/setup.sh` installs it) against the
//! real `ragsift serve`: its LangChain compressor over 5 policies × 3 document shapes × sync and async, and its
//! replay and import bodies, every answer validated by rag-jev's own models and compared with what rag-jev's own
//! selection makes of the same judgments (`tests/ragjev/client.py`). Once with Jev played by a stand-in on
//! loopback that scores a passage by a hash of its text, once with the local judge.

mod common;

use common::repo;
use common::service::{serve_judged, Service};
use ragsift_test_support::http::{Reply, Request, Server};
use serde_json::{json, Map, Value};
use std::process::Command;
use std::sync::Arc;

const TOKEN: &str = "ragjev-client-secret";

/// A passage's relevance: FNV-1a of its text, in thousandths (client.py chose its texts by it).
fn relevance(text: &str) -> f64 {
    let hash = (text.bytes()).fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash % 1000) as f64 / 1000.0
}

/// Jev's answer in its documented wire format: rag-jev's independent request (`state.passage`, question
/// `relevant`) or its contextual one (`state.passages`, questions `"0"`…), with both token counts.
fn answer(r: &Request) -> Reply {
    let state = &r.json()["state"];
    let noul = |text: &Value| json!({"type": "noul", "noul": relevance(text.as_str().unwrap_or_default())});
    let answers: Map<String, Value> = match state["passages"].as_array() {
        Some(all) => (all.iter().enumerate())
            .map(|(i, p)| (i.to_string(), noul(&p["text"])))
            .collect(),
        None => Map::from_iter([("relevant".to_string(), noul(&state["passage"]["text"]))]),
    };
    let body = json!({"model": "jev-test", "answers": answers, "usage": {"input_tokens": 40, "output_tokens": 2}});
    Reply::Json(200, vec![], body.to_string())
}

/// Runs client.py against the service; fails with its report, its stderr and the service's log.
fn run_client(s: &Service, judge: &str, extra: &[&str]) {
    let rag_jev = common::ragjev::installed();
    let out = Command::new(rag_jev.venv.join("bin/python"))
        .arg(repo().join("crates/cli/tests/ragjev/client.py"))
        .args([s.url.as_str(), judge])
        .args(extra)
        .env("RAGSIFT_SERVE_TOKEN", TOKEN)
        .env("TIKTOKEN_CACHE_DIR", rag_jev.tiktoken_cache)
        // Offline: a download by tiktoken fails at once; the service itself is reached without a proxy.
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env_remove("https_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "rag-jev's client failed against ragsift serve (judge {judge}, {}):\n{stdout}\nstderr:\n{}\nservice log:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        s.log()
    );
}

fn serve(judge: &str, jev_url: &str) -> Service {
    let home = Arc::new(tempfile::tempdir().unwrap());
    let env = [("RAG_JEV_API_TOKEN", TOKEN), ("RAG_JEV_TIMEOUT_MS", "60000")];
    serve_judged(home, judge, jev_url, &env, &[])
}

#[test]
fn rag_jevs_released_client_is_served_with_jev() {
    let jev = Server::with_handler(answer);
    run_client(&serve("jev", &jev.url), "jev", &["--contextual"]);
}

#[test]
fn rag_jevs_released_client_is_served_with_the_local_judge() {
    // No Jev at this address: the local judge asks none.
    // Its probabilities run about five times lower than the stand-in's on these passages: so do the thresholds.
    run_client(&serve("local", "http://127.0.0.1:9"), "local", &["--scale", "0.2"]);
}

//! `ragsift chat` and `ragsift yesno` against an OpenAI-compatible server on loopback, chosen by flags and by
//! settings.json.

use ragsift_test_support::http;

use http::{Reply, Server};
use std::path::Path;
use std::process::Command;

fn ragsift(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ragsift"));
    c.arg("--home").arg(home).env_remove("RAGSIFT_HOME");
    c
}

fn sse(pieces: &[&str]) -> Reply {
    let mut ev: Vec<String> = pieces
        .iter()
        .map(|p| {
            serde_json::json!({"model": "llama3.2", "choices": [{"delta": {"content": p}, "finish_reason": null}]})
                .to_string()
        })
        .collect();
    ev.push(serde_json::json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}).to_string());
    ev.push("[DONE]".into());
    Reply::Sse(ev)
}

#[test]
fn chat_streams_from_an_endpoint_given_by_flags_or_settings() {
    let home = tempfile::tempdir().unwrap();
    let server = Server::start(vec![sse(&["A PDF is", " a document."]), sse(&["From settings."])]);
    let out = ragsift(home.path())
        .args([
            "chat",
            "What is a PDF?",
            "--endpoint",
            &server.url,
            "--model-name",
            "llama3.2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "A PDF is a document.");
    assert_eq!(server.requests()[0].json()["model"], "llama3.2");

    let settings = serde_json::json!({"chat": {"backend": "openai", "endpoint": server.url, "model_name": "qwen"}});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let out = ragsift(home.path()).args(["chat", "hello"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "From settings.");
    assert_eq!(server.requests()[1].json()["model"], "qwen");
}

#[test]
fn yesno_prints_json_and_a_dead_endpoint_is_a_clear_error() {
    let home = tempfile::tempdir().unwrap();
    let body = serde_json::json!({"model": "m", "choices": [{"message": {"content": "yes"}, "logprobs": {"content": [{"token": "yes", "logprob": -0.1,
        "top_logprobs": [{"token": "yes", "logprob": -0.1}, {"token": "no", "logprob": -2.5}]}]}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 1}});
    let server = Server::start(vec![Reply::Json(200, vec![], body.to_string())]);
    let out = ragsift(home.path())
        .args([
            "yesno",
            "Is Paris in France?",
            "--endpoint",
            &server.url,
            "--model-name",
            "m",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let p = v["p_yes"].as_f64().unwrap();
    assert!(p > 0.9 && p < 1.0, "{v}");
    for key in ["p_yes", "model", "usage", "calibrated"] {
        assert!(v.get(key).is_some(), "{key}");
    }

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = ragsift(home.path())
        .args([
            "chat",
            "hi",
            "--endpoint",
            &format!("http://127.0.0.1:{port}"),
            "--model-name",
            "m",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the server running"));
}

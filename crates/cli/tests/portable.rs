//! Another retriever's candidates imported as a run (judged by Jev on loopback, through the judgment cache), its
//! labels measured in replay, and the run carried to a fresh home with no key and no library: exported, checked
//! on import, replayed there to the same decisions with zero judge requests. A changed file stores nothing.

mod common;

use ragsift_test_support::http;

use common::{ragsift, run_json};
use http::{Reply, Request, Server};
use serde_json::{json, Value};
use std::path::Path;

const SCORES: [f64; 5] = [0.1, 0.8, 0.9, 0.8, 0.3];

/// Jev answering "Passage i …" with SCORES[i].
fn jev() -> Server {
    Server::with_handler(|r: &Request| {
        let text = r.json()["state"]["passage"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let i: usize = text.split_whitespace().nth(1).and_then(|n| n.parse().ok()).unwrap_or(0);
        let body = json!({"model": "jev-1.13.0", "answers": {"relevant": {"type": "noul", "noul": SCORES[i]}},
            "usage": {"input_tokens": 12, "output_tokens": 1}});
        Reply::Json(200, vec![], body.to_string())
    })
}

/// One rag-jev eval case: candidates from some other retriever, with labels, a group and a pin.
fn case() -> Value {
    let documents: Vec<Value> = (0..5)
        .map(|i| {
            json!({"id": format!("d{i}"), "text": format!("Passage {i} of the refund policy, with enough words to count."),
                "metadata": {"source": "refunds.md", "page": i + 1, "score": 0.9 - 0.1 * i as f64}})
        })
        .collect();
    json!({
        "id": "refund-window", "query": "How many days do I have to request a refund?",
        "documents": documents, "relevant_ids": ["d1", "d2", "d4"], "baseline_ids": ["d0", "d1", "d2"],
        "mode": "filter", "min_relevance": 0.5,
    })
}

fn with_jev(cmd: &mut std::process::Command, server: &Server) {
    cmd.env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", &server.url);
}

fn replay(home: &Path, run: &str, extra: &[&str]) -> Value {
    let (code, v) = run_json(ragsift(home).args(["replay", run, "--json"]).args(extra));
    assert_eq!(code, 0, "{v}");
    v
}

fn decisions(v: &Value) -> Vec<(String, Value)> {
    v["selection"]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["reason"].as_str().unwrap().to_string(), d["selected"].clone()))
        .collect()
}

#[test]
fn imported_candidates_replay_with_labels_and_travel_without_a_key() {
    let server = jev();
    let a = tempfile::tempdir().unwrap();
    let file = a.path().join("case.json");
    std::fs::write(&file, case().to_string()).unwrap();
    // Judging is priced (per million tokens); generation is not configured, but nothing was generated.
    let settings = json!({"rates": {"judge_input_per_million": 2.5, "judge_output_per_million": 10.0}});
    std::fs::write(a.path().join("settings.json"), settings.to_string()).unwrap();

    let mut cmd = ragsift(a.path());
    cmd.args(["runs", "import-candidates"])
        .arg(&file)
        .args(["--judge", "jev", "--json"]);
    with_jev(&mut cmd, &server);
    let (code, trace) = run_json(&mut cmd);
    assert_eq!(code, 0, "{trace}");
    assert_eq!(server.requests().len(), 5, "one rag-jev request per candidate");
    assert_eq!(trace["origin"], "imported");
    assert_eq!(trace["judge"]["judge"], "jev-ragjev");
    let run = trace["run_id"].as_str().unwrap().to_string();
    let selected: Vec<&str> = trace["selection"]["selected_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(selected, ["d1", "d2", "d3"], "rag-jev's filter at 0.5, in input order");
    assert_eq!(trace["candidates"][1]["document"], "refunds.md");
    assert_eq!(trace["candidates"][1]["page_start"], 2);
    // 5 requests of 12 input and 1 output tokens: 60 × 2.5 + 5 × 10 per million.
    let judging = trace["cost"]["judging"].as_f64().unwrap();
    assert!(
        (judging - (60.0 * 2.5 + 5.0 * 10.0) / 1e6).abs() < 1e-12,
        "{}",
        trace["cost"]
    );
    assert_eq!(trace["cost"]["generation"], 0.0);
    assert_eq!(trace["answered_by"], "not_answered");
    assert_eq!(trace["finish_reason"], Value::Null, "no model was asked");

    // Imported again: every judgment comes from the cache.
    let mut again = ragsift(a.path());
    again
        .args(["runs", "import-candidates"])
        .arg(&file)
        .args(["--judge", "jev", "--json"]);
    with_jev(&mut again, &server);
    let (code, cached) = run_json(&mut again);
    assert_eq!(code, 0);
    assert_eq!(server.requests().len(), 5, "the cache answered");
    assert_eq!(cached["cost"]["judging"], 0.0, "cached judgments cost nothing");

    // Replay measures the selection against the labels, as rag-jev's replay does.
    let v = replay(a.path(), &run, &[]);
    let labels = &v["labels"];
    assert_eq!(labels["relevant"], 3);
    assert!(
        (labels["evidence_recall"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9,
        "{labels}"
    );
    assert_eq!(labels["relevant_dropped"], json!(["d4"]));
    assert_eq!(labels["baseline_ids"], json!(["d0", "d1", "d2"]));
    assert!(labels["baseline_tokens"].as_u64().unwrap() > 0);
    let lower = replay(a.path(), &run, &["--min-relevance", "0.2"]);
    assert_eq!(lower["labels"]["evidence_recall"], 1.0);
    assert_eq!(lower["labels"]["relevant_dropped"], json!([]));

    // Labels can be changed on the run; they are outside its fingerprint.
    let (code, v) = run_json(ragsift(a.path()).args(["runs", "label", &run, "--relevant", "d2", "--json"]));
    assert_eq!(code, 0, "{v}");
    assert_eq!(replay(a.path(), &run, &[])["labels"]["evidence_recall"], 1.0);
    let out = ragsift(a.path())
        .args(["runs", "label", &run, "--relevant", "nope"])
        .output()
        .unwrap();
    assert!(!out.status.success(), "a label must name a candidate");
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one of the run's candidates"));

    // Export, then import into a fresh home with no key and no library.
    let exported = a.path().join("run.json");
    let out = ragsift(a.path())
        .args(["runs", "export", &run, "--output"])
        .arg(&exported)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let b = tempfile::tempdir().unwrap();
    let (code, v) = run_json(ragsift(b.path()).args(["runs", "import"]).arg(&exported).arg("--json"));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["run"]["id"], run.as_str());
    let before = server.requests().len();
    for extra in [
        &[][..],
        &["--min-relevance", "0.85"][..],
        &["--mode", "rerank", "--top-n", "2"][..],
    ] {
        let here = replay(a.path(), &run, extra);
        let there = replay(b.path(), &run, extra);
        assert_eq!(decisions(&here), decisions(&there), "{extra:?}");
        assert_eq!(here["labels"], there["labels"]);
        assert_eq!(there["judge_calls"], 0);
    }
    assert_eq!(server.requests().len(), before, "replay elsewhere asks no judge");
    // Importing the same file twice is harmless.
    assert_eq!(
        run_json(ragsift(b.path()).args(["runs", "import"]).arg(&exported).arg("--json")).0,
        0
    );

    // A file changed after export is refused and stores nothing.
    let c = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(&exported).unwrap();
    let tampered = a.path().join("tampered.json");
    std::fs::write(&tampered, text.replacen("Passage 2 of", "Passage 2 on", 1)).unwrap();
    let out = ragsift(c.path())
        .args(["runs", "import"])
        .arg(&tampered)
        .output()
        .unwrap();
    assert!(!out.status.success(), "a changed passage is refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not an importable run"), "{err}");
    let mut scores = serde_json::from_str::<Value>(&text).unwrap();
    scores["trace"]["judge"]["judgments"][0]["answers"]["useful"] = json!(0.99);
    std::fs::write(&tampered, scores.to_string()).unwrap();
    let d = tempfile::tempdir().unwrap();
    let out = ragsift(d.path())
        .args(["runs", "import"])
        .arg(&tampered)
        .output()
        .unwrap();
    assert!(!out.status.success(), "a changed score is caught by the checksum");
    assert!(String::from_utf8_lossy(&out.stderr).contains("SHA-256"));
    let (_, list) = run_json(ragsift(d.path()).args(["runs", "list", "--json"]));
    assert_eq!(list["runs"], json!([]));
}

/// A refused key is a failure of the command, not a run of unscreened passages; and the key the server echoes in
/// its error body never reaches our message.
#[test]
fn a_refused_key_fails_the_import_and_its_echo_is_redacted() {
    let server = Server::with_handler(|r: &Request| {
        let sent = (r.header("authorization").unwrap_or_default())
            .trim_start_matches("Bearer ")
            .to_string();
        let body =
            json!({"detail": {"type": "authentication_error", "message": format!("API key {sent} is not valid")}});
        Reply::Json(401, vec![], body.to_string())
    });
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("case.json");
    std::fs::write(&file, case().to_string()).unwrap();
    let out = ragsift(home.path())
        .args(["runs", "import-candidates"])
        .arg(&file)
        .args(["--judge", "jev", "--json"])
        .env("TYPESAFE_API_KEY", "sk-test-0123456789abcdef")
        .env("TYPESAFE_BASE_URL", &server.url)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success(), "exit 0 with a refused key: {stdout}");
    assert!(
        stderr.contains("is not valid") && stderr.contains("[redacted]"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("0123456789abcdef") && !stdout.contains("0123456789abcdef"),
        "{stderr}"
    );
    let (_, runs) = run_json(ragsift(home.path()).args(["runs", "list", "--json"]));
    assert_eq!(runs["runs"].as_array().map(Vec::len), Some(0), "nothing stored: {runs}");
}

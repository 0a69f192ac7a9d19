//! `ragsift compare` over a library with a mock Jev: two configurations that differ only in their policy, so B
//! makes no judge request; per-question differences and the evidence one kept and the other lost; a different
//! chunk size refused. Then `ragsift ablate` on one of the runs it made.

mod common;
#[path = "../../engine/tests/common/http.rs"]
mod http;

use common::{ragsift, repo, run_json};
use std::process::Command;

fn fixture(path: &str) -> String {
    repo().join("fixtures").join(path).display().to_string()
}

fn with_jev<'a>(cmd: &'a mut Command, server: &http::Server) -> &'a mut Command {
    cmd.env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", &server.url)
}

#[test]
fn a_policy_only_difference_reuses_every_judgment() {
    let server = http::Server::with_handler(|_: &http::Request| http::jev_judgment(0.60, 0.80, 0.70));
    let home = tempfile::tempdir().unwrap();
    let out = ragsift(home.path())
        .arg("ingest")
        .arg(fixture("pdf/multipage.pdf"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cases = fixture("eval/library-cases.json");

    // A chunk size the library was not built with is refused before anything is judged.
    let out = with_jev(ragsift(home.path()).arg("compare"), &server)
        .args([&cases, "--config", &fixture("tuning/a.json"), "--config"])
        .arg(fixture("tuning/chunks-128.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("chunk_tokens 128 differs") && err.contains("second library"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 0);

    let (code, v) = run_json(
        with_jev(ragsift(home.path()).arg("compare"), &server)
            .args([&cases, "--config", &fixture("tuning/a.json"), "--config"])
            .args([fixture("tuning/b.json"), "--json".into()]),
    );
    assert_eq!(code, 0, "{v}");
    let (a, b) = (&v["a"], &v["b"]);
    let judged = server.requests().len() as u64;
    assert!(judged > 0);
    assert_eq!(a["fresh_judgments"], judged, "A judged every candidate once");
    assert_eq!(b["fresh_judgments"], 0, "B only changed the policy: {b}");
    assert_eq!(b["cached_judgments"], judged);
    assert_eq!(
        (b["judge_input_tokens"].as_u64(), b["config"]["name"].as_str()),
        (Some(0), Some("B (filter 0.9)"))
    );
    assert_eq!(v["cases"], 2);

    // Jev's relevance 0.60 keeps every passage under classify; B's 0.9 filter keeps none.
    let warranty = &v["questions"][0];
    assert_eq!(warranty["id"], "library-warranty");
    assert!(warranty["evidence"].as_u64().unwrap() >= 1, "{warranty}");
    assert_eq!(warranty["a"]["evidence_recall"], 1.0);
    assert_eq!(warranty["b"]["evidence_recall"], 0.0);
    assert_eq!(warranty["delta"]["evidence_recall"], -1.0);
    assert_eq!(
        warranty["kept_only_a"].as_array().unwrap().len() as u64,
        warranty["evidence"].as_u64().unwrap()
    );
    assert!(warranty["kept_only_b"].as_array().unwrap().is_empty());
    assert!(
        warranty["retrieved_only_a"].as_array().unwrap().is_empty(),
        "same retrieval on both sides"
    );
    assert!(warranty["kept_only_a"][0]["document"]
        .as_str()
        .unwrap()
        .ends_with("multipage.pdf"));
    assert!(warranty["delta"]["context_tokens"].as_i64().unwrap() < 0);
    assert_eq!(b["context_tokens"], 0.0);
    let unanswerable = &v["questions"][1];
    assert_eq!(unanswerable["a"]["evidence_recall"], serde_json::Value::Null);
    assert_eq!(unanswerable["a"]["precision"], 0.0);

    // Ablation of A's first run: one variant, which found every candidate alone.
    let run_id = warranty["a"]["run_id"].as_str().unwrap();
    let (code, ablation) = run_json(ragsift(home.path()).args(["ablate", run_id, "--json"]));
    assert_eq!(code, 0, "{ablation}");
    let variants = ablation["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 1);
    assert_eq!(
        variants[0]["unique_ids"].as_array().unwrap().len() as u64,
        ablation["candidates"].as_u64().unwrap()
    );
    assert_eq!(server.requests().len() as u64, judged, "ablation calls no judge");
}

//! `ragsift select` against rag-jev's own selector examples (its `tests/test_selector.py`: four passages judged
//! 0.1 / 0.8 / 0.9 / 0.8), scored by a Jev server on loopback that answers in the documented wire format: modes,
//! the top-N cap, shadow, an empty selection, empty input, invalid input (no request made), a bypass, pins and
//! groups, relevance guidance, and rag-jev's policy versions (computed with Python's `json.dumps`).

mod common;

use ragsift_test_support::http;

use common::ragsift;
use http::{Reply, Request, Server};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const SCORES: [f64; 4] = [0.1, 0.8, 0.9, 0.8];

fn docs() -> Value {
    (0..4)
        .map(|i| json!({"id": i.to_string(), "text": format!("Source passage {i}"), "metadata": {"page": i}}))
        .collect()
}

fn passage_index(r: &Request) -> usize {
    let text = r.json()["state"]["passage"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    text.trim_start_matches("Source passage ").parse().unwrap_or(0)
}

fn answer(p: f64, input_tokens: u64) -> Reply {
    let body = json!({
        "model": "test-v1",
        "answers": {"relevant": {"type": "noul", "noul": p}},
        "usage": {"input_tokens": input_tokens, "output_tokens": 0},
    });
    Reply::Json(200, vec![], body.to_string())
}

/// A Jev server answering each passage with its score from [`SCORES`] and 10 input tokens.
fn jev() -> Server {
    Server::with_handler(|r: &Request| answer(SCORES[passage_index(r)], 10))
}

fn select(server: &Server, request: &Value, extra: &[&str]) -> (i32, Value, String) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = ragsift(home.path());
    cmd.args(["select", "-", "--judge", "jev"])
        .args(extra)
        .env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", &server.url)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    run(cmd, request)
}

fn run(mut cmd: Command, request: &Value) -> (i32, Value, String) {
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v, stderr)
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|d| d.get("id").unwrap_or(d).as_str().unwrap().to_string())
        .collect()
}

fn reasons(v: &Value) -> Vec<String> {
    v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["reason"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn modes_select_as_rag_jevs_selector_example() {
    let server = jev();
    for (mode, threshold, expected) in [
        ("filter", Some(0.2), vec!["1", "2", "3"]),
        ("rerank", None, vec!["2", "1", "3", "0"]),
        ("filter_and_rerank", Some(0.8), vec!["2", "1", "3"]),
    ] {
        let mut request = json!({"query": "question", "documents": docs(), "mode": mode});
        if let Some(t) = threshold {
            request["min_relevance"] = json!(t);
        }
        let (code, v, err) = select(&server, &request, &[]);
        assert_eq!(code, 0, "{mode}: {err}");
        assert_eq!(ids(&v["documents"]), expected, "{mode}");
        assert_eq!(ids(&v["selected_ids"]), expected, "{mode}");
        assert_eq!(v["status"], "applied");
        assert_eq!(v["usage"]["input_tokens"], 40);
        assert_eq!(v["usage"]["complete"], true);
        assert_eq!(v["models"], json!(["test-v1"]));
        assert_eq!(v["prompt_version"], "useful-evidence-v1");
        assert_eq!(v["outcome"], "context_selected");
        // The documents come back as they went in, metadata and all.
        for d in v["documents"].as_array().unwrap() {
            let i: usize = d["id"].as_str().unwrap().parse().unwrap();
            assert_eq!(
                d,
                &json!({"id": i.to_string(), "text": format!("Source passage {i}"),
                "metadata": {"page": i}, "group_id": null, "pinned": false})
            );
        }
        let d1 = &v["decisions"][1];
        assert_eq!(
            (d1["relevance"].as_f64(), d1["input_tokens"].as_u64()),
            (Some(0.8), Some(10))
        );
        // rag-jev 0.2.0's Decision forbids extra fields: the fusion fields appear in fusion mode only.
        for d in v["decisions"].as_array().unwrap() {
            for field in ["original_rank", "jev_rank", "fusion_score"] {
                assert!(d.get(field).is_none(), "{mode}: {field} in {d}");
            }
        }
    }
    let (code, v, err) = select(
        &server,
        &json!({"query": "q", "documents": docs(), "mode": "fusion"}),
        &[],
    );
    assert_eq!(code, 0, "fusion: {err}");
    let d1 = &v["decisions"][1];
    assert_eq!(d1["original_rank"], 2);
    assert_eq!(v["decisions"][2]["jev_rank"], 1, "the best-judged passage ranks first");
    assert!(d1["fusion_score"].as_f64().is_some_and(|f| f > 0.0));
    // rag-jev's exact policy version (Python: sha256(json.dumps({"prompt": ..., **policy}, sort_keys=True))[:16]).
    let (_, v, _) = select(
        &server,
        &json!({"query": "q", "documents": docs(), "min_relevance": 0.2}),
        &[],
    );
    assert_eq!(v["policy_version"], "dfb5d28bb0aa78cd");
    assert_eq!(
        v["token_estimator"],
        "cl100k_base passage-text estimate; excludes prompts, separators and output"
    );
    assert_eq!(server.requests().len(), 20, "five selections of four passages");
}

#[test]
fn cap_shadow_and_empty_selections() {
    let server = jev();
    let request =
        json!({"query": "q", "documents": docs(), "mode": "filter_and_rerank", "min_relevance": 0.2, "top_n": 2});
    let (_, v, _) = select(&server, &request, &[]);
    assert_eq!(ids(&v["selected_ids"]), ["2", "1"]);
    assert_eq!(reasons(&v), ["below_threshold", "retained", "retained", "beyond_top_n"]);
    assert_eq!(v["policy_version"], "d4565e8d31c485ef");

    let request = json!({"query": "q", "documents": docs(), "min_relevance": 0.2, "top_n": 1, "shadow": true});
    let (_, v, _) = select(&server, &request, &[]);
    assert_eq!(ids(&v["documents"]), ["0", "1", "2", "3"]);
    assert_eq!(ids(&v["selected_ids"]), ["1"]);
    assert_eq!(v["status"], "shadow");
    let decisions = v["decisions"].as_array().unwrap();
    assert!(decisions.iter().all(|d| d["returned"] == true));
    assert_eq!(decisions.iter().filter(|d| d["selected"] == true).count(), 1);
    let chars = |k: &str| v[k].as_u64().unwrap();
    assert!(chars("returned_characters") == chars("input_characters"));
    assert!(chars("input_characters") > chars("selected_characters"));
    // Shadow does not change the policy version.
    assert_eq!(
        v["policy_version"],
        select(
            &server,
            &json!({"query": "q", "documents": docs(), "min_relevance": 0.2, "top_n": 1}),
            &[]
        )
        .1["policy_version"]
    );

    let (code, v, _) = select(
        &server,
        &json!({"query": "q", "documents": docs(), "min_relevance": 0.99}),
        &[],
    );
    assert_eq!(code, 0, "an empty selection is a success");
    assert_eq!(
        (v["documents"].clone(), v["selected_ids"].clone()),
        (json!([]), json!([]))
    );
    assert_eq!(
        (v["status"].as_str(), v["outcome"].as_str()),
        (Some("applied"), Some("no_context_selected"))
    );

    let before = server.requests().len();
    let (code, v, _) = select(
        &server,
        &json!({"query": "q", "documents": [], "min_relevance": 0.2}),
        &[],
    );
    assert_eq!(code, 0);
    assert_eq!(v["usage"]["completed_documents"], 0);
    assert_eq!(server.requests().len(), before, "empty input makes no provider call");
}

#[test]
fn invalid_requests_exit_2_with_issues_and_call_nobody() {
    let server = jev();
    let base = json!({"query": "q", "documents": docs(), "min_relevance": 0.2});
    let changes = [
        ("min_relevance", Value::Null, "min_relevance is required for filtering"),
        ("min_relevance", json!(1.1), "less than or equal to 1"),
        ("mode", json!("rerank"), "use filter_and_rerank"),
        ("top_n", json!(0), "greater than or equal to 1"),
        ("top_n", json!(true), "Input should be a valid integer"),
        ("query", json!(" "), "query must contain non-whitespace text"),
        (
            "documents",
            json!([docs()[0], docs()[0]]),
            "document IDs must be unique",
        ),
        ("unknown", json!(true), "Extra inputs are not permitted"),
    ];
    for (key, value, message) in changes {
        let mut request = base.clone();
        if value.is_null() {
            request.as_object_mut().unwrap().remove(key);
        } else {
            request[key] = value;
        }
        let (code, v, err) = select(&server, &request, &[]);
        assert_eq!(code, 2, "{key}: {err}");
        assert_eq!(v["error"], "invalid_input", "{key}");
        let text = v["issues"].to_string();
        assert!(text.contains(message), "{key}: {text}");
    }
    assert!(server.requests().is_empty(), "an invalid request is never scored");
}

#[test]
fn a_failing_judge_raises_or_passes_the_context_through() {
    // Passage 0 is judged; every other passage is rate-limited (after the retry).
    let server = Server::with_handler(|r: &Request| match passage_index(r) {
        0 => answer(0.0, 7),
        _ => Reply::Json(
            429,
            vec![("retry-after", "0".into())],
            r#"{"detail":"slow down"}"#.into(),
        ),
    });
    let request = json!({"query": "q", "documents": docs(), "min_relevance": 0.9, "top_n": 1});
    let (code, v, err) = select(&server, &request, &[]);
    assert_eq!(code, 1, "rag-jev's CLI raises: {v}");
    assert!(err.contains("Jev request failed: provider_rate_limit"), "{err}");

    let (code, v, err) = select(&server, &request, &["--on-error", "passthrough"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["status"], "bypassed");
    assert_eq!(v["error_code"], "provider_rate_limit");
    assert_eq!(v["selected_ids"], Value::Null);
    assert_eq!(
        ids(&v["documents"]),
        ["0", "1", "2", "3"],
        "the whole context, though top_n was 1"
    );
    let decisions = v["decisions"].as_array().unwrap();
    assert!(decisions
        .iter()
        .all(|d| d["selected"].is_null() && d["returned"] == true && d["reason"] == "bypassed"));
    assert_eq!(decisions[0]["relevance"], 0.0);
    assert!(decisions[1]["relevance"].is_null());
    assert_eq!(
        (v["usage"]["input_tokens"].as_u64(), v["usage"]["complete"].as_bool()),
        (Some(7), Some(false))
    );
    assert_eq!(v["selected_characters"], Value::Null);
}

#[test]
fn pins_and_groups_move_together() {
    let server = jev();
    let mut documents = docs();
    documents[0]["group_id"] = json!("g");
    documents[2]["group_id"] = json!("g");
    documents[3]["pinned"] = json!(true);
    let request = json!({"query": "q", "documents": documents, "min_relevance": 0.5});
    let (_, v, _) = select(&server, &request, &[]);
    assert_eq!(ids(&v["selected_ids"]), ["0", "1", "2", "3"]);
    assert_eq!(reasons(&v), ["group_retained", "retained", "retained", "pinned"]);

    // Pinned chunks count first; the group is admitted whole and overshoots top_n; the next unit is cut.
    let request = json!({"query": "q", "documents": documents, "min_relevance": 0.5, "top_n": 2});
    let (_, v, _) = select(&server, &request, &[]);
    assert_eq!(ids(&v["selected_ids"]), ["0", "2", "3"]);
    assert_eq!(reasons(&v), ["group_retained", "beyond_top_n", "retained", "pinned"]);
    assert_eq!(v["top_n_exceeded"], true);
    assert_eq!(v["documents"][0]["group_id"], "g");
}

#[test]
fn guidance_and_retrieval_query_reach_the_judge_as_rag_jev_sends_them() {
    let server = jev();
    let request = json!({"query": "q", "retrieval_query": "rq", "documents": docs(), "min_relevance": 0.2,
        "relevance_guidance": "domain"});
    let (code, v, err) = select(&server, &request, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["policy_version"], "d2a8319a660fd95a");
    for r in server.requests() {
        let body = r.json();
        assert_eq!(
            body["state"]["query"], "rq",
            "the judge is asked about the retrieval query"
        );
        let instructions = body["questions"]["relevant"]["instructions"].as_str().unwrap();
        assert!(
            instructions.ends_with("\nAdditional relevance criteria: domain"),
            "{instructions}"
        );
    }
}

//! `ragsift serve`'s `POST /v1/replay` and `POST /v1/import` over real HTTP, as rag-jev's workbench tests use
//! them: a scored run replays under another policy with no judge (the service is replay-only and its Jev does not
//! exist), a tampered run or a mismatched comparison is refused with 422, and an import is kept in the library as
//! a labelled run that replays to the same selection. Each labelled token of a token file names its client.

mod common;

use common::ragsift;
use common::service::{client, serve_in, Service};
use ragsift_engine::eval::select::{input_hash, SelectRequest};
use serde_json::{json, Value};

const TOKEN: &str = "replay-secret";

/// A run rag-jev scored: four passages, `1` and `2` labelled relevant, `2` grouped with `3`.
fn record() -> Value {
    let request = json!({
        "mode": "filter", "min_relevance": 0.5, "query": "How long is the warranty?",
        "documents": [
            {"id": "0", "text": "The device ships in a recycled box."},
            {"id": "1", "text": "The warranty lasts two years from purchase."},
            {"id": "2", "text": "Claims need the receipt.", "group_id": "claims"},
            {"id": "3", "text": "Claims are answered within a week.", "group_id": "claims"}
        ]
    });
    let parsed: SelectRequest = serde_json::from_value(request.clone()).unwrap();
    let judged = |p: f64| json!({"relevance": p, "model": "jev-1.13.0", "input_tokens": 30, "output_tokens": 1});
    json!({
        "request": request, "relevant_ids": ["1", "2"], "baseline_ids": null, "schema_version": 1,
        "created_at": "2026-12-01T09:30:00Z", "source": "live", "prompt_version": "useful-evidence-v1",
        "input_hash": input_hash(&parsed),
        "judgments": [judged(0.05), judged(0.92), judged(0.61), judged(0.2)],
        "scoring_elapsed_ms": 640.0, "scoring_usage": null
    })
}

fn call(s: &Service, route: &str, body: &Value, token: bool) -> (u16, Value, String) {
    let mut req = client()
        .post(format!("{}{route}", s.url))
        .header("content-type", "application/json")
        .body(body.to_string());
    if token {
        req = req.bearer_auth(TOKEN);
    }
    let r = req.send().unwrap();
    let status = r.status().as_u16();
    let text = r.text().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null), text)
}

fn strings(v: &Value) -> Vec<String> {
    (v.as_array().unwrap_or_else(|| panic!("not a list: {v}")).iter())
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn service(args: &[&str]) -> Service {
    let home = std::sync::Arc::new(tempfile::tempdir().unwrap());
    // No judge exists at this address: a replay that asked one would fail.
    serve_in(home, "http://127.0.0.1:9", &[("RAG_JEV_API_TOKEN", TOKEN)], args)
}

#[test]
fn a_scored_run_replays_under_another_policy_without_a_judge() {
    let s = service(&["--replay-only"]);
    let body = |policy: Value| json!({"record": record(), "policy": policy});
    assert_eq!(
        call(&s, "/v1/replay", &body(json!({"min_relevance": 0.5})), false).0,
        401
    );

    // 0.5 keeps 1 and 2, and 3 with its group; recall of the labels is whole.
    let (status, view, text) = call(&s, "/v1/replay", &body(json!({"min_relevance": 0.5})), true);
    assert_eq!(status, 200, "{text}");
    assert_eq!(strings(&view["selection"]["selected_ids"]), ["1", "2", "3"]);
    assert_eq!(view["selection"]["decisions"][3]["reason"], "group_retained");
    assert_eq!(view["selection"]["elapsed_ms"], 640.0);
    assert_eq!(
        (
            view["evidence_recall"].as_f64(),
            view["baseline_evidence_recall"].as_f64()
        ),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(strings(&view["baseline_ids"]), ["0", "1", "2", "3"]);
    assert!(view["baseline_context_tokens"].as_u64() > view["selected_context_tokens"].as_u64());
    let fields: std::collections::BTreeSet<&str> = view.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        fields,
        std::collections::BTreeSet::from([
            "record",
            "policy",
            "selection",
            "baseline_ids",
            "baseline_context_tokens",
            "selected_context_tokens",
            "token_estimator",
            "evidence_recall",
            "relevant_dropped",
            "baseline_evidence_recall"
        ])
    );
    // Stricter: the group goes, and the recall says which label was dropped.
    let (_, strict, _) = call(&s, "/v1/replay", &body(json!({"min_relevance": 0.7})), true);
    assert_eq!(strings(&strict["selection"]["selected_ids"]), ["1"]);
    assert_eq!(strings(&strict["relevant_dropped"]), ["2"]);
    assert_eq!(strict["evidence_recall"], 0.5);
    assert_ne!(
        strict["selection"]["policy_version"],
        view["selection"]["policy_version"]
    );

    // A tampered passage: rag-jev's message, no echo of what was sent.
    let mut tampered = record();
    tampered["request"]["documents"][1]["text"] = json!("The warranty lasts PRIVATE years.");
    let (status, v, text) = call(
        &s,
        "/v1/replay",
        &json!({"record": tampered, "policy": {"min_relevance": 0.5}}),
        true,
    );
    assert_eq!((status, v["error"].as_str()), (422, Some("invalid_request")), "{text}");
    assert!(
        text.contains("run inputs changed; score the edited inputs again"),
        "{text}"
    );
    assert!(!text.contains("PRIVATE"), "{text}");
    // A guidance change, a comparison on a replay, and a cross-origin POST.
    let guided = body(json!({"min_relevance": 0.5, "relevance_guidance": "Prefer dates"}));
    let (status, _, text) = call(&s, "/v1/replay", &guided, true);
    assert_eq!(status, 422);
    assert!(
        text.contains("changing relevance guidance requires new scoring"),
        "{text}"
    );
    let mut with = body(json!({"min_relevance": 0.5}));
    with["comparison"] = Value::Null;
    assert_eq!(call(&s, "/v1/replay", &with, true).0, 422);
    let cross = client()
        .post(format!("{}/v1/replay", s.url))
        .header("content-type", "application/json")
        .header("origin", "https://untrusted.example")
        .bearer_auth(TOKEN)
        .body(body(json!({"min_relevance": 0.5})).to_string())
        .send()
        .unwrap();
    assert_eq!(cross.status().as_u16(), 403);
}

#[test]
fn an_import_becomes_a_labelled_run_in_the_library() {
    let s = service(&["--replay-only"]);
    let policy = json!({"mode": "filter_and_rerank", "min_relevance": 0.5, "top_n": 2});
    let (status, imported, text) = call(&s, "/v1/import", &json!({"record": record(), "policy": policy}), true);
    assert_eq!(status, 200, "{text}");
    assert!(imported["comparison"].is_null());
    let selected = strings(&imported["view"]["selection"]["selected_ids"]);
    assert_eq!(
        selected,
        ["1", "2", "3"],
        "a group is kept whole even past top_n (top_n_exceeded)"
    );
    assert_eq!(imported["view"]["selection"]["top_n_exceeded"], true);

    // A comparison recorded with the run must match its replay; rag-jev's own check edits the policy.
    let answer = json!({"text": "Two years [1].", "status": "generated", "citations": ["1"]});
    let comparison = |selected_ids: &Value| {
        json!({
            "input_hash": imported["view"]["record"]["input_hash"],
            "policy_version": imported["view"]["selection"]["policy_version"],
            "baseline": answer, "selected": answer,
            "baseline_ids": ["0", "1", "2", "3"], "selected_ids": selected_ids, "selection_source": "live",
            "baseline_stage_ms": 900.0, "selected_stage_ms": 1400.0, "selection_original_ms": 640.0,
            "baseline_cost_usd": null, "selected_cost_usd": null, "selection_cost_usd": null
        })
    };
    let bundle = json!({"record": record(), "policy": policy, "comparison": comparison(&json!(selected))});
    let (status, again, text) = call(&s, "/v1/import", &bundle, true);
    assert_eq!(status, 200, "{text}");
    assert_eq!(again["comparison"]["baseline"]["text"], "Two years [1].");
    let mut edited = bundle.clone();
    edited["policy"]["min_relevance"] = json!(0.9);
    let (status, _, text) = call(&s, "/v1/import", &edited, true);
    assert_eq!(status, 422);
    assert!(
        text.contains("recorded answers do not match this run and policy"),
        "{text}"
    );
    let wrong = json!({"record": record(), "policy": policy, "comparison": comparison(&json!(["unknown"]))});
    assert_eq!(call(&s, "/v1/import", &wrong, true).0, 422);

    // The two accepted imports are runs of origin `imported`, with their labels, and replay to the same selection
    // from their judgments.
    let (_, runs) = common::run_json(ragsift(s.home.path()).args(["runs", "list", "--json"]));
    let runs = runs["runs"].as_array().unwrap().clone();
    assert_eq!(runs.len(), 2, "{runs:?}");
    let id = runs[0]["id"].as_str().unwrap().to_string();
    let (_, run) = common::run_json(ragsift(s.home.path()).args(["runs", "show", &id, "--json"]));
    assert_eq!(run["origin"], "imported");
    assert_eq!(run["made_by"], "serve-test/1.0");
    assert_eq!(run["judge"]["judge"], "jev-ragjev");
    assert_eq!(strings(&run["labels"]["relevant_ids"]), ["1", "2"]);
    let (code, replayed) = common::run_json(ragsift(s.home.path()).args(["replay", &id, "--json"]));
    assert_eq!(code, 0, "{replayed}");
    assert_eq!(strings(&replayed["selection"]["selected_ids"]), selected);
}

#[test]
fn an_import_is_not_kept_when_the_service_does_not_record() {
    let s = service(&["--replay-only", "--no-record"]);
    let body = json!({"record": record(), "policy": {"min_relevance": 0.5}});
    assert_eq!(call(&s, "/v1/import", &body, true).0, 200);
    let (_, runs) = common::run_json(ragsift(s.home.path()).args(["runs", "list", "--json"]));
    assert_eq!(runs["runs"].as_array().unwrap().len(), 0);
}

#[test]
fn each_tokens_label_names_the_client_of_its_runs() {
    let home = std::sync::Arc::new(tempfile::tempdir().unwrap());
    let file = home.path().join("tokens");
    std::fs::write(
        &file,
        "# one token per application\nbilling tok-billing-1\nsupport-bot tok-support-2\n",
    )
    .unwrap();
    std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let s = serve_in(
        home,
        "http://127.0.0.1:9",
        &[],
        &["--replay-only", "--token-file", file.to_str().unwrap()],
    );
    let body = json!({"record": record(), "policy": {"min_relevance": 0.5}}).to_string();
    let import = |token: &str| {
        let r = client()
            .post(format!("{}/v1/import", s.url))
            .header("content-type", "application/json")
            .bearer_auth(token)
            .body(body.clone())
            .send()
            .unwrap();
        r.status().as_u16()
    };
    assert_eq!(import("tok-billing-1"), 200);
    assert_eq!(import("tok-support-2"), 200);
    assert_eq!(import("tok-billing-"), 401);
    let (_, runs) = common::run_json(ragsift(s.home.path()).args(["runs", "list", "--json"]));
    let mut makers: Vec<String> = (runs["runs"].as_array().unwrap().iter())
        .map(|r| {
            let id = r["id"].as_str().unwrap();
            let (_, run) = common::run_json(ragsift(s.home.path()).args(["runs", "show", id, "--json"]));
            run["made_by"].as_str().unwrap().to_string()
        })
        .collect();
    makers.sort();
    assert_eq!(
        makers,
        ["billing", "support-bot"],
        "named by the token's label, not the user agent"
    );
    assert!(!s.log().contains("tok-"), "{}", s.log());
}

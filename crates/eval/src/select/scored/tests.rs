//! rag-jev's scored runs: the input hash against rag-jev's own, replay without a judge, and each validator.

use super::*;
use serde_json::json;

/// A recorded run as rag-jev writes one: three passages scored independently, `a` labelled relevant.
fn record() -> Value {
    let request = json!({
        "query": "What is the refund window? é", "mode": "filter", "min_relevance": 0.5,
        "documents": [
            {"id": "a", "text": "Refunds within 30 days.", "metadata": {"page": 3, "x": 1.5}},
            {"id": "b", "text": "Shipping is free.", "group_id": "g1", "pinned": true},
            {"id": "c", "text": "Our office opens at nine."}
        ]
    });
    let parsed: SelectRequest = serde_json::from_value(request.clone()).unwrap();
    let judgment = |p: f64| json!({"relevance": p, "model": "jev-1.13.0", "input_tokens": 40, "output_tokens": 1});
    json!({
        "request": request, "relevant_ids": ["a"], "baseline_ids": null,
        "schema_version": 1, "created_at": "2026-12-04T10:00:00+00:00", "source": "live",
        "prompt_version": "useful-evidence-v1", "input_hash": input_hash(&parsed),
        "judgments": [judgment(0.9), judgment(0.1), judgment(0.3)],
        "scoring_elapsed_ms": 812.5, "scoring_usage": null
    })
}

fn bundle(record: Value, policy: Value) -> Value {
    json!({"record": record, "policy": policy})
}

fn filter(min: f64) -> Value {
    json!({"mode": "filter", "min_relevance": min})
}

fn problem(value: Value, comparison_allowed: bool) -> String {
    let issues = parse_bundle(value, comparison_allowed).unwrap_err();
    issues.iter().map(|i| i.message.clone()).collect::<Vec<_>>().join("; ")
}

#[test]
fn the_input_hash_is_rag_jevs() {
    // Computed by rag-jev 0.2.0's own `input_hash` (pydantic `model_dump`, `json.dumps(sort_keys=True)`).
    let one: SelectRequest = serde_json::from_value(json!({
        "query": "What is the refund window? é", "mode": "filter", "min_relevance": 0.5,
        "documents": [
            {"id": "a", "text": "Refunds within 30 days.", "metadata": {"page": 3, "x": 1.5}},
            {"id": "b", "text": "Shipping is free.", "group_id": "g1", "pinned": true}
        ]
    }))
    .unwrap();
    assert_eq!(
        input_hash(&one),
        "5ed44e400c5831df3942a9fe66f5db597c6843dbaa26d1990ddc3a855a9db1f2"
    );
    let contextual: SelectRequest = serde_json::from_value(json!({
        "query": "q", "scoring_strategy": "contextual", "relevance_guidance": "Prefer tables",
        "mode": "rerank", "documents": [{"id": "a", "text": "t"}]
    }))
    .unwrap();
    assert_eq!(
        input_hash(&contextual),
        "ec7be69fafb94cda8d303ac6bc420ddfa32bb266e0357eb40ba478d69bbfae52"
    );
    // Policy options are not part of it.
    let other = SelectRequest {
        min_relevance: Some(0.9),
        ..one.clone()
    };
    assert_eq!(input_hash(&other), input_hash(&one));
}

#[test]
fn a_replay_applies_the_new_policy_to_the_recorded_judgments() {
    let at = |min: f64| replay(&parse_bundle(bundle(record(), filter(min)), false).unwrap()).unwrap();
    let view = at(0.5);
    // `b` is pinned, so it stays whatever its score.
    assert_eq!(
        view.selection.selected_ids,
        Some(vec!["a".to_string(), "b".to_string()])
    );
    assert_eq!(view.selection.prompt_version, "useful-evidence-v1");
    assert_eq!(view.selection.elapsed_ms, 812.5);
    assert_eq!(view.baseline_ids, ["a", "b", "c"]);
    assert_eq!(
        (view.evidence_recall, view.baseline_evidence_recall),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(view.relevant_dropped, Some(Vec::new()));
    assert!(view.baseline_context_tokens > view.selected_context_tokens && view.selected_context_tokens > 0);
    assert_eq!(view.record.created_at, "2026-12-04T10:00:00Z");
    // Stricter: `a` (0.9) drops at 0.95, and the recall says so.
    let strict = at(0.95);
    assert_eq!(strict.selection.selected_ids, Some(vec!["b".to_string()]));
    assert_eq!(strict.evidence_recall, Some(0.0));
    assert_eq!(strict.relevant_dropped, Some(vec!["a".to_string()]));
    assert_ne!(strict.selection.policy_version, view.selection.policy_version);
    // The boundary is inclusive, as rag-jev's `>=`.
    assert_eq!(at(0.9).selection.selected_ids, view.selection.selected_ids);
    // Rerank orders by the recorded scores (the pin counts against top_n); `c` is beyond it.
    let rerank =
        replay(&parse_bundle(bundle(record(), json!({"mode": "rerank", "top_n": 2})), false).unwrap()).unwrap();
    assert_eq!(
        rerank.selection.selected_ids,
        Some(vec!["a".to_string(), "b".to_string()])
    );
    assert_eq!(rerank.selection.decisions[2].reason, ragsift_policy::Reason::BeyondTopN);
}

#[test]
fn without_labels_there_is_no_recall() {
    let mut r = record();
    r["relevant_ids"] = Value::Null;
    let view = replay(&parse_bundle(bundle(r.clone(), filter(0.5)), false).unwrap()).unwrap();
    assert_eq!((view.evidence_recall, view.relevant_dropped), (None, None));
    r["relevant_ids"] = json!([]);
    let view = replay(&parse_bundle(bundle(r, filter(0.5)), false).unwrap()).unwrap();
    assert_eq!((view.evidence_recall, view.relevant_dropped), (None, Some(Vec::new())));
}

#[test]
fn each_validator_refuses_with_rag_jevs_message() {
    let edited = |f: &dyn Fn(&mut Value)| {
        let mut r = record();
        f(&mut r);
        problem(bundle(r, filter(0.5)), false)
    };
    let text = edited(&|r| r["request"]["documents"][0]["text"] = json!("Refunds within 90 days."));
    assert!(
        text.contains("run inputs changed; score the edited inputs again"),
        "{text}"
    );
    let text = edited(&|r| r["judgments"].as_array_mut().unwrap().truncate(2));
    assert!(text.contains("exactly one judgment per candidate"), "{text}");
    let text = edited(&|r| r["prompt_version"] = json!("contextual-evidence-v1"));
    assert!(text.contains("prompt version is not supported"), "{text}");
    let text = edited(&|r| r["scoring_usage"] = json!({"input_tokens": 1}));
    assert!(text.contains("independent run uses per-document usage"), "{text}");
    let text = edited(&|r| r["relevant_ids"] = json!(["zz"]));
    assert!(
        text.contains("labels and baseline IDs must be unique candidate IDs"),
        "{text}"
    );
    let text = edited(&|r| r["baseline_ids"] = json!(["a", "a"]));
    assert!(
        text.contains("labels and baseline IDs must be unique candidate IDs"),
        "{text}"
    );
    let text = edited(&|r| r["judgments"][1]["relevance"] = json!(1.5));
    assert!(text.contains("Input should be less than or equal to 1"), "{text}");
    let mut r = record();
    r["created_at"] = json!("yesterday");
    let issues = parse_bundle(bundle(r, filter(0.5)), false).unwrap_err();
    assert_eq!(issues[0].loc, [json!("record"), json!("created_at")]);
    assert_eq!(issues[0].kind, "datetime_from_date_parsing");
    // A guidance change needs new scoring; a filter policy needs its minimum.
    let mut guided = filter(0.5);
    guided["relevance_guidance"] = json!("Prefer tables");
    assert!(problem(bundle(record(), guided), false).contains("changing relevance guidance requires new scoring"));
    let text = problem(bundle(record(), json!({"mode": "filter"})), false);
    assert!(text.contains("min_relevance is required for filtering"), "{text}");
    let issues = parse_bundle(bundle(record(), json!({"mode": "filter", "min_relevance": 2})), false).unwrap_err();
    assert_eq!(issues[0].loc, [json!("policy"), json!("min_relevance")]);
    // A replay request carries no comparison; unknown fields are refused.
    let mut with = bundle(record(), filter(0.5));
    with["comparison"] = Value::Null;
    assert!(problem(with.clone(), false).contains("Extra inputs"));
    assert!(parse_bundle(with, true).is_ok());
}

#[test]
fn a_type_error_never_echoes_what_was_sent() {
    let mut r = record();
    r["scoring_elapsed_ms"] = json!("PRIVATE value");
    let text = problem(bundle(r, filter(0.5)), false);
    assert!(!text.contains("PRIVATE"), "{text}");
    assert!(text.contains("Input should be a valid number"), "{text}");
}

#[test]
fn a_recorded_comparison_must_match_the_replay() {
    let answer = json!({"text": "30 days [a]", "status": "generated", "model": "m", "elapsed_ms": 10.0,
        "citations": ["a"], "settings": {"temperature": 0}});
    let view = replay(&parse_bundle(bundle(record(), filter(0.5)), false).unwrap()).unwrap();
    let comparison = json!({
        "input_hash": view.record.input_hash, "policy_version": view.selection.policy_version,
        "baseline": answer, "selected": answer, "baseline_ids": view.baseline_ids,
        "selected_ids": view.selection.selected_ids, "selection_source": "live",
        "baseline_stage_ms": 10.0, "selected_stage_ms": 822.5, "selection_original_ms": 812.5,
        "baseline_cost_usd": null, "selected_cost_usd": null, "selection_cost_usd": null
    });
    let mut good = bundle(record(), filter(0.5));
    good["comparison"] = comparison;
    let parsed = parse_bundle(good.clone(), true).unwrap();
    assert_eq!(parsed.comparison.unwrap().selected_ids, ["a", "b"]);
    // rag-jev's network test: the policy edited after the answers were recorded.
    let mut edited = good.clone();
    edited["policy"]["min_relevance"] = json!(0.95);
    assert!(problem(edited, true).contains("recorded answers do not match this run and policy"));
    let mut source = good;
    source["comparison"]["selection_source"] = json!("fixture");
    assert!(problem(source, true).contains("recorded answers do not match"));
}

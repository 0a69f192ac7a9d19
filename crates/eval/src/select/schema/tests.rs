//! Unit tests of the parent module: each case is what rag-jev 0.2.0's service (FastAPI, pydantic 2) answered for
//! the same body, `loc`, `type` and message, and no value sent appears in any message.

use super::*;
use serde_json::json;

fn base() -> Value {
    json!({"query": "q", "documents": [{"id": "a", "text": "t"}], "min_relevance": 0.2})
}

fn with(key: &str, v: Value) -> Value {
    let mut b = base();
    b[key] = v;
    b
}

/// The issues for `body` as `(loc, type, message)`.
fn issues(body: Value, model: &'static [Field]) -> Vec<(Value, String, String)> {
    match check(Some(&body), model) {
        Ok(_) => Vec::new(),
        Err(issues) => (issues.into_iter())
            .map(|i| (Value::Array(i.loc), i.kind, i.message))
            .collect(),
    }
}

fn one(body: Value) -> (Value, String, String) {
    let mut all = issues(body, SELECT_REQUEST);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

#[test]
fn type_errors_as_rag_jevs_service_gives_them() {
    let cases = [
        (
            with("mode", json!("PRIVATE-7f3a")),
            json!(["mode"]),
            "literal_error",
            "Input should be 'filter', 'rerank' or 'filter_and_rerank'",
        ),
        (
            with("query", json!(12345)),
            json!(["query"]),
            "string_type",
            "Input should be a valid string",
        ),
        (
            with("min_relevance", json!("PRIVATE-x")),
            json!(["min_relevance"]),
            "float_parsing",
            "Input should be a valid number, unable to parse string as a number",
        ),
        (
            with("min_relevance", json!([1])),
            json!(["min_relevance"]),
            "float_type",
            "Input should be a valid number",
        ),
        (
            with("min_relevance", json!(2)),
            json!(["min_relevance"]),
            "less_than_equal",
            "Input should be less than or equal to 1",
        ),
        (
            with("top_n", json!("3")),
            json!(["top_n"]),
            "int_type",
            "Input should be a valid integer",
        ),
        (
            with("top_n", json!(3.0)),
            json!(["top_n"]),
            "int_type",
            "Input should be a valid integer",
        ),
        (
            with("top_n", json!(true)),
            json!(["top_n"]),
            "int_type",
            "Input should be a valid integer",
        ),
        (
            with("top_n", json!(0)),
            json!(["top_n"]),
            "greater_than_equal",
            "Input should be greater than or equal to 1",
        ),
        (
            with("max_context_tokens", json!(1_000_001)),
            json!(["max_context_tokens"]),
            "less_than_equal",
            "Input should be less than or equal to 1000000",
        ),
        (
            with("shadow", json!("PRIVATE")),
            json!(["shadow"]),
            "bool_parsing",
            "Input should be a valid boolean, unable to interpret input",
        ),
        (
            with("shadow", json!(2)),
            json!(["shadow"]),
            "bool_parsing",
            "Input should be a valid boolean, unable to interpret input",
        ),
        (
            with("shadow", Value::Null),
            json!(["shadow"]),
            "bool_type",
            "Input should be a valid boolean",
        ),
        (json!({"query": "q"}), json!(["documents"]), "missing", "Field required"),
        (
            with("documents", json!([{"id": 1, "text": "t"}])),
            json!(["documents", 0, "id"]),
            "string_type",
            "Input should be a valid string",
        ),
        (
            with("documents", json!(["x"])),
            json!(["documents", 0]),
            "model_attributes_type",
            "Input should be a valid dictionary or object to extract fields from",
        ),
        (
            with("documents", json!({"a": 1})),
            json!(["documents"]),
            "list_type",
            "Input should be a valid list",
        ),
        (
            json!([1]),
            json!([]),
            "model_attributes_type",
            "Input should be a valid dictionary or object to extract fields from",
        ),
        (
            with("documents", json!([{"id": "a", "text": "t", "metadata": [1]}])),
            json!(["documents", 0, "metadata"]),
            "dict_type",
            "Input should be a valid dictionary",
        ),
        (
            with("documents", json!([{"id": "a", "text": "t", "group_id": 5}])),
            json!(["documents", 0, "group_id"]),
            "string_type",
            "Input should be a valid string",
        ),
        (
            with("query", json!("")),
            json!(["query"]),
            "string_too_short",
            "String should have at least 1 character",
        ),
        (
            with("query", json!("x".repeat(8001))),
            json!(["query"]),
            "string_too_long",
            "String should have at most 8000 characters",
        ),
        (
            with("mode", json!(5)),
            json!(["mode"]),
            "literal_error",
            "Input should be 'filter', 'rerank' or 'filter_and_rerank'",
        ),
        (
            with("scoring_strategy", json!("PRIVATE")),
            json!(["scoring_strategy"]),
            "literal_error",
            "Input should be 'independent' or 'contextual'",
        ),
        (
            with("documents", json!([{"id": "a", "text": "t", "xx": "PRIVATE"}])),
            json!(["documents", 0, "xx"]),
            "extra_forbidden",
            "Extra inputs are not permitted",
        ),
        (
            with("relevance_guidance", json!("")),
            json!(["relevance_guidance"]),
            "string_too_short",
            "String should have at least 1 character",
        ),
        (
            with("query", Value::Null),
            json!(["query"]),
            "string_type",
            "Input should be a valid string",
        ),
    ];
    for (body, loc, kind, message) in cases {
        let text = body.to_string();
        let got = one(body);
        assert_eq!(got, (loc, kind.to_string(), message.to_string()), "{text}");
        assert!(!got.2.contains("PRIVATE") && !got.2.contains("12345"));
    }
}

#[test]
fn missing_fields_in_declaration_order_then_extras_in_input_order() {
    assert_eq!(
        issues(json!({"zz": 1, "extra": "PRIVATE"}), SELECT_REQUEST),
        [
            (json!(["query"]), "missing".into(), "Field required".into()),
            (json!(["documents"]), "missing".into(), "Field required".into()),
            (
                json!(["extra"]),
                "extra_forbidden".into(),
                "Extra inputs are not permitted".into()
            ),
            (
                json!(["zz"]),
                "extra_forbidden".into(),
                "Extra inputs are not permitted".into()
            ),
        ]
    );
    let missing = check(None, SELECT_REQUEST).unwrap_err();
    assert_eq!((missing[0].loc.len(), missing[0].kind.as_str()), (0, "missing"));
}

#[test]
fn lax_values_pass_normalised() {
    let body = json!({"query": "q", "documents": [{"id": "a", "text": "t", "pinned": "yes"}],
        "min_relevance": "0.5", "shadow": 1});
    let v = check(Some(&body), SELECT_REQUEST).unwrap();
    assert_eq!(
        (&v["min_relevance"], &v["shadow"], &v["documents"][0]["pinned"]),
        (&json!(0.5), &json!(true), &json!(true))
    );
    assert_eq!(
        check(Some(&with("min_relevance", json!(true))), SELECT_REQUEST).unwrap()["min_relevance"],
        1.0
    );
    assert!(check(Some(&with("mode", json!("fusion"))), SELECT_REQUEST).is_ok());
}

#[test]
fn scored_runs_check_as_rag_jevs_replay_does() {
    let run = |k: &str, v: Value| {
        let mut r = json!({"request": base(), "created_at": "2026-01-01T00:00:00Z", "source": "live",
            "input_hash": "h", "judgments": [{"relevance": 0.5, "model": "m"}], "scoring_elapsed_ms": 5});
        if k.starts_with("judgments.0.") {
            r["judgments"][0][k.trim_start_matches("judgments.0.")] = v;
        } else {
            r[k] = v;
        }
        json!({"record": r, "policy": {"min_relevance": 0.3}})
    };
    let at = |field: &[Value]| {
        let mut loc = vec![json!("record")];
        loc.extend_from_slice(field);
        Value::Array(loc)
    };
    let cases = [
        (
            run("created_at", json!("PRIVATE")),
            at(&[json!("created_at")]),
            "datetime_from_date_parsing",
        ),
        (
            run("created_at", json!([1])),
            at(&[json!("created_at")]),
            "datetime_type",
        ),
        (
            run("judgments.0.input_tokens", json!(3.5)),
            at(&[json!("judgments"), json!(0), json!("input_tokens")]),
            "int_from_float",
        ),
        (
            run("judgments.0.input_tokens", json!("PRIVATE")),
            at(&[json!("judgments"), json!(0), json!("input_tokens")]),
            "int_parsing",
        ),
        (
            run("judgments.0.input_tokens", json!(-1)),
            at(&[json!("judgments"), json!(0), json!("input_tokens")]),
            "greater_than_equal",
        ),
        (
            run("schema_version", json!(2)),
            at(&[json!("schema_version")]),
            "literal_error",
        ),
        (
            run("schema_version", json!("1")),
            at(&[json!("schema_version")]),
            "literal_error",
        ),
        (run("source", json!("PRIVATE")), at(&[json!("source")]), "literal_error"),
        (
            run("judgments.0.model", json!("")),
            at(&[json!("judgments"), json!(0), json!("model")]),
            "string_too_short",
        ),
        (
            run("scoring_elapsed_ms", json!(-1)),
            at(&[json!("scoring_elapsed_ms")]),
            "greater_than_equal",
        ),
    ];
    for (body, loc, kind) in cases {
        let got = issues(body, REPLAY_REQUEST);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!((&got[0].0, got[0].1.as_str()), (&loc, kind));
        assert!(!got[0].2.contains("PRIVATE"));
    }
    let many = run("judgments", json!(vec![json!({"relevance": 0.5, "model": "m"}); 300]));
    let got = issues(many, REPLAY_REQUEST);
    assert_eq!(
        (got[0].1.as_str(), got[0].2.as_str()),
        (
            "too_long",
            "List should have at most 256 items after validation, not 300"
        )
    );
    // Lax values that pass, as pydantic writes them back.
    for (k, v, written) in [
        ("created_at", json!(1_700_000_000), json!("2023-11-14T22:13:20Z")),
        ("created_at", json!(1.5), json!("1970-01-01T00:00:01.500000Z")),
        ("created_at", json!("2026-01-01"), json!("2026-01-01T00:00:00")),
    ] {
        let ok = check(Some(&run(k, v)), REPLAY_REQUEST).unwrap();
        assert_eq!(ok["record"][k], written);
    }
    let ok = check(Some(&run("judgments.0.input_tokens", json!("3"))), REPLAY_REQUEST).unwrap();
    assert_eq!(ok["record"]["judgments"][0]["input_tokens"], 3);
    // A replay request carries no comparison; an import may.
    let mut replay = run("source", json!("live"));
    replay["comparison"] = Value::Null;
    assert_eq!(issues(replay.clone(), REPLAY_REQUEST)[0].1, "extra_forbidden");
    assert!(issues(replay, REPLAY_BUNDLE).is_empty());
}

#[test]
fn no_value_sent_in_any_field_appears_in_any_issue() {
    // Every field of every model, given a private string, a private number and a private object in turn.
    fn walk(fields: &'static [Field], path: &mut Vec<&'static str>, all: &mut Vec<Vec<&'static str>>) {
        for f in fields {
            path.push(f.name);
            all.push(path.clone());
            let mut ty = &f.ty;
            while let Ty::Nullable(inner) | Ty::List(inner, _) = ty {
                ty = inner;
            }
            if let Ty::Model(inner) = ty {
                if path.len() < 4 {
                    walk(inner, path, all);
                }
            }
            path.pop();
        }
    }
    let mut paths = Vec::new();
    walk(REPLAY_BUNDLE, &mut Vec::new(), &mut paths);
    assert!(paths.len() > 40, "{}", paths.len());
    for path in paths {
        for private in [
            json!("PRIVATE-7f3a"),
            json!(987_654_321),
            json!({"PRIVATE-k": "PRIVATE-v"}),
        ] {
            let mut body = json!({});
            let mut at = &mut body;
            for (i, key) in path.iter().enumerate() {
                if i + 1 == path.len() {
                    at[*key] = private.clone();
                } else {
                    at = &mut at[*key];
                }
            }
            let text = match check(Some(&body), REPLAY_BUNDLE) {
                Ok(v) => v.to_string(),
                Err(issues) => issues.iter().map(|i| format!("{} {}", i.kind, i.message)).collect(),
            };
            if check(Some(&body), REPLAY_BUNDLE).is_err() {
                assert!(
                    !text.contains("PRIVATE") && !text.contains("987654321"),
                    "{path:?}: {text}"
                );
            }
        }
    }
}

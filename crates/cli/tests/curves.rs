//! `ragsift curves` over rag-jev cases and saved traces: the points agree with `ragsift eval` at the same settings,
//! and curves refuse to run without cached judgments.

mod common;

use common::{ragsift, repo, run_json};
use serde_json::Value;

fn eval_fixture(name: &str) -> String {
    repo().join("fixtures/eval").join(name).display().to_string()
}

fn curve<'a>(curves: &'a Value, mode: &str, parameter: &str) -> &'a Value {
    (curves["curves"].as_array().unwrap().iter())
        .find(|c| c["mode"] == mode && c["parameter"] == parameter)
        .unwrap_or_else(|| panic!("no {mode} × {parameter} curve"))
}

fn point(curve: &Value, value: f64) -> &Value {
    (curve["points"].as_array().unwrap().iter())
        .find(|p| (p["value"].as_f64().unwrap() - value).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no point at {value}"))
}

#[test]
fn curves_agree_with_eval_at_the_same_settings() {
    let home = tempfile::tempdir().unwrap();
    let (cases, traces) = (eval_fixture("cases.json"), eval_fixture("traces.json"));
    let (code, curves) = run_json(ragsift(home.path()).args(["curves", &cases, "--from-traces", &traces, "--json"]));
    assert_eq!(code, 0);
    let eval = |extra: &[&str]| {
        let (code, v) = run_json(
            // `--replay` is the old spelling of `--from-traces`, kept as an alias for scripts written before.
            ragsift(home.path())
                .args(["eval", &cases, "--replay", &traces, "--json"])
                .args(extra),
        );
        assert_eq!(code, 0);
        v
    };
    let same = |p: &Value, summary: &Value, what: &str| {
        for k in ["precision", "evidence_recall", "context_tokens", "documents"] {
            assert_eq!(p[k], summary[k], "{what}: {k}");
        }
    };
    let at_02 = eval(&["--min-relevance", "0.2"]);
    let filter = point(curve(&curves, "filter", "min_relevance"), 0.2);
    same(filter, &at_02["summary"]["filter"], "filter at 0.2");
    assert_eq!(filter["options"]["mode"], "filter");
    assert_eq!(filter["options"]["min_relevance"], 0.2);
    same(
        point(curve(&curves, "filter_and_rerank", "min_relevance"), 0.2),
        &at_02["summary"]["filter_and_rerank"],
        "filter_and_rerank at 0.2",
    );
    let top3 = eval(&["--top-n", "3"]);
    let rerank = point(curve(&curves, "rerank", "top_n"), 3.0);
    same(rerank, &top3["summary"]["rerank"], "rerank top-3");
    assert_eq!(rerank["options"]["top_n"], 3);
    same(
        point(curve(&curves, "fusion", "top_n"), 3.0),
        &top3["summary"]["fusion"],
        "fusion top-3",
    );
    // The settings in force (min_relevance 0.5 by default, as eval's) are marked on the filter curves.
    let filter = curve(&curves, "filter", "min_relevance");
    let current = filter["current"].as_u64().unwrap() as usize;
    assert_eq!(filter["points"][current]["value"], 0.5);
    assert!(
        curve(&curves, "rerank", "max_context_tokens")["points"]
            .as_array()
            .unwrap()
            .len()
            > 1
    );

    // Without saved traces there is nothing cached to sweep: refused, exit 2.
    let out = ragsift(home.path()).args(["curves", &cases]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from-traces"));
}

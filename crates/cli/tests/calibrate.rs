//! `ragsift calibrate` as a user runs it: replayed end to end on `fixtures/eval/calibrate/`, refusing to overwrite
//! any artifact or to cross families between splits, and live against a loopback Jev server that records, at
//! each request, whether the frozen file was already on disk.

mod common;

use ragsift_test_support::http;

use common::{ragsift, repo};
use ragsift_engine::eval::{self, calibrate};
use ragsift_engine::policy::{Mode, PolicyOptions};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};

fn fixture(name: &str) -> PathBuf {
    repo().join("fixtures/eval/calibrate").join(name)
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

fn calibrate(home: &Path, output: &Path, extra: &[&str]) -> Output {
    ragsift(home)
        .arg("calibrate")
        .arg(fixture("development.json"))
        .arg(fixture("evaluation.json"))
        .arg("--output")
        .arg(output)
        .args(extra)
        .output()
        .unwrap()
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn fixture_traces_carry_their_cases_fingerprints() {
    let cases: Vec<_> = ["development.json", "evaluation.json"]
        .iter()
        .flat_map(|f| eval::load_cases(fixture(f)).unwrap())
        .collect();
    let traces = eval::load_traces(fixture("traces.json")).unwrap();
    assert_eq!(traces.len(), cases.len());
    for case in &cases {
        let t = traces.iter().find(|t| t.case_id == case.id).unwrap();
        assert_eq!(t.input_hash, eval::fingerprint(case), "trace of {}", case.id);
    }
}

#[test]
fn replay_freezes_the_cheapest_full_recall_policy_and_reports_the_held_out_difference() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("runs/report.json");
    let replay = fixture("traces.json");
    let out = calibrate(
        dir.path(),
        &output,
        &["--from-traces", replay.to_str().unwrap(), "--json"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = stdout_json(&out);
    let frozen_path = dir.path().join("runs/report.frozen.json");
    assert_eq!(summary["frozen"], frozen_path.display().to_string());
    assert_eq!(summary["eligible"], true);
    assert_eq!(summary["answer_quality"], "not_evaluated");
    assert_eq!(
        summary["traces"],
        Value::Null,
        "replay scores nothing, so writes no traces"
    );

    // The frozen file: rag-jev's fields, and a policy ragsift can apply.
    let frozen = read(&frozen_path);
    assert_eq!(
        frozen["policy"],
        json!({"mode": "filter_and_rerank", "min_relevance": 0.35, "top_n": null, "max_context_tokens": null,
               "shadow": false, "relevance_guidance": null})
    );
    assert_eq!(frozen["scoring_strategy"], "contextual");
    assert_eq!(frozen["min_recall"], 0.98);
    assert_eq!(frozen["candidate_policies"].as_array().unwrap().len(), 9);
    assert_eq!(frozen["development"].as_object().unwrap().len(), 9);
    let options: PolicyOptions = serde_json::from_value(frozen["policy"].clone()).unwrap();
    assert_eq!(
        (options.mode, options.min_relevance, options.top_n),
        (Mode::FilterAndRerank, Some(0.35), None)
    );
    assert_eq!(calibrate::frozen_policy_options(&frozen).unwrap(), Some(options));

    // The report: baseline against the frozen policy on held-out questions, resampled by family.
    let report = read(&output);
    assert_eq!(report["freeze_hash"], calibrate::digest(&frozen).unwrap());
    assert_eq!(
        (
            report["development_questions"].clone(),
            report["evaluation_questions"].clone()
        ),
        (json!(4), json!(4))
    );
    assert_eq!(report["policies"].as_object().unwrap().len(), 9);
    assert_eq!(report["frozen_policy"], frozen["policy"]);
    let held = &report["frozen_policy_held_out"];
    assert_eq!(held["policy"], frozen["policy"]);
    assert_eq!(
        held["rows"][0]["selected_ids"],
        json!(["t1", "t2"]),
        "reranked, 0.35 and above"
    );
    let baseline_tokens = report["baseline"]["summary"]["context_tokens"].as_f64().unwrap();
    let frozen_tokens = held["summary"]["context_tokens"].as_f64().unwrap();
    let difference = &report["context_token_difference"];
    assert_eq!(difference["delta"].as_f64().unwrap(), frozen_tokens - baseline_tokens);
    assert_eq!(difference["questions"], 4);
    assert_eq!(
        difference["independent_units"], 3,
        "the two tide questions are one family"
    );
    let ci: Vec<f64> = serde_json::from_value(difference["ci95"].clone()).unwrap();
    assert!(ci[0] <= ci[1] && ci[1] < 0.0, "{ci:?}");
    let units: Vec<&str> = (report["paired_differences"].as_array().unwrap().iter())
        .map(|r| r["unit"].as_str().unwrap())
        .collect();
    assert_eq!(
        units,
        ["family:tides", "family:tides", "question:eval-tour", "family:fishing"]
    );
    // rag-jev's policy config: the frozen policy in shadow mode.
    let config = read(&dir.path().join("runs/report.policy.json"));
    assert_eq!(
        (config["shadow"].clone(), config["mode"].clone()),
        (json!(true), json!("filter_and_rerank"))
    );

    // Run again into the same place: refused, nothing rewritten.
    let before = std::fs::read(&frozen_path).unwrap();
    let again = calibrate(dir.path(), &output, &["--from-traces", replay.to_str().unwrap()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwritten"));
    assert_eq!(std::fs::read(&frozen_path).unwrap(), before);

    // A fresh report next to an existing --frozen file is refused as well.
    let fresh = dir.path().join("second.json");
    let taken = calibrate(
        dir.path(),
        &fresh,
        &[
            "--from-traces",
            replay.to_str().unwrap(),
            "--frozen",
            frozen_path.to_str().unwrap(),
        ],
    );
    assert!(!taken.status.success());
    assert!(!fresh.exists());

    // The human summary names the frozen policy.
    let human = calibrate(
        dir.path(),
        &dir.path().join("third.json"),
        &["--from-traces", replay.to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(human.status.success(), "{text}");
    let marked: Vec<&str> = text.lines().filter(|l| l.ends_with("<- frozen")).collect();
    assert!(
        marked.len() == 1 && marked[0].trim_start().starts_with("filter_and_rerank ≥ 0.35 "),
        "{text}"
    );
}

#[test]
fn a_family_in_both_splits_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut evaluation = read(&fixture("evaluation.json"));
    evaluation[3]["family_id"] = json!("ferry");
    let crossing = dir.path().join("evaluation.json");
    std::fs::write(&crossing, evaluation.to_string()).unwrap();
    let output = dir.path().join("report.json");
    let out = ragsift(dir.path())
        .arg("calibrate")
        .arg(fixture("development.json"))
        .arg(&crossing)
        .args(["--from-traces", fixture("traces.json").to_str().unwrap(), "--output"])
        .arg(&output)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("families cross") && err.contains("ferry"), "{err}");
    assert!(!output.exists() && !dir.path().join("report.frozen.json").exists());
}

/// The fixture's relevance of every passage text, for the mock Jev to answer with.
fn fixture_scores() -> HashMap<String, f64> {
    let traces = eval::load_traces(fixture("traces.json")).unwrap();
    let mut scores = HashMap::new();
    for file in ["development.json", "evaluation.json"] {
        for case in eval::load_cases(fixture(file)).unwrap() {
            let t = traces.iter().find(|t| t.case_id == case.id).unwrap();
            for (d, j) in case.documents.iter().zip(&t.judgments) {
                scores.insert(d.text.clone(), j.relevance);
            }
        }
    }
    scores
}

#[test]
fn live_scoring_asks_for_held_out_cases_only_after_the_choice_is_frozen() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("live/report.json");
    let frozen_path = dir.path().join("live/report.frozen.json");
    let scores = fixture_scores();
    // Per request: the query asked and whether the frozen file existed when it arrived.
    let log: Arc<Mutex<Vec<(String, bool)>>> = Arc::default();
    let (seen, frozen_probe) = (log.clone(), frozen_path.clone());
    let server = http::Server::with_handler(move |r: &http::Request| {
        let body = r.json();
        let query = body["state"]["query"].as_str().unwrap_or_default().to_string();
        seen.lock().unwrap().push((query, frozen_probe.exists()));
        let passages = body["state"]["passages"].as_array().cloned().unwrap_or_default();
        let answers: serde_json::Map<String, Value> = (passages.iter().enumerate())
            .map(|(i, p)| {
                let score = scores
                    .get(p["text"].as_str().unwrap_or_default())
                    .copied()
                    .unwrap_or(0.0);
                (i.to_string(), json!({"type": "noul", "noul": score}))
            })
            .collect();
        let reply = json!({"model": "jev-1.13.0", "answers": answers,
                           "usage": {"input_tokens": 250, "output_tokens": passages.len()}});
        http::Reply::Json(200, vec![], reply.to_string())
    });
    let out = ragsift(dir.path())
        .env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", &server.url)
        .arg("calibrate")
        .arg(fixture("development.json"))
        .arg(fixture("evaluation.json"))
        .arg("--output")
        .arg(&output)
        .args(["--judge", "jev", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("scoring evaluation cases: 4/4"),
        "progress on stderr: {stderr}"
    );

    let queries = |file: &str| -> Vec<String> {
        eval::load_cases(fixture(file))
            .unwrap()
            .into_iter()
            .map(|c| c.query)
            .collect()
    };
    let (development, evaluation) = (queries("development.json"), queries("evaluation.json"));
    let log = log.lock().unwrap().clone();
    assert_eq!(log.len(), 8, "one contextual request per case: {log:?}");
    for (query, frozen_existed) in &log {
        if development.contains(query) {
            assert!(!frozen_existed, "development case scored after the freeze: {query}");
        } else {
            assert!(evaluation.contains(query), "unexpected query {query}");
            assert!(
                frozen_existed,
                "held-out case scored before the frozen file existed: {query}"
            );
        }
    }
    assert_eq!(log.iter().filter(|(_, f)| *f).count(), 4);

    // Live scores equal the fixture's, so the same policy is frozen; the saved traces replay to the same report.
    let summary = stdout_json(&out);
    assert_eq!(summary["frozen_policy"]["mode"], "filter_and_rerank");
    let traces = dir.path().join("live/report.traces.json");
    assert_eq!(summary["traces"], traces.display().to_string());
    assert_eq!(read(&traces).as_array().unwrap().len(), 8);
    let live_report = read(&output);
    assert_eq!(live_report["sources"], json!(["live:jev-contextual:jev-latest"]));
    let replayed = dir.path().join("replayed.json");
    let again = calibrate(dir.path(), &replayed, &["--from-traces", traces.to_str().unwrap()]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(
        read(&replayed)["context_token_difference"],
        live_report["context_token_difference"]
    );
    assert_eq!(server.requests().len(), 8, "replay made no request");
}

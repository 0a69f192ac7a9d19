//! `ragsift calibrate --judge jev` over a home whose runs carry labels (rag-jev eval cases imported as runs, judged by
//! a loopback Jev that is overconfident), the fit stored and read back through the workbench; and
//! `ragsift calibrate --cases C --from-traces T` over rag-jev's files, offline.

mod common;

use ragsift_test_support::http;

use common::{ragsift, repo, run_json};
use http::{Reply, Request, Server};
use ragsift_engine::policy::{Mode, PolicyOptions, USEFUL};
use ragsift_engine::workbench::Workbench;
use serde_json::{json, Value};
use std::collections::BTreeMap;

const CASES: usize = 6;
const DOCS: usize = 10;

/// The judge's probability of document `j` of case `c`, carried in the passage text as `score=…`.
fn score(c: usize, j: usize) -> f64 {
    0.05 + 0.1 * ((j + c) % 10) as f64
}

/// The labels: relevant from 0.5 up, with a few flipped; the judge's 0.55 … 0.95 are therefore far too timid and
/// its 0.05 … 0.45 far too high.
fn relevant(c: usize, j: usize) -> bool {
    (score(c, j) > 0.5) != (c * DOCS + j).is_multiple_of(13)
}

/// The `score=…` a request's passage carries (rag-jev's state: `{"query", "passage": {"text"}}`).
fn carried_score(r: &Request) -> f64 {
    let text = r.json()["state"]["passage"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    (text.split_whitespace())
        .find_map(|w| w.strip_prefix("score="))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0)
}

fn jev() -> Server {
    Server::with_handler(|r: &Request| {
        let p = carried_score(r);
        let body = json!({"model": "jev-1.13.0", "answers": {"relevant": {"type": "noul", "noul": p}},
            "usage": {"input_tokens": 12, "output_tokens": 1}});
        Reply::Json(200, vec![], body.to_string())
    })
}

fn case(c: usize) -> Value {
    let documents: Vec<Value> = (0..DOCS)
        .map(|j| json!({"id": format!("c{c}d{j}"), "text": format!("Passage {j} of case {c} score={} with words.", score(c, j))}))
        .collect();
    let relevant_ids: Vec<String> = (0..DOCS)
        .filter(|&j| relevant(c, j))
        .map(|j| format!("c{c}d{j}"))
        .collect();
    json!({"id": format!("case-{c}"), "query": format!("Question number {c}?"), "documents": documents,
        "relevant_ids": relevant_ids, "mode": "filter", "min_relevance": 0.5})
}

fn bins_total(q: &Value, field: &str) -> u64 {
    q[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["n"].as_u64().unwrap())
        .sum()
}

#[test]
fn labelled_runs_calibrate_the_judge_and_the_fit_is_stored_and_read_back() {
    let server = jev();
    let home = tempfile::tempdir().unwrap();
    for c in 0..CASES {
        let file = home.path().join(format!("case{c}.json"));
        std::fs::write(&file, case(c).to_string()).unwrap();
        let mut cmd = ragsift(home.path());
        cmd.args(["runs", "import-candidates"])
            .arg(&file)
            .args(["--judge", "jev", "--json"])
            .env("TYPESAFE_API_KEY", "sk-test")
            .env("TYPESAFE_BASE_URL", &server.url);
        let (code, trace) = run_json(&mut cmd);
        assert_eq!(code, 0, "{trace}");
    }
    // No key and no server needed: the runs carry their judgments.
    let (code, report) = run_json(ragsift(home.path()).args(["calibrate", "--judge", "jev", "--json"]));
    assert_eq!(code, 0, "{report}");
    assert_eq!(
        (report["runs_read"].clone(), report["runs_labelled"].clone()),
        (json!(6), json!(6))
    );
    let judges = report["judges"].as_array().unwrap();
    assert_eq!(judges.len(), 1, "{report}");
    let judge = &judges[0];
    assert_eq!(judge["judge"], "jev-ragjev");
    let (model, prompt) = (
        judge["model"].as_str().unwrap(),
        judge["prompt_version"].as_str().unwrap(),
    );
    let q = &judge["questions"][USEFUL];
    let n = (CASES * DOCS) as u64;
    assert_eq!(q["n"], n, "{judge}");
    assert_eq!((bins_total(q, "bins"), bins_total(q, "bins_calibrated")), (n, n));
    let fields: Vec<&str> = q.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        fields,
        [
            "auc",
            "bins",
            "bins_calibrated",
            "brier_calibrated",
            "brier_raw",
            "method",
            "n",
            "note"
        ]
    );
    assert_ne!(q["method"], "none", "{q}");
    assert!(
        q["brier_calibrated"].as_f64().unwrap() < q["brier_raw"].as_f64().unwrap() - 0.03,
        "{q}"
    );
    assert!(q["auc"].as_f64().unwrap() > 0.8, "{q}");
    let stored = home.path().join("judge-calibration.json");
    assert_eq!(report["stored"], stored.display().to_string());

    // Read back through the workbench: the fit, calibrated scores beside raw ones, raw thresholds.
    let wb = Workbench::open(Some(home.path())).unwrap();
    let fit = wb
        .judge_calibration("jev-ragjev", model, prompt)
        .unwrap()
        .expect("stored fit");
    assert_eq!(
        fit.questions[USEFUL].calibrator.method().name(),
        q["method"].as_str().unwrap()
    );
    assert!(wb
        .judge_calibration("jev-ragjev", model, "another-prompt")
        .unwrap()
        .is_none());
    let run = wb.runs(1).unwrap()[0].id.clone();
    let trace = wb.run(&run).unwrap();
    let calibrated = wb.calibrated_scores(&trace).unwrap();
    assert_eq!(calibrated.len(), trace.judge.judgments.len());
    for (j, c) in trace.judge.judgments.iter().zip(&calibrated) {
        let (raw, cal) = (j.scores[USEFUL], c[USEFUL]);
        // The judge is too timid: calibration pushes high scores up and keeps low ones low.
        if raw >= 0.75 {
            assert!(cal > raw, "{raw} → {cal}");
        } else if raw <= 0.25 {
            assert!(cal <= 0.15, "{raw} → {cal}");
        }
    }
    // Monotone: the calibrated order never contradicts the raw one.
    for (a, ca) in trace.judge.judgments.iter().zip(&calibrated) {
        for (b, cb) in trace.judge.judgments.iter().zip(&calibrated) {
            if a.scores[USEFUL] <= b.scores[USEFUL] {
                assert!(ca[USEFUL] <= cb[USEFUL]);
            }
        }
    }
    // A filter at calibrated 0.5 as raw: the same candidates pass.
    let at_half = PolicyOptions {
        mode: Mode::Filter,
        min_relevance: Some(0.5),
        ..PolicyOptions::default()
    };
    let raw = wb.raw_thresholds("jev-ragjev", model, prompt, &at_half).unwrap();
    let raw_t = raw.policy.min_relevance.unwrap();
    for (j, c) in trace.judge.judgments.iter().zip(&calibrated) {
        assert_eq!(j.scores[USEFUL] >= raw_t, c[USEFUL] >= 0.5);
    }

    // Fitting again (by the command's own name) replaces the fit of the same judge triple; the file holds it once.
    let (code, _) = run_json(ragsift(home.path()).args(["fit-judge", "--judge", "jev", "--json"]));
    assert_eq!(code, 0);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&stored).unwrap()).unwrap();
    assert_eq!(file["format"], "ragsift-judge-calibration");
    assert_eq!(file["judges"].as_array().unwrap().len(), 1);

    // No labelled run of the local judge: nothing stored, nothing invented.
    let (code, local) = run_json(ragsift(home.path()).args(["calibrate", "--judge", "local", "--json"]));
    assert_eq!(code, 0, "{local}");
    assert_eq!(
        (local["runs_labelled"].clone(), local["stored"].clone()),
        (json!(0), Value::Null)
    );
    assert!(local["judges"].as_array().unwrap().is_empty());
    let _: BTreeMap<String, Value> = serde_json::from_value(file["judges"][0]["questions"].clone()).unwrap();
}

#[test]
fn rag_jev_files_calibrate_offline_and_too_few_labels_fit_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = |f: &str| repo().join("fixtures/eval/calibrate").join(f);
    let (code, report) = run_json(
        ragsift(dir.path())
            .arg("calibrate")
            .arg("--cases")
            .arg(fixture("development.json"))
            .arg("--from-traces")
            .arg(fixture("traces.json"))
            .arg("--json"),
    );
    assert_eq!(code, 0, "{report}");
    // `fit-judge` is the same fit under its own name.
    let (same_code, same) = run_json(
        ragsift(dir.path())
            .arg("fit-judge")
            .arg("--cases")
            .arg(fixture("development.json"))
            .arg("--from-traces")
            .arg(fixture("traces.json"))
            .arg("--json"),
    );
    assert_eq!((same_code, &same), (code, &report));
    assert_eq!(
        report["stored"],
        Value::Null,
        "files are calibrated offline, nothing stored"
    );
    assert!(!dir.path().join("judge-calibration.json").exists());
    let judges = report["judges"].as_array().unwrap();
    assert!(!judges.is_empty());
    for j in judges {
        let judge = ragsift_engine::judge::JudgeName::parse(j["judge"].as_str().unwrap());
        assert!(
            matches!(judge, Some(ragsift_engine::judge::JudgeName::Decision(..))),
            "{j}"
        );
        let q = &j["questions"][USEFUL];
        let n = q["n"].as_u64().unwrap();
        assert_eq!(bins_total(q, "bins"), n);
        if n < 10 {
            assert_eq!(q["method"], "none");
            assert!(q["note"].as_str().unwrap().contains("at least 10"), "{q}");
        }
    }
    // --cases without traces is refused; the policy calibration still needs its report path.
    let out = ragsift(dir.path())
        .arg("calibrate")
        .arg("--cases")
        .arg(fixture("development.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from-traces"));
    let out = ragsift(dir.path())
        .arg("calibrate")
        .arg(fixture("development.json"))
        .arg(fixture("evaluation.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--output"));
}

/// A calibration belongs to one model: the same labelled cases judged by two Ollama models (one of them twice as
/// timid) give two fits, each under its own model, and neither is read for the other.
#[test]
fn each_model_gets_its_own_calibration() {
    let server = Server::with_handler(|r: &Request| {
        let body = r.json();
        let p = carried_score(r);
        let p = if body["model"] == "nimble:350m" { p / 2.0 } else { p };
        let answer = json!({"model": body["model"], "answers": {"relevant": {"type": "noul", "noul": p}},
            "usage": {"input_tokens": 10, "output_tokens": 0}});
        Reply::Json(200, vec![], answer.to_string())
    });
    let home = tempfile::tempdir().unwrap();
    for model in ["d1-omni:600m", "nimble:350m"] {
        for c in 0..CASES {
            let file = home.path().join(format!("case{c}.json"));
            std::fs::write(&file, case(c).to_string()).unwrap();
            let mut cmd = ragsift(home.path());
            cmd.args(["runs", "import-candidates"]).arg(&file).args([
                "--judge",
                "ollama",
                "--judge-url",
                &server.url,
                "--judge-model",
                model,
                "--json",
            ]);
            let (code, trace) = run_json(&mut cmd);
            assert_eq!(code, 0, "{trace}");
            assert_eq!(trace["judge"]["judge"], "ollama-ragjev");
        }
    }
    let (code, report) = run_json(ragsift(home.path()).args(["calibrate", "--judge", "ollama", "--json"]));
    assert_eq!(code, 0, "{report}");
    let judges = report["judges"].as_array().unwrap();
    let models: Vec<&str> = judges.iter().map(|j| j["model"].as_str().unwrap()).collect();
    assert_eq!(judges.len(), 2, "{report}");
    assert!(
        models.contains(&"d1-omni:600m") && models.contains(&"nimble:350m"),
        "{models:?}"
    );
    for j in judges {
        assert_eq!(j["questions"][USEFUL]["n"], (CASES * DOCS) as u64, "{j}");
    }
    // Each fit is read back under its own model only.
    let wb = Workbench::open(Some(home.path())).unwrap();
    let prompt = judges[0]["prompt_version"].as_str().unwrap();
    let a = wb
        .judge_calibration("ollama-ragjev", "d1-omni:600m", prompt)
        .unwrap()
        .expect("fit");
    let b = wb
        .judge_calibration("ollama-ragjev", "nimble:350m", prompt)
        .unwrap()
        .expect("fit");
    assert_ne!(a, b, "two models, two calibrations");
    assert!(wb
        .judge_calibration("jev-ragjev", "d1-omni:600m", prompt)
        .unwrap()
        .is_none());
}

//! `ragsift ask`, `runs`, `replay` and `eval` as a user runs them: JSON shapes, exit codes, replay without
//! judging, and rag-jev files.

mod common;

use common::{ingested_home, ragsift, repo};
use serde_json::Value;
use std::process::Command;

fn run_json(cmd: &mut Command) -> (i32, Value, String) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v, stderr)
}

#[test]
fn ask_stores_a_trace_that_replays_without_judging() {
    let home = ingested_home();
    let (code, v, err) = run_json(ragsift(home.path()).args([
        "ask",
        "How long is the battery warranty?",
        "--judge",
        "local",
        "--max-tokens",
        "16",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    let run_id = v["run_id"].as_str().unwrap().to_string();
    let decisions = v["decisions"].as_array().unwrap();
    assert!(!decisions.is_empty());
    for d in decisions {
        assert!(
            d["chunk_id"].is_string() && d["selected"].is_boolean() && d["reason"].is_string(),
            "{d}"
        );
    }
    assert_eq!(v["judge"]["judge"], "local");
    // The default base model answers extractively: quoted sentences, no prompt, no model call.
    assert_eq!(v["answered_by"], "extractive", "{}", v["answer"]);
    assert_eq!(v["prompt"], "");
    assert!(v["judge"]["not_assessed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|k| k == "contradicts_query_premise"));
    assert!(
        !err.trim().is_empty(),
        "the answer streamed to stderr while --json holds stdout"
    );

    let (_, list, _) = run_json(ragsift(home.path()).args(["runs", "list", "--json"]));
    assert_eq!(list["runs"][0]["id"], run_id.as_str());
    let (code, shown, _) = run_json(ragsift(home.path()).args(["runs", "show", &run_id, "--json"]));
    assert_eq!((code, shown["run_id"].as_str()), (0, Some(run_id.as_str())));
    // Without --json, the same run for a person: one line per passage with its decision and reason.
    let out = ragsift(home.path()).args(["runs", "show", &run_id]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.starts_with(&format!("run {run_id}")),
        "{text}"
    );
    let decisions = shown["decisions"].as_array().unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("kept") || l.starts_with("dropped"))
        .collect();
    assert_eq!(lines.len(), decisions.len(), "{text}");
    let kept = decisions.iter().filter(|d| d["selected"] == true).count();
    assert_eq!(lines.iter().filter(|l| l.starts_with("kept")).count(), kept, "{text}");

    // Everything dropped by a strict relevance threshold, then everything kept in filter mode at 0.
    let (code, strict, err) = run_json(ragsift(home.path()).args([
        "replay",
        &run_id,
        "--threshold",
        "contains_prompt_injection=1",
        "--threshold",
        "contradicts_query_premise=1",
        "--threshold",
        "is_relevant=1",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(strict["judge_calls"], 0);
    let reasons: Vec<&str> = strict["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert!(reasons.iter().all(|r| *r == "not_relevant"), "{reasons:?}");
    // A pin from the command line keeps its chunk whatever the thresholds, and changes the policy version.
    let first = strict["decisions"][0]["chunk_id"].as_str().unwrap().to_string();
    let (code, pinned, err) = run_json(ragsift(home.path()).args([
        "replay",
        &run_id,
        "--threshold",
        "is_relevant=1",
        "--pin",
        &first,
        "--group-by",
        "document",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(pinned["decisions"][0]["reason"], "pinned", "{}", pinned["decisions"]);
    assert_eq!(pinned["options"]["pinned"][0], first.as_str());
    assert_eq!(pinned["options"]["group_by"], "document");
    assert_ne!(
        pinned["selection"]["policy_version"],
        strict["selection"]["policy_version"]
    );
    let (_, open, _) =
        run_json(ragsift(home.path()).args(["replay", &run_id, "--mode", "filter", "--min-relevance", "0", "--json"]));
    assert!(open["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["selected"] == true && d["reason"] == "retained"));

    // Clearing the cache drops the judge's cached answers; the run still replays from its own judgments, and
    // the next ask judges afresh.
    let (code, cleared, err) = run_json(ragsift(home.path()).args(["cache", "clear", "--json"]));
    assert_eq!(code, 0, "{err}");
    assert!(cleared["cleared"].as_u64().unwrap() > 0, "{cleared}");
    let (code, _, err) = run_json(ragsift(home.path()).args(["replay", &run_id, "--json"]));
    assert_eq!(code, 0, "{err}");
    let (code, again, err) =
        run_json(ragsift(home.path()).args(["ask", "How long is the battery warranty?", "--judge", "local", "--json"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(again["judge"]["cached_passages"], 0, "{}", again["judge"]["status"]);
    assert_eq!(again["judge"]["status"], "judged");

    let (code, _, err) = run_json(ragsift(home.path()).args(["replay", "nope", "--json"]));
    assert_ne!(code, 0);
    assert!(err.contains("no run"), "{err}");
    let (code, _, err) = run_json(ragsift(home.path()).args(["replay", &run_id, "--threshold", "is_relevant=2"]));
    assert_ne!(code, 0);
    assert!(err.contains("is_relevant"), "{err}");
}

/// The local judge does not assess the contradicted premise on any run: a note, printed only with `--verbose`
/// and carried in the JSON, never a warning about the run's numbers.
#[test]
fn an_offline_ask_notes_the_unassessed_rule_without_warning() {
    let home = ingested_home();
    let ask = |extra: &[&str]| {
        let out = ragsift(home.path())
            .args([
                "ask",
                "How long is the battery warranty?",
                "--judge",
                "local",
                "--max-tokens",
                "16",
            ])
            .args(extra)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        (stdout, stderr)
    };
    let quiet = |text: &str| {
        let lower = text.to_lowercase();
        !lower.contains("warning") && !lower.contains("threshold integrity") && !lower.contains("does not assess")
    };

    let (stdout, stderr) = ask(&[]);
    assert!(quiet(&stdout) && quiet(&stderr), "stdout: {stdout}\nstderr: {stderr}");
    // The judge line still says what it does not assess.
    assert!(stdout.contains("not assessed: contradicts_query_premise"), "{stdout}");
    // And how well the answer is supported, in words and with its probability.
    assert!(
        stdout.contains("support: weakly supported — check the source (0.")
            || stdout.contains("support: partly supported — check the source (0.")
            || stdout.contains("support: well supported (")
            || stdout.contains("support: no passage supports an answer"),
        "{stdout}"
    );

    let (_, stderr) = ask(&["--verbose"]);
    assert!(
        stderr.contains("note: the `contradicts_query_premise` rule was skipped: the judge does not assess it"),
        "{stderr}"
    );
    assert!(!stderr.to_lowercase().contains("warning"), "{stderr}");

    let (code, v, err) = run_json(ragsift(home.path()).args([
        "ask",
        "How long is the battery warranty?",
        "--judge",
        "local",
        "--max-tokens",
        "16",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(quiet(&err), "{err}");
    assert_eq!(v["selection"]["warnings"], serde_json::json!([]), "{}", v["selection"]);
    assert_eq!(
        v["selection"]["notes"],
        serde_json::json!([{
            "kind": "rule_not_assessed",
            "subject": "contradicts_query_premise",
            "message": "the `contradicts_query_premise` rule was skipped: the judge does not assess it",
        }])
    );

    // A replay of the run says the same: the note only with --verbose.
    let run_id = v["run_id"].as_str().unwrap();
    let out = ragsift(home.path()).args(["replay", run_id]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && quiet(&text), "{text}");
    let out = ragsift(home.path())
        .args(["replay", run_id, "--verbose"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("note: the `contradicts_query_premise` rule was skipped"),
        "{text}"
    );
}

/// `--answer-mode grounded` through the workbench: the answer model set-up installs is loaded beside the base model
/// and called (its reply stays in the stored prompt above the check), and what is shown quotes a kept sentence with
/// its source; `auto` stays extractive and never loads it.
#[test]
fn a_grounded_ask_calls_the_installed_answer_model() {
    let home = ingested_home();
    let ask = |mode: &str| {
        let (code, v, err) = run_json(ragsift(home.path()).args([
            "ask",
            "How long is the battery warranty?",
            "--judge",
            "local",
            "--answer-mode",
            mode,
            "--json",
        ]));
        assert_eq!(code, 0, "{err}");
        v
    };
    let v = ask("grounded");
    let prompt = v["prompt"].as_str().unwrap();
    assert!(prompt.contains("the model's reply, before the check"), "{prompt}");
    assert!(prompt.contains("Reply with one short sentence"), "{prompt}");
    let answer = v["answer"].as_str().unwrap();
    assert!(
        ["grounded", "extractive"].contains(&v["answered_by"].as_str().unwrap()),
        "{}: {answer}",
        v["answered_by"]
    );
    assert!(answer.contains('“') && answer.contains("] (p"), "{answer}");
    assert!(v["usage"]["completion_tokens"].as_u64().unwrap() > 0);

    let auto = ask("auto");
    assert_eq!(auto["answered_by"], "extractive");
    assert_eq!(auto["prompt"], "", "an extractive answer sends no prompt");
}

#[test]
fn eval_reads_rag_jev_files_and_refuses_stale_traces() {
    let home = tempfile::tempdir().unwrap();
    let fx = repo().join("fixtures/eval");
    let csv = home.path().join("sweep.csv");
    let (code, v, err) = run_json(
        ragsift(home.path())
            .arg("eval")
            .arg(fx.join("cases.json"))
            .arg("--from-traces")
            .arg(fx.join("traces.json"))
            .args(["--min-relevance", "0.5", "--sweep", "--json", "--csv"])
            .arg(&csv),
    );
    assert_eq!(code, 0, "{err}");
    for policy in ["baseline", "filter", "rerank", "filter_and_rerank", "fusion"] {
        for metric in ["precision", "evidence_recall", "ndcg", "correctly_empty", "characters"] {
            assert!(v["summary"][policy].get(metric).is_some(), "summary.{policy}.{metric}");
        }
    }
    assert!(v["sweep"].is_object() || v["sweep"].is_array());
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("threshold,precision,evidence_recall"));
    assert!(text.lines().count() > 10);

    let (code, _, err) = run_json(
        ragsift(home.path())
            .arg("eval")
            .arg(fx.join("cases.json"))
            .arg("--from-traces")
            .arg(fx.join("traces-stale-fingerprint.json")),
    );
    assert_ne!(code, 0);
    assert!(
        err.contains("reset-ambiguous") && err.to_lowercase().contains("fingerprint"),
        "{err}"
    );
}

#[test]
fn eval_cases_can_draw_their_candidates_from_the_library() {
    let home = tempfile::tempdir().unwrap();
    let fx = repo().join("fixtures");
    let (code, _, err) = run_json(
        ragsift(home.path())
            .arg("ingest")
            .arg(fx.join("pdf/multipage.pdf"))
            .arg(fx.join("text/notes.md")),
    );
    assert_eq!(code, 0, "{err}");
    let (cases, traces) = (home.path().join("cases.json"), home.path().join("traces.json"));
    let (code, live, err) = run_json(
        ragsift(home.path())
            .arg("eval")
            .arg(fx.join("eval/library-cases.json"))
            .args([
                "--from-library",
                "--top-k",
                "2",
                "--judge",
                "local",
                "--json",
                "--save-cases",
            ])
            .arg(&cases)
            .arg("--save-traces")
            .arg(&traces),
    );
    assert_eq!(code, 0, "{err}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&cases).unwrap()).unwrap();
    let first = &saved[0];
    assert_eq!(first["documents"].as_array().unwrap().len(), 2);
    let relevant = first["relevant_ids"].as_array().unwrap();
    assert!(
        !relevant.is_empty(),
        "the warranty document's chunks are the relevant ids"
    );
    assert!(relevant
        .iter()
        .all(|id| first["documents"].as_array().unwrap().iter().any(|d| d["id"] == *id)));
    assert!(saved[1]["relevant_ids"].as_array().unwrap().is_empty());
    // The saved cases and traces replay to the same report, with no judge.
    let (code, replayed, err) = run_json(
        ragsift(home.path())
            .arg("eval")
            .arg(&cases)
            .arg("--from-traces")
            .arg(&traces)
            .arg("--json"),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(replayed["summary"], live["summary"]);
}

use ragsift_test_support::http;

/// One assembly: `ragsift ask` goes through the workbench as the app does, so with a key in
/// `<home>/jev-api-key` and `judge.base_url` in the settings (no environment variable) it asks that Jev server
/// with that key, and answers with the saved default policy and the saved retrieval defaults.
#[test]
fn ask_uses_the_key_file_and_the_saved_defaults() {
    let server = http::Server::with_handler(|_: &http::Request| http::jev_judgment(0.6, 0.8, 0.7));
    let home = ingested_home();
    let key = home.path().join("jev-api-key");
    std::fs::write(&key, "key-from-the-file").unwrap();
    let policy = serde_json::json!({
        "mode": "filter_and_rerank", "min_relevance": 0.25, "thresholds": {"is_relevant": 0.3},
        "top_n": 2, "max_context_tokens": 900, "shadow": false, "keep_groups_together": true,
    });
    let settings = serde_json::json!({
        "top_k": 3,
        "judge": {"kind": "auto", "base_url": server.url},
        "policy": policy,
    });
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();

    // A key file others can read is refused, with the fix, and nothing is asked.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = ragsift(home.path())
        .args(["ask", "How long is the battery warranty?", "--max-tokens", "16"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("can be read by other users") && stderr.contains("chmod 600"),
        "{stderr}"
    );
    assert!(server.requests().is_empty(), "no judge was asked");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();

    let (code, v, err) = run_json(ragsift(home.path()).args([
        "ask",
        "How long is the battery warranty?",
        "--max-tokens",
        "16",
        "--json",
    ]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(v["judge"]["judge"], "jev", "{}", v["judge"]);
    let requests = server.requests();
    assert!(!requests.is_empty(), "the judge asked the configured server");
    for r in &requests {
        assert_eq!(
            r.header("authorization"),
            Some("Bearer key-from-the-file"),
            "{:?}",
            r.headers
        );
    }
    // The trace's policy is the saved default, field for field (in f32, as the policy reads it); the trace also
    // records the judge's defaults for the thresholds the user did not set (Spring's, for Jev).
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("settings.json")).unwrap()).unwrap();
    let close = |a: &serde_json::Value, b: &serde_json::Value| match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-6,
        _ => a == b,
    };
    for (k, want) in saved["policy"].as_object().unwrap() {
        if k == "thresholds" {
            for (q, t) in want.as_object().unwrap() {
                assert!(
                    close(&v["policy"]["thresholds"][q], t),
                    "policy.thresholds.{q}: {}",
                    v["policy"]
                );
            }
            assert!(close(
                &v["policy"]["thresholds"]["contains_answer_evidence"],
                &serde_json::json!(0.55)
            ));
        } else {
            assert!(close(&v["policy"][k], want), "policy.{k}: {} vs {want}", v["policy"][k]);
        }
    }
    assert_eq!(v["policy"]["mode"], "filter_and_rerank");
    // The saved top_k: three hits for the one variant.
    assert_eq!(
        v["variants"][0]["hits"].as_array().unwrap().len(),
        3,
        "{}",
        v["variants"]
    );
}

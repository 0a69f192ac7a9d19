//! `ragsift compare` over a library with a mock Jev: two configurations that differ only in their policy, so B
//! makes no judge request; per-question differences and the evidence one kept and the other lost. Then `ragsift
//! ablate` on one of the runs it made. A different chunk size runs against a derived library, kept and reused.

mod common;
use ragsift_test_support::http;

use common::{ragsift, repo, run_json};
use std::process::Command;

fn fixture(path: &str) -> String {
    repo().join("fixtures").join(path).display().to_string()
}

fn with_jev<'a>(cmd: &'a mut Command, server: &http::Server) -> &'a mut Command {
    cmd.env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", &server.url)
}

/// A library holding `pdf/multipage.pdf`, and a Jev server on loopback that judges every passage alike.
fn judged_library() -> (http::Server, tempfile::TempDir) {
    let server = http::Server::with_handler(|_: &http::Request| http::jev_judgment(0.60, 0.80, 0.70));
    let home = tempfile::tempdir().unwrap();
    let out = ragsift(home.path())
        .arg("ingest")
        .arg(fixture("pdf/multipage.pdf"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (server, home)
}

#[test]
fn a_policy_only_difference_reuses_every_judgment() {
    let (server, home) = judged_library();
    let cases = fixture("eval/library-cases.json");

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

/// A run's trace from the library in `home`.
fn trace(home: &std::path::Path, run_id: &str) -> serde_json::Value {
    let (code, t) = run_json(ragsift(home).args(["runs", "show", run_id, "--json"]));
    assert_eq!(code, 0, "{t}");
    t
}

#[test]
fn another_chunk_size_runs_against_a_derived_library_kept_for_next_time() {
    let (server, home) = judged_library();
    let cases = fixture("eval/library-cases.json");
    let compare = || {
        let out = with_jev(ragsift(home.path()).arg("compare"), &server)
            .args([&cases, "--config", &fixture("tuning/a.json"), "--config"])
            .args([fixture("tuning/chunks-128.json"), "--json".into()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{stderr}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v, stderr)
    };

    let (v, stderr) = compare();
    let derived = home.path().join("derived").join("chunks-128-32");
    assert!(derived.join("settings.json").is_file(), "{stderr}");
    assert!(stderr.contains("1 ingested, 0 unchanged"), "{stderr}");
    let judged_a = v["a"]["fresh_judgments"].as_u64().unwrap();
    let judged_b = v["b"]["fresh_judgments"].as_u64().unwrap();
    assert!(judged_a > 0 && judged_b > 0, "B's chunks are new to the judge: {v}");
    assert_eq!(server.requests().len() as u64, judged_a + judged_b);
    assert_eq!(v["b"]["config"]["name"], "smaller chunks");
    assert!(v["recall_scope"].as_str().unwrap().contains("page"), "{v}");
    // Both sides measured: Jev's relevance 0.60 keeps every passage, so each keeps all the evidence it found.
    let warranty = &v["questions"][0];
    assert_eq!(warranty["a"]["evidence_recall"], 1.0, "{warranty}");
    assert!(warranty["b"]["evidence_recall"].as_f64().unwrap() > 0.0, "{warranty}");
    assert!(v["a"]["evidence_recall"].is_f64() && v["b"]["evidence_recall"].is_f64());

    // B's runs live in the derived library, over its own, smaller chunks (a short page is one chunk under both
    // sizes, with the same content-derived id).
    let (ta, tb) = (
        trace(home.path(), warranty["a"]["run_id"].as_str().unwrap()),
        trace(&derived, warranty["b"]["run_id"].as_str().unwrap()),
    );
    let ids = |t: &serde_json::Value| -> Vec<String> {
        (t["candidates"].as_array().unwrap().iter())
            .map(|c| c["chunk_id"].as_str().unwrap().to_string())
            .collect()
    };
    let (ids_a, ids_b) = (ids(&ta), ids(&tb));
    assert!(
        !ids_b.is_empty() && ids_b.iter().any(|id| !ids_a.contains(id)),
        "{ids_a:?} {ids_b:?}"
    );
    let max_tokens = |t: &serde_json::Value| {
        (t["candidates"].as_array().unwrap().iter())
            .map(|c| c["tokens"].as_u64().unwrap())
            .max()
            .unwrap()
    };
    assert!(
        max_tokens(&tb) <= 128 && max_tokens(&ta) > 128,
        "{} {}",
        max_tokens(&ta),
        max_tokens(&tb)
    );
    let chunks = |h: &std::path::Path| {
        let (code, l) = run_json(ragsift(h).args(["library", "list", "--json"]));
        assert_eq!(code, 0, "{l}");
        (
            l["documents"].as_array().unwrap().len(),
            l["store"]["chunks"].as_u64().unwrap(),
        )
    };
    let ((docs_main, chunks_main), (docs_derived, chunks_derived)) = (chunks(home.path()), chunks(&derived));
    assert_eq!((docs_main, docs_derived), (1, 1));
    assert!(chunks_derived > chunks_main, "{chunks_derived} vs {chunks_main}");
    assert!(!home.path().join("derived").join("chunks-256-32").exists());

    // Again: the derived library is reused (nothing re-ingested) and every judgment comes from the caches.
    let before = server.requests().len();
    let (again, stderr) = compare();
    assert!(stderr.contains("0 ingested, 1 unchanged"), "{stderr}");
    assert_eq!(server.requests().len(), before, "no judge request on either side");
    assert_eq!(
        (
            again["a"]["fresh_judgments"].as_u64(),
            again["b"]["fresh_judgments"].as_u64()
        ),
        (Some(0), Some(0))
    );
    assert_eq!(again["b"]["cached_judgments"].as_u64(), Some(judged_b));
    assert_eq!(chunks(&derived), (docs_derived, chunks_derived));
    assert_eq!(
        again["questions"][0]["b"]["evidence_recall"],
        warranty["b"]["evidence_recall"]
    );

    // Evidence named by chunk id cannot follow a re-chunking: refused, naming the case.
    let by_id = home.path().join("by-id.json");
    let case = serde_json::json!([{ "id": "by-chunk", "query": "battery warranty", "relevant_ids": [ids_a[0]] }]);
    std::fs::write(&by_id, case.to_string()).unwrap();
    let out = with_jev(ragsift(home.path()).arg("compare"), &server)
        .arg(&by_id)
        .args(["--config", &fixture("tuning/a.json"), "--config"])
        .arg(fixture("tuning/chunks-128.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("case `by-chunk`") && err.contains("chunk ids do not survive"),
        "{err}"
    );
    assert_eq!(server.requests().len(), before);
}

/// Asks `question` without a judge; returns its run id.
fn ask(home: &std::path::Path, question: &str) -> String {
    let (code, v) = run_json(ragsift(home).args(["ask", question, "--judge", "none", "--max-tokens", "16", "--json"]));
    assert_eq!(code, 0, "{v}");
    v["run_id"].as_str().unwrap().to_string()
}

/// A compare report without what differs between two comparisons of the same questions: run ids, and whether
/// judgments were fresh or cached.
fn figures(report: &serde_json::Value) -> serde_json::Value {
    match report {
        serde_json::Value::Object(o) => (o.iter())
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "run_id" | "fresh_judgments" | "cached_judgments" | "judge_input_tokens" | "judge_output_tokens"
                )
            })
            .map(|(k, v)| (k.clone(), figures(v)))
            .collect(),
        serde_json::Value::Array(a) => a.iter().map(figures).collect(),
        v => v.clone(),
    }
}

/// `compare --labels` without any label says how to make them; it takes a cases file or `--labels`, not both.
#[test]
fn compare_on_labels_needs_labels_and_takes_no_file_too() {
    let home = tempfile::tempdir().unwrap();
    let configs = [
        "--config".to_string(),
        fixture("tuning/a.json"),
        "--config".into(),
        fixture("tuning/b.json"),
    ];
    let out = ragsift(home.path())
        .args(["compare", "--labels"])
        .args(&configs)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no labelled questions yet") && err.contains("ragsift label"),
        "{err}"
    );
    for source in [&["cases.json", "--labels"][..], &[]] {
        let out = ragsift(home.path())
            .arg("compare")
            .args(source)
            .args(&configs)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{source:?}: {err}");
        assert!(err.contains("--labels"), "{source:?}: {err}");
    }
    let help = ragsift(home.path()).args(["compare", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--labels"));
}

/// The tuning seam: what `ragsift labels export` writes goes, unchanged, into `compare` (at the library's chunk size
/// and at another, where the spans are matched against the derived library's chunks), `eval --from-library` and
/// `curves`; the labelled evidence is what they count.
#[test]
fn exported_labels_are_compared_evaluated_and_swept_as_they_are() {
    let (server, home) = judged_library();
    let run = ask(home.path(), "How long is the battery warranty?");
    let (code, v) =
        run_json(ragsift(home.path()).args(["label", &run, "--evidence", "limited warranty of 36 months", "--json"]));
    assert_eq!(code, 0, "{v}");
    // A question with a not-relevant label only: answerable by nothing, so its recall is not measured.
    let other = ask(home.path(), "What is the boiling point of liquid nitrogen?");
    let (code, v) = run_json(ragsift(home.path()).args(["runs", "show", &other, "--json"]));
    assert_eq!(code, 0, "{v}");
    let chunk = v["candidates"][0]["chunk_id"].as_str().unwrap().to_string();
    let (code, v) = run_json(ragsift(home.path()).args(["label", &other, &chunk, "--not-relevant", "--json"]));
    assert_eq!(code, 0, "{v}");

    let out = ragsift(home.path()).args(["labels", "export"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cases = home.path().join("labels.json");
    std::fs::write(&cases, &out.stdout).unwrap();
    let exported: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(exported.as_array().unwrap().len(), 2, "{exported}");

    let compare_on = |source: &std::ffi::OsStr, b: &str| {
        let out = with_jev(ragsift(home.path()).arg("compare"), &server)
            .arg(source)
            .args(["--config", &fixture("tuning/a.json"), "--config", &fixture(b), "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v
    };
    let compare = |b: &str| compare_on(cases.as_os_str(), b);
    // On the library's own labels, with no file in between (before the file's compare adds runs of its own).
    let on_labels = compare_on("--labels".as_ref(), "tuning/b.json");
    let question = |v: &serde_json::Value, query: &str| -> serde_json::Value {
        (v["questions"].as_array().unwrap().iter())
            .find(|q| q["query"] == query)
            .unwrap_or_else(|| panic!("no question {query:?}: {v}"))
            .clone()
    };
    let v = compare("tuning/b.json");
    assert_eq!(v["cases"], 2);
    // The same figures as through the export file; only the runs and where their judgments came from differ.
    assert_eq!(figures(&on_labels), figures(&v), "--labels: {on_labels}\nfile: {v}");
    assert!(on_labels["a"]["fresh_judgments"].as_u64().unwrap() > 0 && v["a"]["fresh_judgments"] == 0);
    // The labelled span is the evidence: without it the question would have none (and no recall).
    let warranty = question(&v, "How long is the battery warranty?");
    assert_eq!(warranty["evidence"], 1, "{warranty}");
    assert_eq!(warranty["a"]["evidence_recall"], 1.0, "{warranty}");
    assert_eq!(warranty["b"]["evidence_recall"], 0.0, "B's 0.9 filter keeps nothing");
    let kept = warranty["kept_only_a"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{warranty}");
    assert!(kept[0]["document"].as_str().unwrap().ends_with("multipage.pdf"));
    assert_eq!(kept[0]["page_start"], 1);
    assert!(warranty["a"]["precision"].as_f64().unwrap() > 0.0);
    let nitrogen = question(&v, "What is the boiling point of liquid nitrogen?");
    assert_eq!(
        (&nitrogen["evidence"], &nitrogen["a"]["evidence_recall"]),
        (&serde_json::json!(0), &serde_json::Value::Null)
    );
    assert_eq!(v["a"]["evidence_recall"], 1.0, "the mean over the answerable question");

    // At another chunk size the span is matched against the derived library's own chunks.
    let v = compare("tuning/chunks-128.json");
    let warranty = question(&v, "How long is the battery warranty?");
    assert_eq!(warranty["a"]["evidence_recall"], 1.0, "{warranty}");
    assert_eq!(warranty["b"]["evidence_recall"], 1.0, "{warranty}");
    assert!(warranty["evidence"].as_u64().unwrap() >= 1, "{warranty}");

    // eval --from-library scores the exported candidates (their relevant ids from the spans); curves replays that.
    let traces = home.path().join("traces.json");
    let (code, eval) = run_json(
        ragsift(home.path())
            .arg("eval")
            .arg(&cases)
            .args(["--from-library", "--judge", "local", "--json", "--save-traces"])
            .arg(&traces),
    );
    assert_eq!(code, 0, "{eval}");
    assert!(
        eval["summary"]["baseline"]["evidence_recall"].as_f64().unwrap() > 0.0,
        "{eval}"
    );
    let (code, curves) = run_json(
        ragsift(home.path())
            .arg("curves")
            .arg(&cases)
            .arg("--from-traces")
            .arg(&traces)
            .arg("--json"),
    );
    assert_eq!(code, 0, "{curves}");
    assert!(!curves["curves"].as_array().unwrap().is_empty());

    // Cases carrying documents without labelled spans (plain rag-jev cases) are still refused.
    let mut plain = exported.clone();
    for d in plain[0]["documents"].as_array_mut().unwrap() {
        d["metadata"].as_object_mut().unwrap().remove("ragsift_spans");
    }
    let plain_path = home.path().join("plain.json");
    std::fs::write(&plain_path, plain.to_string()).unwrap();
    let out = with_jev(ragsift(home.path()).arg("compare"), &server)
        .arg(&plain_path)
        .args([
            "--config",
            &fixture("tuning/a.json"),
            "--config",
            &fixture("tuning/b.json"),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no labelled spans") && err.contains("labels export"),
        "{err}"
    );
}

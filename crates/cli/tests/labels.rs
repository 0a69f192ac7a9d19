//! `ragsift label` and `ragsift labels`: evidence labels kept as spans survive re-chunking; chunks labelled
//! relevant or not; list, edit, remove; export as rag-jev eval cases; replay reports the span-derived labels.

mod common;

use common::{ragsift, repo, run_json};
use ragsift_engine::eval::ragjev::EvalCase;
use ragsift_engine::policy::PolicyOptions;
use ragsift_engine::workbench::Workbench;
use serde_json::Value;
use std::path::Path;

const QUESTION: &str = "How long is the battery warranty?";
const PHRASE: &str = "limited warranty of 36 months";

fn pdf() -> std::path::PathBuf {
    repo().join("fixtures/pdf/multipage.pdf")
}

fn set_chunking(home: &Path, chunk_tokens: u32, overlap_tokens: u32) {
    let settings = serde_json::json!({ "chunk_tokens": chunk_tokens, "overlap_tokens": overlap_tokens });
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
}

fn ingest(home: &Path) {
    let out = ragsift(home).arg("ingest").arg(pdf()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Asks `question` without a judge; returns the trace as JSON.
fn ask(home: &Path, question: &str) -> Value {
    let (code, v) = run_json(ragsift(home).args(["ask", question, "--judge", "none", "--max-tokens", "16", "--json"]));
    assert_eq!(code, 0, "{v}");
    v
}

fn candidate_with<'a>(run: &'a Value, phrase: &str) -> &'a Value {
    let found: Vec<&Value> = (run["candidates"].as_array().unwrap().iter())
        .filter(|c| c["text"].as_str().unwrap().contains(phrase))
        .collect();
    assert_eq!(found.len(), 1, "one candidate holds {phrase:?}: {}", run["candidates"]);
    found[0]
}

fn export(home: &Path) -> Vec<EvalCase> {
    let (code, v) = run_json(ragsift(home).args(["labels", "export", "--json"]));
    assert_eq!(code, 0, "{v}");
    serde_json::from_value(v).expect("rag-jev eval cases")
}

#[test]
fn evidence_labelled_as_a_span_survives_rechunking() {
    let home = tempfile::tempdir().unwrap();
    set_chunking(home.path(), 64, 8);
    ingest(home.path());
    let first = ask(home.path(), QUESTION);
    let run = first["run_id"].as_str().unwrap();
    let old = candidate_with(&first, PHRASE).clone();

    // Refused: nowhere on the run's pages, or in several places (each listed).
    let out = ragsift(home.path())
        .args(["label", run, "--evidence", "zebra crossing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not on"));
    let out = ragsift(home.path())
        .args(["label", run, "--evidence", "warranty"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("occurs") && err.contains("p. 1 chars"), "{err}");

    // Case and whitespace do not matter; the span is the page's own text.
    let (code, v) = run_json(ragsift(home.path()).args([
        "label",
        run,
        "--evidence",
        "  LIMITED warranty\nof 36   months",
        "--json",
    ]));
    assert_eq!(code, 0, "{v}");
    let span = &v["labels"][0];
    assert_eq!(
        (span["text"].as_str(), span["relevant"].as_bool()),
        (Some(PHRASE), Some(true))
    );
    assert_eq!(span["question"], "how long is the battery warranty?");
    assert_eq!(span["page"], 1);
    let start = span["char_start"].as_u64().unwrap();
    assert!(old["char_start"].as_u64().unwrap() <= start && start < old["char_end"].as_u64().unwrap());
    let cases = export(home.path());
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].relevant_ids, [old["chunk_id"].as_str().unwrap()]);

    // Re-chunk: other sizes, the document removed and ingested again (an unchanged file is otherwise skipped).
    set_chunking(home.path(), 160, 24);
    let out = ragsift(home.path())
        .args(["library", "remove"])
        .arg(pdf())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    ingest(home.path());
    let second = ask(home.path(), "  how long is the BATTERY   warranty? ");
    let new = candidate_with(&second, PHRASE);
    assert_ne!(
        (&new["char_start"], &new["char_end"]),
        (&old["char_start"], &old["char_end"]),
        "the chunks changed"
    );
    // The export takes the question's latest run: its chunk holding the phrase is the relevant one.
    let cases = export(home.path());
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    assert_eq!(case.query, "  how long is the BATTERY   warranty? ");
    assert_eq!(case.relevant_ids, [new["chunk_id"].as_str().unwrap()]);
    let doc = case.documents.iter().find(|d| d.id == case.relevant_ids[0]).unwrap();
    assert_eq!(doc.metadata["ragsift_spans"][0]["text"], PHRASE);
    assert_eq!(doc.metadata["page_start"], 1);

    // Replay reports against the span-derived labels, on the old run and the new one.
    let wb = Workbench::open(Some(home.path())).unwrap();
    for (run, chunk) in [(run, &old), (second["run_id"].as_str().unwrap(), new)] {
        let trace = wb.run(run).unwrap();
        let derived = wb.run_span_labels(&trace).unwrap();
        assert_eq!(derived.relevant_ids, [chunk["chunk_id"].as_str().unwrap()]);
        let replay = wb.replay_labelled(run, &PolicyOptions::default()).unwrap();
        let report = replay.labels.expect("a label report from the spans");
        assert_eq!(report.relevant, Some(1));
        assert!(wb.replay(run, &PolicyOptions::default()).unwrap().labels.is_none());
    }
}

#[test]
fn chunks_are_labelled_listed_edited_removed_and_exported() {
    let home = tempfile::tempdir().unwrap();
    set_chunking(home.path(), 64, 8);
    ingest(home.path());
    let v = ask(home.path(), QUESTION);
    let run = v["run_id"].as_str().unwrap();
    let candidates = v["candidates"].as_array().unwrap();
    assert!(candidates.len() >= 3, "{}", v["candidates"]);
    let id = |i: usize| candidates[i]["chunk_id"].as_str().unwrap().to_string();
    let (a, b) = (id(0), id(candidates.len() - 1));

    let (code, rel) = run_json(ragsift(home.path()).args(["label", run, &a[..10], "--relevant", "--json"]));
    assert_eq!(code, 0, "{rel}");
    let (code, not) = run_json(ragsift(home.path()).args(["label", run, &b, "--not-relevant", "--json"]));
    assert_eq!(code, 0, "{not}");
    let span = &rel["labels"][0];
    assert_eq!(span["char_start"], candidates[0]["char_start"]);
    assert_eq!(span["char_end"], candidates[0]["char_end"]);
    assert_eq!(span["run_id"], run);
    assert_eq!(not["labels"][0]["relevant"], false);
    // Neither flag, both, or a candidate the run does not have: refused.
    assert_ne!(
        ragsift(home.path())
            .args(["label", run, &a])
            .output()
            .unwrap()
            .status
            .code(),
        Some(0)
    );
    assert_ne!(
        ragsift(home.path())
            .args(["label", run, &a, "--relevant", "--not-relevant"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        ragsift(home.path())
            .args(["label", run, "ffffffffff", "--relevant"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );

    let wb = Workbench::open(Some(home.path())).unwrap();
    let derived = wb.run_span_labels(&wb.run(run).unwrap()).unwrap();
    assert_eq!(
        (derived.relevant_ids, derived.not_relevant_ids),
        (vec![a.clone()], vec![b.clone()])
    );

    // Listed by question (normalised), or all; not for another question.
    let (_, list) = run_json(ragsift(home.path()).args([
        "labels",
        "list",
        "--question",
        "HOW long is the battery warranty?",
        "--json",
    ]));
    assert_eq!(list["labels"].as_array().unwrap().len(), 2);
    let (_, none) = run_json(ragsift(home.path()).args(["labels", "list", "--question", "Who pays?", "--json"]));
    assert!(none["labels"].as_array().unwrap().is_empty());
    let out = ragsift(home.path()).args(["labels", "list"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);

    // The export: one rag-jev case, every candidate a document with its place and spans.
    let cases = export(home.path());
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    assert_eq!(
        (case.query.as_str(), case.relevant_ids.clone()),
        (QUESTION, vec![a.clone()])
    );
    assert_eq!(case.documents.len(), candidates.len());
    let doc_b = case.documents.iter().find(|d| d.id == b).unwrap();
    // Every span the chunk overlaps is kept with it (its neighbour's too, when they share overlap tokens).
    let own = (doc_b.metadata["ragsift_spans"].as_array().unwrap().iter())
        .find(|s| s["id"] == not["labels"][0]["id"])
        .expect("b's own span");
    assert_eq!(own["relevant"], false);
    assert!(doc_b.metadata["document_id"].is_string() && doc_b.text == candidates.last().unwrap()["text"]);

    // Editable: b becomes relevant; then a's label is removed.
    let b_label = not["labels"][0]["id"].as_str().unwrap();
    let (code, set) = run_json(ragsift(home.path()).args(["labels", "set", &b_label[..8], "--relevant", "--json"]));
    assert_eq!((code, &set["labels"][0]["relevant"]), (0, &Value::Bool(true)));
    let (code, removed) =
        run_json(ragsift(home.path()).args(["labels", "remove", span["id"].as_str().unwrap(), "--json"]));
    assert_eq!((code, &removed["removed"]["id"]), (0, &span["id"]));
    assert_eq!(export(home.path())[0].relevant_ids, [b.as_str()]);
    let out = ragsift(home.path())
        .args(["labels", "remove", span["id"].as_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    // A span from the Page view: a range of a page, for a question given as text.
    let doc = candidates[0]["document_id"].as_str().unwrap();
    let l = wb.label_span("Who pays for repairs?", doc, 1, 0, 7, true).unwrap();
    assert_eq!(
        (l.text.as_str(), l.question.as_str(), l.run_id),
        ("Orion-7", "who pays for repairs?", None)
    );
    assert!(wb.label_span(run, doc, 1, 5, 5, true).is_err());
    assert_eq!(
        wb.label_span(run, doc, 1, 0, 7, false).unwrap().run_id.as_deref(),
        Some(run)
    );
}

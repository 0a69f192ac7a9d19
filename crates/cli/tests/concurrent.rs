//! Two processes, one library: ingests started together into a new library, and a long-lived process searching
//! while a CLI ingest writes — nothing lost, nothing stale, nothing to repair afterwards.

mod common;

use common::{ragsift, run_json};
use ragsift_engine::{
    FastEmbedder, Library, LibraryConfig, LibraryRetriever, Retriever, RuntimePaths, SearchMode, SearchRequest,
};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;

/// `count` text files with distinct content, one topic word each, in `dir`.
fn write_docs(dir: &Path, prefix: &str, count: usize) {
    for i in 0..count {
        let text = format!(
            "# {prefix} note {i}\n\nThe {prefix} team reviewed item {i} of the {prefix} backlog. Every {prefix} \
             review records its owner, its deadline and the decision taken, so that item {i} can be traced later.\n"
        );
        std::fs::write(dir.join(format!("{prefix}-{i:02}.md")), text).unwrap();
    }
}

#[test]
fn two_ingests_into_a_new_library_at_once_lose_nothing() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_docs(a.path(), "alpha", 12);
    write_docs(b.path(), "bravo", 12);
    let spawn = |dir: &Path| {
        ragsift(home.path())
            .args(["ingest", "--json"])
            .arg(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (spawn(a.path()), spawn(b.path()));
    for child in [first, second] {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let files = report["files"].as_array().unwrap();
        assert_eq!(files.len(), 12);
        assert!(files.iter().all(|f| f["status"] == "ingested"), "{report}");
    }
    let (code, list) = run_json(ragsift(home.path()).args(["library", "list", "--json"]));
    assert_eq!(code, 0);
    let docs = list["documents"].as_array().unwrap();
    let paths: HashSet<&str> = docs.iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!((docs.len(), paths.len()), (24, 24), "every document listed once");

    let out = ragsift(home.path()).arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("24 documents") && !text.contains("repaired"),
        "nothing to repair: {text}"
    );
}

#[test]
fn a_searching_process_sees_a_cli_ingest_without_reopening() {
    let home = tempfile::tempdir().unwrap();
    let (old, new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    write_docs(old.path(), "alpha", 3);
    write_docs(new.path(), "zeppelin", 16);
    let (code, _) = run_json(ragsift(home.path()).args(["ingest", "--json"]).arg(old.path()));
    assert_eq!(code, 0);

    // This test process is the long-lived reader (as the app is): one Library, never reopened.
    let data = ragsift_engine::paths::data_dir().unwrap();
    let runtime = RuntimePaths::discover(&data).expect("runtime missing: run ./scripts/setup.sh");
    let embedder =
        FastEmbedder::load(&runtime, ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL, 2, 32).expect("model loads");
    let lib = Library::open(home.path(), LibraryConfig::default()).unwrap();
    let retriever = LibraryRetriever {
        library: &lib,
        embedder: &embedder,
    };
    let search = || {
        let request = SearchRequest {
            query: "zeppelin backlog review".into(),
            top_k: 5,
            threshold: 0.0,
            search_mode: SearchMode::Vector,
        };
        retriever.retrieve(&request).unwrap()
    };
    let from = |h: &ragsift_engine::Hit, topic: &str| h.chunk.document_path.contains(topic);
    assert!(search().iter().all(|h| !from(h, "zeppelin")));

    let mut ingest = ragsift(home.path())
        .arg("ingest")
        .arg(new.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut searches = 0;
    while ingest.try_wait().unwrap().is_none() {
        // Mid-ingest every search succeeds, and no hit is lost to a vector without its chunk: the three
        // documents present from the start always fill the list at least that far.
        let hits = search();
        assert!(hits.len() >= 3, "{hits:?}");
        let keys: HashSet<u64> = hits.iter().map(|h| h.chunk.key).collect();
        assert_eq!(keys.len(), hits.len());
        searches += 1;
    }
    assert_eq!(ingest.wait().unwrap().code(), Some(0));
    let hits = search();
    assert!(
        hits.iter().filter(|h| from(h, "zeppelin")).count() == 5,
        "after {searches} searches: {hits:?}"
    );
    assert_eq!(lib.index().len(), lib.store().chunk_keys().unwrap().len());
}

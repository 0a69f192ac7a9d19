//! A team library on a real PostgreSQL 16 + pgvector server (started for each test, on a Unix socket in a temp
//! dir): two clients (two homes, as two machines would be) ingesting one folder at once, and a colleague whose
//! replay and ask are served from the shared judgment cache.

mod common;

use common::{ragsift, repo, run_json};
use ragsift_engine::pg::cluster::TestCluster;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

fn client(home: &Path, url: &str) -> Command {
    let mut c = ragsift(home);
    c.arg("--store").arg(url).env_remove("RAGSIFT_STORE_URL");
    c
}

fn count(cluster: &TestCluster, sql: &str) -> i64 {
    cluster.psql("library", sql).unwrap().parse().unwrap()
}

#[test]
fn two_clients_ingesting_one_folder_at_once_leave_each_chunk_once_with_its_vector() {
    let cluster = TestCluster::start().unwrap();
    let url = cluster.create_database("library").unwrap();
    let docs = tempfile::tempdir().unwrap();
    for i in 0..10 {
        let text = format!(
            "# Shared note {i}\n\nThe platform team reviewed item {i}. Each review records the owner, the deadline \
             and the decision, so that item {i} can be traced. {}\n",
            "Background detail repeats here to make a second chunk. ".repeat(30 + i)
        );
        std::fs::write(docs.path().join(format!("note-{i:02}.md")), text).unwrap();
    }
    let (home_a, home_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let spawn = |home: &Path| {
        client(home, &url)
            .args(["ingest", "--json"])
            .arg(docs.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(home_a.path()), spawn(home_b.path()));
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let files = report["files"].as_array().unwrap();
        assert_eq!(files.len(), 10);
        assert!(files.iter().all(|f| f["status"] != "failed"), "{report}");
    }
    assert_eq!(count(&cluster, "SELECT count(*) FROM documents"), 10);
    let chunks = count(&cluster, "SELECT count(*) FROM chunks");
    assert!(chunks > 10, "every note has several chunks: {chunks}");
    assert_eq!(
        count(&cluster, "SELECT count(DISTINCT id) FROM chunks"),
        chunks,
        "each chunk once"
    );
    assert_eq!(
        count(&cluster, "SELECT count(DISTINCT text_hash || document_id) FROM chunks"),
        chunks
    );
    assert_eq!(
        count(&cluster, "SELECT sum(chunk_count) FROM documents"),
        chunks,
        "no orphans, no missing chunks"
    );
    assert_eq!(
        count(
            &cluster,
            "SELECT count(*) FROM chunks WHERE vector_dims(embedding) = 384"
        ),
        chunks
    );
    assert_eq!(
        count(
            &cluster,
            "SELECT count(*) FROM pages WHERE document_id NOT IN (SELECT id FROM documents)"
        ),
        0
    );

    // Either client lists the shared library with its store, and searches it.
    let (code, list) = run_json(client(home_b.path(), &url).args(["library", "list", "--json"]));
    assert_eq!(code, 0);
    assert_eq!(list["documents"].as_array().unwrap().len(), 10);
    assert_eq!(list["store"]["kind"], "postgres");
    assert_eq!(list["store"]["chunks"], chunks);
    assert!(list["store"]["size_bytes"].as_u64().unwrap() > 0);
    assert!(list["store"]["location"]
        .as_str()
        .unwrap()
        .starts_with("postgres://postgres@"));
    let (code, hits) = run_json(client(home_a.path(), &url).args(["search", "who owns item 7", "--json"]));
    assert_eq!(code, 0, "{hits}");
    assert!(!hits["hits"].as_array().unwrap().is_empty(), "{hits}");
}

#[test]
fn a_colleague_replays_and_asks_from_the_shared_judgment_cache() {
    let cluster = TestCluster::start().unwrap();
    let url = cluster.create_database("library").unwrap();
    let (alice, bob) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(alice.path().join("settings.json"), r#"{"user": "alice"}"#).unwrap();
    let (code, _) = run_json(
        client(alice.path(), &url)
            .args(["ingest", "--json"])
            .arg(repo().join("fixtures/pdf/multipage.pdf")),
    );
    assert_eq!(code, 0);
    let ask = |home: &Path| {
        run_json(client(home, &url).args(["ask", "How long is the battery warranty?", "--judge", "local", "--json"]))
    };
    let (code, first) = ask(alice.path());
    assert_eq!(code, 0, "{first}");
    assert_eq!(first["judge"]["status"], "judged", "{}", first["judge"]);
    let run_id = first["run_id"].as_str().unwrap();

    // Bob, on another machine, sees Alice's run and replays it without judging...
    let (code, list) = run_json(client(bob.path(), &url).args(["runs", "list", "--json"]));
    assert_eq!(code, 0);
    assert_eq!(list["runs"][0]["id"], run_id);
    assert_eq!(list["runs"][0]["made_by"], "alice", "runs record who made them");
    let (code, replay) = run_json(client(bob.path(), &url).args(["replay", run_id, "--json"]));
    assert_eq!(code, 0, "{replay}");
    assert_eq!(replay["judge_calls"], 0);
    // ... and his own ask of the same question is served from her judgments: no passage judged again.
    let (code, second) = ask(bob.path());
    assert_eq!(code, 0, "{second}");
    let candidates = second["decisions"].as_array().unwrap().len();
    assert!(candidates > 0);
    assert_eq!(second["judge"]["cached_passages"], candidates, "{}", second["judge"]);
}

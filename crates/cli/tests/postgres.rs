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

/// Rows as a Spring AI application writes them: `INSERT … ON CONFLICT (id) DO UPDATE`, JSON metadata with
/// TokenTextSplitter's `parent_document_id` / `chunk_index` / `total_chunks` and the app's own keys.
fn spring_insert(cluster: &TestCluster, table: &str, rows: &[(&str, &str, Value, Vec<f32>)]) {
    for (id, content, metadata, embedding) in rows {
        let vector = format!(
            "[{}]",
            embedding.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")
        );
        let sql = format!(
            "INSERT INTO {table} (id, content, metadata, embedding) VALUES ('{id}', '{}', '{}'::json, '{vector}') \
             ON CONFLICT (id) DO UPDATE SET content = EXCLUDED.content, metadata = EXCLUDED.metadata, \
             embedding = EXCLUDED.embedding",
            content.replace('\'', "''"),
            metadata.to_string().replace('\'', "''"),
        );
        cluster.psql("spring", &sql).unwrap();
    }
}

#[test]
fn a_spring_ai_pgvector_table_is_searched_judged_and_replayed_read_only() {
    use ragsift_engine::{Embedder, FastEmbedder, RuntimePaths};
    let cluster = TestCluster::start().unwrap();
    let url = cluster.create_database("spring").unwrap();
    // Spring AI's default DDL (PgVectorStore, COSINE_DISTANCE, HNSW) with text ids, as the seed's indexer uses.
    cluster
        .psql(
            "spring",
            "CREATE TABLE IF NOT EXISTS public.vector_store (id text PRIMARY KEY, content text, metadata json, \
             embedding vector(384)); CREATE INDEX ON public.vector_store USING HNSW (embedding vector_cosine_ops);",
        )
        .unwrap();
    let runtime = RuntimePaths::discover(&ragsift_engine::paths::data_dir().unwrap()).unwrap();
    let embedder = FastEmbedder::load(&runtime, ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL, 2, 32).unwrap();
    let texts = [
        (
            "handbook/warranty.md#0",
            "handbook/warranty.md",
            0,
            "The battery is covered by a warranty of 24 months from the date of purchase.",
        ),
        (
            "handbook/warranty.md#1",
            "handbook/warranty.md",
            1,
            "Repairs by unauthorised shops void the warranty on the battery.",
        ),
        (
            "handbook/shipping.md#0",
            "handbook/shipping.md",
            0,
            "Orders ship within two business days from the central warehouse.",
        ),
        (
            "handbook/shipping.md#1",
            "handbook/shipping.md",
            1,
            "Returns are accepted for thirty days if the seal is unbroken.",
        ),
    ];
    let vectors = embedder.embed(&texts.iter().map(|t| t.3).collect::<Vec<_>>()).unwrap();
    let rows: Vec<(&str, &str, Value, Vec<f32>)> = texts
        .iter()
        .zip(vectors)
        .map(|((id, parent, i, text), v)| {
            let meta = serde_json::json!({
                "parent_document_id": parent, "chunk_index": i, "total_chunks": 2,
                "library": "handbook", "path": parent, "checksum": format!("sha-{parent}"),
            });
            (*id, *text, meta, v)
        })
        .collect();
    spring_insert(&cluster, "public.vector_store", &rows);

    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"spring_table": "public.vector_store"}"#,
    )
    .unwrap();
    let (code, list) = run_json(client(home.path(), &url).args(["library", "list", "--json"]));
    assert_eq!(code, 0, "{list}");
    let docs = list["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 2, "rows grouped by parent_document_id: {list}");
    assert_eq!(docs[1]["path"], "handbook/warranty.md");
    assert_eq!(docs[1]["chunk_count"], 2);
    let location = list["store"]["location"].as_str().unwrap();
    assert!(
        location.contains("public.vector_store (Spring AI, read-only; runs and judgments shared in schema ragsift)"),
        "{location}"
    );

    let out = client(home.path(), &url)
        .args(["ask", "How long is the battery warranty?", "--judge", "local", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let ask: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run_id = ask["run_id"].as_str().unwrap();
    let (code, trace) = run_json(client(home.path(), &url).args(["runs", "show", run_id, "--json"]));
    assert_eq!(code, 0, "{trace}");
    let candidates = trace["candidates"].as_array().unwrap();
    assert_eq!(candidates[0]["chunk_id"], "handbook/warranty.md#0", "{trace}");
    let meta: Value = serde_json::from_str(candidates[0]["metadata"].as_str().unwrap()).unwrap();
    assert_eq!(
        (meta["library"].as_str(), meta["chunk_index"].as_i64()),
        (Some("handbook"), Some(0))
    );
    assert!(
        ask["answer"].as_str().unwrap().contains("24 months"),
        "{}",
        ask["answer"]
    );
    let (code, replay) = run_json(client(home.path(), &url).args(["replay", run_id, "--json"]));
    assert_eq!((code, replay["judge_calls"].as_i64()), (0, Some(0)), "{replay}");
    // A colleague on another machine shares the runs and the judgments (schema ragsift beside the table).
    let bob = tempfile::tempdir().unwrap();
    std::fs::write(
        bob.path().join("settings.json"),
        r#"{"spring_table": "public.vector_store"}"#,
    )
    .unwrap();
    let (code, replay) = run_json(client(bob.path(), &url).args(["replay", run_id, "--json"]));
    assert_eq!((code, replay["judge_calls"].as_i64()), (0, Some(0)), "{replay}");
    let (code, again) = run_json(client(bob.path(), &url).args([
        "ask",
        "How long is the battery warranty?",
        "--judge",
        "local",
        "--json",
    ]));
    assert_eq!(code, 0, "{again}");
    let n = again["decisions"].as_array().unwrap().len();
    assert_eq!(again["judge"]["cached_passages"], n, "{}", again["judge"]);
    assert_eq!(count_in(&cluster, "spring", "SELECT count(*) FROM ragsift.runs"), 2);

    // The table is never written.
    let docs_dir = tempfile::tempdir().unwrap();
    std::fs::write(docs_dir.path().join("x.md"), "# X\n\nSomething new.").unwrap();
    let out = client(home.path(), &url)
        .arg("ingest")
        .arg(docs_dir.path())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("read-only"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count_in(&cluster, "spring", "SELECT count(*) FROM vector_store"), 4);

    // A role that may only read the table keeps its runs and judgments on its own machine.
    cluster
        .psql(
            "spring",
            "CREATE ROLE reader LOGIN; REVOKE CREATE ON DATABASE spring FROM PUBLIC; \
             GRANT SELECT ON public.vector_store TO reader;",
        )
        .unwrap();
    let reader_url = url.replace("user=postgres", "user=reader");
    let (code, list) = run_json(client(home.path(), &reader_url).args(["library", "list", "--json"]));
    assert_eq!(code, 0, "{list}");
    assert!(
        list["store"]["location"]
            .as_str()
            .unwrap()
            .contains("runs and judgments on this machine"),
        "{list}"
    );
    let (code, hits) = run_json(client(home.path(), &reader_url).args(["search", "battery warranty", "--json"]));
    assert_eq!(code, 0, "{hits}");

    // A table built by another embedding model (uuid ids, 8 dimensions): a clear refusal, not wrong neighbours.
    cluster
        .psql(
            "spring",
            "CREATE TABLE other_store (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, content text, metadata json, \
             embedding vector(8)); INSERT INTO other_store (content, metadata, embedding) \
             VALUES ('x', '{}', '[1,0,0,0,0,0,0,0]');",
        )
        .unwrap();
    std::fs::write(home.path().join("settings.json"), r#"{"spring_table": "other_store"}"#).unwrap();
    let out = client(home.path(), &url)
        .args(["search", "battery warranty", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("8-dimensional") && err.contains("384"), "{err}");
}

fn count_in(cluster: &TestCluster, db: &str, sql: &str) -> i64 {
    cluster.psql(db, sql).unwrap().parse().unwrap()
}

use ragsift_test_support::http;

/// "The team's embedding model": MiniLM's vector written twice (768 dimensions), so its neighbours are MiniLM's
/// but no 384-dimensional query can be compared with it.
fn team_vector(v: &[f32]) -> Vec<f32> {
    v.iter().chain(v).copied().collect()
}

/// A Spring table built by a model ragsift does not ship is queried through that model's OpenAI-compatible
/// `/v1/embeddings` server (a loopback server computing real embeddings); without it the dimension mismatch is
/// refused.
#[test]
fn a_spring_table_built_by_a_server_model_is_queried_through_its_embeddings_endpoint() {
    use ragsift_engine::{Embedder, FastEmbedder, RuntimePaths};
    use std::sync::Arc;
    let runtime = RuntimePaths::discover(&ragsift_engine::paths::data_dir().unwrap()).unwrap();
    let local = Arc::new(FastEmbedder::load(&runtime, ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL, 2, 32).unwrap());
    let model = local.clone();
    let server = http::Server::with_handler(move |r: &http::Request| {
        let body = r.json();
        if r.path != "/v1/embeddings" || body["model"] != "team-embedder" {
            let error = serde_json::json!({"error": {"message": "model not found"}}).to_string();
            return http::Reply::Json(404, vec![], error);
        }
        let texts: Vec<&str> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let data: Vec<Value> = model
            .embed(&texts)
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, v)| serde_json::json!({"object": "embedding", "index": i, "embedding": team_vector(v)}))
            .collect();
        http::Reply::Json(
            200,
            vec![],
            serde_json::json!({"object": "list", "data": data}).to_string(),
        )
    });

    let cluster = TestCluster::start().unwrap();
    let url = cluster.create_database("spring").unwrap();
    cluster
        .psql(
            "spring",
            "CREATE TABLE vector_store (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, content text, metadata json, \
             embedding vector(768)); CREATE INDEX ON vector_store USING HNSW (embedding vector_cosine_ops);",
        )
        .unwrap();
    let texts = [
        "The battery is covered by a warranty of 24 months from the date of purchase.",
        "Orders ship within two business days from the central warehouse.",
        "Returns are accepted for thirty days if the seal is unbroken.",
    ];
    for (text, v) in texts.iter().zip(local.embed(&texts).unwrap()) {
        let vector = format!(
            "[{}]",
            team_vector(&v)
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let sql = format!(
            "INSERT INTO vector_store (content, metadata, embedding) VALUES ('{text}', '{{\"source\": \"faq.md\"}}', \
             '{vector}')"
        );
        cluster.psql("spring", &sql).unwrap();
    }

    let home = tempfile::tempdir().unwrap();
    let settings = |endpoint: &str| {
        serde_json::json!({
            "spring_table": "vector_store", "embedding_endpoint": endpoint, "embedding_server_model": "team-embedder",
        })
        .to_string()
    };
    std::fs::write(home.path().join("settings.json"), settings("")).unwrap();
    let out = client(home.path(), &url)
        .args(["search", "battery warranty", "--json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("768-dimensional") && err.contains("384"), "{err}");

    std::fs::write(home.path().join("settings.json"), settings(&server.url)).unwrap();
    let (code, hits) =
        run_json(client(home.path(), &url).args(["search", "How long is the battery warranty?", "--json"]));
    assert_eq!(code, 0, "{hits}");
    assert!(
        hits["hits"][0]["text"].as_str().unwrap().contains("24 months"),
        "{hits}"
    );
    let asked: Vec<Value> = server.requests().iter().map(|r| r.json()).collect();
    assert!(
        asked
            .iter()
            .any(|b| b["input"][0] == "How long is the battery warranty?"),
        "{asked:?}"
    );
    assert!(asked.iter().all(|b| b["model"] == "team-embedder"));
    // The answer pipeline retrieves with the server's model and judges with the local one.
    let (code, ask) = run_json(client(home.path(), &url).args([
        "ask",
        "How long is the battery warranty?",
        "--judge",
        "local",
        "--json",
    ]));
    assert_eq!(code, 0, "{ask}");
    assert!(
        ask["answer"].as_str().unwrap().contains("24 months"),
        "{}",
        ask["answer"]
    );
}

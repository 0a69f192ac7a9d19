//! Team-library search: pgvector's HNSW (a real PostgreSQL 16 server started for the run) against the local
//! usearch index and an exact scan, on the same clustered unit vectors: ingest chunks/s through each store's own
//! write path, recall@10, single-client QPS and QPS with 8 concurrent clients.

use crate::search::{clustered, exact};
use ragsift_engine::backend::DocumentStore;
use ragsift_engine::index::{UsearchIndex, VectorIndex};
use ragsift_engine::pg::cluster::TestCluster;
use ragsift_engine::pg::PgStore;
use ragsift_engine::sqlite::{DocumentRow, NewChunk, NewPage};
use ragsift_engine::Result;
use std::time::Instant;

const DIMS: usize = 384;
const K: usize = 10;
const CLIENTS: usize = 8;
/// Chunks per document (one transaction each), as a long PDF would give.
const PER_DOC: usize = 100;

pub fn run(n: usize, nq: usize) -> Result<()> {
    let (data, queries, _) = clustered(0x9E37_79B9_7F4A_7C15, n, nq);
    println!("\n## team library: {n} × {DIMS} clustered unit vectors, {nq} queries, top-{K}");
    let t = Instant::now();
    let truth: Vec<Vec<u64>> = queries.iter().map(|q| exact(&data, q)).collect();
    let exact_qps = nq as f64 / t.elapsed().as_secs_f64();

    let local = UsearchIndex::in_memory(DIMS, 128)?;
    let t = Instant::now();
    for (i, v) in data.iter().enumerate() {
        local.add(i as u64, v)?;
    }
    let local_ingest = n as f64 / t.elapsed().as_secs_f64();

    let cluster = TestCluster::start()?;
    let store = PgStore::open(&cluster.create_database("bench")?)?;
    store.bind_dimensions(DIMS)?;
    let t = Instant::now();
    for (d, batch) in data.chunks(PER_DOC).enumerate() {
        let (doc, chunks) = document(d, batch);
        store.replace_document(
            &doc,
            &[NewPage {
                number: 1,
                ..NewPage::default()
            }],
            &chunks,
        )?;
    }
    let pg_ingest = n as f64 / t.elapsed().as_secs_f64();
    let pg = store
        .vector_index(128)
        .ok_or_else(|| ragsift_engine::Error::Setup("no pgvector index".into()))?;

    println!(
        "{:<36} {:>12} {:>10} {:>14} {:>16}",
        "method", "ingest ch/s", "recall@10", "QPS 1 client", "QPS 8 clients"
    );
    println!(
        "{:<36} {:>12} {:>10.3} {:>14.0} {:>16}",
        "exact scan in Rust (baseline)", "-", 1.0, exact_qps, "-"
    );
    let report = |name: &str, ingest: f64, index: &dyn VectorIndex, exact: bool, nq: usize| -> Result<()> {
        let search = |q: &[f32]| {
            if exact {
                index.exact_search(q, K)
            } else {
                index.search(q, K)
            }
        };
        let t = Instant::now();
        let mut found = 0usize;
        for (q, truth) in queries.iter().zip(&truth).take(nq) {
            found += search(q)?.iter().filter(|h| truth.contains(&h.key)).count();
        }
        let qps1 = nq as f64 / t.elapsed().as_secs_f64();
        let t = Instant::now();
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..CLIENTS)
                .map(|c| {
                    let search = &search;
                    let queries = &queries;
                    s.spawn(move || -> Result<()> {
                        for q in queries.iter().take(nq).skip(c).step_by(CLIENTS) {
                            search(q)?;
                        }
                        Ok(())
                    })
                })
                .collect();
            handles.into_iter().try_for_each(|h| h.join().expect("client thread"))
        })?;
        let qps8 = nq as f64 / t.elapsed().as_secs_f64();
        let recall = found as f64 / (nq * K) as f64;
        let ingest = if ingest > 0.0 {
            format!("{ingest:.0}")
        } else {
            "-".into()
        };
        println!("{name:<36} {ingest:>12} {recall:>10.3} {qps1:>14.0} {qps8:>16.0}");
        Ok(())
    };
    report("usearch HNSW (ef 128, in process)", local_ingest, &local, false, nq)?;
    report("pgvector HNSW (ef_search 128)", pg_ingest, pg.as_ref(), false, nq)?;
    report("pgvector exact (index scans off)", 0.0, pg.as_ref(), true, nq.min(100))?;
    println!(
        "(ingest: usearch adds in one thread; pgvector writes through PgStore::replace_document, {PER_DOC} chunks \
         per transaction, HNSW maintained on insert)"
    );
    Ok(())
}

fn document(d: usize, batch: &[Vec<f32>]) -> (DocumentRow, Vec<NewChunk>) {
    let id = format!("doc-{d:06}");
    let chunks = batch
        .iter()
        .enumerate()
        .map(|(i, v)| NewChunk {
            key: (d * PER_DOC + i) as u64,
            id: format!("{id}-{i}"),
            index: i,
            text: format!("chunk {i} of document {d}"),
            place: ragsift_engine::ChunkPlace {
                page_start: 1,
                page_end: 1,
                char_start: 0,
                char_end: 10,
            },
            tokens: 8,
            section: Vec::new(),
            boxes: Vec::new(),
            embedding: v.clone(),
        })
        .collect::<Vec<_>>();
    let doc = DocumentRow {
        id: id.clone(),
        path: format!("/bench/{id}.pdf"),
        title: id,
        renamed: false,
        kind: ragsift_engine::DocumentKind::Pdf,
        checksum: format!("{d:064}"),
        size_bytes: 0,
        page_count: 1,
        chunk_count: chunks.len() as u32,
        warning: None,
        embedding_model: "bench".into(),
        ingested_at: 0,
    };
    (doc, chunks)
}

//! The request set of `ragsift-bench serve --candidates N`: each question of the labelled set (`fixtures/qa`) with
//! its top N real chunks from the labelled library (hybrid search), as rag-jev select requests filtered at 0.5.
//! Written once to the bench cache and read back on later runs, so a before and an after run send the very same
//! requests (the file's hash is printed with the figures).

use crate::qaset;
use ragsift_engine::retrieve::SearchMode;
use ragsift_engine::{Error, LibraryRetriever, Result, Retriever, SearchRequest};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::PathBuf;

/// Where the set of `candidates`-passage requests is kept.
fn path(candidates: usize) -> PathBuf {
    qaset::dirs_cache().join(format!("serve-requests-{candidates}.json"))
}

/// The requests of `candidates` passages each: read from the bench cache, else retrieved and written there.
pub fn requests(candidates: usize) -> Result<Vec<Value>> {
    let file = path(candidates);
    if let Ok(text) = std::fs::read_to_string(&file) {
        return serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("{}: {e}", file.display())));
    }
    let embedder = crate::embedder(0)?;
    let library = qaset::library(&embedder)?;
    let questions = ragsift_engine::eval::qa::load_questions(&crate::repo_root().join("fixtures/qa/cases.json"))?;
    let retriever = LibraryRetriever {
        library: &library,
        embedder: &embedder,
    };
    let mut requests = Vec::with_capacity(questions.len());
    for q in &questions {
        let hits = retriever.retrieve(&SearchRequest {
            top_k: candidates,
            search_mode: SearchMode::Hybrid,
            ..SearchRequest::new(q.query.clone())
        })?;
        if hits.len() < candidates {
            continue;
        }
        let documents: Vec<Value> = (hits.iter())
            .map(|h| json!({"id": h.chunk.id, "text": h.chunk.text}))
            .collect();
        requests.push(json!({"query": q.query, "documents": documents, "min_relevance": 0.5}));
    }
    let text = serde_json::to_string(&requests).map_err(|e| Error::Invalid(e.to_string()))?;
    std::fs::write(&file, text).map_err(|e| Error::Invalid(format!("{}: {e}", file.display())))?;
    Ok(requests)
}

/// The set's short hash, and how many distinct passage texts the first `sent` requests carry.
pub fn describe(requests: &[Value], sent: usize) -> (String, usize, usize) {
    let text = serde_json::to_string(requests).unwrap_or_default();
    let hash = ragsift_engine::ids::sha256_hex(text.as_bytes())[..12].to_string();
    let passages: Vec<&str> = (requests.iter().take(sent))
        .flat_map(|r| r["documents"].as_array().into_iter().flatten())
        .filter_map(|d| d["text"].as_str())
        .collect();
    let distinct = passages.iter().collect::<HashSet<_>>().len();
    (hash, passages.len(), distinct)
}

//! Retriever stage: vector (usearch, cosine), keyword (FTS5/BM25) and hybrid (reciprocal rank fusion) search
//! over a library. Every hit carries its score(s), document, pages and text.

use crate::library::Library;
use crate::store::ChunkRow;
use crate::{Error, Result};
use ragsift_models::embed::Embedder;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Reciprocal-rank-fusion constant (the usual k = 60).
pub const RRF_K: f32 = 60.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    #[default]
    Vector,
    Keyword,
    Hybrid,
}

impl std::str::FromStr for SearchMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "vector" => Ok(SearchMode::Vector),
            "keyword" => Ok(SearchMode::Keyword),
            "hybrid" => Ok(SearchMode::Hybrid),
            other => Err(Error::Invalid(format!(
                "unknown search mode '{other}' (vector, keyword or hybrid)"
            ))),
        }
    }
}

/// A search. Defaults follow Spring AI's VectorStoreDocumentRetriever: top-k 4, similarity threshold 0.0
/// (accept all). The threshold applies to cosine similarity, so to vector and hybrid search.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SearchRequest {
    pub query: String,
    pub top_k: usize,
    pub threshold: f32,
    pub mode: SearchMode,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> Self {
        SearchRequest {
            query: query.into(),
            top_k: 4,
            threshold: 0.0,
            mode: SearchMode::Vector,
        }
    }
}

/// One retrieved chunk. `score` is what the hits are ordered by: cosine similarity (vector), BM25 (keyword)
/// or the fused RRF score (hybrid); the per-method scores and ranks are kept beside it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Hit {
    pub rank: usize,
    pub score: f32,
    pub similarity: Option<f32>,
    pub vector_rank: Option<usize>,
    pub bm25: Option<f32>,
    pub keyword_rank: Option<usize>,
    #[serde(flatten)]
    pub chunk: ChunkRow,
}

/// A retriever: a query in, ranked hits out.
pub trait Retriever: Send + Sync {
    fn retrieve(&self, request: &SearchRequest) -> Result<Vec<Hit>>;
}

/// The library's own retriever.
pub struct LibraryRetriever<'a> {
    pub library: &'a Library,
    pub embedder: &'a dyn Embedder,
}

impl Retriever for LibraryRetriever<'_> {
    fn retrieve(&self, req: &SearchRequest) -> Result<Vec<Hit>> {
        if req.query.trim().is_empty() {
            return Err(Error::Invalid("the query is empty".into()));
        }
        if req.top_k == 0 {
            return Ok(Vec::new());
        }
        // Another process may have ingested since this index was loaded: catch up first.
        self.library.refresh()?;
        let pool = (req.top_k * 4).max(20);
        let vector = || -> Result<Vec<(u64, f32)>> {
            let q = self.embedder.embed(&[req.query.as_str()])?.remove(0);
            let hits = self.library.index().search(
                &q,
                if req.mode == SearchMode::Vector {
                    req.top_k
                } else {
                    pool
                },
            )?;
            Ok(hits
                .into_iter()
                // As Spring's SIMILARITY_THRESHOLD_ACCEPT_ALL, 0.0 accepts everything (cosine can be negative).
                .filter(|n| req.threshold <= 0.0 || n.similarity >= req.threshold)
                .map(|n| (n.key, n.similarity))
                .collect())
        };
        let keyword = || {
            self.library.store().keyword_search(
                &req.query,
                if req.mode == SearchMode::Keyword {
                    req.top_k
                } else {
                    pool
                },
            )
        };
        let (v, k) = match req.mode {
            SearchMode::Vector => (vector()?, Vec::new()),
            SearchMode::Keyword => (Vec::new(), keyword()?),
            SearchMode::Hybrid => (vector()?, keyword()?),
        };
        let fused = fuse(req.mode, &v, &k, req.top_k);
        let keys: Vec<u64> = fused.iter().map(|f| f.0).collect();
        let rows: HashMap<u64, ChunkRow> = self
            .library
            .store()
            .chunks_by_keys(&keys)?
            .into_iter()
            .map(|c| (c.key, c))
            .collect();
        let vmap: HashMap<u64, (usize, f32)> = v.iter().enumerate().map(|(i, (key, s))| (*key, (i + 1, *s))).collect();
        let kmap: HashMap<u64, (usize, f32)> = k.iter().enumerate().map(|(i, (key, s))| (*key, (i + 1, *s))).collect();
        Ok(fused
            .into_iter()
            .filter_map(|(key, score)| rows.get(&key).map(|c| (key, score, c.clone())))
            .enumerate()
            .map(|(i, (key, score, chunk))| Hit {
                rank: i + 1,
                score,
                similarity: vmap.get(&key).map(|x| x.1),
                vector_rank: vmap.get(&key).map(|x| x.0),
                bm25: kmap.get(&key).map(|x| x.1),
                keyword_rank: kmap.get(&key).map(|x| x.0),
                chunk,
            })
            .collect())
    }
}

/// Orders candidates: by similarity, by BM25, or by RRF over both rankings (ties keep vector order).
fn fuse(mode: SearchMode, v: &[(u64, f32)], k: &[(u64, f32)], top_k: usize) -> Vec<(u64, f32)> {
    let mut out = match mode {
        SearchMode::Vector => v.to_vec(),
        SearchMode::Keyword => k.to_vec(),
        SearchMode::Hybrid => {
            let mut scores: Vec<(u64, f32)> = Vec::new();
            for list in [v, k] {
                for (rank, (key, _)) in list.iter().enumerate() {
                    let add = 1.0 / (RRF_K + rank as f32 + 1.0);
                    match scores.iter_mut().find(|(k2, _)| k2 == key) {
                        Some(e) => e.1 += add,
                        None => scores.push((*key, add)),
                    }
                }
            }
            scores.sort_by(|a, b| b.1.total_cmp(&a.1));
            scores
        }
    };
    out.truncate(top_k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement() {
        let v = [(1, 0.9), (2, 0.8), (3, 0.7)];
        let k = [(3, 12.0), (4, 10.0)];
        let fused = fuse(SearchMode::Hybrid, &v, &k, 3);
        assert_eq!(fused[0].0, 3, "found by both lists ranks first: {fused:?}");
        assert_eq!(fused.len(), 3);
        assert!((fused[0].1 - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-6);
    }
}

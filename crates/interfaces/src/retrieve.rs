//! The retriever interface: a query in, ranked hits out, with the search's options. Vector (usearch or
//! pgvector), keyword (FTS5/BM25) and hybrid search over a library implement it in `ragsift-store`.

use crate::store::ChunkRow;
use ragsift_core::{Error, Result};
use serde::{Deserialize, Serialize};

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
    /// Vector, keyword or hybrid (`mode` before the rename, still read).
    #[serde(alias = "mode")]
    pub search_mode: SearchMode,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> Self {
        SearchRequest {
            query: query.into(),
            top_k: 4,
            threshold: 0.0,
            search_mode: SearchMode::Vector,
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

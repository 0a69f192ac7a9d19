//! Retriever stage: vector (usearch, cosine), keyword (FTS5/BM25) and hybrid (reciprocal rank fusion, the
//! documents of a named part first: `focus`) search over a library. Every hit carries its score(s), document,
//! pages and text.

use crate::library::Library;
use crate::{Error, Result};
use ragsift_interfaces::embed::Embedder;
use ragsift_store::sqlite::ChunkRow;
use std::collections::HashMap;

pub use ragsift_interfaces::retrieve::{Hit, Retriever, SearchMode, SearchRequest};

/// Reciprocal-rank-fusion constant (the usual k = 60).
pub const RRF_K: f32 = 60.0;

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
                if req.search_mode == SearchMode::Vector {
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
                if req.search_mode == SearchMode::Keyword {
                    req.top_k
                } else {
                    pool
                },
            )
        };
        let (v, k) = match req.search_mode {
            SearchMode::Vector => (vector()?, Vec::new()),
            SearchMode::Keyword => (Vec::new(), keyword()?),
            SearchMode::Hybrid => (vector()?, keyword()?),
        };
        // Hybrid search (ragsift's own; vector search stays Spring's) puts the documents a named part is in first.
        let named = match req.search_mode {
            SearchMode::Hybrid => crate::focus::named_documents(self.library.store(), &req.query)?,
            _ => None,
        };
        let mut fused = fuse(
            req.search_mode,
            &v,
            &k,
            if named.is_some() { usize::MAX } else { req.top_k },
        );
        let keys: Vec<u64> = fused.iter().map(|f| f.0).collect();
        let rows: HashMap<u64, ChunkRow> = self
            .library
            .store()
            .chunks_by_keys(&keys)?
            .into_iter()
            .map(|c| (c.key, c))
            .collect();
        if let Some(named) = &named {
            fused = crate::focus::focus(fused, |f| {
                rows.get(&f.0).is_some_and(|c| named.contains(&c.document_id))
            });
            fused.truncate(req.top_k);
        }
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

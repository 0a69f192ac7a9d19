//! Joiner stage: Spring's ConcatenationDocumentJoiner (de-duplicate by chunk id, first occurrence kept, sorted by
//! score descending) that also records provenance: which variants found each chunk, at what rank and score.

use ragsift_interfaces::retrieve::Hit;
use serde::{Deserialize, Serialize};

/// One variant's finding of a chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Provenance {
    pub variant: usize,
    pub rank: usize,
    pub score: f32,
}

/// A chunk of the joined set, with everything later stages and the inspector need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Candidate {
    pub chunk_id: String,
    pub document_id: String,
    pub document: String,
    pub title: String,
    pub page_start: u32,
    pub page_end: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub tokens: u32,
    pub text: String,
    /// The score of its first occurrence (Spring keeps the first document's score).
    pub score: f32,
    pub found_by: Vec<Provenance>,
    /// The chunk's own metadata as JSON when its store keeps some (a Spring AI table's rows); `null` otherwise.
    #[serde(default)]
    pub metadata: Option<String>,
    /// The retriever's group (rag-jev's `group_id`, on imported candidates): kept or cut with its group, whatever
    /// the policy's `group_by`.
    #[serde(default)]
    pub group_id: Option<String>,
    /// Imported as pinned (rag-jev's `pinned`): always selected.
    #[serde(default)]
    pub pinned: bool,
    /// The heading path in force where the chunk starts ("3 Method", "3.2 Training"); empty before the first
    /// heading and when the store knows none. Left out of the JSON when empty, so runs and run files from before
    /// it read, and checksum, as they were written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub section: Vec<String>,
}

impl Candidate {
    /// Where the chunk sits in its document.
    pub fn place(&self) -> ragsift_core::ChunkPlace {
        ragsift_core::ChunkPlace {
            page_start: self.page_start,
            page_end: self.page_end,
            char_start: self.char_start,
            char_end: self.char_end,
        }
    }
}

/// A joiner stage.
pub trait Joiner: Send + Sync {
    fn name(&self) -> &'static str;
    fn join(&self, per_variant: &[Vec<Hit>]) -> Vec<Candidate>;
}

/// De-duplicates in variant order, then sorts by score descending (stable: ties keep first-seen order).
pub struct ConcatenationJoiner;

impl Joiner for ConcatenationJoiner {
    fn name(&self) -> &'static str {
        "concatenation"
    }

    fn join(&self, per_variant: &[Vec<Hit>]) -> Vec<Candidate> {
        let mut out: Vec<Candidate> = Vec::new();
        for (variant, hits) in per_variant.iter().enumerate() {
            for h in hits {
                let seen = Provenance {
                    variant,
                    rank: h.rank,
                    score: h.score,
                };
                match out.iter_mut().find(|c| c.chunk_id == h.chunk.id) {
                    Some(c) => c.found_by.push(seen),
                    None => out.push(Candidate {
                        chunk_id: h.chunk.id.clone(),
                        document_id: h.chunk.document_id.clone(),
                        document: h.chunk.document_path.clone(),
                        title: h.chunk.document_title.clone(),
                        page_start: h.chunk.page_start,
                        page_end: h.chunk.page_end,
                        char_start: h.chunk.char_start,
                        char_end: h.chunk.char_end,
                        tokens: h.chunk.tokens,
                        text: h.chunk.text.clone(),
                        score: h.score,
                        found_by: vec![seen],
                        metadata: h.chunk.metadata.clone(),
                        group_id: None,
                        pinned: false,
                        section: h.chunk.section.clone(),
                    }),
                }
            }
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragsift_interfaces::store::ChunkRow;

    fn hit(id: &str, rank: usize, score: f32) -> Hit {
        Hit {
            rank,
            score,
            similarity: Some(score),
            vector_rank: Some(rank),
            bm25: None,
            keyword_rank: None,
            chunk: ChunkRow {
                key: 0,
                id: id.into(),
                document_id: "d".into(),
                document_path: "/d".into(),
                document_title: "D".into(),
                index: 0,
                text: id.into(),
                page_start: 1,
                page_end: 1,
                char_start: 0,
                char_end: 1,
                tokens: 1,
                metadata: None,
                section: vec![format!("section of {id}")],
                boxes: Vec::new(),
            },
        }
    }

    #[test]
    fn dedupes_keeps_first_score_sorts_and_records_provenance() {
        let joined = ConcatenationJoiner.join(&[
            vec![hit("a", 1, 0.5), hit("b", 2, 0.4)],
            vec![hit("b", 1, 0.9), hit("c", 2, 0.6)],
        ]);
        let ids: Vec<&str> = joined.iter().map(|c| c.chunk_id.as_str()).collect();
        assert_eq!(ids, ["c", "a", "b"], "b keeps its first score 0.4");
        assert_eq!(joined[0].section, ["section of c"], "the chunk's section is carried");
        let b = &joined[2];
        assert_eq!(
            b.found_by,
            vec![
                Provenance {
                    variant: 0,
                    rank: 2,
                    score: 0.4
                },
                Provenance {
                    variant: 1,
                    rank: 1,
                    score: 0.9
                }
            ]
        );
    }
}

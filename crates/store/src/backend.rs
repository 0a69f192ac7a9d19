//! The store behind a library, as traits: documents and chunks, runs, and the judgment cache. SQLite
//! ([`crate::store::Store`]) and PostgreSQL ([`crate::pg::PgStore`]) implement them; the rest of ragsift sees only
//! `&dyn LibraryStore`.

use crate::index::VectorIndex;
use crate::store::{CachedJudgment, ChunkRow, DocumentRow, FailedFile, NewChunk, RunSummary, SpanLabel};
use crate::Result;
use serde::{Deserialize, Serialize};

/// Which engine holds a library, and where (never with a password).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StoreInfo {
    /// `sqlite` or `postgres`.
    pub kind: StoreKind,
    /// The SQLite file, or the server as `postgres://user@host:port/db` without its password.
    pub location: String,
}

/// The engine of a library's store.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum StoreKind {
    /// One SQLite file plus a usearch index file, on this machine.
    Sqlite,
    /// A PostgreSQL database with pgvector, shared by a team.
    Postgres,
}

/// Documents, pages and chunks with their vectors, keyword search and the library's meta values.
pub trait DocumentStore: Send + Sync {
    /// Engine and location.
    fn info(&self) -> StoreInfo;
    /// Whether ragsift may only read it (a table another application owns).
    fn read_only(&self) -> bool {
        false
    }
    /// The database file, when it could be opened only for reading because its disk is full.
    fn disk_full(&self) -> Option<std::path::PathBuf> {
        None
    }
    fn meta(&self, key: &str) -> Result<Option<String>>;
    fn set_meta(&self, key: &str, value: &str) -> Result<()>;
    /// Bumped by every write to the chunks, in the same transaction.
    fn generation(&self) -> Result<u64>;
    /// Fixes the vector dimension on the first ingest (a server store types its vector column and builds its
    /// HNSW index then).
    fn bind_dimensions(&self, _dimensions: usize) -> Result<()> {
        Ok(())
    }
    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>>;
    fn document(&self, id: &str) -> Result<Option<DocumentRow>>;
    fn documents(&self) -> Result<Vec<DocumentRow>>;
    /// Writes a document with its pages and chunks, replacing any earlier version of it, in one transaction;
    /// returns the vector keys of the chunks it replaced.
    fn replace_document(
        &self,
        doc: &DocumentRow,
        pages: &[(u32, String, bool)],
        chunks: &[NewChunk],
    ) -> Result<Vec<u64>>;
    /// Deletes a document and everything of it; returns the vector keys of its chunks.
    fn remove_document(&self, id: &str) -> Result<Vec<u64>>;
    /// Gives a document the user's title (marked as renamed, so that ingesting the file again keeps it); `false`
    /// when there is no such document. Chunks are untouched: titles are not embedded.
    fn rename_document(&self, id: &str, title: &str) -> Result<bool>;
    /// The remembered failure of the file at `path` (canonical), if it failed last time for a lasting reason.
    /// A store that cannot remember failures (a read-only table) has none.
    fn failed_file(&self, _path: &str) -> Result<Option<FailedFile>> {
        Ok(None)
    }
    /// Remembers a file's lasting failure, replacing an earlier one of the same path.
    fn put_failed_file(&self, _failed: &FailedFile) -> Result<()> {
        Ok(())
    }
    /// Forgets the failure of the file at `path` (it was ingested, or is read again).
    fn forget_failed_file(&self, _path: &str) -> Result<()> {
        Ok(())
    }
    fn chunk_keys(&self) -> Result<Vec<u64>>;
    /// Calls `f` with each stored vector whose key passes `want`.
    fn for_each_vector(&self, want: &dyn Fn(u64) -> bool, f: &mut dyn FnMut(u64, &[f32]) -> Result<()>) -> Result<()>;
    /// The chunks with these keys, in the order of `keys` (unknown keys are skipped).
    fn chunks_by_keys(&self, keys: &[u64]) -> Result<Vec<ChunkRow>>;
    /// The chunks of one document in order.
    fn chunks_of(&self, document_id: &str) -> Result<Vec<ChunkRow>>;
    fn page(&self, document_id: &str, number: u32) -> Result<Option<String>>;
    /// Whether OCR read the page's text.
    fn page_is_ocr(&self, document_id: &str, number: u32) -> Result<bool>;
    /// Keyword search: (key, score) best first, higher is better.
    fn keyword_search(&self, query: &str, k: usize) -> Result<Vec<(u64, f32)>>;
    /// How many chunks contain `word` (lower case, no stemming).
    fn term_frequency(&self, word: &str) -> Result<u64>;
    fn chunk_count(&self) -> Result<u64>;
    /// Bytes the library takes in the store (files, or tables with their indexes).
    fn size_bytes(&self) -> Result<u64>;
    /// Problems the engine's own checks find (empty when healthy).
    fn integrity_check(&self) -> Result<Vec<String>>;
    /// The store's own vector index, when it keeps the vectors searchable itself (pgvector); `None` when the
    /// library keeps a usearch index beside it.
    fn vector_index(&self, _expansion_search: usize) -> Option<Box<dyn VectorIndex>> {
        None
    }
}

/// The stored runs: each answer's whole trace as JSON.
pub trait RunStore: Send + Sync {
    fn put_run(&self, run: &RunSummary, fingerprint: &str, trace_json: &str) -> Result<()>;
    /// The stored trace JSON of a run (by id or unique id prefix).
    fn run(&self, id: &str) -> Result<Option<String>>;
    fn run_count(&self) -> Result<u32>;
    /// The latest runs, newest first.
    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>>;
}

/// The judgment cache, shared by everyone who uses the library.
pub trait JudgmentStore: Send + Sync {
    fn judgment(&self, key: &str) -> Result<Option<CachedJudgment>>;
    fn put_judgments(&self, items: &[CachedJudgment]) -> Result<()>;
    fn judgment_count(&self) -> Result<u32>;
    /// Empties the cache; says how many answers it held.
    fn clear_judgments(&self) -> Result<u32>;
}

/// Evidence labels kept as spans (a character range of one page of one document version, for one question), so
/// they survive re-chunking. Stored beside the runs, shared by everyone who uses the library.
pub trait LabelStore: Send + Sync {
    /// Stores a label; one with the same id is replaced (a span labelled again changes its polarity).
    fn put_label(&self, label: &SpanLabel) -> Result<()>;
    /// One label by id or unique id prefix.
    fn label(&self, id: &str) -> Result<Option<SpanLabel>>;
    /// The labels of one (normalised) question, or every label, oldest first.
    fn labels(&self, question: Option<&str>) -> Result<Vec<SpanLabel>>;
    /// Deletes a label by its full id; says whether it was there.
    fn remove_label(&self, id: &str) -> Result<bool>;
}

/// Document frequencies for IDF weights: how many of the library's chunks contain a word.
pub trait TermStats: Send + Sync {
    /// Number of chunks.
    fn chunks(&self) -> u64;
    /// Chunks containing `word` (lower-cased, unstemmed).
    fn frequency(&self, word: &str) -> u64;
}

/// A store's keyword index as term statistics (a word it cannot count counts as absent).
impl<T: DocumentStore + ?Sized> TermStats for T {
    fn chunks(&self) -> u64 {
        self.chunk_count().unwrap_or(0)
    }
    fn frequency(&self, word: &str) -> u64 {
        self.term_frequency(word).unwrap_or(0)
    }
}

/// Everything a library stores.
pub trait LibraryStore: DocumentStore + RunStore + JudgmentStore + LabelStore + TermStats {}

impl<T: DocumentStore + RunStore + JudgmentStore + LabelStore> LibraryStore for T {}

//! The store behind a library, as traits: documents and chunks, runs, the judgment cache and evidence labels,
//! with the rows they exchange, and the vector index. SQLite and PostgreSQL (with usearch or pgvector) implement
//! them in `ragsift-store`; the rest of ragsift sees only `&dyn LibraryStore`.

use ragsift_core::{ChunkPlace, PageBox, Result};
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
    fn replace_document(&self, doc: &DocumentRow, pages: &[NewPage], chunks: &[NewChunk]) -> Result<Vec<u64>>;
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
    /// The page's furniture: running headers and footers, page numbers, stamps (none for a page stored before it
    /// was kept, or by a store that does not keep it).
    fn page_furniture(&self, _document_id: &str, _number: u32) -> Result<Vec<String>> {
        Ok(Vec::new())
    }
    /// Whether OCR read the page's text.
    fn page_is_ocr(&self, document_id: &str, number: u32) -> Result<bool>;
    /// Keyword search: (key, score) best first, higher is better.
    fn keyword_search(&self, query: &str, k: usize) -> Result<Vec<(u64, f32)>>;
    /// How many chunks contain `word` (lower case, no stemming).
    fn term_frequency(&self, word: &str) -> Result<u64>;
    /// The ids of the documents with a chunk that contains `word` (lower case, as the keyword index tokenises
    /// it). This default looks at the keyword search's best 1,000 chunks for the word; a store that can ask its
    /// index for the documents themselves does so.
    fn documents_with_word(&self, word: &str) -> Result<std::collections::BTreeSet<String>> {
        let keys: Vec<u64> = self.keyword_search(word, 1000)?.into_iter().map(|(k, _)| k).collect();
        Ok(self.chunks_by_keys(&keys)?.into_iter().map(|c| c.document_id).collect())
    }
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
    /// Removes the runs with these exact ids; returns how many were removed.
    fn delete_runs(&self, ids: &[String]) -> Result<usize>;
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

/// A document as the library lists it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DocumentRow {
    pub id: String,
    pub path: String,
    pub title: String,
    /// The title is the user's (a rename), kept when the file is ingested again.
    pub renamed: bool,
    /// What it was read from: a PDF, a text file, or a Spring AI application's vector store.
    pub kind: ragsift_core::DocumentKind,
    pub checksum: String,
    pub size_bytes: u64,
    pub page_count: u32,
    pub chunk_count: u32,
    pub warning: Option<String>,
    pub embedding_model: String,
    pub ingested_at: i64,
}

/// A file that failed to ingest for a reason its bytes alone decide (encrypted, damaged, no text even by OCR),
/// remembered by its checksum so that the next ingest of the unchanged file does not read it again.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedFile {
    /// The canonical path.
    pub path: String,
    /// sha256 of the bytes that failed.
    pub checksum: String,
    /// The error's stable code (`no_text`, `encrypted`, `corrupt`).
    pub code: String,
    /// The error's message.
    pub reason: String,
    /// The OCR set-up it failed under: Tesseract's languages when OCR ran, empty when it did not.
    pub ocr: String,
    /// Unix seconds.
    pub failed_at: i64,
}

/// A stored chunk with the document it belongs to.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChunkRow {
    pub key: u64,
    pub id: String,
    pub document_id: String,
    pub document_path: String,
    pub document_title: String,
    pub index: u32,
    pub text: String,
    pub page_start: u32,
    pub page_end: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub tokens: u32,
    /// The row's own metadata as JSON, for chunks ragsift did not write (a Spring AI table's `metadata`).
    pub metadata: Option<String>,
    /// The heading path in force where the chunk starts ("3 Method", "3.2 Training"); empty before the first
    /// heading, for chunks ingested before sections were recorded, and for tables ragsift did not write.
    pub section: Vec<String>,
    /// Where the chunk's text lies on its pages, one box per run of lines in one column of one page; empty when
    /// unknown (plain text, OCR, older ingests, other tables).
    pub boxes: Vec<PageBox>,
}

impl ChunkRow {
    /// Where the chunk sits in its document.
    pub fn place(&self) -> ChunkPlace {
        ChunkPlace {
            page_start: self.page_start,
            page_end: self.page_end,
            char_start: self.char_start,
            char_end: self.char_end,
        }
    }
}

/// A page ready to be written: its number, its body text, whether OCR read it, and its furniture (text on the page
/// that is not its body, one piece per entry).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewPage {
    pub number: u32,
    pub text: String,
    pub ocr: bool,
    pub furniture: Vec<String>,
}

/// A chunk ready to be written: its text and place, and its vector.
#[derive(Debug, Clone)]
pub struct NewChunk {
    pub key: u64,
    pub id: String,
    pub index: usize,
    pub text: String,
    /// Its pages and character offsets.
    pub place: ChunkPlace,
    pub tokens: usize,
    /// The heading path in force where the chunk starts (empty before the first heading).
    pub section: Vec<String>,
    /// Where the chunk's text lies on its pages (empty when the loader knows no positions).
    pub boxes: Vec<PageBox>,
    pub embedding: Vec<f32>,
}

/// A run as listed (the trace itself is in [`RunStore::run`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunSummary {
    pub id: String,
    pub created_at: i64,
    pub query: String,
    pub judge: String,
    pub prompt_version: String,
    /// Who made the run (the `user` setting of the client that made it; a served run's client).
    #[serde(default)]
    pub made_by: String,
    #[serde(default)]
    pub origin: RunOrigin,
}

/// Where a run's candidates came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RunOrigin {
    /// Retrieved from this library by `ask`.
    #[default]
    Library,
    /// Another retriever's candidates (rag-jev's request or eval case), judged here.
    Imported,
    /// A selection `ragsift serve` made for a running application (`POST /v1/select`).
    Served,
}

impl RunOrigin {
    /// The name stored and sent (`library`, `imported`, `served`).
    pub fn as_str(self) -> &'static str {
        match self {
            RunOrigin::Library => "library",
            RunOrigin::Imported => "imported",
            RunOrigin::Served => "served",
        }
    }

    /// The origin a stored name names; an unknown one (a newer ragsift's) reads as `library`.
    pub fn parse(name: &str) -> RunOrigin {
        match name {
            "imported" => RunOrigin::Imported,
            "served" => RunOrigin::Served,
            _ => RunOrigin::Library,
        }
    }
}

/// One evidence label: `[char_start, char_end)` in characters (code points) of page `page` of the document
/// version `checksum`, for the normalised `question`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SpanLabel {
    /// sha256 of (question, checksum, page, range), shortened: the same span labelled again keeps its id.
    pub id: String,
    /// The question, normalised (trimmed, spaces collapsed, case-folded).
    pub question: String,
    /// The document it was labelled on (its id when labelled; the checksum is what matches).
    pub document_id: String,
    /// The document's version: sha256 of its bytes.
    pub checksum: String,
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
    /// The labelled text, as the page has it.
    pub text: String,
    /// Relevant evidence (`true`) or not relevant (`false`).
    pub relevant: bool,
    pub labelled_by: String,
    /// Unix seconds.
    pub labelled_at: i64,
    /// The run it was labelled from, if any.
    #[serde(default)]
    pub run_id: Option<String>,
}

impl SpanLabel {
    /// The id of a span of `question` (normalised) on page `page` of document version `checksum`.
    pub fn make_id(question: &str, checksum: &str, page: u32, char_start: u32, char_end: u32) -> String {
        let key = format!("{question}\0{checksum}\0{page}\0{char_start}\0{char_end}");
        ragsift_core::ids::sha256_hex(key.as_bytes())[..16].to_string()
    }
}

/// One cached answer of one judge question about one (query, passage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CachedJudgment {
    pub key: String,
    pub judge: String,
    pub model: String,
    pub answered_by: String,
    pub prompt_version: String,
    pub question: String,
    pub query_hash: String,
    pub passage_hash: String,
    pub probability: f64,
    pub input_tokens: u32,
    pub output_tokens: u32,
    pub latency_ms: f64,
    /// When it was answered, in Unix seconds.
    pub created_at: i64,
}

/// One search result: the chunk's vector key and its cosine similarity to the query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    pub key: u64,
    pub similarity: f32,
}

/// A store of unit vectors under u64 keys. A server-backed store can implement it too.
pub trait VectorIndex: Send + Sync {
    fn dimensions(&self) -> usize;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn contains(&self, key: u64) -> bool;
    /// Adds a vector, replacing any vector under the same key.
    fn add(&self, key: u64, vector: &[f32]) -> Result<()>;
    fn remove(&self, key: u64) -> Result<()>;
    fn search(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>>;
    /// Exact (brute-force) search, the baseline approximate search is measured against.
    fn exact_search(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>>;
    fn clear(&self) -> Result<()>;
    /// Makes the current contents durable (atomically: a crash leaves the old or the new file, never half).
    fn persist(&self) -> Result<()>;
    /// Makes the last write durable at the least cost: a file-backed index may journal a small change instead of
    /// saving itself whole (the usearch index keeps a journal); [`VectorIndex::persist`] still saves everything.
    fn sync(&self) -> Result<()> {
        self.persist()
    }
    /// Re-reads what another process saved (a file-backed index); returns whether it read anything.
    fn reload(&self) -> Result<bool> {
        Ok(false)
    }
}

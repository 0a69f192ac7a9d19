//! The library's tunables: how files are extracted, chunked and embedded, and how the index is searched.

use crate::Result;
use ragsift_core::paths::DEFAULT_EMBEDDING_MODEL;
use ragsift_core::FieldProblem;
use serde::{Deserialize, Serialize};

/// Ingest and retrieval tunables; every field has a default. Part of the app's settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct LibraryConfig {
    /// Embedding model id: a folder under the models dir.
    pub embedding_model: String,
    /// An OpenAI-compatible embeddings server (`http://host:port`, `/v1/embeddings`) that embeds queries and new
    /// chunks instead of the local model: to query an index another pipeline built. Empty: the local model.
    pub embedding_endpoint: String,
    /// The server's model name (with `embedding_endpoint`).
    pub embedding_server_model: String,
    /// Environment variable holding the server's API key (sent only over HTTPS or to loopback).
    pub embedding_api_key_env: String,
    /// Largest chunk, in the embedding model's tokens (special tokens excluded).
    pub chunk_tokens: usize,
    /// Tokens repeated between consecutive chunks.
    pub overlap_tokens: usize,
    /// Files larger than this are refused.
    pub max_file_mb: u64,
    /// Extraction of one file is abandoned after this long.
    pub extract_timeout_secs: u64,
    /// At most this many texts per inference batch; batches are also cut by length (about 250 tokens padded),
    /// so long chunks run one at a time and short texts many together.
    pub embed_batch: usize,
    /// Threads for ONNX Runtime (0 = all cores).
    pub embed_threads: usize,
    /// Hits per query variant. Default 12, chosen on the labelled set's folds with the local judge: hybrid search
    /// at 12 puts an evidence chunk among the hits for 98% of questions against 82% at Spring AI's top-k 4
    /// (BENCHMARKS.md, "Retrieve more, keep what answers"); the judge then cuts what does not answer.
    pub top_k: usize,
    /// Hits below this cosine similarity are dropped (Spring AI's default: 0.0, keep all).
    pub similarity_threshold: f32,
    /// HNSW search width; the default of usearch gives poor recall, see BENCHMARKS.md.
    pub expansion_search: usize,
    /// Read image-only (scanned) PDF pages with Tesseract when it is installed.
    pub ocr: bool,
    /// Tesseract's languages for OCR, joined by `+` (e.g. `eng+deu`); each needs its `tesseract-ocr-<lang>`.
    pub ocr_languages: String,
    /// Where the library lives: empty for this machine (SQLite + usearch), or a PostgreSQL server as
    /// `postgres://user@host:port/database` (no password: see `RAGSIFT_STORE_URL`).
    pub store: String,
    /// A Spring AI PgVectorStore table (`schema.table`, e.g. `public.vector_store`) in the `store` database, opened
    /// read-only as this library's chunks; empty: ragsift's own tables.
    pub spring_table: String,
    /// Your name on the runs you make, so a shared library shows who made each (empty: the login name).
    pub user: String,
}

impl Default for LibraryConfig {
    fn default() -> Self {
        LibraryConfig {
            embedding_model: DEFAULT_EMBEDDING_MODEL.into(),
            embedding_endpoint: String::new(),
            embedding_server_model: String::new(),
            embedding_api_key_env: "RAGSIFT_API_KEY".into(),
            chunk_tokens: 256,
            overlap_tokens: 32,
            max_file_mb: 200,
            extract_timeout_secs: 120,
            embed_batch: 32,
            embed_threads: 0,
            top_k: 12,
            similarity_threshold: 0.0,
            expansion_search: 128,
            ocr: true,
            ocr_languages: "eng".into(),
            store: String::new(),
            user: String::new(),
            spring_table: String::new(),
        }
    }
}

/// How scanned pages are read in this set-up: by OCR with these options, or not, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OcrSetup {
    /// OCR is on and Tesseract with the languages is installed.
    On(ragsift_ingest::extract::OcrOptions),
    /// `ocr = false` in the settings.
    Off,
    /// Tesseract, one of the languages or poppler's `pdftoppm` is not installed.
    Missing,
}

impl OcrSetup {
    /// The options when OCR runs.
    pub fn options(&self) -> Option<&ragsift_ingest::extract::OcrOptions> {
        match self {
            OcrSetup::On(o) => Some(o),
            _ => None,
        }
    }

    /// What a file without text says about OCR when OCR did not run (it says "also not by OCR" when it did).
    pub fn no_text(&self) -> ragsift_core::NoTextOcr {
        match self {
            OcrSetup::On(_) => ragsift_core::NoTextOcr::Read,
            OcrSetup::Off => ragsift_core::NoTextOcr::Off,
            OcrSetup::Missing => ragsift_core::NoTextOcr::Missing,
        }
    }

    /// Extracts a file as ingest does: pages without text read by OCR when it is on, `on_ocr(k, n)` before the
    /// k-th of n such pages; a file without text says whether OCR read it, or why not.
    pub fn extract(
        &self,
        path: &std::path::Path,
        limits: ragsift_ingest::extract::Limits,
        on_ocr: &dyn Fn(usize, usize),
    ) -> Result<ragsift_ingest::extract::Extracted> {
        use ragsift_ingest::extract::Loader;
        // In an extraction worker when the program installed one (the CLI and the app do), else here.
        ragsift_ingest::worker::extract_isolated(path, limits, self.options(), on_ocr)
            // The warning for pages still garbled says whether OCR read them, or why not.
            .map(|ex| ex.with_ocr(self.no_text()))
            .map_err(|e| match self {
                OcrSetup::Off | OcrSetup::Missing if ragsift_ingest::extract::PdfLoader.accepts(path) => {
                    e.with_ocr(self.no_text())
                }
                _ => e,
            })
    }

    /// The OCR set-up a remembered failure was made under: the languages when OCR ran, empty when it did not.
    pub fn key(&self) -> String {
        self.options().map(|o| o.languages.clone()).unwrap_or_default()
    }
}

impl LibraryConfig {
    /// How scanned pages are read: by OCR when it is on and Tesseract with the languages is installed (this runs
    /// `tesseract --list-langs`; ingest and `ragsift extract` check once per run).
    pub fn ocr_setup(&self) -> OcrSetup {
        if !self.ocr {
            return OcrSetup::Off;
        }
        let options = ragsift_ingest::extract::OcrOptions {
            languages: self.ocr_languages.clone(),
            ..Default::default()
        };
        if ragsift_ingest::extract::ocr_available(&options.languages) {
            OcrSetup::On(options)
        } else {
            OcrSetup::Missing
        }
    }

    /// The version of a file's content its chunk ids are made from: the file's checksum, the version of extraction
    /// ([`ragsift_ingest::EXTRACTION_VERSION`]) and the chunking when it is not the default. A file whose chunks were
    /// made by an older extractor or with other chunk settings is then not "unchanged": the next ingest reads it
    /// again, under new ids, instead of keeping chunks that no longer say what ragsift reads in the file.
    pub fn chunk_version(&self, checksum: &str) -> String {
        self.chunk_version_at(checksum, ragsift_ingest::EXTRACTION_VERSION)
    }

    /// [`LibraryConfig::chunk_version`] under a given version of extraction (the ids of version 1, before versions
    /// were counted, are the checksum alone).
    fn chunk_version_at(&self, checksum: &str, extraction: u32) -> String {
        let d = LibraryConfig::default();
        let content = if extraction <= 1 {
            checksum.to_string()
        } else {
            format!("{checksum}#x{extraction}")
        };
        if (self.chunk_tokens, self.overlap_tokens) == (d.chunk_tokens, d.overlap_tokens) {
            content
        } else {
            format!("{content}@{}/{}", self.chunk_tokens, self.overlap_tokens)
        }
    }

    /// Refuses values the pipeline cannot work with, naming the field.
    pub fn validate(&self) -> Result<()> {
        FieldProblem::first_as_error(&self.problems())
    }

    /// Every value the pipeline cannot work with, by field.
    pub fn problems(&self) -> Vec<FieldProblem> {
        let mut p = Vec::new();
        if self.embedding_model.trim().is_empty() {
            p.push(FieldProblem::new(
                "embedding_model",
                "choose an embedding model id (a folder under models/)",
            ));
        }
        let endpoint = self.embedding_endpoint.trim();
        if !(endpoint.is_empty() || endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
            p.push(FieldProblem::new(
                "embedding_endpoint",
                "an http:// or https:// URL of an OpenAI-compatible server, or empty for the local model",
            ));
        } else if !endpoint.is_empty() && self.embedding_server_model.trim().is_empty() {
            p.push(FieldProblem::new(
                "embedding_server_model",
                "name the server's embedding model (e.g. text-embedding-3-small)",
            ));
        }
        if !(16..=8192).contains(&self.chunk_tokens) {
            p.push(FieldProblem::new("chunk_tokens", "must be between 16 and 8192 tokens"));
        } else if self.overlap_tokens >= self.chunk_tokens / 2 {
            p.push(FieldProblem::new(
                "overlap_tokens",
                format!(
                    "must be less than half of chunk_tokens (< {})",
                    self.chunk_tokens.div_ceil(2)
                ),
            ));
        }
        if self.max_file_mb == 0 {
            p.push(FieldProblem::new("max_file_mb", "must be at least 1 MB"));
        }
        if self.extract_timeout_secs == 0 {
            p.push(FieldProblem::new("extract_timeout_secs", "must be at least 1 second"));
        }
        if self.embed_batch == 0 || self.embed_batch > 1024 {
            p.push(FieldProblem::new("embed_batch", "must be between 1 and 1024"));
        }
        if self.embed_threads > 256 {
            p.push(FieldProblem::new(
                "embed_threads",
                "must be between 0 (all cores) and 256",
            ));
        }
        if self.top_k == 0 || self.top_k > 200 {
            p.push(FieldProblem::new("top_k", "must be between 1 and 200"));
        }
        if !(0.0..=1.0).contains(&self.similarity_threshold) {
            p.push(FieldProblem::new("similarity_threshold", "must be between 0 and 1"));
        }
        if self.expansion_search == 0 {
            p.push(FieldProblem::new("expansion_search", "must be at least 1"));
        }
        let language = |l: &str| !l.is_empty() && l.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        if !self.ocr_languages.split('+').all(language) {
            p.push(FieldProblem::new(
                "ocr_languages",
                "Tesseract language codes joined by +, such as eng or eng+deu",
            ));
        }
        if self.user.chars().count() > 100 || self.user.chars().any(char::is_control) {
            p.push(FieldProblem::new("user", "at most 100 characters, on one line"));
        }
        if let Some(problem) = crate::location::setting_problem(&self.store) {
            p.push(FieldProblem::new("store", problem));
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::LibraryConfig;

    #[test]
    fn chunk_ids_follow_the_extraction_version_and_the_chunk_settings() {
        let d = LibraryConfig::default();
        assert_eq!(
            d.chunk_version_at("c0ffee", 1),
            "c0ffee",
            "ids from before versions were counted"
        );
        assert_ne!(
            d.chunk_version("c0ffee"),
            d.chunk_version_at("c0ffee", 1),
            "this extractor's chunks are not an older one's"
        );
        assert_ne!(d.chunk_version_at("c0ffee", 2), d.chunk_version_at("c0ffee", 3));
        let other = LibraryConfig {
            chunk_tokens: d.chunk_tokens + 1,
            ..d.clone()
        };
        assert_ne!(other.chunk_version("c0ffee"), d.chunk_version("c0ffee"));
        assert_ne!(other.chunk_version_at("c0ffee", 1), d.chunk_version_at("c0ffee", 1));
    }
}

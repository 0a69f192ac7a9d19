//! The library's documents through the workbench: ingest with its options, search at the library's defaults,
//! removal by id, path or missing file, the store's overview, and a file's text as ingest reads it. The CLI and
//! the app call these; neither opens the library or the extractor itself.

use crate::{Result, Settings, Workbench};
use ragsift_core::progress::IngestEvent;
use ragsift_ingest::extract::{Limits, PageText};
use ragsift_interfaces::retrieve::{Hit, Retriever, SearchMode, SearchRequest};
use ragsift_library::library::{IngestOptions, IngestReport};
use ragsift_library::retrieve::LibraryRetriever;
use ragsift_store::sqlite::DocumentRow;
use ragsift_store::{StoreInfo, StoreKind};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// A search as a person asks it: the hit count and similarity floor default to the library's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    pub query: String,
    pub top_k: Option<usize>,
    pub threshold: Option<f32>,
    pub search_mode: SearchMode,
}

/// A search's answer: the request as run (defaults filled in) and its ranked hits.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    pub query: String,
    pub search_mode: SearchMode,
    pub top_k: usize,
    pub threshold: f32,
    pub hits: Vec<SearchHit>,
}

/// One hit: where the chunk is, its scores, and its text.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub rank: usize,
    pub chunk_id: String,
    pub document: String,
    pub document_id: String,
    pub title: String,
    pub page_start: u32,
    pub page_end: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub score: f32,
    pub similarity: Option<f32>,
    pub vector_rank: Option<usize>,
    pub bm25: Option<f32>,
    pub keyword_rank: Option<usize>,
    pub text: String,
}

impl From<Hit> for SearchHit {
    fn from(h: Hit) -> Self {
        let c = h.chunk;
        SearchHit {
            rank: h.rank,
            chunk_id: c.id,
            document: c.document_path,
            document_id: c.document_id,
            title: c.document_title,
            page_start: c.page_start,
            page_end: c.page_end,
            char_start: c.char_start,
            char_end: c.char_end,
            score: h.score,
            similarity: h.similarity,
            vector_rank: h.vector_rank,
            bm25: h.bm25,
            keyword_rank: h.keyword_rank,
            text: c.text,
        }
    }
}

/// The library at a glance: its documents and its store.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryOverview {
    pub documents: Vec<DocumentRow>,
    pub store: StoreSummary,
}

/// Where the library lives and how big it is.
#[derive(Debug, Clone, Serialize)]
pub struct StoreSummary {
    pub kind: StoreKind,
    pub location: String,
    pub size_bytes: u64,
    pub chunks: u64,
}

impl StoreSummary {
    /// The store's engines in words ("SQLite + usearch").
    pub fn engine(&self) -> &'static str {
        match self.kind {
            StoreKind::Sqlite => "SQLite + usearch",
            StoreKind::Postgres => "PostgreSQL + pgvector",
        }
    }
}

/// What a removal did: the documents removed, and one error per target that could not be.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Removal {
    pub removed: Vec<DocumentRow>,
    pub errors: Vec<String>,
}

/// A file's text as ingest reads it, page by page, with the tables found on each page.
#[derive(Debug, Clone, Serialize)]
pub struct Extraction {
    pub pages: Vec<PageText>,
    pub tables: Vec<PageTable>,
    pub warning: Option<String>,
}

/// A table as its chunk reads: the caption and header, then one header-keyed line per row.
#[derive(Debug, Clone, Serialize)]
pub struct PageTable {
    pub page: u32,
    pub head: String,
    pub rows: Vec<String>,
}

impl Workbench {
    /// Ingests files and folders with `options`; files are skipped once `job` is cancelled.
    pub fn ingest_with(
        &self,
        paths: &[PathBuf],
        options: IngestOptions,
        job: &str,
        on_event: &(dyn Fn(&IngestEvent) + Sync),
    ) -> Result<IngestReport> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let embedder = self.query_embedder()?;
        self.library()
            .ingest_with(embedder.as_ref(), paths, on_event, &cancel, options)
    }

    /// Searches the library; the hit count and similarity floor default to the library's settings.
    pub fn search(&self, q: &SearchQuery) -> Result<SearchResults> {
        let (lib, embedder) = (self.library(), self.query_embedder()?);
        let request = SearchRequest {
            query: q.query.clone(),
            top_k: q.top_k.unwrap_or(lib.settings().top_k),
            threshold: q.threshold.unwrap_or(lib.settings().similarity_threshold),
            search_mode: q.search_mode,
        };
        let retriever = LibraryRetriever {
            library: &lib,
            embedder: embedder.as_ref(),
        };
        let hits = retriever.retrieve(&request)?;
        Ok(SearchResults {
            query: request.query,
            search_mode: request.search_mode,
            top_k: request.top_k,
            threshold: request.threshold,
            hits: hits.into_iter().map(SearchHit::from).collect(),
        })
    }

    /// The documents and the store they live in.
    pub fn overview(&self) -> Result<LibraryOverview> {
        let lib = self.library();
        let StoreInfo { kind, location } = lib.store_info();
        Ok(LibraryOverview {
            documents: lib.documents()?,
            store: StoreSummary {
                kind,
                location,
                size_bytes: lib.store().size_bytes()?,
                chunks: lib.store().chunk_count()?,
            },
        })
    }

    /// Removes each target (a document id or path), and with `missing` every document whose file is gone; a
    /// target that cannot be removed is reported and the others still go.
    pub fn remove_documents(&self, targets: &[String], missing: bool) -> Result<Removal> {
        let lib = self.library();
        let mut out = Removal {
            removed: if missing { lib.remove_missing()? } else { Vec::new() },
            errors: Vec::new(),
        };
        for t in targets {
            match lib.remove(t) {
                Ok(d) => out.removed.push(d),
                Err(e) => out.errors.push(e.to_string()),
            }
        }
        Ok(out)
    }
}

/// A file's text as ingest in `home` reads it (its limits and OCR setting), without opening the library;
/// `on_ocr(k, n)` runs before the k-th of n pages OCR reads.
pub fn extract(home: &Path, file: &Path, on_ocr: &dyn Fn(usize, usize)) -> Result<Extraction> {
    let s = Settings::load(home)?;
    let limits = Limits {
        max_file_mb: s.library.max_file_mb,
        timeout: std::time::Duration::from_secs(s.library.extract_timeout_secs),
    };
    let ex = s.library.ocr_setup().extract(file, limits, on_ocr)?;
    let tables = (ex.pages.iter())
        .flat_map(|p| p.tables.iter().map(move |t| (p.number, t)))
        .map(|(page, t)| PageTable {
            page,
            head: t.head.clone(),
            rows: t.rows.iter().map(|r| r.text.clone()).collect(),
        })
        .collect();
    Ok(Extraction {
        warning: ex.warning(),
        pages: ex.pages,
        tables,
    })
}

//! The library: a home folder with the SQLite store and the usearch index, kept consistent with each other.
//! Ingest (skip unchanged, replace changed), remove, list, and the reconcile that runs on every open.
//!
//! Several processes (the app and the CLI) may use one library at once. SQLite is the source of truth and the
//! usearch file a cache of it: writers take the library's writer lock ([`crate::writer`]) for the whole batch, and
//! every chunk write bumps the store's generation in its transaction. A process whose index is older than the
//! stored generation reloads the file and applies what it lacks from SQLite before it searches
//! ([`Library::refresh`]); the index file is only ever saved under the writer lock, from a current index.

use crate::backend::{DocumentStore, LibraryStore, StoreInfo};
use crate::config::LibraryConfig;
use crate::index::{UsearchIndex, VectorIndex};
use crate::location::{self, StoreLocation};
use crate::pg::spring::SpringTable;
use crate::pg::PgStore;
use crate::store::{DocumentRow, NewChunk, Store};
use crate::writer;
use crate::{Error, Result};
use ragsift_core::ids;
use ragsift_core::progress::{IngestEvent, IngestStatus, Progress};
use ragsift_ingest::chunk::{Chunker, TokenChunker};
use ragsift_ingest::extract::{self, Limits, Loader};
use ragsift_models::embed::Embedder;
use ragsift_models::llm::CancelToken;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const DB_FILE: &str = "ragsift.db";
pub const INDEX_FILE: &str = "vectors.usearch";
const DEFAULT_DIMENSIONS: usize = 384;
const PERSIST_EVERY: Duration = Duration::from_secs(30);

/// What happened to one input file.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FileReport {
    pub path: String,
    /// How it ended.
    pub status: IngestStatus,
    pub pages: u32,
    pub chunks: u32,
    pub error: Option<String>,
    /// Stable code of the error (`encrypted`, `corrupt`, `no_text`, …).
    pub error_code: Option<String>,
    /// Pages skipped inside an ingested file (e.g. image-only pages).
    pub warning: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct IngestReport {
    pub files: Vec<FileReport>,
}

impl IngestReport {
    pub fn failed(&self) -> usize {
        self.files.iter().filter(|f| f.status == IngestStatus::Failed).count()
    }
}

/// What the reconcile on open found and repaired.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Reconciled {
    pub chunks: usize,
    pub vectors_added: usize,
    pub rebuilt: bool,
}

/// An open library.
pub struct Library {
    home: PathBuf,
    settings: LibraryConfig,
    store: Box<dyn LibraryStore>,
    index: Box<dyn VectorIndex>,
    /// The store keeps and searches the vectors itself (PostgreSQL): no index file to reconcile or reload, and
    /// writers coordinate through the server (advisory locks), not through a lock file on this machine.
    server: bool,
    reconciled: Reconciled,
    /// The store generation the in-memory index reflects.
    generation: AtomicU64,
    /// Writes of this process in progress (its index is then authoritative: no reload under it).
    writing: AtomicUsize,
    /// How long a writer waits for another process's writer lock.
    writer_wait: Duration,
}

impl Library {
    /// Opens (creating if needed) the library in `home` and reconciles its index with its database: afterwards
    /// every chunk has its vector and no vector lacks its chunk, whatever a crash left behind.
    pub fn open(home: &Path, settings: LibraryConfig) -> Result<Self> {
        settings.validate()?;
        std::fs::create_dir_all(home).map_err(|e| Error::io(home, e))?;
        let (store, index, server): (Box<dyn LibraryStore>, Box<dyn VectorIndex>, bool) =
            match location::resolve(home, &settings.store)? {
                StoreLocation::Local if !settings.spring_table.trim().is_empty() => {
                    return Err(Error::Invalid(
                        "spring_table needs the PostgreSQL database that holds it as the store".into(),
                    ))
                }
                StoreLocation::Local => {
                    let store = Store::open(&home.join(DB_FILE))?;
                    let dims = store
                        .meta("dimensions")?
                        .and_then(|d| d.parse().ok())
                        .unwrap_or(DEFAULT_DIMENSIONS);
                    let index = UsearchIndex::open(&home.join(INDEX_FILE), dims, settings.expansion_search)?;
                    (Box::new(store), Box::new(index), false)
                }
                StoreLocation::Postgres(url) if !settings.spring_table.trim().is_empty() => {
                    let table = SpringTable::open(
                        &url,
                        settings.spring_table.trim(),
                        &home.join(DB_FILE),
                        settings.expansion_search,
                    )?;
                    let index = table
                        .vector_index(settings.expansion_search)
                        .ok_or_else(|| Error::Setup("the Spring AI table has no vector index".into()))?;
                    (Box::new(table), index, true)
                }
                StoreLocation::Postgres(url) => {
                    let store = PgStore::open(&url)?;
                    let index = store
                        .vector_index(settings.expansion_search)
                        .ok_or_else(|| Error::Setup("the PostgreSQL store has no vector index".into()))?;
                    (Box::new(store), index, true)
                }
            };
        let generation = store.generation()?;
        let mut lib = Library {
            home: home.to_path_buf(),
            settings,
            store,
            index,
            server,
            reconciled: Reconciled::default(),
            generation: AtomicU64::new(generation),
            writing: AtomicUsize::new(0),
            writer_wait: writer::DEFAULT_WAIT,
        };
        lib.reconciled = lib.reconcile()?;
        lib.save_if_current()?;
        Ok(lib)
    }

    /// How long a write waits for another process's (default 15 minutes).
    pub fn set_writer_wait(&mut self, wait: Duration) {
        self.writer_wait = wait;
    }

    /// The store generation this process's index reflects.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Brings the in-memory index up to the database when another process wrote since it was loaded: reloads the
    /// index file and applies what it lacks from SQLite. One small query when nothing changed; returns whether it
    /// reloaded. Searches call it first.
    pub fn refresh(&self) -> Result<bool> {
        if self.server || self.writing.load(Ordering::Acquire) > 0 {
            return Ok(false);
        }
        let stored = self.store.generation()?;
        if stored == self.generation() {
            return Ok(false);
        }
        self.index.reload()?;
        self.reconcile()?;
        self.generation.store(stored, Ordering::Release);
        Ok(true)
    }

    /// Saves the index file if it has unsaved changes, it reflects the stored generation, and no other process
    /// is writing (then that one saves its own, newer index).
    fn save_if_current(&self) -> Result<()> {
        if self.server {
            return Ok(());
        }
        if let Some(_guard) = writer::try_acquire(&self.home)? {
            if self.store.generation()? == self.generation() {
                self.index.persist()?;
            }
        }
        Ok(())
    }

    /// Runs `write` holding the library's writer lock, on an index brought up to date first; saves the index
    /// before the lock is released.
    fn exclusive<T>(&self, progress: Progress<'_>, write: impl FnOnce() -> Result<T>) -> Result<T> {
        if self.store.read_only() {
            return Err(Error::NotSupported(format!(
                "{} is read-only: ragsift does not ingest into or remove from it",
                self.store.info().location
            )));
        }
        if self.server {
            return write();
        }
        let _guard = writer::acquire(&self.home, self.writer_wait, progress)?;
        self.refresh()?;
        self.writing.fetch_add(1, Ordering::AcqRel);
        let result = write();
        let saved = self.index.persist();
        let generation = self.store.generation();
        self.writing.fetch_sub(1, Ordering::AcqRel);
        self.generation.store(generation?, Ordering::Release);
        let value = result?;
        saved?;
        Ok(value)
    }

    pub fn home(&self) -> &Path {
        &self.home
    }
    /// The tunables the library was opened with.
    pub fn settings(&self) -> &LibraryConfig {
        &self.settings
    }
    pub fn store(&self) -> &dyn LibraryStore {
        self.store.as_ref()
    }
    pub fn index(&self) -> &dyn VectorIndex {
        self.index.as_ref()
    }
    /// The name runs made here are recorded under: the `user` setting, else the login name.
    pub fn user(&self) -> String {
        let set = self.settings.user.trim();
        if !set.is_empty() {
            return set.to_string();
        }
        std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .unwrap_or_else(|_| "unknown".into())
    }

    /// Which engine holds the library, and where.
    pub fn store_info(&self) -> StoreInfo {
        self.store.info()
    }
    /// What the last open repaired.
    pub fn reconciled(&self) -> &Reconciled {
        &self.reconciled
    }

    fn reconcile(&self) -> Result<Reconciled> {
        if self.server {
            // The vectors are columns of the chunk rows: nothing can be out of step.
            return Ok(Reconciled {
                chunks: self.store.chunk_count()? as usize,
                ..Reconciled::default()
            });
        }
        let keys = self.store.chunk_keys()?;
        let missing: std::collections::HashSet<u64> =
            keys.iter().copied().filter(|k| !self.index.contains(*k)).collect();
        let present = keys.len() - missing.len();
        // usearch cannot list its keys, but with unique keys a size larger than the present chunk count means
        // vectors without chunks: then rebuild the whole index from the vectors the database holds.
        let rebuilt = self.index.len() != present;
        if rebuilt {
            self.index.clear()?;
        }
        let mut added = 0;
        self.store
            .for_each_vector(&|k| rebuilt || missing.contains(&k), &mut |k, v| {
                added += 1;
                self.index.add(k, v)
            })?;
        Ok(Reconciled {
            chunks: keys.len(),
            vectors_added: added,
            rebuilt,
        })
    }

    /// Binds the library to one embedding model: vectors of different models never mix.
    fn check_model(&self, embedder: &dyn Embedder) -> Result<()> {
        match self.store.meta("embedding_model")? {
            Some(m) if m != embedder.id() => Err(Error::Invalid(format!(
                "this library was embedded with '{m}', not '{}': use another --home, or remove its documents first",
                embedder.id()
            ))),
            Some(_) => Ok(()),
            None => {
                if !self.server && embedder.dimensions() != self.index.dimensions() {
                    return Err(Error::Invalid(format!(
                        "index dimension {} does not match model dimension {}",
                        self.index.dimensions(),
                        embedder.dimensions()
                    )));
                }
                self.store.bind_dimensions(embedder.dimensions())?;
                self.store.set_meta("embedding_model", embedder.id())?;
                self.store.set_meta("dimensions", &embedder.dimensions().to_string())
            }
        }
    }

    /// Ingests files and folders (recursively, supported files only). A file that fails is reported and the
    /// batch goes on; an unchanged file (same path, same checksum, same model) is skipped without embedding.
    pub fn ingest(&self, embedder: &dyn Embedder, inputs: &[PathBuf], progress: Progress<'_>) -> Result<IngestReport> {
        self.ingest_cancellable(embedder, inputs, progress, &CancelToken::new())
    }

    /// [`Library::ingest`] that stops between files once `cancel` is set: the files done so far stay in the
    /// library, the rest are reported `cancelled`, and the index is saved either way.
    pub fn ingest_cancellable(
        &self,
        embedder: &dyn Embedder,
        inputs: &[PathBuf],
        progress: Progress<'_>,
        cancel: &CancelToken,
    ) -> Result<IngestReport> {
        self.exclusive(progress, || self.ingest_locked(embedder, inputs, progress, cancel))
    }

    fn ingest_locked(
        &self,
        embedder: &dyn Embedder,
        inputs: &[PathBuf],
        progress: Progress<'_>,
        cancel: &CancelToken,
    ) -> Result<IngestReport> {
        if self.store.meta("embedding_model")?.is_none()
            && self.store.documents()?.is_empty()
            && embedder.dimensions() != self.index.dimensions()
        {
            // A fresh library adopts the model's dimension.
            self.index.clear()?;
        }
        let files = expand_inputs(inputs);
        progress(&IngestEvent::Scanned { files: files.len() });
        let budget = self.settings.chunk_tokens.min(embedder.max_tokens().saturating_sub(2));
        let chunker = TokenChunker::from_file(embedder.tokenizer_path(), budget, self.settings.overlap_tokens)?;
        // OCR for scanned pages when it is on and Tesseract (with the languages) is installed; checked once a batch.
        let ocr = self
            .settings
            .ocr
            .then(|| extract::OcrOptions {
                languages: self.settings.ocr_languages.clone(),
                ..Default::default()
            })
            .filter(|o| extract::ocr_available(&o.languages));
        let mut report = IngestReport { files: Vec::new() };
        let mut last_persist = Instant::now();
        for (i, file) in files.iter().enumerate() {
            let shown = match file {
                Ok(p) => p.display().to_string(),
                Err(e) => e.clone(),
            };
            let (n, total) = (i + 1, files.len());
            if cancel.is_cancelled() {
                report.files.push(FileReport {
                    path: shown,
                    status: IngestStatus::Cancelled,
                    pages: 0,
                    chunks: 0,
                    error: None,
                    error_code: None,
                    warning: None,
                });
                continue;
            }
            progress(&IngestEvent::FileStarted {
                file: n,
                total,
                path: shown.clone(),
            });
            let result = match file {
                Ok(path) => self.ingest_file(embedder, &chunker, path, (n, ocr.as_ref()), progress),
                Err(e) => Err(Error::NotFound(e.clone())),
            };
            let entry = file_report(&shown, result);
            progress(&IngestEvent::FileFinished {
                file: n,
                total,
                path: shown,
                status: entry.status,
            });
            report.files.push(entry);
            if last_persist.elapsed() > PERSIST_EVERY {
                self.index.persist()?;
                last_persist = Instant::now();
            }
        }
        progress(&IngestEvent::Saving);
        self.index.persist()?;
        Ok(report)
    }

    fn ingest_file(
        &self,
        embedder: &dyn Embedder,
        chunker: &dyn Chunker,
        path: &Path,
        (n, ocr): (usize, Option<&extract::OcrOptions>),
        progress: Progress<'_>,
    ) -> Result<(DocumentRow, bool)> {
        let canonical = path.canonicalize().map_err(|e| Error::io(path, e))?;
        let canonical_str = canonical.to_string_lossy().to_string();
        let bytes = std::fs::read(&canonical).map_err(|e| Error::io(&canonical, e))?;
        let checksum = ids::sha256_hex(&bytes);
        drop(bytes);
        if let Some(doc) = self.store.document_by_path(&canonical_str)? {
            if doc.checksum == checksum && doc.embedding_model == embedder.id() {
                return Ok((doc, false));
            }
        }
        let limits = Limits {
            max_file_mb: self.settings.max_file_mb,
            timeout: Duration::from_secs(self.settings.extract_timeout_secs),
        };
        let extracted = extract::extract_file_with_ocr(&canonical, limits, ocr, &|page, pages| {
            progress(&IngestEvent::Ocr { file: n, page, pages });
        })?;
        let drafts = chunker.chunk(&extracted.pages)?;
        progress(&IngestEvent::Extracted {
            file: n,
            pages: extracted.pages.len(),
            chunks: drafts.len(),
        });
        let mut vectors = Vec::with_capacity(drafts.len());
        for batch in drafts.chunks(self.settings.embed_batch) {
            let texts: Vec<&str> = batch.iter().map(|d| d.text.as_str()).collect();
            vectors.extend(embedder.embed(&texts)?);
            progress(&IngestEvent::Embedding {
                file: n,
                done: vectors.len(),
                total: drafts.len(),
            });
        }
        self.check_model(embedder)?;
        let doc_id = ids::document_id(&canonical_str);
        let chunks: Vec<NewChunk> = drafts
            .into_iter()
            .zip(vectors)
            .map(|(d, embedding)| {
                let id = ids::chunk_id(&doc_id, &checksum, d.index);
                NewChunk {
                    key: ids::vector_key(&id),
                    id,
                    index: d.index,
                    text: d.text,
                    page_start: d.page_start,
                    page_end: d.page_end,
                    char_start: d.char_start,
                    char_end: d.char_end,
                    tokens: d.tokens,
                    embedding,
                }
            })
            .collect();
        let doc = DocumentRow {
            id: doc_id,
            path: canonical_str,
            title: title_of(&canonical, &extracted.pages),
            kind: if extract::PdfLoader.accepts(&canonical) {
                "pdf"
            } else {
                "text"
            }
            .into(),
            checksum,
            size_bytes: std::fs::metadata(&canonical).map(|m| m.len()).unwrap_or(0),
            page_count: extracted.pages.len() as u32,
            chunk_count: chunks.len() as u32,
            warning: extracted.warning(),
            embedding_model: embedder.id().to_string(),
            ingested_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0),
        };
        let pages: Vec<(u32, String, bool)> = extracted.pages.into_iter().map(|p| (p.number, p.text, p.ocr)).collect();
        // The database commits first (it holds the vectors); the index follows and is repaired on open if a
        // crash comes in between.
        let replaced = self.store.replace_document(&doc, &pages, &chunks)?;
        for key in replaced {
            self.index.remove(key)?;
        }
        for c in &chunks {
            self.index.add(c.key, &c.embedding)?;
        }
        Ok((doc, true))
    }

    /// Removes a document, by id or by path, with its chunks and vectors.
    pub fn remove(&self, id_or_path: &str) -> Result<DocumentRow> {
        self.exclusive(&|_| {}, || self.remove_locked(id_or_path))
    }

    fn remove_locked(&self, id_or_path: &str) -> Result<DocumentRow> {
        let doc = match self.store.document(id_or_path)? {
            Some(d) => d,
            None => {
                let canonical = Path::new(id_or_path)
                    .canonicalize()
                    .map(|p| p.to_string_lossy().to_string())
                    .unwrap_or_else(|_| id_or_path.to_string());
                self.store
                    .document_by_path(&canonical)?
                    .ok_or_else(|| Error::NotFound(format!("no document '{id_or_path}' in the library")))?
            }
        };
        for key in self.store.remove_document(&doc.id)? {
            self.index.remove(key)?;
        }
        Ok(doc)
    }

    /// Removes every document whose file no longer exists; returns them.
    pub fn remove_missing(&self) -> Result<Vec<DocumentRow>> {
        self.exclusive(&|_| {}, || self.remove_missing_locked())
    }

    fn remove_missing_locked(&self) -> Result<Vec<DocumentRow>> {
        let gone: Vec<DocumentRow> = self
            .store
            .documents()?
            .into_iter()
            .filter(|d| !Path::new(&d.path).exists())
            .collect();
        for d in &gone {
            for key in self.store.remove_document(&d.id)? {
                self.index.remove(key)?;
            }
        }
        Ok(gone)
    }

    pub fn documents(&self) -> Result<Vec<DocumentRow>> {
        self.store.documents()
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        let _ = self.save_if_current();
    }
}

fn file_report(path: &str, result: Result<(DocumentRow, bool)>) -> FileReport {
    match result {
        Ok((doc, fresh)) => FileReport {
            path: path.to_string(),
            status: if fresh {
                IngestStatus::Ingested
            } else {
                IngestStatus::Unchanged
            },
            pages: doc.page_count,
            chunks: doc.chunk_count,
            error: None,
            error_code: None,
            warning: doc.warning,
        },
        Err(e) => FileReport {
            path: path.to_string(),
            status: IngestStatus::Failed,
            pages: 0,
            chunks: 0,
            error: Some(e.to_string()),
            error_code: Some(e.code().into()),
            warning: None,
        },
    }
}

/// Files named directly (whatever their type: an unsupported one is reported) and supported files found
/// recursively in folders, sorted, without duplicates. A path that does not exist becomes an error entry.
fn expand_inputs(inputs: &[PathBuf]) -> Vec<std::result::Result<PathBuf, String>> {
    let mut out: Vec<std::result::Result<PathBuf, String>> = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(input)
                .follow_links(true)
                .into_iter()
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_file() && extract::is_supported(e.path()))
                .map(|e| e.into_path())
                .collect();
            found.sort();
            out.extend(found.into_iter().map(Ok));
        } else if input.exists() {
            out.push(Ok(input.clone()));
        } else {
            out.push(Err(format!("{}: no such file or folder", input.display())));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|e| match e {
        Ok(p) => seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())),
        Err(_) => true,
    });
    out
}

/// The document's title: its first short line of text, else the file name.
fn title_of(path: &Path, pages: &[extract::PageText]) -> String {
    let first = pages
        .iter()
        .flat_map(|p| p.text.lines())
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty());
    match first {
        Some(l) if l.chars().count() <= 120 => l.to_string(),
        _ => path
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default(),
    }
}

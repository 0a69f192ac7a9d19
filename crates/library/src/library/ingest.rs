//! Ingest: files and folders into the library — skip unchanged files before any embedding, replace changed ones
//! in one write each, report every file, stop between files when cancelled.

use super::prepare::{FreshFile, Prefetch, Prepared};
use super::Library;
use crate::{Error, Result};
use ragsift_core::ids;
use ragsift_core::progress::{IngestEvent, IngestStatus, Progress};
use ragsift_ingest::chunk::TokenChunker;
use ragsift_ingest::extract;
use ragsift_interfaces::embed::Embedder;
use ragsift_interfaces::llm::CancelToken;
use ragsift_store::sqlite::{DocumentRow, NewChunk, NewPage};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const PERSIST_EVERY: Duration = Duration::from_secs(30);
/// Chunks embedded between two progress events (at least one embedding batch).
const PROGRESS_EVERY: usize = 16;

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

    /// Files reported failed without being read, because they failed before and are unchanged.
    pub fn failed_before(&self) -> usize {
        self.files.iter().filter(|f| f.failed_before()).count()
    }
}

/// How the error of a file that failed before and is unchanged begins: "failed before (unchanged): <reason>".
pub const FAILED_BEFORE: &str = "failed before (unchanged)";

impl FileReport {
    /// Whether the file was not read because it failed before and is unchanged (`--retry-failed` reads it).
    pub fn failed_before(&self) -> bool {
        self.status == IngestStatus::Failed && self.error.as_deref().is_some_and(|e| e.starts_with(FAILED_BEFORE))
    }
}

/// Choices of one ingest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IngestOptions {
    /// Read again the files that failed before for a lasting reason (encrypted, damaged, no text even by OCR)
    /// although they are unchanged; by default they are reported "failed before (unchanged)" without being read.
    pub retry_failed: bool,
}

impl Library {
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
    /// batch goes on; an unchanged file (same path, same checksum, same model, same chunk settings) is skipped
    /// without embedding, and so is an unchanged file that failed before for a lasting reason (see
    /// [`IngestOptions::retry_failed`]).
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
        self.ingest_with(embedder, inputs, progress, cancel, IngestOptions::default())
    }

    /// [`Library::ingest_cancellable`] with `options`.
    pub fn ingest_with(
        &self,
        embedder: &dyn Embedder,
        inputs: &[PathBuf],
        progress: Progress<'_>,
        cancel: &CancelToken,
        options: IngestOptions,
    ) -> Result<IngestReport> {
        self.exclusive(progress, || {
            self.ingest_locked(embedder, inputs, progress, cancel, options)
        })
    }

    fn ingest_locked(
        &self,
        embedder: &dyn Embedder,
        inputs: &[PathBuf],
        progress: Progress<'_>,
        cancel: &CancelToken,
        options: IngestOptions,
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
        let ocr = self.settings.ocr_setup();
        let mut report = IngestReport { files: Vec::new() };
        let mut last_persist = Instant::now();
        let current = AtomicUsize::new(0);
        std::thread::scope(|scope| -> Result<()> {
            let prefetch = Prefetch {
                chunker: &chunker,
                ocr: &ocr,
                retry_failed: options.retry_failed,
                model_id: embedder.id(),
                progress,
                current: &current,
            };
            let mut prepared = Some(self.prefetch(scope, &files, prefetch));
            for (i, file) in files.iter().enumerate() {
                let shown = match file {
                    Ok(p) => p.display().to_string(),
                    Err(e) => e.clone(),
                };
                let (n, total) = (i + 1, files.len());
                if cancel.is_cancelled() {
                    prepared = None; // stops the preparing thread
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
                current.store(n, Ordering::Release);
                progress(&IngestEvent::FileStarted {
                    file: n,
                    total,
                    path: shown.clone(),
                });
                let entry = match file {
                    Ok(_) => match prepared.as_ref().map(|rx| rx.recv()) {
                        Some(Ok((at, Ok(Prepared::FailedBefore(f))))) if at == i => FileReport {
                            path: shown.clone(),
                            status: IngestStatus::Failed,
                            pages: 0,
                            chunks: 0,
                            error: Some(format!("{FAILED_BEFORE}: {}", f.reason)),
                            error_code: Some(f.code),
                            warning: None,
                        },
                        Some(Ok((at, ready))) if at == i => file_report(
                            &shown,
                            ready.and_then(|p| self.embed_and_store(embedder, p, n, progress)),
                        ),
                        _ => file_report(
                            &shown,
                            Err(Error::Invalid("the file preparation thread stopped".into())),
                        ),
                    },
                    Err(e) => file_report(&shown, Err(Error::NotFound(e.clone()))),
                };
                progress(&IngestEvent::FileFinished {
                    file: n,
                    total,
                    path: shown,
                    status: entry.status,
                });
                report.files.push(entry);
                if last_persist.elapsed() > PERSIST_EVERY {
                    // A failed save (a full disk) is tried again at the end, which reports it.
                    let _ = self.index.sync();
                    last_persist = Instant::now();
                }
            }
            Ok(())
        })?;
        progress(&IngestEvent::Saving);
        // Whole, not journaled: a journal holds only removals, so after a batch of additions a journaled sync
        // would leave the file behind the database, and the next open would add and save them again.
        if let Err(e) = self.index.persist() {
            // The files are stored (the database holds their vectors); only the index file is behind, and the
            // next open rebuilds what it lacks. Each stored file says so, and the report survives.
            let note = format!(
                "stored, but the vector index file could not be saved ({e}); it is brought up to date from the \
                 database when the library is next opened"
            );
            for f in report.files.iter_mut().filter(|f| f.status == IngestStatus::Ingested) {
                f.warning = Some(match f.warning.take() {
                    Some(w) => format!("{w}; {note}"),
                    None => note.clone(),
                });
            }
        }
        Ok(report)
    }

    /// The second half of ingesting a file: embed its chunks in batches of similar length, then replace the
    /// document in the store and the index.
    fn embed_and_store(
        &self,
        embedder: &dyn Embedder,
        prepared: Prepared,
        n: usize,
        progress: Progress<'_>,
    ) -> Result<(DocumentRow, bool)> {
        let FreshFile {
            canonical,
            checksum,
            extracted,
            drafts,
        } = match prepared {
            Prepared::Unchanged(doc) => return Ok((doc, false)),
            Prepared::Fresh(f) => f,
            Prepared::FailedBefore(f) => return Err(Error::Invalid(format!("{FAILED_BEFORE}: {}", f.reason))),
        };
        let canonical_str = canonical.to_string_lossy().to_string();
        progress(&IngestEvent::Extracted {
            file: n,
            pages: extracted.pages.len(),
            chunks: drafts.len(),
        });
        // Batches of similar length: each is padded only to its own longest chunk.
        let texts: Vec<&str> = drafts.iter().map(|d| d.text.as_str()).collect();
        let order = ragsift_interfaces::embed::length_order(&texts);
        let mut vectors = vec![Vec::new(); drafts.len()];
        let mut done = 0;
        for batch in order.chunks(self.settings.embed_batch.max(PROGRESS_EVERY)) {
            let texts: Vec<&str> = batch.iter().map(|&i| drafts[i].text.as_str()).collect();
            for (v, &i) in embedder.embed(&texts)?.into_iter().zip(batch) {
                vectors[i] = v;
            }
            done += batch.len();
            progress(&IngestEvent::Embedding {
                file: n,
                done,
                total: drafts.len(),
            });
        }
        self.check_model(embedder)?;
        let doc_id = ids::document_id(&canonical_str);
        let version = self.settings.chunk_version(&checksum);
        let chunks: Vec<NewChunk> = drafts
            .into_iter()
            .zip(vectors)
            .map(|(d, embedding)| {
                let id = ids::chunk_id(&doc_id, &version, d.index);
                NewChunk {
                    key: ids::vector_key(&id),
                    id,
                    index: d.index,
                    text: d.text,
                    place: d.place,
                    tokens: d.tokens,
                    section: d.section,
                    boxes: d.boxes,
                    embedding,
                }
            })
            .collect();
        // A title the user gave outlives a new version of the file.
        let renamed = (self.store.document_by_path(&canonical_str)?)
            .filter(|d| d.renamed)
            .map(|d| d.title);
        let doc = DocumentRow {
            id: doc_id,
            path: canonical_str,
            renamed: renamed.is_some(),
            title: renamed.unwrap_or_else(|| extracted.title.clone()),
            kind: extracted.kind,
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
        let pages: Vec<NewPage> = (extracted.pages.into_iter())
            .map(|p| NewPage {
                number: p.number,
                text: p.text,
                ocr: p.ocr,
                furniture: p.furniture,
            })
            .collect();
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

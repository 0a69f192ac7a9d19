//! The first half of ingesting a file — read, checksum, skip if unchanged, extract and chunk — run one file ahead
//! of embedding on its own thread, so the next file's extraction overlaps the current file's embedding. The
//! queue holds one prepared file: memory stays bounded however long the batch.

use super::Library;
use crate::config::OcrSetup;
use crate::{Error, Result};
use ragsift_core::ids;
use ragsift_core::progress::{IngestEvent, Progress};
use ragsift_ingest::chunk::{ChunkDraft, Chunker};
use ragsift_ingest::extract::{read_capped, Extracted, Limits};
use ragsift_store::sqlite::{DocumentRow, FailedFile};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::time::Duration;

/// A file ready for embedding, or known unchanged.
pub(super) enum Prepared {
    /// Same path, same checksum, same model: nothing to do.
    Unchanged(DocumentRow),
    /// Extracted and chunked.
    Fresh(FreshFile),
    /// Failed last time for a lasting reason, and unchanged since: not read again.
    FailedBefore(FailedFile),
}

/// A changed or new file's text and chunks.
pub(super) struct FreshFile {
    pub canonical: PathBuf,
    pub checksum: String,
    pub extracted: Extracted,
    pub drafts: Vec<ChunkDraft>,
}

/// What the preparing thread shares with the embedding loop.
pub(super) struct Prefetch<'a> {
    pub chunker: &'a dyn Chunker,
    pub ocr: &'a OcrSetup,
    /// Read files again that failed before and are unchanged.
    pub retry_failed: bool,
    pub model_id: &'a str,
    pub progress: Progress<'a>,
    /// The file number the embedding loop has started (1-based): OCR progress of a file is shown once its turn
    /// came, not while the previous file is still embedding.
    pub current: &'a AtomicUsize,
}

impl Library {
    /// Prepares `files` in order on a scoped thread, handing each result (by index) through a queue of one.
    /// Dropping the receiver stops the thread at its next hand-over.
    pub(super) fn prefetch<'s, 'a: 's>(
        &'a self,
        scope: &'s std::thread::Scope<'s, 'a>,
        files: &'a [std::result::Result<PathBuf, String>],
        p: Prefetch<'a>,
    ) -> Receiver<(usize, Result<Prepared>)> {
        let (tx, rx) = sync_channel(1);
        scope.spawn(move || {
            for (i, file) in files.iter().enumerate() {
                let Ok(path) = file else { continue };
                if tx.send((i, self.prepare_file(path, i + 1, &p))).is_err() {
                    return;
                }
            }
        });
        rx
    }

    fn prepare_file(&self, path: &Path, n: usize, p: &Prefetch<'_>) -> Result<Prepared> {
        let canonical = path.canonicalize().map_err(|e| Error::io(path, e))?;
        // A regular file within the size limit only, read with a cap: a FIFO, a device or a huge file is refused
        // here, before its bytes are read for the checksum.
        let bytes = read_capped(&canonical, self.settings.max_file_mb)?;
        let checksum = ids::sha256_hex(&bytes);
        drop(bytes);
        let path_str = canonical.to_string_lossy().to_string();
        if let Some(doc) = self.store.document_by_path(&path_str)? {
            if doc.checksum == checksum && doc.embedding_model == p.model_id && self.chunked_as_set(&doc)? {
                return Ok(Prepared::Unchanged(doc));
            }
        }
        // A file that failed for a lasting reason is not read again while its bytes and the OCR set-up are the
        // same (reading a scanned file again costs seconds a page of OCR).
        let ocr_key = p.ocr.key();
        let failed_before = self.store.failed_file(&path_str)?;
        if let Some(f) = failed_before.as_ref() {
            if !p.retry_failed && f.checksum == checksum && f.ocr == ocr_key {
                return Ok(Prepared::FailedBefore(f.clone()));
            }
        }
        let limits = Limits {
            max_file_mb: self.settings.max_file_mb,
            timeout: Duration::from_secs(self.settings.extract_timeout_secs),
        };
        let extracted = p.ocr.extract(&canonical, limits, &|page, pages| {
            if p.current.load(Ordering::Acquire) == n {
                (p.progress)(&IngestEvent::Ocr { file: n, page, pages });
            }
        });
        let extracted = match extracted {
            Ok(e) => {
                if failed_before.is_some() {
                    self.store.forget_failed_file(&path_str)?;
                }
                e
            }
            Err(e) if e.is_lasting() && !self.store.read_only() => {
                self.store.put_failed_file(&FailedFile {
                    path: path_str,
                    checksum,
                    code: e.code().into(),
                    reason: e.to_string(),
                    ocr: ocr_key,
                    failed_at: std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_secs() as i64)
                        .unwrap_or(0),
                })?;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        let drafts = p.chunker.chunk(&extracted.pages)?;
        Ok(Prepared::Fresh(FreshFile {
            canonical,
            checksum,
            extracted,
            drafts,
        }))
    }

    /// Whether `doc`'s chunks were made with the chunk settings in force: its first chunk has the id they give
    /// (a document without chunks has nothing to redo).
    fn chunked_as_set(&self, doc: &DocumentRow) -> Result<bool> {
        if doc.chunk_count == 0 {
            return Ok(true);
        }
        let first = ids::chunk_id(&doc.id, &self.settings.chunk_version(&doc.checksum), 0);
        Ok(!self.store.chunks_by_keys(&[ids::vector_key(&first)])?.is_empty())
    }
}

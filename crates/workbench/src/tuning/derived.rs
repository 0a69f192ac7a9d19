//! A derived library for [`Workbench::compare`]: the same source documents chunked another way, in its own home
//! `<home>/derived/chunks-<N>-<overlap>/` (always a local store), opened as its own [`Workbench`] with the
//! library's settings except the chunking, the same judge (its key read from the library's home, never copied)
//! and the models already loaded. It is kept: a later compare re-ingests the same paths, which skips unchanged
//! files. Its runs and its judgment cache stay in its home.

use super::CompareCase;
use crate::judges::JEV_KEY_FILE;
use crate::{Error, Result, Workbench};
use ragsift_core::progress::IngestStatus;
use ragsift_core::CancelToken;
use ragsift_pipeline::join::Candidate;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Puts what `from` holds into `to`.
fn share<T: Clone>(from: &Mutex<T>, to: &Mutex<T>) {
    let v = from.lock().unwrap_or_else(|e| e.into_inner()).clone();
    *to.lock().unwrap_or_else(|e| e.into_inner()) = v;
}

/// What evidence is counted in: chunk ids when both sides share a chunking, else (document, page).
pub(super) type Units = fn(&Candidate) -> Vec<String>;

pub(super) fn chunk_units(c: &Candidate) -> Vec<String> {
    vec![c.chunk_id.clone()]
}

pub(super) fn page_units(c: &Candidate) -> Vec<String> {
    (c.page_start..=c.page_end.max(c.page_start))
        .map(|p| format!("{}#page={p}", c.document))
        .collect()
}

/// A line of progress while a derived library is brought up to date.
pub type Note<'a> = &'a (dyn Fn(&str) + Sync);

impl Workbench {
    /// Refuses a case naming evidence by anything but a document of this library (a chunk id): chunk ids do not
    /// survive re-chunking at `size`.
    pub(super) fn evidence_by_document(&self, cases: &[CompareCase], size: usize) -> Result<()> {
        let docs = self.documents()?;
        let is_document = |n: &str| {
            docs.iter()
                .any(|d| d.path == n || Path::new(&d.path).file_name().is_some_and(|f| f.to_string_lossy() == n))
        };
        // A labelled export's evidence is its spans, which hold at any chunk size.
        for case in cases.iter().filter(|c| c.spans.is_none()) {
            if let Some(id) = case.relevant_ids.iter().find(|id| !is_document(id)) {
                return Err(Error::Invalid(format!(
                    "case `{}` names evidence `{id}`, which is no document of this library (a chunk id?): chunk \
                     ids do not survive re-chunking, so a comparison with chunk_tokens {size} needs evidence named by \
                     document file name or path",
                    case.id
                )));
            }
        }
        Ok(())
    }

    /// The library's documents chunked at `chunk_tokens` (overlap: the library's, capped below half a chunk),
    /// brought up to date with the library's current document list.
    pub(super) fn derived_library(&self, chunk_tokens: usize, cancel: &CancelToken, note: Note) -> Result<Workbench> {
        let s = self.settings();
        if !s.library.spring_table.trim().is_empty() {
            return Err(Error::Invalid(format!(
                "chunk_tokens {chunk_tokens}: this library reads the Spring table {}, whose chunks ragsift did not \
                 make, so it cannot be re-chunked; compare configurations at its own chunk size",
                s.library.spring_table
            )));
        }
        let mut settings = s.clone();
        settings.library.chunk_tokens = chunk_tokens;
        settings.library.overlap_tokens = (s.library.overlap_tokens).min(chunk_tokens.div_ceil(2).saturating_sub(1));
        settings.library.store = String::new();
        if let Some(p) = settings
            .library
            .problems()
            .into_iter()
            .find(|p| p.field == "chunk_tokens")
        {
            return Err(Error::Invalid(format!("chunk_tokens {chunk_tokens}: {}", p.message)));
        }
        let dir =
            (self.home.join("derived")).join(format!("chunks-{chunk_tokens}-{}", settings.library.overlap_tokens));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        settings.save(&dir)?;
        // The judge key is the library's own, read where it is stored: never copied. A copy an older version
        // made is removed.
        let copy = dir.join(JEV_KEY_FILE);
        match std::fs::remove_file(&copy) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(&copy, e)),
            _ => {}
        }
        let mut wb = Workbench::open(Some(&dir))?;
        wb.key_home = self.key_home.clone();
        // Same embedding model, threads and chat settings: share what is loaded rather than load it twice.
        share(&self.embedder, &wb.embedder);
        share(&self.remote_embedder, &wb.remote_embedder);
        share(&self.model, &wb.model);

        let name = dir.display();
        let docs = self.documents()?;
        if !s.library.store.trim().is_empty() {
            note(&format!(
                "derived library {name}: a local store (this library is on a server)"
            ));
        }
        let (mut inputs, mut missing) = (Vec::new(), Vec::new());
        for d in &docs {
            if Path::new(&d.path).is_file() {
                inputs.push(PathBuf::from(&d.path));
            } else {
                missing.push(d.path.as_str());
            }
        }
        for m in &missing {
            note(&format!(
                "derived library {name}: skipped {m}: the file no longer exists"
            ));
        }
        if inputs.is_empty() {
            return Err(Error::Invalid(format!(
                "chunk_tokens {chunk_tokens}: none of the library's {} document files exists any more, so they cannot \
                 be re-chunked",
                docs.len()
            )));
        }
        // Documents the library no longer holds leave the derived one too, so both search the same files.
        let wanted: HashSet<&str> = inputs.iter().filter_map(|p| p.to_str()).collect();
        for d in wb
            .documents()?
            .into_iter()
            .filter(|d| !wanted.contains(d.path.as_str()))
        {
            wb.remove_document(&d.id)?;
            note(&format!("derived library {name}: removed {}", d.path));
        }
        note(&format!(
            "derived library {name}: bringing {} document(s) up to date at chunk_tokens {chunk_tokens}",
            inputs.len()
        ));
        let embedder = wb.query_embedder()?;
        let report = (wb.library()).ingest_cancellable(embedder.as_ref(), &inputs, &|_| {}, cancel)?;
        if cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        let count = |s: IngestStatus| report.files.iter().filter(|f| f.status == s).count();
        note(&format!(
            "derived library {name}: {} ingested, {} unchanged, {} failed, {} missing",
            count(IngestStatus::Ingested),
            count(IngestStatus::Unchanged),
            report.failed(),
            missing.len()
        ));
        for f in report.files.iter().filter(|f| f.status == IngestStatus::Failed) {
            note(&format!(
                "derived library {name}: {} failed: {}",
                f.path,
                f.error.as_deref().unwrap_or("?")
            ));
        }
        let theirs: std::collections::HashMap<String, String> =
            (wb.documents()?.into_iter()).map(|d| (d.path, d.checksum)).collect();
        for d in docs
            .iter()
            .filter(|d| theirs.get(&d.path).is_some_and(|c| *c != d.checksum))
        {
            note(&format!(
                "derived library {name}: {} changed on disk since this library ingested it: the derived side searches \
                 the newer version",
                d.path
            ));
        }
        Ok(wb)
    }
}

//! The library: a home folder and its store (SQLite + the usearch index kept consistent with it, or a PostgreSQL
//! server that keeps its own vectors), ingest (`ingest`), remove, list, and the reconcile that runs on every open.
//!
//! Several processes (the app and the CLI) may use one library at once. SQLite is the source of truth and the
//! usearch file a cache of it: writers take the library's writer lock ([`crate::writer`]) for the whole batch, and
//! every chunk write bumps the store's generation in its transaction. A process whose index is older than the
//! stored generation reloads the file and applies what it lacks from SQLite before it searches
//! ([`Library::refresh`]); the index file is only ever saved under the writer lock, from a current index.

mod ingest;
mod prepare;

pub use ingest::{FileReport, IngestOptions, IngestReport, FAILED_BEFORE};

use crate::config::LibraryConfig;
use crate::location::{self, StoreLocation};
use crate::writer;
use crate::{Error, Result};
use ragsift_core::progress::Progress;
use ragsift_store::backend::{DocumentStore, LibraryStore, StoreInfo};
use ragsift_store::index::{UsearchIndex, VectorIndex};
use ragsift_store::pg::spring::SpringTable;
use ragsift_store::pg::PgStore;
use ragsift_store::sqlite::{DocumentRow, Store};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

pub const DB_FILE: &str = "ragsift.db";
/// The longest title a user may give a document, in characters.
pub const TITLE_MAX_CHARS: usize = 300;
pub const INDEX_FILE: &str = "vectors.usearch";
const DEFAULT_DIMENSIONS: usize = 384;

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
        ragsift_core::fsx::private_dir(home)?;
        let (store, index, server) = open_store(home, &settings)?;
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
        // Opening writes only what reconciling repaired, and a failed save (a full disk) does not stop the
        // library from opening: the database is the truth and the index in memory matches it; the next save, or
        // the next open, writes it.
        let _ = lib.save_if_current();
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

    /// Runs `write` holding the library's writer lock, on an index brought up to date first; makes the change
    /// durable before the lock is released (a large index journals a small change instead of saving itself whole:
    /// see [`VectorIndex::sync`]). Closing the library saves the index whole.
    fn exclusive<T>(&self, progress: Progress<'_>, write: impl FnOnce() -> Result<T>) -> Result<T> {
        if let Some(path) = self.store.disk_full() {
            return Err(Error::DiskFull {
                free: ragsift_core::fsx::free_bytes(&path),
                path,
                needed: None,
            });
        }
        if self.store.read_only() {
            return Err(Error::NotSupported(format!(
                "{} is read-only: ragsift does not ingest into, rename in or remove from it",
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
        let saved = self.index.sync();
        let generation = self.store.generation();
        self.writing.fetch_sub(1, Ordering::AcqRel);
        self.generation.store(generation?, Ordering::Release);
        let value = result?;
        // The change is in the database, which is the truth; an index file that could not be saved (a full disk)
        // stays dirty and is saved later, or rebuilt by the next open's reconcile. The old file stays whole.
        let _ = saved;
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
    /// The name runs made here are recorded under: the `user` setting, else the login name, else nothing (an
    /// empty name, which the app and the CLI leave out rather than show a made-up one).
    pub fn user(&self) -> String {
        recorded_user(&self.settings.user, |v| std::env::var(v).ok())
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

    /// Removes a document, by id or by path, with its chunks and vectors.
    pub fn remove(&self, id_or_path: &str) -> Result<DocumentRow> {
        self.exclusive(&|_| {}, || self.remove_locked(id_or_path))
    }

    fn remove_locked(&self, id_or_path: &str) -> Result<DocumentRow> {
        let doc = self.find(id_or_path)?;
        for key in self.store.remove_document(&doc.id)? {
            self.index.remove(key)?;
        }
        Ok(doc)
    }

    /// Gives a document (by id or path) the user's title, kept when its file is ingested again; returns it
    /// renamed. The title is trimmed, its runs of white space made one space; a blank title, one longer than
    /// [`TITLE_MAX_CHARS`] or one holding control characters is refused. Runs already made keep the title they
    /// were made with (a trace records what the run saw).
    pub fn rename(&self, id_or_path: &str, title: &str) -> Result<DocumentRow> {
        let title = clean_title(title)?;
        self.exclusive(&|_| {}, || {
            let mut doc = self.find(id_or_path)?;
            if !self.store.rename_document(&doc.id, &title)? {
                return Err(Error::NotFound(format!("no document '{id_or_path}' in the library")));
            }
            doc.title = title;
            doc.renamed = true;
            Ok(doc)
        })
    }

    /// The document with this id, or at this path (canonicalised when the file exists).
    fn find(&self, id_or_path: &str) -> Result<DocumentRow> {
        if let Some(d) = self.store.document(id_or_path)? {
            return Ok(d);
        }
        let canonical = Path::new(id_or_path)
            .canonicalize()
            .map(|p| p.to_string_lossy().to_string())
            .unwrap_or_else(|_| id_or_path.to_string());
        self.store
            .document_by_path(&canonical)?
            .ok_or_else(|| Error::NotFound(format!("no document '{id_or_path}' in the library")))
    }

    /// Removes every document whose file no longer exists; returns them.
    /// Refused on a server store: its documents' paths are on the machines that ingested them, so a path missing
    /// here says nothing about a teammate's file.
    pub fn remove_missing(&self) -> Result<Vec<DocumentRow>> {
        if self.server {
            return Err(Error::NotSupported(format!(
                "removing missing files from {}: this library is shared, and a teammate's documents have paths on                  their machine, which do not exist on this one; remove documents one by one by id (`ragsift                  library remove ID`)",
                self.store.info().location
            )));
        }
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

/// A store, its vector index, and whether it is a server.
type OpenedStore = (Box<dyn LibraryStore>, Box<dyn VectorIndex>, bool);

/// The store and vector index the settings and environment choose (see [`location::resolve`]), and whether the
/// store is a server (which keeps and searches the vectors itself).
fn open_store(home: &Path, settings: &LibraryConfig) -> Result<OpenedStore> {
    let spring = settings.spring_table.trim();
    let server_index = |store: &dyn LibraryStore| {
        store
            .vector_index(settings.expansion_search)
            .ok_or_else(|| Error::Setup("the PostgreSQL store has no vector index".into()))
    };
    Ok(match location::resolve(home, &settings.store)? {
        StoreLocation::Local if !spring.is_empty() => {
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
        StoreLocation::Postgres(url) if !spring.is_empty() => {
            let table = SpringTable::open(&url, spring, &home.join(DB_FILE), settings.expansion_search)?;
            let index = server_index(&table)?;
            (Box::new(table), index, true)
        }
        StoreLocation::Postgres(url) => {
            let store = PgStore::open(&url)?;
            let index = server_index(&store)?;
            (Box::new(store), index, true)
        }
    })
}

impl Drop for Library {
    fn drop(&mut self) {
        let _ = self.save_if_current();
    }
}

/// The first non-blank of the `user` setting, `$USER` and `$LOGNAME` (read through `env`), else "".
fn recorded_user(setting: &str, env: impl Fn(&str) -> Option<String>) -> String {
    std::iter::once(Some(setting.to_string()))
        .chain(["USER", "LOGNAME"].into_iter().map(env))
        .flatten()
        .map(|v| v.trim().to_string())
        .find(|v| !v.is_empty())
        .unwrap_or_default()
}

/// A user's title as stored: trimmed, white space collapsed; refused when blank, too long or holding control
/// characters.
pub fn clean_title(raw: &str) -> Result<String> {
    if raw.chars().any(|c| c.is_control() && !c.is_whitespace()) {
        return Err(Error::Invalid("a title cannot hold control characters".into()));
    }
    let title = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if title.is_empty() {
        return Err(Error::Invalid("a title cannot be blank".into()));
    }
    let chars = title.chars().count();
    if chars > TITLE_MAX_CHARS {
        return Err(Error::Invalid(format!(
            "a title is at most {TITLE_MAX_CHARS} characters; this one has {chars}"
        )));
    }
    Ok(title)
}

#[cfg(test)]
mod tests {
    use super::{clean_title, recorded_user};

    #[test]
    fn an_unset_user_is_recorded_as_nothing() {
        let none = |_: &str| None;
        assert_eq!(recorded_user("", none), "");
        assert_eq!(recorded_user("  ", |_: &str| Some(" ".into())), "");
        assert_eq!(recorded_user(" ada ", none), "ada");
        assert_eq!(
            recorded_user("", |v: &str| (v == "LOGNAME").then(|| "bob".into())),
            "bob"
        );
    }

    #[test]
    fn a_title_is_cleaned_or_refused() {
        assert_eq!(
            clean_title("  DeltaT\n  User's   Guide ").unwrap(),
            "DeltaT User's Guide"
        );
        assert!(clean_title(" \t\n").is_err());
        assert!(clean_title("a\u{7}b").is_err());
        assert_eq!(clean_title(&"x".repeat(300)).unwrap().len(), 300);
        assert!(clean_title(&"x".repeat(301)).is_err());
        assert_eq!(clean_title(&"é".repeat(300)).unwrap().chars().count(), 300);
    }
}

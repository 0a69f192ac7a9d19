//! Vector index stage: nearest-neighbour search over chunk vectors. `UsearchIndex` keeps an HNSW index in a file
//! next to the database; it is a cache of the vectors SQLite holds, so it can always be repaired or rebuilt.

use crate::{journal, Error, Result};
use ragsift_core::fsx::{self, Access, TempFile};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

pub use ragsift_interfaces::store::{Neighbor, VectorIndex};

/// Libraries smaller than this are searched exactly.
pub const EXACT_BELOW: usize = 20_000;

/// From this many vectors on, [`VectorIndex::sync`] journals small changes instead of rewriting the file.
pub const JOURNAL_FROM: usize = 20_000;
/// ... as long as the changes since the last whole save stay under this share of the index (1/32): the file is
/// then rewritten once per that many changes, so the cost per change stays constant as the library grows, and a
/// process that loads the file re-adds at most that share from the database.
const JOURNAL_SHARE: usize = 32;

/// usearch HNSW index with cosine metric and f32 storage, saved to one file.
pub struct UsearchIndex {
    index: usearch::Index,
    path: Option<PathBuf>,
    dirty: AtomicBool,
    /// Adds and removes since the file was last saved whole.
    unsaved: AtomicUsize,
    /// Keys removed since then and not yet journaled; `None` once the index was cleared (only a whole save will do).
    removed: Mutex<Option<Vec<u64>>>,
    /// Searches and edits share it; [`UsearchIndex::reload`] takes it alone.
    gate: RwLock<()>,
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::Index(e.to_string())
}

/// Searches (and adds) usearch can run at once: each needs a context reserved ahead, and by default it reserves only
/// one per core, so a ninth concurrent search on a 2-core machine failed ("Reserve capacity ahead of searches").
const CONCURRENT_CALLS: usize = 64;

/// Reserves room for `capacity` vectors and [`CONCURRENT_CALLS`] concurrent calls.
fn reserve(index: &usearch::Index, capacity: usize) -> Result<()> {
    index
        .reserve_capacity_and_threads(capacity.max(index.size()), CONCURRENT_CALLS)
        .map_err(err)
}

impl UsearchIndex {
    /// An empty in-memory index (never persisted).
    pub fn in_memory(dimensions: usize, expansion_search: usize) -> Result<Self> {
        let index = usearch::Index::new(&options(dimensions, expansion_search)).map_err(err)?;
        reserve(&index, 1024)?;
        Ok(UsearchIndex::wrap(index, None, false))
    }

    /// Opens the index file at `path`, or starts an empty one when it is missing, unreadable or was built for
    /// another dimension (it is only a cache: the caller reconciles it with the database).
    pub fn open(path: &Path, dimensions: usize, expansion_search: usize) -> Result<Self> {
        let index = usearch::Index::new(&options(dimensions, expansion_search)).map_err(err)?;
        let loaded = load_into(&index, path, dimensions, expansion_search)?;
        Ok(UsearchIndex::wrap(index, Some(path.to_path_buf()), !loaded))
    }

    fn wrap(index: usearch::Index, path: Option<PathBuf>, dirty: bool) -> Self {
        UsearchIndex {
            index,
            path,
            dirty: AtomicBool::new(dirty),
            unsaved: AtomicUsize::new(0),
            removed: Mutex::new(Some(Vec::new())),
            gate: RwLock::new(()),
        }
    }

    /// Replaces the contents with the file's (another process saved a newer index), or empties it when the file
    /// is missing or unreadable; returns whether the file was read. The caller reconciles with the database.
    fn reload_file(&self) -> Result<bool> {
        let Some(path) = &self.path else { return Ok(false) };
        let _alone = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let expansion = self.index.expansion_search();
        let loaded = load_into(&self.index, path, self.index.dimensions(), expansion)?;
        self.dirty.store(!loaded, Ordering::Release);
        self.unsaved.store(0, Ordering::Release);
        *self.removed_keys() = Some(Vec::new());
        Ok(loaded)
    }

    fn shared(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(|p| p.into_inner())
    }

    fn removed_keys(&self) -> std::sync::MutexGuard<'_, Option<Vec<u64>>> {
        self.removed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a change since the last whole save; a removed (or replaced) key is remembered for the journal.
    fn changed(&self, removed: Option<u64>) {
        self.dirty.store(true, Ordering::Release);
        self.unsaved.fetch_add(1, Ordering::AcqRel);
        if let (Some(key), Some(keys)) = (removed, self.removed_keys().as_mut()) {
            keys.push(key);
        }
    }

    fn neighbors(&self, m: usearch::ffi::Matches) -> Vec<Neighbor> {
        m.keys
            .into_iter()
            .zip(m.distances)
            .map(|(key, d)| Neighbor {
                key,
                similarity: 1.0 - d,
            })
            .collect()
    }
}

/// Loads the file at `path` into `index` when it exists and has `dimensions`, and removes the keys its journal
/// lists; else resets `index`.
fn load_into(index: &usearch::Index, path: &Path, dimensions: usize, expansion_search: usize) -> Result<bool> {
    let fits = usearch::Index::metadata(&path.to_string_lossy())
        .map(|m| m.dimensions as usize == dimensions)
        .unwrap_or(false);
    let loaded = path.is_file() && fits && index.load(&path.to_string_lossy()).is_ok();
    if loaded {
        index.change_expansion_search(expansion_search);
        for key in journal::read(&journal::path_of(path))? {
            index.remove(key).map_err(err)?;
        }
    } else {
        index.reset().map_err(err)?;
    }
    reserve(index, index.capacity().max(1024))?;
    Ok(loaded)
}

fn options(dimensions: usize, expansion_search: usize) -> usearch::IndexOptions {
    usearch::IndexOptions {
        dimensions,
        metric: usearch::MetricKind::Cos,
        quantization: usearch::ScalarKind::F32,
        expansion_search,
        multi: false,
        ..Default::default()
    }
}

impl VectorIndex for UsearchIndex {
    fn dimensions(&self) -> usize {
        self.index.dimensions()
    }
    fn len(&self) -> usize {
        let _g = self.shared();
        self.index.size()
    }
    fn contains(&self, key: u64) -> bool {
        let _g = self.shared();
        self.index.contains(key)
    }
    fn add(&self, key: u64, vector: &[f32]) -> Result<()> {
        let _g = self.shared();
        if vector.len() != self.dimensions() {
            return Err(Error::Index(format!(
                "vector has {} dimensions, index {}",
                vector.len(),
                self.dimensions()
            )));
        }
        let replaced = self.index.contains(key);
        if replaced {
            self.index.remove(key).map_err(err)?;
        }
        if self.index.size() + 1 > self.index.capacity() {
            reserve(&self.index, (self.index.capacity() * 2).max(1024))?;
        }
        self.index.add(key, vector).map_err(err)?;
        // A replaced vector is journaled as removed: the reconcile after a load then adds the new one.
        self.changed(replaced.then_some(key));
        Ok(())
    }
    fn remove(&self, key: u64) -> Result<()> {
        let _g = self.shared();
        if self.index.remove(key).map_err(err)? > 0 {
            self.changed(Some(key));
        }
        Ok(())
    }
    fn search(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>> {
        let _g = self.shared();
        if self.index.size() == 0 || k == 0 {
            return Ok(Vec::new());
        }
        // Below EXACT_BELOW vectors a scan is exact and still fast (see BENCHMARKS.md); HNSW on a handful of
        // vectors can also miss some, while a scan never does.
        if self.index.size() < EXACT_BELOW {
            return Ok(self.neighbors(self.index.exact_search(query, k).map_err(err)?));
        }
        Ok(self.neighbors(self.index.search(query, k).map_err(err)?))
    }
    fn exact_search(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>> {
        let _g = self.shared();
        if self.index.size() == 0 || k == 0 {
            return Ok(Vec::new());
        }
        Ok(self.neighbors(self.index.exact_search(query, k).map_err(err)?))
    }
    fn clear(&self) -> Result<()> {
        let _g = self.shared();
        self.index.reset().map_err(err)?;
        self.dirty.store(true, Ordering::Release);
        *self.removed_keys() = None;
        Ok(())
    }
    fn persist(&self) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        if !self.dirty.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let _g = self.shared();
        let unsaved = self.unsaved.swap(0, Ordering::AcqRel);
        *self.removed_keys() = Some(Vec::new());
        // A unique temp file beside the index, removed when the save fails; the old index stays whole.
        let saved = TempFile::beside(path, Access::Private)
            .and_then(|mut tmp| {
                tmp.close();
                let needed = self.index.serialized_length() as u64;
                match self.index.save(&tmp.path().to_string_lossy()) {
                    Ok(()) => tmp.commit(),
                    // usearch says only "Failed to serialize into stream": a full disk is named as such.
                    Err(_) if fsx::free_bytes(path).is_some_and(|free| free < needed) => Err(Error::DiskFull {
                        path: path.clone(),
                        needed: Some(needed),
                        free: fsx::free_bytes(path),
                    }),
                    Err(e) => Err(err(e)),
                }
            })
            .and_then(|_| journal::clear(&journal::path_of(path)));
        if saved.is_err() {
            self.dirty.store(true, Ordering::Release);
            self.unsaved.fetch_add(unsaved, Ordering::AcqRel);
            *self.removed_keys() = None;
        }
        saved
    }

    fn sync(&self) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        let size = self.len();
        let small = size >= JOURNAL_FROM && self.unsaved.load(Ordering::Acquire) * JOURNAL_SHARE < size;
        if !self.dirty.load(Ordering::Acquire) || !small {
            return self.persist();
        }
        let mut removed = self.removed_keys();
        match removed.as_mut() {
            Some(keys) => {
                journal::append(&journal::path_of(path), keys)?;
                keys.clear();
                Ok(())
            }
            None => {
                drop(removed);
                self.persist()
            }
        }
    }

    fn reload(&self) -> Result<bool> {
        self.reload_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More searches at once than the machine has cores (the app's blocking pool, eight team clients).
    #[test]
    fn many_concurrent_searches_all_succeed() {
        let index = UsearchIndex::in_memory(4, 16).unwrap();
        for k in 0..30_000u64 {
            let x = k as f32;
            index.add(k, &[x.sin(), x.cos(), (x * 0.5).sin(), 1.0]).unwrap();
        }
        let barrier = std::sync::Barrier::new(32);
        std::thread::scope(|s| {
            for t in 0..32 {
                let (index, barrier) = (&index, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    for i in 0..50 {
                        let x = (t * 50 + i) as f32;
                        assert_eq!(index.search(&[x.cos(), x.sin(), 0.3, 1.0], 5).unwrap().len(), 5);
                    }
                });
            }
        });
    }

    #[test]
    fn add_replace_search_remove_persist() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let idx = UsearchIndex::open(&path, 3, 64).unwrap();
        idx.add(1, &[1.0, 0.0, 0.0]).unwrap();
        idx.add(2, &[0.0, 1.0, 0.0]).unwrap();
        idx.add(2, &[0.0, 0.0, 1.0]).unwrap();
        assert_eq!(idx.len(), 2);
        let hits = idx.search(&[0.0, 0.0, 1.0], 1).unwrap();
        assert_eq!(hits[0].key, 2);
        assert!((hits[0].similarity - 1.0).abs() < 1e-5);
        idx.persist().unwrap();
        let again = UsearchIndex::open(&path, 3, 64).unwrap();
        assert_eq!(again.len(), 2);
        again.remove(1).unwrap();
        assert!(!again.contains(1));
        let wrong_dims = UsearchIndex::open(&path, 4, 64).unwrap();
        assert_eq!(wrong_dims.len(), 0, "an index of another dimension is not loaded");
    }

    fn point(k: u64) -> [f32; 4] {
        let x = k as f32;
        [x.sin(), x.cos(), (x * 0.37).sin(), 1.0]
    }

    /// A small change to a large index is journaled, not rewritten; loading applies the journal; many changes, a
    /// clear, or closing save the file whole again.
    #[test]
    fn small_changes_to_a_large_index_are_journaled_and_replayed_on_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.usearch");
        let journal = journal::path_of(&path);
        let idx = UsearchIndex::open(&path, 4, 64).unwrap();
        let size = JOURNAL_FROM as u64 + 1_000;
        for k in 0..size {
            idx.add(k, &point(k)).unwrap();
        }
        idx.sync().unwrap();
        assert!(!journal.exists(), "a first save of the whole index needs no journal");
        let saved = std::fs::read(&path).unwrap();

        idx.remove(3).unwrap();
        idx.add(7, &point(7_000_007)).unwrap();
        idx.add(size + 1, &point(size + 1)).unwrap();
        idx.sync().unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            saved,
            "the file is not rewritten for three changes"
        );
        assert_eq!(journal::read(&journal).unwrap(), vec![3, 7]);

        let reader = UsearchIndex::open(&path, 4, 64).unwrap();
        assert!(
            !reader.contains(3) && !reader.contains(7),
            "removed and replaced keys are gone after a load"
        );
        assert!(
            !reader.contains(size + 1),
            "an added vector comes back through the reconcile, not the file"
        );
        assert_eq!(reader.len() as u64, size - 2);

        for k in 0..=(size / JOURNAL_SHARE as u64) {
            idx.remove(100 + k).unwrap();
        }
        idx.sync().unwrap();
        assert!(
            !journal.exists(),
            "past a share of the index the file is saved whole and the journal emptied"
        );
        let whole = UsearchIndex::open(&path, 4, 64).unwrap();
        assert!(whole.contains(7) && whole.contains(size + 1) && !whole.contains(100));
        assert_eq!(whole.len(), idx.len());

        idx.remove(5).unwrap();
        idx.sync().unwrap();
        assert!(journal.exists());
        idx.persist().unwrap();
        assert!(!journal.exists(), "persist always saves whole");
        idx.clear().unwrap();
        idx.sync().unwrap();
        assert_eq!(
            UsearchIndex::open(&path, 4, 64).unwrap().len(),
            0,
            "a cleared index is saved whole"
        );
    }
}

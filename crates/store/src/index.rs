//! Vector index stage: nearest-neighbour search over chunk vectors. `UsearchIndex` keeps an HNSW index in a file
//! next to the database; it is a cache of the vectors SQLite holds, so it can always be repaired or rebuilt.

use crate::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

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
    /// Re-reads what another process saved (a file-backed index); returns whether it read anything.
    fn reload(&self) -> Result<bool> {
        Ok(false)
    }
}

/// Libraries smaller than this are searched exactly.
pub const EXACT_BELOW: usize = 20_000;

/// usearch HNSW index with cosine metric and f32 storage, saved to one file.
pub struct UsearchIndex {
    index: usearch::Index,
    path: Option<PathBuf>,
    dirty: AtomicBool,
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
        Ok(UsearchIndex {
            index,
            path: None,
            dirty: AtomicBool::new(false),
            gate: RwLock::new(()),
        })
    }

    /// Opens the index file at `path`, or starts an empty one when it is missing, unreadable or was built for
    /// another dimension (it is only a cache: the caller reconciles it with the database).
    pub fn open(path: &Path, dimensions: usize, expansion_search: usize) -> Result<Self> {
        let index = usearch::Index::new(&options(dimensions, expansion_search)).map_err(err)?;
        let loaded = load_into(&index, path, dimensions, expansion_search)?;
        Ok(UsearchIndex {
            index,
            path: Some(path.to_path_buf()),
            dirty: AtomicBool::new(!loaded),
            gate: RwLock::new(()),
        })
    }

    /// Replaces the contents with the file's (another process saved a newer index), or empties it when the file
    /// is missing or unreadable; returns whether the file was read. The caller reconciles with the database.
    fn reload_file(&self) -> Result<bool> {
        let Some(path) = &self.path else { return Ok(false) };
        let _alone = self.gate.write().unwrap_or_else(|p| p.into_inner());
        let expansion = self.index.expansion_search();
        let loaded = load_into(&self.index, path, self.index.dimensions(), expansion)?;
        self.dirty.store(!loaded, Ordering::Release);
        Ok(loaded)
    }

    fn shared(&self) -> std::sync::RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(|p| p.into_inner())
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

/// Loads the file at `path` into `index` when it exists and has `dimensions`, else resets `index`.
fn load_into(index: &usearch::Index, path: &Path, dimensions: usize, expansion_search: usize) -> Result<bool> {
    let fits = usearch::Index::metadata(&path.to_string_lossy())
        .map(|m| m.dimensions as usize == dimensions)
        .unwrap_or(false);
    let loaded = path.is_file() && fits && index.load(&path.to_string_lossy()).is_ok();
    if loaded {
        index.change_expansion_search(expansion_search);
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
        if self.index.contains(key) {
            self.index.remove(key).map_err(err)?;
        }
        if self.index.size() + 1 > self.index.capacity() {
            reserve(&self.index, (self.index.capacity() * 2).max(1024))?;
        }
        self.index.add(key, vector).map_err(err)?;
        self.dirty.store(true, Ordering::Release);
        Ok(())
    }
    fn remove(&self, key: u64) -> Result<()> {
        let _g = self.shared();
        if self.index.remove(key).map_err(err)? > 0 {
            self.dirty.store(true, Ordering::Release);
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
        Ok(())
    }
    fn persist(&self) -> Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        if !self.dirty.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let _g = self.shared();
        let tmp = path.with_extension(format!("usearch.{}.tmp", std::process::id()));
        let saved = self
            .index
            .save(&tmp.to_string_lossy())
            .map_err(err)
            .and_then(|_| std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e)));
        if saved.is_err() {
            self.dirty.store(true, Ordering::Release);
        }
        saved
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
}

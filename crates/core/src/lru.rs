//! [`Lru`]: a least-recently-used map within a byte budget, shared by threads (the local judge's passage cache, the
//! embedding queue's vectors): each value comes with its size, and the least recently used go first.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard};

/// How a cache has done since it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheStats {
    /// Values held now.
    pub entries: usize,
    /// Their sizes, summed.
    pub bytes: usize,
    /// Lookups answered.
    pub hits: u64,
    /// Lookups not answered.
    pub misses: u64,
}

/// A least-recently-used map of at most `capacity` bytes (as the sizes given to [`Lru::insert`] count them).
pub struct Lru<K, V> {
    capacity: usize,
    inner: Mutex<Entries<K, V>>,
}

struct Entries<K, V> {
    /// Key → the value, its size and its last use.
    map: HashMap<K, (V, usize, u64)>,
    /// Last use → key, oldest first.
    order: BTreeMap<u64, K>,
    clock: u64,
    stats: CacheStats,
}

impl<K: Eq + Hash + Clone, V: Clone> Lru<K, V> {
    /// An empty cache of `capacity` bytes.
    pub fn new(capacity: usize) -> Lru<K, V> {
        Lru {
            capacity,
            inner: Mutex::new(Entries {
                map: HashMap::new(),
                order: BTreeMap::new(),
                clock: 0,
                stats: CacheStats::default(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Entries<K, V>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value under `key`, now the most recently used.
    pub fn get(&self, key: &K) -> Option<V> {
        let mut e = self.lock();
        e.clock += 1;
        let now = e.clock;
        let Some((value, _, used)) = e.map.get_mut(key) else {
            e.stats.misses += 1;
            return None;
        };
        let (value, before) = (value.clone(), std::mem::replace(used, now));
        e.order.remove(&before);
        e.order.insert(now, key.clone());
        e.stats.hits += 1;
        Some(value)
    }

    /// Keeps `value` (of `size` bytes) under `key`, replacing what was there, then drops the least recently used
    /// values until the cache fits its capacity. A value larger than the whole capacity is not kept.
    pub fn insert(&self, key: K, value: V, size: usize) {
        if size > self.capacity {
            return;
        }
        let mut e = self.lock();
        e.clock += 1;
        let now = e.clock;
        if let Some((_, old_size, used)) = e.map.insert(key.clone(), (value, size, now)) {
            e.order.remove(&used);
            e.stats.bytes -= old_size;
        }
        e.order.insert(now, key);
        e.stats.bytes += size;
        while e.stats.bytes > self.capacity {
            let Some((_, oldest)) = e.order.pop_first() else {
                break;
            };
            if let Some((_, size, _)) = e.map.remove(&oldest) {
                e.stats.bytes -= size;
            }
        }
        e.stats.entries = e.map.len();
    }

    /// The counts so far.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_oversized_values_are_not_kept() {
        let lru: Lru<&str, u32> = Lru::new(30);
        lru.insert("a", 1, 10);
        lru.insert("b", 2, 10);
        lru.insert("c", 3, 10);
        assert_eq!(lru.get(&"a"), Some(1), "a is now the most recent");
        lru.insert("d", 4, 10);
        assert_eq!(lru.get(&"b"), None, "b was the least recently used");
        assert_eq!(
            (lru.get(&"a"), lru.get(&"c"), lru.get(&"d")),
            (Some(1), Some(3), Some(4))
        );
        lru.insert("huge", 5, 31);
        assert_eq!(lru.get(&"huge"), None);
        lru.insert("a", 6, 20);
        let s = lru.stats();
        assert_eq!(
            (s.entries, s.bytes),
            (2, 30),
            "replacing a value counts its new size: {s:?}"
        );
        assert_eq!((s.hits, s.misses), (4, 2));
    }
}

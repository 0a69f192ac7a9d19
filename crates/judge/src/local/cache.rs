//! [`PassageCache`]: the passage side of the local judge's signals kept between selections, keyed by the passage
//! text's hash with the embedding model and the fit ([`PassageKey`]), within a byte budget: the least recently used
//! passage goes first.

use super::text::Sentence;
use ragsift_core::lru::Lru;
use std::sync::Arc;

/// What the local judge knows of a passage before it sees the question.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageSignals {
    /// The passage's sentences (the whole passage as one when it has none).
    pub sentences: Vec<Sentence>,
    /// One unit vector per sentence.
    pub sentence_vectors: Vec<Vec<f32>>,
    /// The whole passage's unit vector, measured only when a signal reads it ([`Needs::passage_vector`](super::passage::Needs::passage_vector)).
    pub vector: Option<Vec<f32>>,
    /// The passage's content-word stems, in order.
    pub stems: Vec<String>,
    /// Each sentence's content-word stems.
    pub sentence_stems: Vec<Vec<String>>,
}

impl PassageSignals {
    /// About how many bytes it holds (what the cache's capacity counts).
    pub fn bytes(&self) -> usize {
        const OVERHEAD: usize = 24;
        let strings = |v: &[String]| v.iter().map(|s| s.len() + OVERHEAD).sum::<usize>();
        let vectors = |v: &[Vec<f32>]| v.iter().map(|x| x.len() * 4 + OVERHEAD).sum::<usize>();
        std::mem::size_of::<Self>()
            + (self.sentences.iter())
                .map(|s| s.text.len() + std::mem::size_of::<Sentence>())
                .sum::<usize>()
            + vectors(&self.sentence_vectors)
            + self.vector.as_ref().map_or(0, |v| v.len() * 4)
            + strings(&self.stems)
            + (self.sentence_stems.iter())
                .map(|s| strings(s) + OVERHEAD)
                .sum::<usize>()
    }
}

/// What `ragsift serve` keeps by default: about 3,000 passages of 1,000 characters.
pub const DEFAULT_CAPACITY_BYTES: usize = 64 << 20;

/// A passage's key: the embedding model and the fit it was measured for, and the SHA-256 of its text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PassageKey(String);

impl PassageKey {
    /// `tag` names what the measurement depends on besides the text (the embedding model, the fit's version).
    pub fn new(tag: &str, text: &str) -> PassageKey {
        PassageKey(format!("{tag}:{}", ragsift_core::ids::sha256_hex(text.as_bytes())))
    }
}

pub use ragsift_core::lru::CacheStats;

/// A least-recently-used map of measured passages, at most `capacity` bytes (as [`PassageSignals::bytes`] counts
/// them); shared by concurrent selections.
pub struct PassageCache(Lru<PassageKey, Arc<PassageSignals>>);

impl PassageCache {
    pub fn new(capacity: usize) -> PassageCache {
        PassageCache(Lru::new(capacity))
    }

    /// The passage under `key`, now the most recently used.
    pub fn get(&self, key: &PassageKey) -> Option<Arc<PassageSignals>> {
        self.0.get(key)
    }

    /// Keeps `value` under `key` (replacing what was there), then drops the least recently used passages until the
    /// cache fits its capacity. A passage larger than the whole capacity is not kept.
    pub fn insert(&self, key: PassageKey, value: Arc<PassageSignals>) {
        let size = value.bytes();
        self.0.insert(key, value, size);
    }

    pub fn stats(&self) -> CacheStats {
        self.0.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(text: &str) -> Arc<PassageSignals> {
        Arc::new(PassageSignals {
            sentences: vec![Sentence {
                text: text.into(),
                start: 0,
                end: text.len(),
            }],
            sentence_vectors: vec![vec![1.0; 8]],
            vector: None,
            stems: vec![text.into()],
            sentence_stems: vec![vec![text.into()]],
        })
    }

    #[test]
    fn a_key_names_the_text_the_model_and_the_fit() {
        let key = PassageKey::new("minilm|fit-1", "The warranty lasts two years.");
        assert_eq!(key, PassageKey::new("minilm|fit-1", "The warranty lasts two years."));
        assert_ne!(key, PassageKey::new("minilm|fit-1", "The warranty lasts three years."));
        assert_ne!(
            key,
            PassageKey::new("other-model|fit-1", "The warranty lasts two years.")
        );
        assert_ne!(key, PassageKey::new("minilm|fit-2", "The warranty lasts two years."));
    }

    #[test]
    fn hits_and_misses_are_counted() {
        let cache = PassageCache::new(DEFAULT_CAPACITY_BYTES);
        let key = PassageKey::new("m", "a passage");
        assert!(cache.get(&key).is_none());
        cache.insert(key.clone(), passage("a passage"));
        assert_eq!(cache.get(&key).unwrap().sentences[0].text, "a passage");
        assert!(cache.get(&PassageKey::new("m", "a passage, changed")).is_none());
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.hits, stats.misses), (1, 1, 2));
        assert_eq!(stats.bytes, passage("a passage").bytes());
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_size_stays_bounded() {
        let one = passage("passage 0").bytes();
        let cache = PassageCache::new(one * 3 + one / 2);
        let key = |i: usize| PassageKey::new("m", &format!("passage {i}"));
        for i in 0..3 {
            cache.insert(key(i), passage(&format!("passage {i}")));
        }
        // Passage 0 is used again, so passage 1 is now the oldest.
        assert!(cache.get(&key(0)).is_some());
        cache.insert(key(3), passage("passage 3"));
        assert!(cache.get(&key(1)).is_none(), "the least recently used went");
        for i in [0, 2, 3] {
            assert!(cache.get(&key(i)).is_some(), "passage {i} stays");
        }
        for i in 4..100 {
            cache.insert(key(i), passage(&format!("passage {i}")));
            assert!(cache.stats().bytes <= one * 3 + one / 2);
        }
        assert_eq!(cache.stats().entries, 3);
        // Replacing an entry does not count it twice; one larger than the whole cache is not kept.
        cache.insert(key(99), passage("passage 99"));
        assert_eq!(cache.stats().entries, 3);
        let tiny = PassageCache::new(one - 1);
        tiny.insert(key(0), passage("passage 0"));
        assert_eq!(tiny.stats().entries, 0);
    }
}

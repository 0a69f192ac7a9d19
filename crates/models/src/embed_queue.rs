//! [`EmbedQueue`]: one embedder shared by concurrent callers (`ragsift serve`'s requests) through a queue. Whatever
//! is waiting when the model comes free runs as one call, so the texts of several requests are sorted by length and
//! batched together; the callers' groups run first come, first served, and a group whose caller stopped waiting
//! (its deadline passed) is dropped unrun, so no work outlives the request that asked for it. The vectors of texts
//! already embedded are kept (within [`VECTOR_CACHE_BYTES`]), so a sentence shared by overlapping passages is
//! embedded once.

use crate::{Embedder, Error, Result};
use ragsift_core::lru::{CacheStats, Lru};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// Characters of queued text one run takes at most (about 1,000 tokens, two tenths of a second on two cores): runs
/// stay short, so a group whose caller stopped waiting is dropped before it runs rather than run inside a long one.
pub const RUN_CHARS: usize = 4_000;

/// The embedded texts' vectors the queue keeps: about 20,000 sentences of MiniLM's 384 dimensions.
pub const VECTOR_CACHE_BYTES: usize = 48 << 20;

/// An embedder behind a queue served by one worker thread; the worker stops when the queue is dropped.
pub struct EmbedQueue {
    shared: Arc<Shared>,
    id: String,
    dimensions: usize,
    max_tokens: usize,
    tokenizer: PathBuf,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued or the queue closes.
    queued: Condvar,
    /// Each embedded text's vector, by text.
    vectors: Lru<String, Arc<Vec<f32>>>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Arc<Job>>,
    closed: bool,
}

/// One group of texts and, once run, its vectors.
struct Job {
    texts: Vec<String>,
    result: Mutex<Option<Result<Vec<Vec<f32>>>>>,
    done: Condvar,
    /// The caller stopped waiting: the job is dropped unrun.
    abandoned: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl EmbedQueue {
    /// A queue in front of `inner`, with its worker thread started.
    pub fn new(inner: Arc<dyn Embedder>) -> Result<EmbedQueue> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            queued: Condvar::new(),
            vectors: Lru::new(VECTOR_CACHE_BYTES),
        });
        let queue = EmbedQueue {
            shared: shared.clone(),
            id: inner.id().to_string(),
            dimensions: inner.dimensions(),
            max_tokens: inner.max_tokens(),
            tokenizer: inner.tokenizer_path().to_path_buf(),
        };
        std::thread::Builder::new()
            .name("ragsift-embed-queue".into())
            .spawn(move || work(&shared, inner.as_ref()))
            .map_err(|e| Error::Model(format!("starting the embedding queue: {e}")))?;
        Ok(queue)
    }

    /// How the kept vectors have done: a hit is a text not embedded again.
    pub fn cache_stats(&self) -> CacheStats {
        self.shared.vectors.stats()
    }

    fn submit(&self, texts: &[&str]) -> Arc<Job> {
        let job = Arc::new(Job {
            texts: texts.iter().map(|t| t.to_string()).collect(),
            result: Mutex::new(None),
            done: Condvar::new(),
            abandoned: AtomicBool::new(false),
        });
        lock(&self.shared.queue).jobs.push_back(job.clone());
        self.shared.queued.notify_one();
        job
    }
}

impl Drop for EmbedQueue {
    fn drop(&mut self) {
        lock(&self.shared.queue).closed = true;
        self.shared.queued.notify_all();
    }
}

impl Job {
    /// The job's vectors once run; `None` when `deadline` came first (the job is then abandoned).
    fn wait_until(&self, deadline: Option<Instant>) -> Option<Result<Vec<Vec<f32>>>> {
        let mut result = lock(&self.result);
        loop {
            if let Some(r) = result.take() {
                return Some(r);
            }
            match deadline {
                None => result = self.done.wait(result).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        self.abandoned.store(true, Ordering::Relaxed);
                        return None;
                    }
                    result = self
                        .done
                        .wait_timeout(result, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        }
    }

    fn finish(&self, result: Result<Vec<Vec<f32>>>) {
        *lock(&self.result) = Some(result);
        self.done.notify_all();
    }
}

/// The worker: takes the jobs waiting (up to [`RUN_CHARS`], at least one), embeds in one call each distinct text
/// whose vector is not kept already, and hands each job its vectors, until the queue closes.
fn work(shared: &Shared, inner: &dyn Embedder) {
    loop {
        let run = {
            let mut queue = lock(&shared.queue);
            while queue.jobs.is_empty() && !queue.closed {
                queue = shared.queued.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
            if queue.jobs.is_empty() {
                return;
            }
            take_run(&mut queue.jobs)
        };
        if run.is_empty() {
            continue;
        }
        let mut known: HashMap<&str, Arc<Vec<f32>>> = HashMap::new();
        let (mut missing, mut seen): (Vec<&str>, HashSet<&str>) = (Vec::new(), HashSet::new());
        for text in run.iter().flat_map(|job| job.texts.iter()) {
            if !seen.insert(text.as_str()) {
                continue;
            }
            match shared.vectors.get(text) {
                Some(v) => drop(known.insert(text, v)),
                None => missing.push(text),
            }
        }
        let embedded = if missing.is_empty() {
            Ok(Vec::new())
        } else {
            inner.embed(&missing)
        };
        match embedded {
            Ok(vectors) => {
                for (text, v) in missing.iter().zip(vectors) {
                    let v = Arc::new(v);
                    shared
                        .vectors
                        .insert(text.to_string(), v.clone(), text.len() + v.len() * 4 + 64);
                    known.insert(text, v);
                }
                for job in &run {
                    job.finish(Ok((job.texts.iter())
                        .map(|t| known[t.as_str()].as_ref().clone())
                        .collect()));
                }
            }
            Err(e) => {
                let message = e.to_string();
                for job in &run {
                    job.finish(Err(Error::Model(message.clone())));
                }
            }
        }
    }
}

/// The jobs of the next run, from the front of the queue: abandoned ones dropped, then jobs while their texts stay
/// within [`RUN_CHARS`] (the first one whatever its size).
fn take_run(jobs: &mut VecDeque<Arc<Job>>) -> Vec<Arc<Job>> {
    let mut run = Vec::new();
    let mut chars = 0;
    while let Some(job) = jobs.front() {
        if job.abandoned.load(Ordering::Relaxed) {
            jobs.pop_front();
            continue;
        }
        let size: usize = job.texts.iter().map(String::len).sum();
        if !run.is_empty() && chars + size > RUN_CHARS {
            break;
        }
        chars += size;
        run.extend(jobs.pop_front());
    }
    run
}

impl Embedder for EmbedQueue {
    fn id(&self) -> &str {
        &self.id
    }
    fn dimensions(&self) -> usize {
        self.dimensions
    }
    fn max_tokens(&self) -> usize {
        self.max_tokens
    }
    fn tokenizer_path(&self) -> &Path {
        &self.tokenizer
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        (self.submit(texts).wait_until(None)).unwrap_or_else(|| Err(Error::Model("the embedding queue closed".into())))
    }
    /// Every group is queued at once (behind other callers' groups); the groups finished by the deadline are
    /// returned, and the rest are abandoned.
    fn embed_until(&self, groups: &[Vec<&str>], deadline: Option<Instant>) -> Result<Vec<Vec<Vec<f32>>>> {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Vec::new());
        }
        let jobs: Vec<Arc<Job>> = groups.iter().map(|g| self.submit(g)).collect();
        let mut done = Vec::with_capacity(groups.len());
        let mut jobs = jobs.into_iter();
        for job in jobs.by_ref() {
            match job.wait_until(deadline) {
                Some(Ok(vectors)) => done.push(vectors),
                Some(Err(e)) => {
                    jobs.for_each(|j| j.abandoned.store(true, Ordering::Relaxed));
                    return Err(e);
                }
                None => break,
            }
        }
        jobs.for_each(|j| j.abandoned.store(true, Ordering::Relaxed));
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// A text's vector is its length and first byte; each call is counted, and can be slowed down.
    struct Fake {
        calls: AtomicUsize,
        texts: AtomicUsize,
        pause: Duration,
    }

    impl Embedder for Fake {
        fn id(&self) -> &str {
            "fake"
        }
        fn dimensions(&self) -> usize {
            2
        }
        fn max_tokens(&self) -> usize {
            256
        }
        fn tokenizer_path(&self) -> &Path {
            Path::new("tokenizer.json")
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            std::thread::sleep(self.pause);
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.texts.fetch_add(texts.len(), Ordering::SeqCst);
            Ok(texts
                .iter()
                .map(|t| vec![t.len() as f32, f32::from(t.bytes().next().unwrap_or(0))])
                .collect())
        }
    }

    fn fake(pause_ms: u64) -> Arc<Fake> {
        Arc::new(Fake {
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
            pause: Duration::from_millis(pause_ms),
        })
    }

    #[test]
    fn concurrent_callers_share_runs_and_get_their_own_vectors() {
        let inner = fake(30);
        let queue = EmbedQueue::new(inner.clone()).unwrap();
        let direct = |t: &[&str]| inner.embed(t).unwrap();
        let expected: Vec<Vec<Vec<f32>>> = (0..8)
            .map(|c| direct(&[&format!("caller {c}"), "shared text", &"x".repeat(c + 1)]))
            .collect();
        let before = inner.calls.load(Ordering::SeqCst);
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|c| {
                    let queue = &queue;
                    s.spawn(move || {
                        let (a, b) = (format!("caller {c}"), "x".repeat(c + 1));
                        queue.embed(&[&a, "shared text", &b]).unwrap()
                    })
                })
                .collect();
            for (c, h) in handles.into_iter().enumerate() {
                assert_eq!(h.join().unwrap(), expected[c], "caller {c}");
            }
        });
        let calls = inner.calls.load(Ordering::SeqCst) - before;
        assert!(calls < 8, "8 callers in {calls} runs: the waiting ones were batched");
    }

    #[test]
    fn a_text_is_embedded_once_across_calls() {
        let inner = fake(0);
        let queue = EmbedQueue::new(inner.clone()).unwrap();
        let first = queue
            .embed(&["a shared sentence.", "only in the first passage."])
            .unwrap();
        let second = queue
            .embed(&["only in the second passage.", "a shared sentence."])
            .unwrap();
        assert_eq!(first[0], second[1], "the kept vector is the one embedded");
        assert_eq!(second[0], inner.embed(&["only in the second passage."]).unwrap()[0]);
        assert_eq!(
            inner.texts.load(Ordering::SeqCst),
            3 + 1,
            "3 distinct texts through the queue, 1 direct"
        );
        let stats = queue.cache_stats();
        assert_eq!((stats.hits, stats.entries), (1, 3));
    }

    #[test]
    fn groups_come_back_in_order_and_stop_at_the_deadline() {
        let inner = fake(100);
        let queue = EmbedQueue::new(inner.clone()).unwrap();
        // 300 distinct texts of 16+ characters: more than RUN_CHARS, so each group is a run of its own (100 ms).
        let texts: Vec<Vec<String>> = (0..6)
            .map(|g| (0..300).map(|k| format!("group {g} text {k:03}")).collect())
            .collect();
        let groups: Vec<Vec<&str>> = texts.iter().map(|g| g.iter().map(String::as_str).collect()).collect();
        let all = queue.embed_until(&groups[..2], None).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1][0], vec![16.0, f32::from(b'g')]);
        let calls = inner.calls.load(Ordering::SeqCst);
        let started = Instant::now();
        let some = queue
            .embed_until(&groups, Some(Instant::now() + Duration::from_millis(150)))
            .unwrap();
        assert!((1..6).contains(&some.len()), "{} groups", some.len());
        assert!(
            started.elapsed() < Duration::from_millis(450),
            "{:?}",
            started.elapsed()
        );
        // The abandoned groups are dropped unrun: at most the run in progress at the deadline finishes.
        std::thread::sleep(Duration::from_millis(300));
        let ran = inner.calls.load(Ordering::SeqCst) - calls;
        assert!(ran <= some.len() + 1, "{ran} runs for {} groups returned", some.len());
        assert!(queue.embed_until(&groups, Some(Instant::now())).unwrap().is_empty());
    }
}

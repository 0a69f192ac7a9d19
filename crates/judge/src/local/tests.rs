//! The local judge with its passage cache and its deadline: the same judgments with and without them, and the
//! passages measured before a deadline judged while the others fail with `deadline_exceeded`.

use super::cache::PassageCache;
use super::LocalJudge;
use crate::{default_questions, Judge, JudgeQuestion, PassageJudgment};
use ragsift_interfaces::embed::Embedder;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Words hashed into 64 dimensions, normalised: a text's vector depends on its text only. Counts the texts it
/// embeds, and sleeps `pause` per call.
pub(crate) struct Hashed {
    pub id: &'static str,
    pub texts: AtomicUsize,
    pub pause: Duration,
}

impl Hashed {
    pub fn new(id: &'static str, pause: Duration) -> Hashed {
        Hashed {
            id,
            texts: AtomicUsize::new(0),
            pause,
        }
    }
}

impl Embedder for Hashed {
    fn id(&self) -> &str {
        self.id
    }
    fn dimensions(&self) -> usize {
        64
    }
    fn max_tokens(&self) -> usize {
        256
    }
    fn tokenizer_path(&self) -> &Path {
        Path::new("tokenizer.json")
    }
    fn embed(&self, texts: &[&str]) -> ragsift_core::Result<Vec<Vec<f32>>> {
        std::thread::sleep(self.pause);
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts.iter().map(|t| hashed(t)).collect())
    }
}

fn hashed(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 64];
    for w in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let h = w.to_lowercase().bytes().fold(14_695_981_039_346_656_037u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211)
        });
        v[(h % 64) as usize] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
    v.iter().map(|x| x / n).collect()
}

const QUERY: &str = "How long is the warranty on the Kestrel kettle?";

fn passages() -> Vec<String> {
    (0..12)
        .map(|i| {
            format!(
                "Passage {i} of the manual. The Kestrel kettle comes with a {} year warranty from the date of purchase. \
                 Descale it every {} weeks in hard-water areas. Orders ship within {} business days.",
                i % 4 + 1,
                i + 2,
                i % 3 + 1
            )
        })
        .collect()
}

fn scores(results: Vec<crate::Result<PassageJudgment>>) -> Vec<Option<Vec<(String, f64)>>> {
    (results.into_iter())
        .map(|r| r.ok().map(|j| j.scores.into_iter().collect()))
        .collect()
}

fn useful() -> Vec<JudgeQuestion> {
    vec![crate::jev::useful_question()]
}

#[test]
fn the_cache_and_the_deadline_change_no_judgment() {
    let embedder = Hashed::new("hashed", Duration::ZERO);
    let passages = passages();
    for questions in [useful(), default_questions()] {
        let plain = scores(LocalJudge::new(&embedder, None, None).judge_each(QUERY, &passages, &questions));
        assert!(plain.iter().all(Option::is_some));
        let cache = PassageCache::new(super::cache::DEFAULT_CAPACITY_BYTES);
        let cached = LocalJudge::new(&embedder, None, None).with_cache(&cache);
        assert_eq!(
            scores(cached.judge_each(QUERY, &passages, &questions)),
            plain,
            "cold cache"
        );
        let before = embedder.texts.load(Ordering::SeqCst);
        assert_eq!(
            scores(cached.judge_each(QUERY, &passages, &questions)),
            plain,
            "warm cache"
        );
        assert_eq!(
            embedder.texts.load(Ordering::SeqCst) - before,
            1,
            "a warm cache embeds the question only"
        );
        // Half the passages seen before, in another order and with others: each passage is judged as without.
        let mut mixed: Vec<String> = passages[6..].to_vec();
        mixed.extend(["A new passage about the kettle's lid.".to_string()]);
        mixed.extend(passages[..3].iter().cloned());
        let expected = scores(LocalJudge::new(&embedder, None, None).judge_each(QUERY, &mixed, &questions));
        assert_eq!(scores(cached.judge_each(QUERY, &mixed, &questions)), expected);
        // A deadline that does not come: one group per passage, the same judgments.
        let later = Instant::now() + Duration::from_secs(600);
        let bounded = LocalJudge::new(&embedder, None, None).with_deadline(later);
        assert_eq!(scores(bounded.judge_each(QUERY, &passages, &questions)), plain);
        let small = PassageCache::new(1 << 20);
        let both = LocalJudge::new(&embedder, None, None)
            .with_cache(&small)
            .with_deadline(later);
        assert_eq!(scores(both.judge_each(QUERY, &passages, &questions)), plain);
    }
}

#[test]
fn a_cache_serves_only_its_own_model() {
    let (a, b) = (
        Hashed::new("model-a", Duration::ZERO),
        Hashed::new("model-b", Duration::ZERO),
    );
    let cache = PassageCache::new(super::cache::DEFAULT_CAPACITY_BYTES);
    let passages = passages();
    LocalJudge::new(&a, None, None)
        .with_cache(&cache)
        .judge(QUERY, &passages, &useful())
        .unwrap();
    let hits = cache.stats().hits;
    let before = b.texts.load(Ordering::SeqCst);
    LocalJudge::new(&b, None, None)
        .with_cache(&cache)
        .judge(QUERY, &passages, &useful())
        .unwrap();
    assert_eq!(cache.stats().hits, hits, "another model's measurements are not reused");
    assert!(b.texts.load(Ordering::SeqCst) - before > passages.len());
    assert_eq!(cache.stats().entries, 2 * passages.len());
}

#[test]
fn at_the_deadline_the_passages_measured_are_judged_and_the_others_fail() {
    // 40 ms per embedding call: one group per passage, so about three are measured in 120 ms.
    let embedder = Hashed::new("hashed", Duration::from_millis(40));
    let passages = passages();
    let started = Instant::now();
    let judge = LocalJudge::new(&embedder, None, None).with_deadline(started + Duration::from_millis(120));
    let results = judge.judge_each(QUERY, &passages, &useful());
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    let done = results.iter().take_while(|r| r.is_ok()).count();
    assert!((1..passages.len()).contains(&done), "{done} passages judged");
    for r in &results[done..] {
        match r {
            Err(crate::Error::Judge { code, .. }) => assert_eq!(*code, ragsift_core::JudgeCode::DeadlineExceeded),
            other => panic!("expected deadline_exceeded, got {other:?}"),
        }
    }
    // The passages measured are judged together, as a request of those passages alone would be.
    let alone = LocalJudge::new(&Hashed::new("hashed", Duration::ZERO), None, None).judge_each(
        QUERY,
        &passages[..done],
        &useful(),
    );
    assert_eq!(scores(results)[..done], scores(alone)[..]);
    // A deadline already passed measures nothing.
    let late = LocalJudge::new(&embedder, None, None).with_deadline(Instant::now());
    assert!(late.judge_each(QUERY, &passages, &useful()).iter().all(Result::is_err));
}

//! The local judge as `ragsift serve` runs it: every request's embeddings through one queue (concurrent requests'
//! texts batched together), what it measured of each passage kept between requests (by content hash, in a bounded
//! cache), and a deadline a little before the request's, at which the selection answers with what it has: rag-jev's
//! `bypassed` with the judgments that did complete, never a wholesale bypass while work is still queued.

use super::Workbench;
use crate::Result;
use ragsift_eval::ragjev::RagJevJudgment;
use ragsift_eval::select::{bypassed, select_with, OnError, SelectFailure, SelectRequest, SelectionResult};
use ragsift_judge::{Judge, JudgeQuestion, LocalJudge, PassageJudgment};
use ragsift_models::embed_queue::EmbedQueue;
use ragsift_policy::USEFUL;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// rag-jev's code for a request whose deadline passed.
const DEADLINE_EXCEEDED: &str = "deadline_exceeded";

/// How long before the request's deadline the local judge stops: enough to finish the embedding run in progress
/// (`embed_queue::RUN_CHARS`) and build the answer before the service's own timeout gives a wholesale bypass.
pub(crate) fn judge_margin(timeout: Duration) -> Duration {
    (timeout / 5).min(Duration::from_millis(250))
}

impl Workbench {
    /// The embedder served selections share: the local model behind one queue (made again when the model was).
    fn served_embedder(&self) -> Result<Arc<EmbedQueue>> {
        let embedder = self.embedder()?;
        let mut slot = self.embed_queue.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((model, queue)) = slot.as_ref() {
            if Arc::ptr_eq(model, &embedder) {
                return Ok(queue.clone());
            }
        }
        let queue = Arc::new(EmbedQueue::new(embedder.clone())?);
        *slot = Some((embedder, queue.clone()));
        Ok(queue)
    }

    /// Calls `f` with the local judge of served selections: through the shared queue and passage cache, measuring
    /// no passage after `deadline`.
    pub(crate) fn with_served_local_judge<T>(
        &self,
        deadline: Instant,
        f: impl FnOnce(&dyn Judge) -> Result<T>,
    ) -> Result<T> {
        let (embedder, model, lib) = (self.served_embedder()?, self.model(None)?, self.library());
        let judge = LocalJudge::new(embedder.as_ref(), Some(model.as_ref()), Some(lib.store()))
            .with_cache(&self.passage_cache)
            .with_deadline(deadline);
        f(&judge)
    }
}

/// rag-jev's `select` with a judge that stops at a deadline: when it stopped before every passage was judged, the
/// `bypassed` result lists the judgments that did complete and counts them in `usage.completed_documents`, as
/// rag-jev's selector does at its deadline. Any other failure is [`select_with`]'s.
pub(crate) fn select_by_deadline(
    judge: &dyn Judge,
    request: &SelectRequest,
    on_error: OnError,
) -> std::result::Result<SelectionResult, SelectFailure> {
    let recorded = Recorded {
        judge,
        results: Mutex::new(Vec::new()),
    };
    match select_with(&recorded, request, on_error) {
        Ok(s) if s.selected_ids.is_none() && s.error_code.as_deref() == Some(DEADLINE_EXCEEDED) => {
            let completed = recorded.completed();
            Ok(bypassed(
                request,
                &completed,
                DEADLINE_EXCEEDED,
                &s.prompt_version,
                s.elapsed_ms,
            ))
        }
        other => other,
    }
}

/// A judge that keeps what its last `judge_each` answered.
struct Recorded<'j> {
    judge: &'j dyn Judge,
    results: Mutex<Vec<Option<RagJevJudgment>>>,
}

impl Recorded<'_> {
    /// Each passage's usefulness judgment, where it completed.
    fn completed(&self) -> Vec<Option<RagJevJudgment>> {
        self.results.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Judge for Recorded<'_> {
    fn name(&self) -> &'static str {
        self.judge.name()
    }
    fn model(&self) -> String {
        self.judge.model()
    }
    fn prompt_version(&self) -> String {
        self.judge.prompt_version()
    }
    fn calibrated(&self) -> bool {
        self.judge.calibrated()
    }
    fn judge(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> ragsift_judge::Result<Vec<PassageJudgment>> {
        self.judge_each(query, passages, questions).into_iter().collect()
    }
    fn judge_each(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> Vec<ragsift_judge::Result<PassageJudgment>> {
        let results = self.judge.judge_each(query, passages, questions);
        *self.results.lock().unwrap_or_else(|e| e.into_inner()) = (results.iter())
            .map(|r| {
                let j = r.as_ref().ok()?;
                Some(RagJevJudgment {
                    relevance: *j.scores.get(USEFUL)?,
                    model: j.model.clone(),
                    input_tokens: u64::from(j.input_tokens),
                    output_tokens: u64::from(j.output_tokens),
                })
            })
            .collect();
        results
    }
    fn contextual(&self) -> bool {
        self.judge.contextual()
    }
    fn input_scope(&self) -> String {
        self.judge.input_scope()
    }
    fn cache_ttl(&self) -> Option<Duration> {
        self.judge.cache_ttl()
    }
    fn not_assessed(&self) -> Vec<String> {
        self.judge.not_assessed()
    }
    fn defaults(&self) -> ragsift_policy::JudgeDefaults {
        self.judge.defaults()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragsift_eval::select::parse_request;
    use ragsift_judge::local::cache::PassageCache;
    use ragsift_models::embed::Embedder;
    use std::collections::BTreeMap;

    fn request(passages: usize) -> SelectRequest {
        let documents: Vec<serde_json::Value> = (0..passages)
            .map(|i| {
                serde_json::json!({"id": format!("d{i}"), "text": format!(
                    "Passage {i}. The Kestrel kettle has a {} year warranty. Descale it every {} weeks.",
                    i % 3 + 1,
                    i + 2
                )})
            })
            .collect();
        let body = serde_json::json!({"query": "How long is the kettle's warranty?", "documents": documents,
            "min_relevance": 0.5});
        parse_request(&body.to_string()).unwrap()
    }

    /// A contextual judge that answers the first `done` passages and runs out of time on the others.
    struct Stopped {
        done: usize,
    }

    impl Judge for Stopped {
        fn name(&self) -> &'static str {
            "local"
        }
        fn model(&self) -> String {
            "signals:test".into()
        }
        fn prompt_version(&self) -> String {
            "test-v1".into()
        }
        fn calibrated(&self) -> bool {
            true
        }
        fn contextual(&self) -> bool {
            true
        }
        fn judge(
            &self,
            query: &str,
            passages: &[String],
            questions: &[JudgeQuestion],
        ) -> ragsift_judge::Result<Vec<PassageJudgment>> {
            self.judge_each(query, passages, questions).into_iter().collect()
        }
        fn judge_each(
            &self,
            _query: &str,
            passages: &[String],
            _questions: &[JudgeQuestion],
        ) -> Vec<ragsift_judge::Result<PassageJudgment>> {
            (0..passages.len())
                .map(|i| {
                    if i < self.done {
                        Ok(PassageJudgment {
                            scores: BTreeMap::from([(USEFUL.to_string(), 0.1 * (i + 1) as f64)]),
                            model: "signals:test".into(),
                            input_tokens: 0,
                            output_tokens: 0,
                            latency_ms: 1.0,
                            request_id: None,
                        })
                    } else {
                        Err(ragsift_judge::Error::Judge {
                            code: ragsift_core::JudgeCode::DeadlineExceeded,
                            message: "the deadline passed".into(),
                        })
                    }
                })
                .collect()
        }
    }

    #[test]
    fn at_the_deadline_the_completed_judgments_are_listed() {
        let request = request(12);
        let s = select_by_deadline(&Stopped { done: 5 }, &request, OnError::Passthrough).unwrap();
        assert_eq!(s.status, ragsift_policy::Status::Bypassed);
        assert_eq!(s.error_code.as_deref(), Some("deadline_exceeded"));
        assert!(s.selected_ids.is_none());
        assert_eq!(s.documents.len(), 12, "the whole context passes through");
        assert_eq!(s.usage.completed_documents, 5);
        assert!(!s.usage.complete);
        assert_eq!(s.models, ["signals:test"]);
        for (i, d) in s.decisions.iter().enumerate() {
            let expected = (i < 5).then(|| 0.1 * (i + 1) as f64);
            assert_eq!(d.relevance, expected, "decision {i}");
        }
        // select_with alone drops a contextual judge's judgments; under raise the deadline is the failure.
        let wholesale = select_with(&Stopped { done: 5 }, &request, OnError::Passthrough).unwrap();
        assert_eq!(wholesale.usage.completed_documents, 0);
        let raised = select_by_deadline(&Stopped { done: 5 }, &request, OnError::Raise).unwrap_err();
        assert_eq!(raised.code, "deadline_exceeded");
        // Every passage judged: select_with's result, applied.
        let all = select_by_deadline(&Stopped { done: 12 }, &request, OnError::Passthrough).unwrap();
        let mut direct = select_with(&Stopped { done: 12 }, &request, OnError::Passthrough).unwrap();
        assert_eq!(all.status, ragsift_policy::Status::Applied);
        direct.elapsed_ms = all.elapsed_ms;
        assert_eq!(all, direct);
    }

    /// Words hashed into 32 dimensions: a text's vector depends on its text only.
    struct Hashed;

    impl Embedder for Hashed {
        fn id(&self) -> &str {
            "hashed"
        }
        fn dimensions(&self) -> usize {
            32
        }
        fn max_tokens(&self) -> usize {
            256
        }
        fn tokenizer_path(&self) -> &std::path::Path {
            std::path::Path::new("tokenizer.json")
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = [0.0f32; 32];
                    for w in t.split_whitespace() {
                        v[w.bytes().map(usize::from).sum::<usize>() % 32] += 1.0;
                    }
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-9);
                    v.iter().map(|x| x / n).collect()
                })
                .collect())
        }
    }

    #[test]
    fn served_selections_are_the_same_through_the_queue_and_the_cache() {
        let plain = Hashed;
        let queue = EmbedQueue::new(Arc::new(Hashed)).unwrap();
        let cache = PassageCache::new(1 << 20);
        let later = Instant::now() + Duration::from_secs(600);
        let requests: Vec<SelectRequest> = (8..14).map(request).collect();
        std::thread::scope(|s| {
            for request in &requests {
                let (queue, cache, plain) = (&queue, &cache, &plain);
                s.spawn(move || {
                    let expected = select_with(&LocalJudge::new(plain, None, None), request, OnError::Raise).unwrap();
                    for _ in 0..2 {
                        let served = LocalJudge::new(queue, None, None)
                            .with_cache(cache)
                            .with_deadline(later);
                        let mut got = select_by_deadline(&served, request, OnError::Raise).unwrap();
                        got.elapsed_ms = expected.elapsed_ms;
                        assert_eq!(got, expected);
                    }
                });
            }
        });
        assert!(cache.stats().hits > 0);
    }
}

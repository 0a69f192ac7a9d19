//! Selections served to a running application (`ragsift serve`, rag-jev's `POST /v1/select`): judged and
//! selected exactly as rag-jev's service does, and each one stored as a run of origin `served`, so the app can
//! inspect, replay, label and export it like any other.

use super::candidates::candidates_of;
use super::{served_judge, Workbench};
use crate::settings::JudgeKind;
use crate::Result;
use ragsift_eval::select::{select_with, OnError, SelectFailure, SelectRequest, SelectionResult};
use ragsift_judge::jev::Slots;
use ragsift_judge::{JevRequest, Judge};
use ragsift_pipeline::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use ragsift_pipeline::labels::RunLabels;
use ragsift_pipeline::trace::RunOrigin;
use ragsift_pipeline::Trace;
use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE};
use ragsift_policy::{IS_RELEVANT, USEFUL};
use ragsift_store::sqlite::RunSummary;
use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

/// How many served runs are kept: the newest `max_runs`, and none older than `max_days`. Labelled runs (relevance
/// or baseline labels on the run, or a span label made from it) are kept whatever their age; other runs are never
/// touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub max_runs: Option<usize>,
    pub max_days: Option<u32>,
}

/// What a service shares across its requests: one bound on the judge calls in flight (rag-jev's
/// `RAG_JEV_MAX_CONCURRENCY`), and each request's one total deadline (`RAG_JEV_TIMEOUT_MS`).
#[derive(Debug, Clone)]
pub struct ServeBounds {
    pub slots: Slots,
    pub timeout: Duration,
}

/// [`ServeBounds`] for one request: its deadline fixed when it arrived.
pub(crate) struct Bounded {
    pub slots: Slots,
    pub deadline: Instant,
}

impl Workbench {
    /// rag-jev's `select` as its service runs it: Jev's calls (one per passage, or one per contextual batch) each
    /// hold one of the shared slots, and none starts after the request's deadline, so no paid call outlives it. The
    /// local judge runs in this process and holds one slot for the whole selection; it measures passages until a
    /// little before the deadline ([`served_judge`]) and then answers with the judgments that completed. A slot
    /// that does not come free before the deadline is `deadline_exceeded`.
    pub fn select_served(
        &self,
        request: &SelectRequest,
        kind: JudgeKind,
        on_error: OnError,
        bounds: &ServeBounds,
    ) -> Result<std::result::Result<SelectionResult, SelectFailure>> {
        let bounded = Bounded {
            slots: bounds.slots.clone(),
            deadline: Instant::now() + bounds.timeout,
        };
        let resolved = self.resolve_judge(kind)?;
        if resolved.backend().is_some() {
            return self.with_bounded_judge(kind, request, Some(&bounded), |judge| {
                Ok(select_with(judge, request, on_error))
            });
        }
        let deadline = bounded.deadline - served_judge::judge_margin(bounds.timeout);
        let Some(_slot) = bounded.slots.acquire_until(deadline) else {
            return Ok(Err(SelectFailure {
                code: "deadline_exceeded".into(),
                message: "no judge came free before the deadline".into(),
            }));
        };
        if resolved != JudgeKind::Local {
            return self.with_bounded_judge(kind, request, Some(&bounded), |judge| {
                Ok(select_with(judge, request, on_error))
            });
        }
        self.with_served_local_judge(deadline, |judge| {
            Ok(served_judge::select_by_deadline(judge, request, on_error))
        })
    }

    /// The prompt version the judge of `kind` scores `request` with (what a `bypassed` result names when the
    /// deadline passes before the judge answers).
    pub fn served_prompt_version(&self, kind: JudgeKind, request: &SelectRequest) -> Result<String> {
        self.with_candidate_judge(kind, request, |judge| Ok(judge.prompt_version()))
    }

    /// Stores a selection served to `client` (its token label or user agent) as a run of origin `served`, made
    /// by that client; returns the run's id. `selection` is what the client received, a `bypassed` one included.
    pub fn record_served(
        &self,
        kind: JudgeKind,
        request: &SelectRequest,
        selection: &SelectionResult,
        client: &str,
    ) -> Result<String> {
        self.with_candidate_judge(kind, request, |judge| self.record(judge, request, selection, client))
    }

    /// Stores `selection` as a run: the request's documents as candidates, the usefulness answers the selection
    /// was made from, and the request's policy (so a replay at the same options selects the same passages).
    fn record(
        &self,
        judge: &dyn Judge,
        request: &SelectRequest,
        selection: &SelectionResult,
        client: &str,
    ) -> Result<String> {
        let (candidates, variant) = candidates_of(request);
        let judgments: Vec<CandidateJudgment> = (selection.decisions.iter())
            .filter_map(|d| {
                Some(CandidateJudgment {
                    chunk_id: d.id.clone(),
                    scores: BTreeMap::from([(USEFUL.to_string(), d.relevance?)]),
                    model: d.model.clone().unwrap_or_default(),
                    cached: false,
                    input_tokens: u32::try_from(d.input_tokens.unwrap_or(0)).unwrap_or(u32::MAX),
                    output_tokens: u32::try_from(d.output_tokens.unwrap_or(0)).unwrap_or(u32::MAX),
                    latency_ms: 0.0,
                })
            })
            .collect();
        let unscreened = selection.decisions.len() - judgments.len();
        let outcome = JudgeOutcome {
            judge: judge.name().to_string(),
            model: judge.model(),
            prompt_version: selection.prompt_version.clone(),
            calibrated: false,
            status: match (judgments.is_empty(), unscreened) {
                (_, 0) => JudgeStatus::Judged,
                (true, _) => JudgeStatus::Bypassed,
                (false, _) => JudgeStatus::Partial,
            },
            error_code: selection.error_code.clone(),
            error: None,
            fresh_passages: judgments.len(),
            cached_passages: 0,
            unscreened_passages: unscreened,
            input_tokens: u32::try_from(selection.usage.input_tokens).unwrap_or(u32::MAX),
            output_tokens: u32::try_from(selection.usage.output_tokens).unwrap_or(u32::MAX),
            latency_ms: selection.elapsed_ms,
            not_assessed: rag_jev_not_assessed(),
            defaults: judge.defaults(),
            judgments,
        };
        let lib = self.library();
        let mut trace = Trace::imported(
            &request.query,
            variant,
            candidates,
            outcome,
            &request.policy(),
            RunLabels::default(),
        )?;
        trace.origin = RunOrigin::Served;
        trace.made_by = client.to_string();
        trace.cost = trace.estimate_cost(&self.settings().rates);
        trace.save(lib.store())?;
        Ok(trace.run_id)
    }
}

impl Workbench {
    /// Removes the served runs `retention` does not keep, the oldest first; returns how many went. `now` is in
    /// seconds since the epoch, as a run's `created_at`.
    pub fn prune_served(&self, retention: Retention, now: i64) -> Result<usize> {
        let lib = self.library();
        let runs = lib.store().runs(i64::MAX as usize)?;
        let served: Vec<&RunSummary> = runs.iter().filter(|r| r.origin == RunOrigin::Served).collect();
        let cutoff = retention.max_days.map(|d| now - i64::from(d) * 86_400);
        let over = |i: usize, r: &RunSummary| {
            retention.max_runs.is_some_and(|m| i >= m) || cutoff.is_some_and(|c| r.created_at < c)
        };
        let candidates: Vec<&RunSummary> = (served.iter().enumerate())
            .filter(|(i, r)| over(*i, r))
            .map(|(_, r)| *r)
            .collect();
        if candidates.is_empty() {
            return Ok(0);
        }
        let spans: HashSet<String> = (lib.store().labels(None)?.into_iter())
            .filter_map(|l| l.run_id)
            .collect();
        let mut doomed = Vec::new();
        for r in candidates {
            let labelled = spans.contains(&r.id) || {
                let trace = Trace::load(lib.store(), &r.id)?;
                trace.labels.relevant_ids.is_some() || trace.labels.baseline_ids.is_some()
            };
            if !labelled {
                doomed.push(r.id.clone());
            }
        }
        lib.store().delete_runs(&doomed)
    }
}

/// The questions rag-jev's requests leave unasked (it asks the usefulness question only), as a run records them.
pub(crate) fn rag_jev_not_assessed() -> Vec<String> {
    [
        IS_RELEVANT,
        CONTAINS_ANSWER_EVIDENCE,
        CONTRADICTS_QUERY_PREMISE,
        CONTAINS_PROMPT_INJECTION,
    ]
    .map(str::to_string)
    .to_vec()
}

/// One passage a proxied decision call judged: its text, every answer it got and every question it was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxiedPassage {
    pub text: String,
    pub scores: BTreeMap<String, f64>,
    /// The model that answered (`jev-1.13.0`).
    pub model: String,
    /// The model the application asked for (`jev-latest`): the judgment cache keys answers by it.
    pub model_asked: String,
    /// Each question as the application sent it on the wire, by key (answered or not: a refused question has no
    /// score).
    pub questions: BTreeMap<String, serde_json::Value>,
    pub input_tokens: u32,
    pub output_tokens: u32,
}

/// rag-jev's request asks its usefulness question under this key.
const RAG_JEV_KEY: &str = "relevant";

impl Workbench {
    /// Stores the Jev calls an application made through `ragsift serve --jev-proxy` for one query as a run: its
    /// passages in the order they arrived, the answers Jev gave, and the caller's kind of policy (Spring's classify
    /// at its defaults when the filter's questions were asked, else rag-jev's rerank of the usefulness answers).
    pub fn record_proxied(
        &self,
        query: &str,
        passages: &[ProxiedPassage],
        backend: ragsift_judge::jev::Backend,
        client: &str,
    ) -> Result<String> {
        let documents = (passages.iter().enumerate())
            .map(|(i, p)| ragsift_eval::Document {
                id: format!("p{}", i + 1),
                text: p.text.clone(),
                metadata: serde_json::Map::new(),
                group_id: None,
                pinned: false,
            })
            .collect();
        let request = SelectRequest {
            query: query.to_string(),
            documents,
            ..serde_json::from_value(serde_json::json!({"query": query, "documents": [], "mode": "rerank"}))
                .map_err(|e| crate::Error::Invalid(e.to_string()))?
        };
        let (candidates, variant) = candidates_of(&request);
        let spring = passages.iter().any(|p| p.scores.contains_key(IS_RELEVANT));
        let asked = if spring { JevRequest::Spring } else { JevRequest::RagJev };
        let judge = ragsift_judge::JudgeName::Decision(backend, asked).as_str();
        let judgments: Vec<CandidateJudgment> = (passages.iter().zip(&request.documents))
            .map(|(p, d)| CandidateJudgment {
                chunk_id: d.id.clone(),
                scores: (p.scores.iter())
                    .map(|(k, v)| {
                        (
                            if k == RAG_JEV_KEY {
                                USEFUL.to_string()
                            } else {
                                k.clone()
                            },
                            *v,
                        )
                    })
                    .collect(),
                model: p.model.clone(),
                cached: false,
                input_tokens: p.input_tokens,
                output_tokens: p.output_tokens,
                latency_ms: 0.0,
            })
            .collect();
        // Questions asked of some passage are assessed by this judge; a passage without an answer to one failed it.
        let asked: std::collections::BTreeSet<String> = (passages.iter().flat_map(|p| p.questions.keys()))
            .map(|k| {
                if k == RAG_JEV_KEY {
                    USEFUL.to_string()
                } else {
                    k.clone()
                }
            })
            .chain(judgments.iter().flat_map(|j| j.scores.keys().cloned()))
            .collect();
        let outcome = JudgeOutcome {
            judge: judge.to_string(),
            model: passages.first().map(|p| p.model.clone()).unwrap_or_default(),
            prompt_version: ragsift_judge::JudgeName::parse(judge)
                .map(|n| n.prompt_version())
                .unwrap_or_default(),
            calibrated: false,
            status: JudgeStatus::Judged,
            error_code: None,
            error: None,
            fresh_passages: judgments.len(),
            cached_passages: 0,
            unscreened_passages: 0,
            input_tokens: passages.iter().map(|p| p.input_tokens).sum(),
            output_tokens: passages.iter().map(|p| p.output_tokens).sum(),
            latency_ms: 0.0,
            not_assessed: [
                IS_RELEVANT,
                CONTAINS_ANSWER_EVIDENCE,
                CONTRADICTS_QUERY_PREMISE,
                CONTAINS_PROMPT_INJECTION,
                USEFUL,
            ]
            .into_iter()
            .filter(|q| !asked.iter().any(|a| a.as_str() == *q))
            .map(str::to_string)
            .collect(),
            defaults: ragsift_policy::JudgeDefaults::default(),
            judgments,
        };
        let policy = if spring {
            ragsift_policy::PolicyOptions::default()
        } else {
            request.policy()
        };
        let lib = self.library();
        let mut trace = Trace::imported(query, variant, candidates, outcome, &policy, RunLabels::default())?;
        trace.origin = RunOrigin::Served;
        trace.made_by = client.to_string();
        trace.cost = trace.estimate_cost(&self.settings().rates);
        trace.save(lib.store())?;
        if spring {
            lib.store()
                .put_judgments(&cache_rows(query, passages, backend, trace.created_at))?;
        }
        Ok(trace.run_id)
    }
}

/// The answers of proxied calls that asked exactly this build's Jev questions (Spring's four and the usefulness
/// question, worded and shaped as the `jev` judge sends them), as judgment-cache rows of that judge: a later
/// answer here about the same passage reuses them. Answers to other wordings are kept in the run only.
fn cache_rows(
    query: &str,
    passages: &[ProxiedPassage],
    backend: ragsift_judge::jev::Backend,
    now: i64,
) -> Vec<ragsift_store::sqlite::CachedJudgment> {
    // The judge that asks these questions on this backend looks them up under its own name.
    let name = ragsift_judge::JudgeName::Decision(backend, JevRequest::Spring).as_str();
    let ours = ragsift_judge::jev::wire_form(&ragsift_judge::default_questions());
    let version = ragsift_judge::jev::PROMPT_VERSION;
    let query_hash = ragsift_core::ids::sha256_hex(query.as_bytes());
    let mut rows = Vec::new();
    for p in passages {
        let key = ragsift_pipeline::judging::JudgeKey {
            name,
            model: &p.model_asked,
            prompt_version: version,
        };
        let passage_hash = ragsift_core::ids::sha256_hex(p.text.as_bytes());
        for (question, probability) in &p.scores {
            if !ours.contains_key(question) || ours.get(question) != p.questions.get(question) {
                continue;
            }
            rows.push(ragsift_store::sqlite::CachedJudgment {
                key: key.cache_key(question, &query_hash, &passage_hash),
                judge: name.into(),
                model: p.model_asked.clone(),
                answered_by: p.model.clone(),
                prompt_version: version.into(),
                question: question.clone(),
                query_hash: query_hash.clone(),
                passage_hash: passage_hash.clone(),
                probability: *probability,
                input_tokens: p.input_tokens,
                output_tokens: p.output_tokens,
                latency_ms: 0.0,
                created_at: now,
            });
        }
    }
    rows
}

impl Workbench {
    /// The library's saved default policy as `settings.json` has it now (read from disk each time, so a policy
    /// saved in the app applies to a running `ragsift serve`'s next request).
    pub fn saved_policy(&self) -> Result<ragsift_policy::PolicyOptions> {
        Ok(crate::Settings::load(self.home())?.policy)
    }
}

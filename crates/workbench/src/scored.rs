//! rag-jev's scored runs brought into the library (`ragsift serve`'s `POST /v1/import`): the replayed view is
//! stored as a run of origin `imported`, with the record's own judgments, its relevance labels and baseline, and
//! the bundle's policy, so an application's production trace becomes a labelled run the app can inspect, replay
//! and evaluate, with no judge call.

use super::candidates::candidates_of;
use super::Workbench;
use crate::Result;
use ragsift_eval::select::{RunView, ScoredRun};
use ragsift_eval::ScoringStrategy;
use ragsift_judge::{JevRequest, JudgeName};
use ragsift_pipeline::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use ragsift_pipeline::labels::RunLabels;
use ragsift_pipeline::trace::RunOrigin;
use ragsift_pipeline::Trace;
use ragsift_policy::USEFUL;
use std::collections::BTreeMap;

impl Workbench {
    /// Stores a replayed rag-jev run (`view`, as [`ragsift_eval::select::replay`] made it) as a run of origin
    /// `imported`, made by `client`; returns its id. The judge is Jev with rag-jev's request (independent or
    /// contextual, as the record was scored), and only the usefulness question counts as assessed.
    pub fn import_scored_run(&self, view: &RunView, client: &str) -> Result<String> {
        let record: &ScoredRun = &view.record;
        let request = &view.record.request;
        let (candidates, variant) = candidates_of(request);
        let shared = record.scoring_usage.is_some();
        let judgments: Vec<CandidateJudgment> = (request.documents.iter().zip(&record.judgments))
            .map(|(d, j)| CandidateJudgment {
                chunk_id: d.id.clone(),
                scores: BTreeMap::from([(USEFUL.to_string(), j.relevance)]),
                model: j.model.clone(),
                cached: false,
                input_tokens: if shared { 0 } else { clamp(j.input_tokens) },
                output_tokens: if shared { 0 } else { clamp(j.output_tokens) },
                latency_ms: 0.0,
            })
            .collect();
        let judge = JudgeName::jev(match request.scoring_strategy {
            ScoringStrategy::Independent => JevRequest::RagJev,
            ScoringStrategy::Contextual => JevRequest::Contextual,
        });
        let usage = &view.selection.usage;
        let outcome = JudgeOutcome {
            judge: judge.as_str().to_string(),
            model: record.judgments.first().map(|j| j.model.clone()).unwrap_or_default(),
            prompt_version: record.prompt_version.clone(),
            calibrated: false,
            status: JudgeStatus::Judged,
            error_code: None,
            error: None,
            fresh_passages: judgments.len(),
            cached_passages: 0,
            unscreened_passages: 0,
            input_tokens: clamp(usage.input_tokens),
            output_tokens: clamp(usage.output_tokens),
            latency_ms: record.scoring_elapsed_ms,
            not_assessed: super::served::rag_jev_not_assessed(),
            defaults: ragsift_policy::JudgeDefaults::default(),
            judgments,
        };
        let labels = RunLabels {
            relevant_ids: record.relevant_ids.clone(),
            baseline_ids: record.baseline_ids.clone(),
            reference_answer: None,
        };
        let replayed = ragsift_eval::select::SelectRequest {
            mode: view.policy.mode,
            min_relevance: view.policy.min_relevance,
            top_n: view.policy.top_n,
            max_context_tokens: view.policy.max_context_tokens,
            shadow: view.policy.shadow,
            ..request.clone()
        };
        let lib = self.library();
        let mut trace = Trace::imported(&request.query, variant, candidates, outcome, &replayed.policy(), labels)?;
        trace.origin = RunOrigin::Imported;
        trace.made_by = client.to_string();
        trace.cost = trace.estimate_cost(&self.settings().rates);
        trace.save(lib.store())?;
        Ok(trace.run_id)
    }
}

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

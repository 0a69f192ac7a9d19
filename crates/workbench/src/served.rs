//! Selections served to a running application (`ragsift serve`, rag-jev's `POST /v1/select`): judged and
//! selected exactly as rag-jev's service does, and each one stored as a run of origin `served`, so the app can
//! inspect, replay, label and export it like any other.

use super::candidates::candidates_of;
use super::Workbench;
use crate::settings::JudgeKind;
use crate::Result;
use ragsift_eval::select::{SelectRequest, SelectionResult};
use ragsift_judge::Judge;
use ragsift_pipeline::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use ragsift_pipeline::labels::RunLabels;
use ragsift_pipeline::trace::RunOrigin;
use ragsift_pipeline::Trace;
use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE};
use ragsift_policy::{IS_RELEVANT, USEFUL};
use std::collections::BTreeMap;

impl Workbench {
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
                    answers: BTreeMap::from([(USEFUL.to_string(), d.relevance?)]),
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
            // rag-jev's service asks the usefulness question only.
            not_assessed: [
                IS_RELEVANT,
                CONTAINS_ANSWER_EVIDENCE,
                CONTRADICTS_QUERY_PREMISE,
                CONTAINS_PROMPT_INJECTION,
            ]
            .map(str::to_string)
            .to_vec(),
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

//! Regeneration: a new run from an old one's candidates and cached judgments, selected with other options; only
//! the answer is generated again (no retrieval, no judge call). Like replay, it refuses a run whose judge asked
//! other questions (another prompt version) than today's.

use super::judging::JudgeOutcome;
use super::query::Query;
use super::trace::Answer;
use super::{Pipeline, Stage, Timings, Trace};
use crate::Result;
use ragsift_interfaces::llm::CancelToken;
use ragsift_policy::{PolicyOptions, Selection};
use std::collections::BTreeMap;
use std::time::Instant;

impl Pipeline<'_> {
    /// A new run answering `previous`'s question from its own candidates and cached judgments, selected with
    /// `policy`: no retrieval, no judge call; only the answer is generated again.
    pub fn regenerate(
        &self,
        previous: &Trace,
        policy: &PolicyOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Trace> {
        let t = Instant::now();
        self.stage(Stage::Selecting);
        // The same check as replay: judgments made with other questions than today's are not reused.
        let expected = ragsift_judge::expected_prompt_version(&previous.judge.judge);
        let selection = previous.replay(policy, expected.as_deref())?.selection;
        let mut timings = Timings::default();
        timings.took(Stage::Selecting, t);
        let t = Instant::now();
        self.stage(Stage::Generating);
        let answer = self.answer(
            &previous.query,
            &previous.history,
            &previous.candidates,
            &previous.judge,
            &selection,
            on_token,
            cancel,
        )?;
        timings.took(Stage::Generating, t);
        let mut judge = previous.judge.clone();
        judge.fresh_passages = 0;
        judge.cached_passages = previous.candidates.len();
        // No judge was asked: the run costs no judging.
        (judge.input_tokens, judge.output_tokens) = (0, 0);
        self.save_rerun(previous, judge, policy.clone(), selection, answer, timings)
    }

    /// Saves a new run of `previous`'s question (its query, variants, candidates, origin and labels) with this
    /// judge outcome, policy, selection, answer and timings; costed at the pipeline's rates.
    fn save_rerun(
        &self,
        previous: &Trace,
        judge: JudgeOutcome,
        policy: PolicyOptions,
        selection: Selection,
        answer: Answer,
        timings: Timings,
    ) -> Result<Trace> {
        let original = Query {
            text: previous.query.clone(),
            history: previous.history.clone(),
        };
        let mut trace = Trace::new(
            &original,
            previous.transformed.clone(),
            previous.variants.clone(),
            previous.candidates.clone(),
            judge,
            policy,
            selection,
            answer,
            timings.into_map(),
        );
        trace.made_by = self.made_by.clone();
        trace.origin = previous.origin;
        trace.labels = previous.labels.clone();
        trace.cost = trace.estimate_cost(&self.options.rates);
        trace.save(self.store)?;
        Ok(trace)
    }
}

impl Pipeline<'_> {
    /// A new run answering `previous`'s question from exactly `ids` (candidate ids, in this order) with no judge:
    /// the context a baseline sends (rag-jev's `baseline_ids`, or every candidate), answered by the same augmenter
    /// and model as any run, so it can be compared with the run's own answer and inspected. The selection is
    /// explicit: the listed candidates pinned in the given order, every other one cut (`beyond_top_n`).
    pub fn answer_context(
        &self,
        previous: &Trace,
        ids: &[String],
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Trace> {
        use ragsift_policy::{Decision, Reason, Status};
        let position = |id: &str| ids.iter().position(|x| x == id);
        if let Some(bad) = ids
            .iter()
            .find(|id| !previous.candidates.iter().any(|c| &c.chunk_id == *id))
        {
            return Err(crate::Error::Invalid(format!(
                "`{bad}` is not one of run {}'s candidates",
                previous.run_id
            )));
        }
        if ids.iter().enumerate().any(|(i, id)| position(id) != Some(i)) {
            return Err(crate::Error::Invalid(
                "the context's candidate ids must be unique".into(),
            ));
        }
        let t = Instant::now();
        self.stage(Stage::Selecting);
        let policy = PolicyOptions {
            pinned: ids.to_vec(),
            top_n: (!ids.is_empty()).then_some(ids.len()),
            keep_groups_together: false,
            ..PolicyOptions::default()
        };
        let decisions: Vec<Decision> = (previous.candidates.iter().enumerate())
            .map(|(i, c)| {
                let rank = position(&c.chunk_id).map(|p| p + 1);
                Decision {
                    chunk_id: c.chunk_id.clone(),
                    input_index: i,
                    selected: Some(rank.is_some()),
                    returned: rank.is_some(),
                    rank,
                    score: None,
                    jev_rank: None,
                    fusion_score: None,
                    reason: if rank.is_some() {
                        Reason::Pinned
                    } else {
                        Reason::BeyondTopN
                    },
                    conflicting: false,
                    skipped_rules: Vec::new(),
                }
            })
            .collect();
        let kept = || previous.candidates.iter().filter(|c| position(&c.chunk_id).is_some());
        let mut counts = BTreeMap::new();
        for d in &decisions {
            *counts.entry(d.reason).or_insert(0) += 1;
        }
        let selection = Selection {
            decisions,
            selected_ids: Some(ids.to_vec()),
            returned_ids: ids.to_vec(),
            status: Status::Applied,
            selected_tokens: Some(kept().fold(0u32, |n, c| n.saturating_add(c.tokens))),
            selected_characters: Some(kept().fold(0u32, |n, c| n.saturating_add(c.text.chars().count() as u32))),
            counts,
            policy_version: policy.policy_version(),
            warnings: Vec::new(),
            notes: Vec::new(),
        };
        let mut timings = Timings::default();
        timings.took(Stage::Selecting, t);
        let t = Instant::now();
        self.stage(Stage::Generating);
        // No judgments reach the answer: a baseline neither abstains nor ranks by a judge's scores.
        let judge = super::unjudged(&previous.candidates);
        let answer = self.answer(
            &previous.query,
            &previous.history,
            &previous.candidates,
            &judge,
            &selection,
            on_token,
            cancel,
        )?;
        timings.took(Stage::Generating, t);
        self.save_rerun(previous, judge, policy, selection, answer, timings)
    }
}

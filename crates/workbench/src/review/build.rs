//! Building a packet from stored runs: each run's own answer, the baseline context answered as a new run, then
//! blinded.

use super::{blind, review_results, ReviewKey, ReviewPacket, ReviewPacketFiles, ReviewResults};
use crate::{Error, Result, Workbench};
use ragsift_library::retrieve::LibraryRetriever;
use ragsift_models::llm::CancelToken;
use ragsift_pipeline::answer::AnsweredBy;
use ragsift_pipeline::Pipeline;
use std::collections::HashSet;

impl Workbench {
    /// Builds a blinded review packet over `run_ids`: per run, the selected answer is the run's own (generated
    /// first when the run has none, as imported candidates), the baseline answer is generated from the baseline
    /// context (the run's labelled `baseline_ids`, else every candidate in retrieval order) as a new, inspectable
    /// run with no judge. The answers' order is drawn from `seed`. `on_progress(done, total)` sees each answer
    /// generated.
    pub fn review_packet(
        &self,
        run_ids: &[String],
        seed: u64,
        on_progress: &dyn Fn(usize, usize),
    ) -> Result<ReviewPacketFiles> {
        if run_ids.is_empty() {
            return Err(Error::Invalid("a review packet needs at least one run".into()));
        }
        let mut traces = Vec::with_capacity(run_ids.len());
        let mut seen = HashSet::new();
        for id in run_ids {
            let t = self.run(id)?;
            if !seen.insert(t.run_id.clone()) {
                return Err(Error::Invalid(format!("run {} is named twice", t.run_id)));
            }
            (t.labels.validate(&t.candidates)).map_err(|e| Error::Invalid(format!("run {}: {e}", t.run_id)))?;
            traces.push(t);
        }
        let unanswered = |t: &ragsift_pipeline::Trace| t.answered_by == AnsweredBy::NotAnswered;
        let total = traces.len() + traces.iter().filter(|t| unanswered(t)).count();
        on_progress(0, total);

        let model = self.model(None)?;
        let (lib, embedder, queries) = (self.library(), self.embedder()?, self.query_embedder()?);
        let retriever = LibraryRetriever {
            library: &lib,
            embedder: queries.as_ref(),
        };
        let mut pipeline = Pipeline::new(lib.store(), lib.user(), &retriever, model.as_ref());
        pipeline.embedder = Some(embedder.as_ref());
        let defaults = self.ask_defaults();
        pipeline.options.generate.max_tokens = defaults.max_tokens;
        pipeline.options.answer_mode = defaults.answer_mode;
        pipeline.options.rates = self.settings().rates;
        let cancel = CancelToken::new();

        let mut done = 0;
        let mut step = || {
            done += 1;
            on_progress(done, total);
        };
        let mut pairs = Vec::with_capacity(traces.len());
        for t in &traces {
            let answered;
            let selected = if unanswered(t) {
                answered = pipeline.regenerate(t, &t.policy, &mut |_| {}, &cancel)?;
                step();
                &answered
            } else {
                t.as_ref()
            };
            let baseline_ids: Vec<String> = match &t.labels.baseline_ids {
                Some(ids) => ids.clone(),
                None => t.candidates.iter().map(|c| c.chunk_id.clone()).collect(),
            };
            let baseline = pipeline.answer_context(t, &baseline_ids, &mut |_| {}, &cancel)?;
            step();
            pairs.push(blind::Pair::new(t, selected, &baseline));
        }
        Ok(blind::assemble(pairs, seed))
    }

    /// Checks the reviewers' labels (CSV) against `packet` and, with `key`, unblinds them: see [`review_results`].
    pub fn review_results(
        &self,
        packet: &ReviewPacket,
        labels_csv: &str,
        key: Option<&ReviewKey>,
    ) -> Result<ReviewResults> {
        review_results(packet, labels_csv, key)
    }
}

//! Regeneration: a new run from an old one's candidates and cached judgments, selected with other options; only
//! the answer is generated again (no retrieval, no judge call). Like replay, it refuses a run whose judge asked
//! other questions (another prompt version) than today's.

use super::query::Query;
use super::{ms, Pipeline, Stage, Trace};
use crate::Result;
use ragsift_models::llm::CancelToken;
use ragsift_policy::PolicyOptions;
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
        let mut timings = BTreeMap::from([("policy".to_string(), ms(t))]);
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
        timings.insert("generation".to_string(), ms(t));
        let original = Query {
            text: previous.query.clone(),
            history: previous.history.clone(),
        };
        let mut judge = previous.judge.clone();
        judge.fresh_passages = 0;
        judge.cached_passages = previous.candidates.len();
        let mut trace = Trace::new(
            &original,
            previous.transformed.clone(),
            previous.variants.clone(),
            previous.candidates.clone(),
            judge,
            policy.clone(),
            selection,
            answer,
            timings,
        );
        trace.made_by = self.library.user();
        trace.save(self.library.store())?;
        Ok(trace)
    }
}

//! The trace of one run — every query, hit, judgment, decision, the prompt and the answer — and replay: the
//! policy re-run over the trace's cached judgments with new options, with no judge call.

use super::answer::AnsweredBy;
use super::augment::{citations, unknown_citations, Source};
use super::cost::{CostEstimate, CostRates};
use super::join::Candidate;
use super::judging::{CandidateJudgment, JudgeOutcome};
use super::labels::{LabelReport, RunLabels};
use super::query::Query;
use super::support::Support;
use crate::{Error, Result};
use ragsift_core::ids::sha256_hex;
use ragsift_interfaces::llm::{ChatMessage, Completion, FinishReason, Usage};
use ragsift_interfaces::retrieve::Hit;
use ragsift_interfaces::store::LibraryStore;
use ragsift_interfaces::store::RunSummary;
use ragsift_policy::{diff, select, Change, ChunkJudgment, GroupBy, PolicyOptions, Selection};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A query as a stage left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StageQuery {
    pub stage: String,
    pub text: String,
}

/// What one variant retrieved: chunk ids with rank and scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct VariantHits {
    pub query: String,
    pub hits: Vec<VariantHit>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct VariantHit {
    pub chunk_id: String,
    pub rank: usize,
    pub score: f32,
    pub similarity: Option<f32>,
    pub bm25: Option<f32>,
}

impl VariantHits {
    pub fn from_hits(query: &str, hits: &[Hit]) -> Self {
        VariantHits {
            query: query.to_string(),
            hits: hits
                .iter()
                .map(|h| VariantHit {
                    chunk_id: h.chunk.id.clone(),
                    rank: h.rank,
                    score: h.score,
                    similarity: h.similarity,
                    bm25: h.bm25,
                })
                .collect(),
        }
    }
}

/// What the augmenter and the model produced: the numbered sources, the prompt sent, the completion.
pub(super) struct Answer {
    pub sources: Vec<Source>,
    pub prompt: String,
    pub completion: Completion,
    pub answered_by: AnsweredBy,
    pub support: Support,
}

/// Everything about one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Trace {
    pub run_id: String,
    pub created_at: i64,
    pub query: String,
    pub history: Vec<ChatMessage>,
    pub transformed: Vec<StageQuery>,
    pub variants: Vec<VariantHits>,
    pub candidates: Vec<Candidate>,
    pub judge: JudgeOutcome,
    pub policy: PolicyOptions,
    pub selection: Selection,
    pub sources: Vec<Source>,
    /// The exact prompt sent to the model (empty when no model was asked: extractive or no evidence).
    pub prompt: String,
    pub answer: String,
    /// Which answer mode produced `answer`.
    #[serde(default = "chat")]
    pub answered_by: AnsweredBy,
    /// How well the answer is supported (not assessed in runs made before it was kept).
    #[serde(default)]
    pub support: Support,
    pub citations: Vec<usize>,
    /// `[n]` citations in the answer that name no source: the model cited something it was not given.
    #[serde(default)]
    pub unknown_citations: Vec<usize>,
    /// Why the model stopped (`None` when no model was asked, and in runs made before it was kept).
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
    pub model: String,
    pub usage: Usage,
    /// Each timed stage's milliseconds, under its [`Stage::timing_key`](crate::Stage::timing_key).
    pub timings_ms: BTreeMap<String, f64>,
    /// sha256 over the original query and the candidates' ids and texts: replay refuses a changed input.
    pub fingerprint: String,
    /// Who made the run (the library's `user` setting, else the login name); empty in runs made before.
    #[serde(default)]
    pub made_by: String,
    /// Where the candidates came from: this library's retrieval, or another retriever's (imported).
    #[serde(default)]
    pub origin: RunOrigin,
    /// Relevant and baseline ids (from an import, eval cases, or marked by hand): not part of the fingerprint, so
    /// they can be set on any run; replay measures the selection against them.
    #[serde(default)]
    pub labels: RunLabels,
    /// Estimated cost from the configured rates (a part is `None` when its rate is not configured).
    #[serde(default)]
    pub cost: CostEstimate,
}

/// Where a run's candidates came from (stored with the run's summary, so lists can show and filter it).
pub use ragsift_interfaces::store::RunOrigin;

impl Trace {
    /// The milliseconds `stage` took in this run (`None` when it did not run or is not timed).
    pub fn timing(&self, stage: crate::Stage) -> Option<f64> {
        self.timings_ms.get(stage.timing_key()?).copied()
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        original: &Query,
        transformed: Vec<StageQuery>,
        variants: Vec<VariantHits>,
        candidates: Vec<Candidate>,
        judge: JudgeOutcome,
        policy: PolicyOptions,
        selection: Selection,
        answer: Answer,
        timings_ms: BTreeMap<String, f64>,
    ) -> Self {
        let Answer {
            sources,
            prompt,
            completion,
            answered_by,
            support,
        } = answer;
        let citations = citations(&completion.text, sources.len());
        let unknown = unknown_citations(&completion.text, sources.len());
        let finish_reason = (!completion.model.is_empty()).then_some(completion.finish_reason);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let fingerprint = fingerprint(&original.text, &candidates);
        let run_id =
            sha256_hex(format!("{}{}{}", now.as_nanos(), original.text, fingerprint).as_bytes())[..12].to_string();
        Trace {
            run_id,
            created_at: now.as_secs() as i64,
            query: original.text.clone(),
            history: original.history.clone(),
            transformed,
            variants,
            candidates,
            judge,
            policy,
            selection,
            sources,
            prompt,
            answer: completion.text,
            answered_by,
            support,
            citations,
            unknown_citations: unknown,
            finish_reason,
            model: completion.model,
            usage: completion.usage,
            timings_ms,
            fingerprint,
            made_by: String::new(),
            origin: RunOrigin::Library,
            labels: RunLabels::default(),
            cost: CostEstimate::default(),
        }
    }

    /// This run's cost at `rates`: the judge's fresh requests and the model's tokens.
    pub fn estimate_cost(&self, rates: &CostRates) -> CostEstimate {
        rates.estimate(
            u64::from(self.judge.input_tokens),
            u64::from(self.judge.output_tokens),
            u64::from(self.usage.prompt_tokens),
            u64::from(self.usage.completion_tokens),
        )
    }

    /// A run over another retriever's candidates, judged and selected here, not yet answered (an empty prompt and
    /// answer; regenerate answers it). `variant` is the query they were retrieved for, with their ranks. The
    /// policy is resolved with the judge's defaults, as an answer's is.
    pub fn imported(
        query: &str,
        variant: VariantHits,
        candidates: Vec<Candidate>,
        judge: JudgeOutcome,
        policy: &PolicyOptions,
        labels: RunLabels,
    ) -> Result<Trace> {
        labels.validate(&candidates).map_err(Error::Invalid)?;
        let policy = policy.resolved(&judge.defaults);
        policy.validate_resolved().map_err(Error::Invalid)?;
        let selection = select(
            &chunk_judgments(&candidates, &judge.judgments, &judge.not_assessed, policy.group_by),
            &policy,
        );
        let original = Query {
            text: query.to_string(),
            history: Vec::new(),
        };
        let completion = Completion {
            text: String::new(),
            model: String::new(),
            usage: Usage::default(),
            finish_reason: FinishReason::Stop,
        };
        let answer = Answer {
            sources: Vec::new(),
            prompt: String::new(),
            completion,
            answered_by: super::answer::AnsweredBy::NotAnswered,
            support: Support::assess(super::support::SupportInput::Unassessed, None, 0.0),
        };
        let timings = BTreeMap::from([("judge".to_string(), judge.latency_ms)]);
        let mut trace = Trace::new(
            &original,
            Vec::new(),
            vec![variant],
            candidates,
            judge,
            policy,
            selection,
            answer,
            timings,
        );
        trace.origin = RunOrigin::Imported;
        trace.labels = labels;
        Ok(trace)
    }

    pub fn save(&self, store: &dyn LibraryStore) -> Result<()> {
        let summary = RunSummary {
            id: self.run_id.clone(),
            created_at: self.created_at,
            query: self.query.clone(),
            judge: self.judge.judge.clone(),
            prompt_version: self.judge.prompt_version.clone(),
            made_by: self.made_by.clone(),
            origin: self.origin,
        };
        let json = serde_json::to_string(self).map_err(|e| Error::Invalid(format!("trace: {e}")))?;
        store.put_run(&summary, &self.fingerprint, &json)
    }

    /// Loads a run by id (or a unique id prefix).
    pub fn load(store: &dyn LibraryStore, id: &str) -> Result<Trace> {
        let json = store
            .run(id)?
            .ok_or_else(|| Error::NotFound(format!("no run '{id}' (see `ragsift runs list`)")))?;
        let mut trace: Trace =
            serde_json::from_str(&json).map_err(|e| Error::Invalid(format!("run {id}: unreadable trace: {e}")))?;
        trace.upgrade_stored();
        Ok(trace)
    }

    /// Reads a trace stored by an older ragsift as one made today: a rule skipped because the judge does not
    /// assess its question was a warning and is a note
    /// ([`ragsift_policy::Selection::move_skipped_rule_warnings_to_notes`]). Every reader of stored traces calls
    /// it: [`Trace::load`] and the run-file import ([`crate::portable::read`]).
    pub(crate) fn upgrade_stored(&mut self) {
        self.selection.move_skipped_rule_warnings_to_notes();
    }

    /// The policy's input for `options` (its grouping), from the run's candidates and cached judgments.
    pub fn policy_input(&self, options: &PolicyOptions) -> Vec<ChunkJudgment> {
        chunk_judgments(
            &self.candidates,
            &self.judge.judgments,
            &self.judge.not_assessed,
            options.group_by,
        )
    }

    /// Re-selects from the cached judgments with `options`: no judge, no model, no I/O. Refused when the trace's
    /// inputs no longer match its fingerprint, or when its judgments were made with another prompt version than
    /// `expected_prompt_version` (when given).
    pub fn replay(&self, options: &PolicyOptions, expected_prompt_version: Option<&str>) -> Result<Replay> {
        self.check_replayable(expected_prompt_version)?;
        self.reselect(options)
    }

    /// Whether [`Trace::replay`] may re-select this trace: not when its inputs no longer match its fingerprint
    /// (which hashes every candidate's text), nor when its judgments were made with another prompt version than
    /// `expected_prompt_version` (when given).
    pub fn check_replayable(&self, expected_prompt_version: Option<&str>) -> Result<()> {
        if fingerprint(&self.query, &self.candidates) != self.fingerprint {
            return Err(Error::Stale(format!(
                "run {}: its inputs do not match its fingerprint; it cannot be replayed, ask again",
                self.run_id
            )));
        }
        if let Some(v) = expected_prompt_version {
            if !self.judge.prompt_version.is_empty() && self.judge.prompt_version != v {
                return Err(Error::Stale(format!(
                    "run {} was judged with prompt version '{}', the judge now uses '{v}': replay would mix questions; ask again",
                    self.run_id, self.judge.prompt_version
                )));
            }
        }
        Ok(())
    }

    /// [`Trace::replay`] of a trace [`Trace::check_replayable`] already passed (the workbench checks the run it holds
    /// once, not on every slider move).
    pub fn reselect(&self, options: &PolicyOptions) -> Result<Replay> {
        self.reselect_over(options, |o| Arc::new(self.policy_input(o)))
    }

    /// [`Trace::reselect`] over the policy input `input` returns for the resolved options — which must be
    /// [`Trace::policy_input`]'s: a caller that replays one run on every slider move keeps it per grouping
    /// instead of rebuilding thousands of judgments each time.
    pub fn reselect_over(
        &self,
        options: &PolicyOptions,
        input: impl FnOnce(&PolicyOptions) -> Arc<Vec<ChunkJudgment>>,
    ) -> Result<Replay> {
        self.reselect_with(options, input, &self.labels)
    }

    /// [`Trace::reselect_over`] with its label report made against `labels` (the run's own, or its span labels):
    /// the report is built once, here.
    pub fn reselect_with(
        &self,
        options: &PolicyOptions,
        input: impl FnOnce(&PolicyOptions) -> Arc<Vec<ChunkJudgment>>,
        labels: &RunLabels,
    ) -> Result<Replay> {
        let options = options.resolved(&self.judge.defaults);
        options.validate_resolved().map_err(Error::Invalid)?;
        let selection = select(&input(&options), &options);
        let changes = diff(&self.selection, &selection);
        let labels = labels.report(&self.candidates, &selection);
        Ok(Replay {
            run_id: self.run_id.clone(),
            options,
            selection,
            changes,
            labels,
        })
    }
}

fn chat() -> AnsweredBy {
    AnsweredBy::Chat
}

/// The result of a replay, with what changed against the run's own selection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Replay {
    pub run_id: String,
    pub options: PolicyOptions,
    pub selection: Selection,
    pub changes: Vec<Change>,
    /// The selection against the run's labels (evidence recall, labelled evidence dropped, baseline → selected
    /// tokens); `None` when the run has no labels.
    pub labels: Option<LabelReport>,
}

/// Content fingerprint of a run's inputs.
pub fn fingerprint(query: &str, candidates: &[Candidate]) -> String {
    let mut s = String::from(query);
    for c in candidates {
        s.push('\u{1e}');
        s.push_str(&c.chunk_id);
        s.push('\u{1f}');
        s.push_str(&sha256_hex(c.text.as_bytes()));
    }
    sha256_hex(s.as_bytes())
}

/// A candidate's group under `group_by`: its document, its document and first page, or its document and heading
/// path. A chunk before any heading (an empty path) groups by its page, so that they are not all one group.
fn group_of(c: &Candidate, group_by: GroupBy) -> Option<String> {
    match group_by {
        GroupBy::None => None,
        GroupBy::Document => Some(c.document_id.clone()),
        GroupBy::Section if !c.section.is_empty() => Some(format!("{}#{}", c.document_id, c.section.join(" › "))),
        GroupBy::Page | GroupBy::Section => Some(format!("{}#{}", c.document_id, c.page_start)),
    }
}

/// Candidates + judgments → the policy's input (input order = joined order); `not_assessed` are the questions
/// the judge does not answer.
pub fn chunk_judgments(
    candidates: &[Candidate],
    judgments: &[CandidateJudgment],
    not_assessed: &[String],
    group_by: GroupBy,
) -> Vec<ChunkJudgment> {
    candidates
        .iter()
        .enumerate()
        .map(|(i, c)| ChunkJudgment {
            chunk_id: c.chunk_id.clone(),
            input_index: i,
            tokens: c.tokens,
            characters: c.text.chars().count() as u32,
            pinned: c.pinned,
            group: c.group_id.clone().or_else(|| group_of(c, group_by)),
            not_assessed: not_assessed.to_vec(),
            scores: judgments
                .get(i)
                .filter(|j| j.chunk_id == c.chunk_id)
                .or_else(|| judgments.iter().find(|j| j.chunk_id == c.chunk_id))
                .map(|j| j.scores.clone())
                .unwrap_or_default(),
        })
        .collect()
}

#[cfg(test)]
mod tests;

//! The modular RAG pipeline in Spring AI's order — query transformers → expander → retrieval per variant (in
//! parallel) → joiner → judge (on the ORIGINAL query, cached) → selection policy → augmenter → answer — recording
//! every stage in a [`Trace`] so that any run can be inspected and replayed.
//!
//! Long because it is the pipeline's one run, stage after stage, with the trace each stage writes.

pub mod ablation;
pub mod answer;
pub mod augment;
pub mod cost;
pub mod join;
pub mod judging;
pub mod labels;
pub mod portable;
pub mod query;
mod regenerate;
pub mod replay;
pub mod replay_delta;
pub mod support;
#[cfg(any(test, feature = "test-support"))]
pub mod synthetic;
pub mod trace;

pub use ragsift_core::{Error, Result};

use answer::{AnswerMode, AnsweredBy};
use augment::{augment, Source};
use join::{ConcatenationJoiner, Joiner};
use judging::{judge_candidates, JudgeOutcome, JudgeStatus};
use query::{CompressionQueryTransformer, MultiQueryExpander, Query, QueryExpander, QueryTransformer};
use query::{RewriteQueryTransformer, TranslationQueryTransformer};
use ragsift_interfaces::embed::Embedder;
use ragsift_interfaces::llm::{CancelToken, ChatMessage, Completion, FinishReason, GenerateOptions, LanguageModel};
use ragsift_interfaces::retrieve::{Hit, Retriever, SearchMode, SearchRequest};
use ragsift_interfaces::store::LibraryStore;
use ragsift_judge::{default_questions, Judge, JudgeQuestion};
use ragsift_policy::{select, PolicyOptions, Reason, Selection};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;
use trace::Answer;
pub use trace::{StageQuery, Trace, VariantHits};

/// A stage of answering, as the app and the CLI report it while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The language model is being loaded (first use).
    LoadingModel,
    /// Query transformers (compression, rewrite, translation) and expansion.
    Transforming,
    /// Retrieval per variant.
    Retrieving,
    /// The judge, through its cache.
    Judging,
    /// The selection policy.
    Selecting,
    /// The answer.
    Generating,
}

impl Stage {
    /// Every stage, in the order a run goes through them.
    pub const ALL: [Stage; 6] = [
        Stage::LoadingModel,
        Stage::Transforming,
        Stage::Retrieving,
        Stage::Judging,
        Stage::Selecting,
        Stage::Generating,
    ];

    /// The key of the stage's milliseconds in a trace's `timings_ms` (the names stored runs carry, so their
    /// checksums hold); `None` for loading the model, which is not timed apart from the stage it delays.
    pub fn timing_key(self) -> Option<&'static str> {
        match self {
            Stage::LoadingModel => None,
            Stage::Transforming => Some("query"),
            Stage::Retrieving => Some("retrieval"),
            Stage::Judging => Some("judge"),
            Stage::Selecting => Some("policy"),
            Stage::Generating => Some("generation"),
        }
    }

    /// The stage whose milliseconds `timings_ms` keeps under `key`.
    pub fn of_timing_key(key: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|s| s.timing_key() == Some(key))
    }
}

/// Each timed stage's milliseconds, under its [`Stage::timing_key`]: what a trace's `timings_ms` holds.
#[derive(Debug, Default)]
pub(crate) struct Timings(BTreeMap<String, f64>);

impl Timings {
    /// Records the time since `since` as `stage`'s.
    pub(crate) fn took(&mut self, stage: Stage, since: Instant) {
        if let Some(key) = stage.timing_key() {
            self.0.insert(key.to_string(), ms(since));
        }
    }

    pub(crate) fn into_map(self) -> BTreeMap<String, f64> {
        self.0
    }
}

/// Which stages run and how they are sized. Every stage is optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct PipelineOptions {
    /// Compress chat history + follow-up into a standalone query (only when there is history).
    pub compress_history: bool,
    /// Rewrite the query for search (Spring's RewriteQueryTransformer; target "vector store").
    pub rewrite: bool,
    /// Translate the query to this language first.
    pub translate_to: Option<String>,
    /// Multi-query variants besides the original (0 = no expansion; Spring's default is 3).
    pub variants: usize,
    pub top_k: usize,
    pub similarity_threshold: f32,
    /// Vector, keyword or hybrid search (`mode` before the rename).
    #[serde(alias = "mode")]
    pub search_mode: SearchMode,
    /// Raise instead of failing open when the judge fails.
    pub strict: bool,
    pub policy: PolicyOptions,
    /// Answer without context instead of Spring's "outside your knowledge base" prompt.
    pub allow_empty_context: bool,
    pub generate: GenerateOptions,
    /// Extractive, generative, or chosen by the model (auto).
    pub answer_mode: AnswerMode,
    /// Per-million-token prices for the run's cost estimate (none configured by default).
    pub rates: cost::CostRates,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            compress_history: true,
            rewrite: false,
            translate_to: None,
            variants: 0,
            top_k: 12,
            similarity_threshold: 0.0,
            search_mode: SearchMode::Hybrid,
            strict: false,
            policy: PolicyOptions::default(),
            allow_empty_context: false,
            generate: GenerateOptions {
                max_tokens: 256,
                temperature: 0.0,
                seed: 42,
            },
            answer_mode: AnswerMode::Auto,
            rates: cost::CostRates::default(),
        }
    }
}

/// The parts a pipeline runs with.
pub struct Pipeline<'a> {
    /// Where runs are saved and judgments cached.
    pub store: &'a dyn LibraryStore,
    /// Who runs it, as recorded in each run (the library's user).
    pub made_by: String,
    pub retriever: &'a dyn Retriever,
    pub model: &'a dyn LanguageModel,
    /// An instruction model that writes grounded answers when `model` is a base model (the installed answer
    /// model); without it a base model's answers are quoted.
    pub answerer: Option<&'a dyn LanguageModel>,
    pub judge: Option<&'a dyn Judge>,
    /// Embeds sentences for the extractive answer (without it, sentences are ranked by word overlap).
    pub embedder: Option<&'a dyn Embedder>,
    pub questions: Vec<JudgeQuestion>,
    pub options: PipelineOptions,
    /// Told the name of each stage as it starts (`transforming`, `retrieving`, `judging`, `selecting`,
    /// `generating`), for a progress display.
    pub observer: Option<&'a (dyn Fn(Stage) + Sync)>,
}

impl<'a> Pipeline<'a> {
    pub fn new(
        store: &'a dyn LibraryStore,
        made_by: impl Into<String>,
        retriever: &'a dyn Retriever,
        model: &'a dyn LanguageModel,
    ) -> Self {
        Pipeline {
            store,
            made_by: made_by.into(),
            retriever,
            model,
            answerer: None,
            judge: None,
            embedder: None,
            questions: default_questions(),
            options: PipelineOptions::default(),
            observer: None,
        }
    }

    fn stage(&self, stage: Stage) {
        if let Some(observe) = self.observer {
            observe(stage);
        }
    }

    /// Answers `query` (with `history`), streaming the answer through `on_token`, and stores the trace.
    pub fn ask(
        &self,
        query: &str,
        history: &[ChatMessage],
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Trace> {
        let o = &self.options;
        // Refuse a policy that cannot select (a filter mode without a threshold) before any model is called.
        let defaults = self.judge.map(|j| j.defaults()).unwrap_or_default();
        o.policy
            .resolved(&defaults)
            .validate_resolved()
            .map_err(Error::Invalid)?;
        let mut timings = Timings::default();
        let original = Query {
            text: query.to_string(),
            history: history.to_vec(),
        };

        let t = Instant::now();
        self.stage(Stage::Transforming);
        let mut transformers: Vec<Box<dyn QueryTransformer + '_>> = Vec::new();
        // A base model (no chat template) cannot follow the compression prompt: it would replace a follow-up with
        // noise, so the question is searched as asked.
        if o.compress_history && !history.is_empty() && self.model.follows_instructions() {
            transformers.push(Box::new(CompressionQueryTransformer { model: self.model }));
        }
        if let Some(lang) = &o.translate_to {
            transformers.push(Box::new(TranslationQueryTransformer {
                model: self.model,
                target_language: lang.clone(),
            }));
        }
        if o.rewrite {
            transformers.push(Box::new(RewriteQueryTransformer {
                model: self.model,
                target: "vector store".into(),
            }));
        }
        let mut current = original.clone();
        let mut transformed = Vec::new();
        for tr in &transformers {
            current = tr.transform(&current)?;
            transformed.push(StageQuery {
                stage: tr.name().into(),
                text: current.text.clone(),
            });
        }
        let variants: Vec<Query> = if o.variants > 0 {
            MultiQueryExpander {
                model: self.model,
                number: o.variants,
                include_original: true,
            }
            .expand(&current)?
        } else {
            vec![current.clone()]
        };
        timings.took(Stage::Transforming, t);

        let t = Instant::now();
        self.stage(Stage::Retrieving);
        let per_variant = self.retrieve_all(&variants)?;
        timings.took(Stage::Retrieving, t);
        let candidates = ConcatenationJoiner.join(&per_variant);

        // Post-retrieval stages see the ORIGINAL question.
        let t = Instant::now();
        self.stage(Stage::Judging);
        let outcome = match self.judge {
            Some(judge) => judge_candidates(self.store, judge, query, &candidates, &self.questions, o.strict)?,
            None => unjudged(&candidates),
        };
        timings.took(Stage::Judging, t);
        let t = Instant::now();
        self.stage(Stage::Selecting);
        let chunk_judgments = trace::chunk_judgments(
            &candidates,
            &outcome.judgments,
            &outcome.not_assessed,
            o.policy.group_by,
        );
        let policy = o.policy.resolved(&outcome.defaults);
        let selection = select(&chunk_judgments, &policy);
        timings.took(Stage::Selecting, t);

        let t = Instant::now();
        self.stage(Stage::Generating);
        let answer = self.answer(query, history, &candidates, &outcome, &selection, on_token, cancel)?;
        timings.took(Stage::Generating, t);

        let mut trace = Trace::new(
            &original,
            transformed,
            variants
                .iter()
                .zip(per_variant)
                .map(|(v, hits)| VariantHits::from_hits(&v.text, &hits))
                .collect(),
            candidates,
            outcome,
            policy,
            selection,
            answer,
            timings.into_map(),
        );
        trace.made_by = self.made_by.clone();
        trace.cost = trace.estimate_cost(&self.options.rates);
        trace.save(self.store)?;
        Ok(trace)
    }

    /// The augmenter and the answer: numbered sources from what `selection` returns, then the answer in the
    /// configured mode (see `answer`).
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        query: &str,
        history: &[ChatMessage],
        candidates: &[join::Candidate],
        outcome: &JudgeOutcome,
        selection: &Selection,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Answer> {
        let by_id: BTreeMap<&str, (usize, &join::Candidate)> = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| (c.chunk_id.as_str(), (i, c)))
            .collect();
        let kept: Vec<(usize, &join::Candidate)> = selection
            .returned_ids
            .iter()
            .filter_map(|id| by_id.get(id.as_str()).copied())
            .collect();
        let sources: Vec<Source> = kept
            .iter()
            .enumerate()
            .map(|(n, (_, c))| Source {
                number: n + 1,
                chunk_id: c.chunk_id.clone(),
                document: c.document.clone(),
                title: c.title.clone(),
                page_start: c.page_start,
                page_end: c.page_end,
                text: c.text.clone(),
            })
            .collect();
        // The evidence probability of each source, when the judge gave one.
        let evidence: Vec<Option<f64>> = kept
            .iter()
            .map(|(i, _)| {
                outcome.judgments.get(*i).and_then(|j| {
                    j.scores
                        .get(ragsift_policy::CONTAINS_ANSWER_EVIDENCE)
                        .or_else(|| j.scores.get(ragsift_policy::USEFUL))
                        .copied()
                })
            })
            .collect();
        // A kept passage speaks to the question when its evidence reaches the judge's answer threshold, or when it
        // was kept as conflicting (it corrects the question's premise) or pinned by the user.
        let speaks = |(k, p): (usize, &Option<f64>)| {
            let reason = selection
                .decisions
                .iter()
                .find(|d| d.chunk_id == sources[k].chunk_id)
                .map(|d| d.reason);
            p.is_some_and(|p| p >= outcome.defaults.answer_threshold)
                || matches!(reason, Some(Reason::Conflicting | Reason::Pinned))
        };
        let judged = evidence.iter().any(Option::is_some);
        let no_evidence = judged && !evidence.iter().enumerate().any(speaks);
        let base = !self.model.follows_instructions();
        // Who writes a grounded answer: the model itself when it follows instructions, else the answer model.
        let writer = if base { self.answerer } else { Some(self.model) };
        let empty = sources.is_empty() && !self.options.allow_empty_context;
        let mut by = match self.options.answer_mode {
            _ if empty || no_evidence => AnsweredBy::NoEvidence,
            AnswerMode::Extractive => AnsweredBy::Extractive,
            // Auto quotes for a base model: grounded answers were measured no better at the top of the answer
            // (BENCHMARKS.md, "Grounded answers"), so they are asked for by name.
            AnswerMode::Grounded if base && writer.is_some() => AnsweredBy::Grounded,
            AnswerMode::Auto | AnswerMode::Grounded if base => AnsweredBy::Extractive,
            AnswerMode::Generative if base => AnsweredBy::Completion,
            AnswerMode::Grounded => AnsweredBy::Grounded,
            _ => AnsweredBy::Chat,
        };
        let mut fixed = |text: String| {
            on_token(&text);
            (
                String::new(),
                Completion {
                    text,
                    model: String::new(),
                    usage: Default::default(),
                    finish_reason: FinishReason::Stop,
                },
            )
        };
        let mut quoted = None;
        // The quoted sentence's passage, score and [margin, answer-shape fit, coverage], for the support model.
        let quote_of = |ranked: &[(answer::ScoredSentence, Vec<f64>)], i: usize| {
            ranked.get(i).map(|(c, x)| {
                let runner_up = ranked
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, (o, _))| o.score)
                    .fold(f64::NEG_INFINITY, f64::max);
                let margin = if runner_up.is_finite() {
                    c.score - runner_up
                } else {
                    c.score
                };
                let at = |k: usize| x.get(k).copied().unwrap_or(0.0);
                (c.source, c.score, [margin, at(5), at(2)])
            })
        };
        let (prompt, completion) = match by {
            AnsweredBy::NoEvidence if empty || !judged => fixed(answer::no_evidence_answer(0, 0.0)),
            AnsweredBy::NoEvidence => fixed(answer::no_evidence_answer_with(
                sources.len(),
                evidence.iter().flatten().copied().reduce(f64::max),
                outcome.defaults.answer_threshold,
            )),
            AnsweredBy::NotAnswered => fixed(answer::NO_EVIDENCE_ANSWER.to_string()),
            AnsweredBy::Extractive => {
                let stats: &dyn ragsift_judge::local::signals::TermStats = self.store;
                let ranked = answer::rank_sentences(query, &sources, &evidence, self.embedder, Some(stats))?;
                quoted = quote_of(&ranked, 0);
                fixed(answer::extractive(&ranked, &sources))
            }
            AnsweredBy::Grounded => {
                use answer::grounded::{self, Checked};
                let stats: &dyn ragsift_judge::local::signals::TermStats = self.store;
                let ranked = answer::rank_sentences(query, &sources, &evidence, self.embedder, Some(stats))?;
                let shown = grounded::prompt_sentences(&ranked);
                let messages = grounded::grounded_messages(query, &ranked, &shown);
                let prompt = messages
                    .iter()
                    .map(|m| m.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n");
                let mut filter = grounded::CitationFilter::default();
                let mut streamed = |t: &str| {
                    let shown = filter.push(t);
                    if !shown.is_empty() {
                        on_token(&shown);
                    }
                };
                let mut generate = self.options.generate.clone();
                generate.max_tokens = generate.max_tokens.min(grounded::MAX_TOKENS);
                let writer = writer.unwrap_or(self.model);
                let mut c = writer.chat(&messages, &generate, &mut streamed, cancel)?;
                let text = match grounded::check(&c.text, query, &ranked, &shown) {
                    Checked::Claims(claims) => {
                        quoted = quote_of(&ranked, claims[0].sentence);
                        grounded::compose(&claims, &ranked, &sources)
                    }
                    Checked::Chosen(i) => {
                        quoted = quote_of(&ranked, i);
                        grounded::compose_chosen(i, &ranked, &sources)
                    }
                    Checked::NotFound => {
                        by = AnsweredBy::NoEvidence;
                        grounded::not_found_answer(sources.len(), shown.len())
                    }
                    Checked::Unsupported { .. } => {
                        by = AnsweredBy::Extractive;
                        quoted = quote_of(&ranked, 0);
                        answer::extractive(&ranked, &sources)
                    }
                };
                // What was streamed is the model's draft; the checked answer follows it (and replaces it in Chat).
                on_token(&format!("\n\n{}\n", grounded::CHECKED_HEADING));
                on_token(&text);
                // The Inspector shows the prompt with the model's own reply beneath it, before the check.
                let prompt = format!("{prompt}\n\n{}\n{}", grounded::REPLY_HEADING, c.text);
                c.text = text;
                (prompt, c)
            }
            AnsweredBy::Completion => {
                let prompt = answer::completion_prompt(query, &sources);
                let c = self.model.complete(
                    &prompt,
                    answer::COMPLETION_STOPS,
                    &self.options.generate,
                    on_token,
                    cancel,
                )?;
                (prompt, c)
            }
            AnsweredBy::Chat => {
                let prompt = augment(query, &sources, self.options.allow_empty_context);
                let mut messages = history.to_vec();
                messages.push(ChatMessage::user(prompt.clone()));
                let c = self.model.chat(&messages, &self.options.generate, on_token, cancel)?;
                (prompt, c)
            }
        };
        let fitted = outcome.judge == "local" && self.embedder.is_some() && answer::sentence_model().is_some();
        let support = support_input(by, quoted, &completion.text, &evidence, fitted);
        let support = support::Support::assess(support, support::shipped(), outcome.defaults.answer_threshold);
        let cited = if by == AnsweredBy::NoEvidence {
            Vec::new()
        } else {
            sources
        };
        Ok(Answer {
            sources: cited,
            prompt,
            completion: answer::without_echo(completion),
            answered_by: by,
            support,
        })
    }

    /// Retrieval per variant, in parallel.
    fn retrieve_all(&self, variants: &[Query]) -> Result<Vec<Vec<Hit>>> {
        let o = &self.options;
        std::thread::scope(|s| {
            let handles: Vec<_> = variants
                .iter()
                .map(|v| {
                    let req = SearchRequest {
                        query: v.text.clone(),
                        top_k: o.top_k,
                        threshold: o.similarity_threshold,
                        search_mode: o.search_mode,
                    };
                    s.spawn(move || self.retriever.retrieve(&req))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(crate::Error::Invalid("retrieval panicked".into())))
                })
                .collect()
        })
    }
}

/// What an answer's support is computed from: the quoted sentence's passage (extractive), else the first cited
/// passage, with its evidence probability when the judge gave one.
fn support_input(
    by: AnsweredBy,
    quoted: Option<(usize, f64, [f64; 3])>,
    text: &str,
    evidence: &[Option<f64>],
    fitted: bool,
) -> support::SupportInput {
    use support::SupportInput;
    let all = evidence;
    let evidence_of = |k: usize| evidence.get(k).copied().flatten();
    match by {
        AnsweredBy::NoEvidence => SupportInput::NoEvidence,
        AnsweredBy::NotAnswered => SupportInput::Unassessed,
        AnsweredBy::Extractive | AnsweredBy::Grounded => {
            match quoted.and_then(|(k, s, x)| Some((k, evidence_of(k)?, s, x))) {
                Some((k, evidence, sentence, [margin, kind, coverage])) => SupportInput::Quoted {
                    source: k + 1,
                    evidence,
                    sentence,
                    rest: [
                        margin,
                        kind,
                        coverage,
                        all.iter().flatten().copied().fold(0.0, f64::max),
                    ],
                    fitted,
                },
                None => SupportInput::Unassessed,
            }
        }
        AnsweredBy::Completion | AnsweredBy::Chat => {
            match augment::citations(text, evidence.len())
                .first()
                .and_then(|&n| Some((n, evidence_of(n - 1)?)))
            {
                Some((source, evidence)) => SupportInput::Cited { source, evidence },
                None => SupportInput::Unassessed,
            }
        }
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// No judge: every candidate unscored, so the policy passes the original context through.
fn unjudged(candidates: &[join::Candidate]) -> JudgeOutcome {
    JudgeOutcome {
        judge: "none".into(),
        model: String::new(),
        prompt_version: String::new(),
        calibrated: false,
        status: JudgeStatus::None,
        error_code: None,
        error: None,
        judgments: candidates
            .iter()
            .map(|c| judging::CandidateJudgment {
                chunk_id: c.chunk_id.clone(),
                scores: BTreeMap::new(),
                model: String::new(),
                cached: false,
                input_tokens: 0,
                output_tokens: 0,
                latency_ms: 0.0,
            })
            .collect(),
        fresh_passages: 0,
        cached_passages: 0,
        unscreened_passages: 0,
        input_tokens: 0,
        output_tokens: 0,
        latency_ms: 0.0,
        not_assessed: Vec::new(),
        defaults: Default::default(),
    }
}

#[cfg(test)]
mod stage_tests {
    use super::Stage;

    #[test]
    fn timing_keys_are_the_names_stored_runs_carry_and_name_one_stage_each() {
        let keys: Vec<&str> = Stage::ALL.iter().filter_map(|s| s.timing_key()).collect();
        assert_eq!(keys, ["query", "retrieval", "judge", "policy", "generation"]);
        for stage in Stage::ALL {
            if let Some(key) = stage.timing_key() {
                assert_eq!(Stage::of_timing_key(key), Some(stage));
            }
        }
        assert_eq!(Stage::of_timing_key("loading_model"), None);
    }
}

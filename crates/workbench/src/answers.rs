//! Answers and what is done with them: ask (streamed, with stage events), replay from cached judgments,
//! regenerate with another selection; and the one place a judge is chosen.

use super::Workbench;
use crate::settings::JudgeKind;
use crate::Result;
use ragsift_judge::JevRequest;
use ragsift_library::retrieve::{LibraryRetriever, SearchMode};
use ragsift_models::llm::{CancelToken, ChatMessage, LanguageModel};
use ragsift_pipeline::{answer::AnswerMode, Pipeline, Stage, Trace};
use ragsift_policy::PolicyOptions;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A question, the conversation so far (it feeds the compression transformer) and optional stage settings
/// (the saved defaults otherwise).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AskRequest {
    pub question: String,
    pub history: Vec<ChatMessage>,
    pub options: Option<AskOptions>,
}

/// How one answer is made; [`Workbench::ask_defaults`] gives the saved settings, which the app and the CLI
/// start from and override.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AskOptions {
    /// Rewrite the question for search first.
    pub rewrite: bool,
    /// Multi-query variants besides the original (0 = none).
    pub variants: u32,
    /// Hits per variant.
    pub top_k: u32,
    /// Vector, keyword or hybrid search (`mode` in settings written before the rename).
    #[serde(alias = "mode")]
    pub search_mode: SearchMode,
    /// Longest answer, in tokens.
    pub max_tokens: u32,
    /// Hits below this similarity are dropped.
    pub similarity_threshold: f32,
    /// The judge (`auto`: Jev with a key, else local).
    pub judge: JudgeKind,
    /// What Jev is asked, when the judge is Jev: Spring's questions, rag-jev's request, or contextual scoring.
    #[serde(default)]
    pub jev_request: JevRequest,
    /// Fail when the judge fails, instead of answering from the unfiltered context (fail-open).
    pub strict: bool,
    /// Extractive quotes, a generated answer, or `auto` by model.
    pub answer_mode: AnswerMode,
    /// The selection policy.
    pub policy: PolicyOptions,
}

/// A policy as the replay form shows it, with the run's judge's own defaults beside it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PolicyForm {
    /// The options asked about, every threshold and the minimum relevance filled.
    pub options: PolicyOptions,
    /// The same options with the judge's thresholds and minimum relevance instead of their own.
    pub judge_defaults: PolicyOptions,
}

/// What an answer in progress reports.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AskEvent {
    /// A stage started.
    Stage {
        /// Which one.
        stage: Stage,
    },
    ModelLoading {
        fraction: f64,
    },
    Token {
        text: String,
    },
}

/// Receives events from another thread.
pub type Events<T> = Arc<dyn Fn(T) + Send + Sync>;

impl Workbench {
    /// The options an answer uses unless told otherwise: the saved settings (stages, retrieval, judge, answer
    /// mode, default policy).
    pub fn ask_defaults(&self) -> AskOptions {
        let s = self.settings();
        AskOptions {
            rewrite: s.pipeline.rewrite,
            variants: s.pipeline.variants,
            top_k: s.library.top_k as u32,
            search_mode: s.pipeline.search_mode,
            max_tokens: ragsift_pipeline::PipelineOptions::default().generate.max_tokens,
            similarity_threshold: s.library.similarity_threshold,
            judge: s.judge.kind,
            jev_request: s.judge.request,
            strict: false,
            answer_mode: s.pipeline.answer_mode,
            policy: s.policy,
        }
    }

    /// Answers `request`, streaming stages and tokens; the trace is stored as a run.
    pub fn ask(&self, request: &AskRequest, job: &str, events: Events<AskEvent>) -> Result<Trace> {
        let ask = request.options.clone().unwrap_or_else(|| self.ask_defaults());
        self.run_pipeline(
            job,
            events,
            (ask.judge, ask.jev_request, ask.answer_mode),
            |pipeline, on_token, cancel| {
                let o = &mut pipeline.options;
                (o.rewrite, o.variants, o.top_k, o.search_mode) =
                    (ask.rewrite, ask.variants as usize, ask.top_k as usize, ask.search_mode);
                o.generate.max_tokens = ask.max_tokens;
                o.similarity_threshold = ask.similarity_threshold;
                o.strict = ask.strict;
                o.answer_mode = ask.answer_mode;
                o.policy = ask.policy.clone();
                pipeline.ask(&request.question, &request.history, on_token, cancel)
            },
        )
    }

    /// `options` as the replay form shows them for a run: every threshold and the minimum relevance filled from
    /// the run's judge's defaults ([`PolicyOptions::for_form`]), and the judge's own defaults beside them
    /// ([`PolicyOptions::judge_form`]), for the form's reset.
    pub fn policy_form(&self, run_id: &str, options: &PolicyOptions) -> Result<PolicyForm> {
        let trace = self.run(run_id)?;
        let defaults = &trace.judge.defaults;
        Ok(PolicyForm {
            options: options.for_form(defaults),
            judge_defaults: options.judge_form(defaults),
        })
    }

    /// A new run answering the same question with the selection `options` give (no retrieval, no judge call).
    pub fn regenerate(
        &self,
        run_id: &str,
        options: &PolicyOptions,
        job: &str,
        events: Events<AskEvent>,
    ) -> Result<Trace> {
        let previous = self.run(run_id)?;
        self.run_pipeline(
            job,
            events,
            (JudgeKind::None, JevRequest::Spring, AnswerMode::Auto),
            |pipeline, on_token, cancel| pipeline.regenerate(&previous, options, on_token, cancel),
        )
    }

    /// Runs `f` on a pipeline over the library and the loaded model, judged by `judge.0`/`judge.1`, with the answer
    /// model beside a base model when answer mode `judge.2` is grounded, as job `job`, reporting
    /// stages and tokens; the resulting trace becomes the remembered one.
    fn run_pipeline(
        &self,
        job: &str,
        events: Events<AskEvent>,
        judge: (JudgeKind, JevRequest, AnswerMode),
        f: impl FnOnce(&mut Pipeline<'_>, &mut dyn FnMut(&str), &CancelToken) -> Result<Trace>,
    ) -> Result<Trace> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let model = self.model_with_progress(&events)?;
        let answerer = match judge.2 {
            AnswerMode::Grounded if !model.follows_instructions() => {
                let e = events.clone();
                self.answer_model(Some(Box::new(move |f| {
                    e(AskEvent::ModelLoading { fraction: f as f64 });
                })))?
            }
            _ => None,
        };
        let (lib, embedder, queries) = (self.library(), self.embedder()?, self.query_embedder()?);
        let retriever = LibraryRetriever {
            library: &lib,
            embedder: queries.as_ref(),
        };
        let judge = self.build_judge(judge.0, judge.1, embedder.as_ref(), model.as_ref(), lib.store())?;
        let mut pipeline = Pipeline::new(lib.store(), lib.user(), &retriever, model.as_ref());
        pipeline.answerer = answerer.as_deref();
        pipeline.options.rates = self.settings().rates;
        pipeline.embedder = Some(embedder.as_ref());
        pipeline.judge = judge.as_deref();
        let stage_events = events.clone();
        let observer = move |stage: Stage| stage_events(AskEvent::Stage { stage });
        pipeline.observer = Some(&observer);
        let trace = f(
            &mut pipeline,
            &mut |t| events(AskEvent::Token { text: t.into() }),
            &cancel,
        )?;
        self.remember(trace.clone());
        Ok(trace)
    }

    fn model_with_progress(&self, events: &Events<AskEvent>) -> Result<Arc<dyn LanguageModel>> {
        events(AskEvent::Stage {
            stage: Stage::LoadingModel,
        });
        let e = events.clone();
        self.model(Some(Box::new(move |f| {
            e(AskEvent::ModelLoading { fraction: f as f64 });
        })))
    }

    pub(crate) fn remember(&self, trace: Trace) {
        *self.last_trace.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(trace));
    }
}

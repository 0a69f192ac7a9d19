//! Answers and what is done with them: ask (streamed, with stage events), replay from cached judgments,
//! regenerate with another selection, and evaluation over rag-jev cases.

use super::Workbench;
use crate::eval::{self, EvalOptions, EvalReport, Sweep};
use crate::judge::{expected_prompt_version, JevJudge, Judge, LocalJudge};
use crate::llm::{CancelToken, ChatMessage, LanguageModel};
use crate::pipeline::{trace::Replay, Pipeline, Trace};
use crate::policy::PolicyOptions;
use crate::retrieve::{LibraryRetriever, SearchMode};
use crate::{Error, Result};
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

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AskOptions {
    pub rewrite: bool,
    pub variants: u32,
    pub top_k: u32,
    pub mode: SearchMode,
    /// Longest answer, in tokens.
    pub max_tokens: u32,
}

/// What an answer in progress reports.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AskEvent {
    /// A stage started: `loading_model`, `transforming`, `retrieving`, `judging`, `selecting`, `generating`.
    Stage {
        stage: String,
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

/// An evaluation: rag-jev cases, their traces (saved, or scored live), the metrics and the sweep.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalRequest {
    pub cases_path: String,
    /// Saved rag-jev traces to replay; scored live by `judge` when absent.
    pub traces_path: Option<String>,
    /// Cases without documents take the library's top-k chunks.
    pub from_library: bool,
    pub top_k: u32,
    /// `jev` or `local`.
    pub judge: String,
    pub min_relevance: f64,
    pub top_n: Option<u32>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalView {
    pub report: EvalReport,
    pub sweep: Sweep,
}

impl Workbench {
    /// Answers `request`, streaming stages and tokens; the trace is stored as a run.
    pub fn ask(&self, request: &AskRequest, job: &str, events: Events<AskEvent>) -> Result<Trace> {
        self.run_pipeline(job, events, true, |pipeline, on_token, cancel| {
            let s = pipeline.library.settings();
            let defaults = AskOptions {
                rewrite: s.pipeline.rewrite,
                variants: s.pipeline.variants,
                top_k: s.top_k as u32,
                mode: s.pipeline.mode,
                max_tokens: pipeline.options.generate.max_tokens,
            };
            let ask = request.options.clone().unwrap_or(defaults);
            let o = &mut pipeline.options;
            (o.rewrite, o.variants, o.top_k, o.mode) =
                (ask.rewrite, ask.variants as usize, ask.top_k as usize, ask.mode);
            o.generate.max_tokens = ask.max_tokens;
            o.similarity_threshold = s.similarity_threshold;
            o.answer_mode = s.pipeline.answer_mode;
            o.policy = s.policy.clone();
            pipeline.ask(&request.question, &request.history, on_token, cancel)
        })
    }

    /// Re-selects a run's candidates with `options` from its cached judgments: no judge, no model.
    pub fn replay(&self, run_id: &str, options: &PolicyOptions) -> Result<Replay> {
        let trace = self.run(run_id)?;
        trace.replay(options, expected_prompt_version(&trace.judge.judge).as_deref())
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
        self.run_pipeline(job, events, false, |pipeline, on_token, cancel| {
            pipeline.regenerate(&previous, options, on_token, cancel)
        })
    }

    /// Runs `f` on a pipeline over the library and the loaded model (with the configured judge when `judged`),
    /// as job `job`, reporting stages and tokens; the resulting trace becomes the remembered one.
    fn run_pipeline(
        &self,
        job: &str,
        events: Events<AskEvent>,
        judged: bool,
        f: impl FnOnce(&mut Pipeline<'_>, &mut dyn FnMut(&str), &CancelToken) -> Result<Trace>,
    ) -> Result<Trace> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let model = self.model_with_progress(&events)?;
        let (lib, embedder) = (self.library(), self.embedder()?);
        let retriever = LibraryRetriever {
            library: &lib,
            embedder: embedder.as_ref(),
        };
        let jev;
        let local;
        let mut pipeline = Pipeline::new(&lib, &retriever, model.as_ref());
        pipeline.embedder = Some(embedder.as_ref());
        pipeline.judge = match self.judge_info().kind.as_str() {
            _ if !judged => None,
            "jev" => {
                jev = self.jev_judge()?;
                Some(&jev as &dyn Judge)
            }
            "local" => {
                local = LocalJudge::new(embedder.as_ref(), Some(model.as_ref()), Some(lib.store()));
                Some(&local as &dyn Judge)
            }
            _ => None,
        };
        let stage_events = events.clone();
        let observer = move |stage: &str| stage_events(AskEvent::Stage { stage: stage.into() });
        pipeline.observer = Some(&observer);
        let trace = f(
            &mut pipeline,
            &mut |t| events(AskEvent::Token { text: t.into() }),
            &cancel,
        )?;
        self.remember(trace.clone());
        Ok(trace)
    }

    /// Metrics per policy and the threshold sweep over rag-jev cases.
    pub fn evaluate(&self, request: &EvalRequest, job: &str) -> Result<EvalView> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let invalid = |e: eval::EvalError| Error::Invalid(e.to_string());
        let cases = if request.from_library {
            let (lib, embedder) = (self.library(), self.embedder()?);
            let retriever = LibraryRetriever {
                library: &lib,
                embedder: embedder.as_ref(),
            };
            eval::library::load_cases_from_library(&request.cases_path, &retriever, request.top_k as usize)
        } else {
            eval::load_cases(&request.cases_path)
        }
        .map_err(invalid)?;
        let traces = match &request.traces_path {
            Some(path) => eval::load_traces(path).map_err(invalid)?,
            None => {
                let (model, embedder, lib) = (self.model(None)?, self.embedder()?, self.library());
                let local;
                let jev;
                let judge: &dyn Judge = match request.judge.as_str() {
                    "jev" => {
                        jev = self.jev_judge()?;
                        &jev
                    }
                    _ => {
                        local = LocalJudge::new(embedder.as_ref(), Some(model.as_ref()), Some(lib.store()));
                        &local
                    }
                };
                eval::live::score_cases(judge, &cases, &cancel, &mut |_, _| {})?
            }
        };
        let options = EvalOptions {
            min_relevance: request.min_relevance,
            top_n: request.top_n.map(|n| n as usize),
        };
        let report = eval::evaluate(&cases, &traces, &options).map_err(invalid)?;
        let sweep = eval::sweep(&cases, &traces, &options, &eval::threshold_grid(eval::SWEEP_STEP)).map_err(invalid)?;
        Ok(EvalView { report, sweep })
    }

    fn jev_judge(&self) -> Result<JevJudge> {
        let config = self
            .jev_config()
            .ok_or_else(|| Error::Auth("the Jev judge needs an API key: add one in Settings".into()))?;
        JevJudge::new(config)
    }

    fn model_with_progress(&self, events: &Events<AskEvent>) -> Result<Arc<dyn LanguageModel>> {
        events(AskEvent::Stage {
            stage: "loading_model".into(),
        });
        let e = events.clone();
        self.model(Some(Box::new(move |f| {
            e(AskEvent::ModelLoading { fraction: f as f64 })
        })))
    }

    fn remember(&self, trace: Trace) {
        *self.last_trace.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(trace));
    }
}

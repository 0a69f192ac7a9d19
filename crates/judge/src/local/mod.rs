//! The local judge: answers the judge's questions offline from measured signals (`signals`, `injection`)
//! combined by logistic models fitted on a labelled set of real papers (`fixtures/qa`, see `model` and
//! `ragsift-bench judge`). Its probabilities are calibrated on held-out documents, and it answers only what it
//! can measurably tell apart: a question it cannot assess (the contradicted premise) is left out and reported
//! as not assessed, never guessed.
//!
//! The fitted models ship as data (`fit.json`, written by `ragsift-bench judge --refit`), tagged with a version
//! that is the judge's prompt version, so judgments of another fit are never reused. Signals that need a
//! language model are used only with the model they were fitted on; with any other model (or none) the judge
//! uses its embedding-and-lexical variant.

pub mod injection;
pub mod model;
pub mod signals;
pub mod text;

use super::{Judge, JudgeQuestion, PassageJudgment};
use crate::{Error, Result};
use model::Logistic;
use ragsift_interfaces::embed::Embedder;
use ragsift_interfaces::llm::LanguageModel;
use ragsift_policy::JudgeDefaults;
use serde::{Deserialize, Serialize};
use signals::{SignalSources, Signals, TermStats};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

/// The fitted judge, as `ragsift-bench judge --refit` writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeFit {
    /// The judge's prompt version: changes with every refit.
    pub version: String,
    /// The embedding model the signals were measured with.
    pub embedding_model: String,
    /// The language model the `lm_` signals were measured with (`None`: the fit uses none).
    pub language_model: Option<String>,
    /// Per question key, the model over all signals (language model included).
    pub with_model: BTreeMap<String, Logistic>,
    /// Per question key, the model over the embedding and lexical signals only.
    pub without_model: BTreeMap<String, Logistic>,
    /// Questions the judge does not answer, because no offline signal tells them apart better than chance.
    pub not_assessed: Vec<String>,
    /// Default policy thresholds fitted for this judge (held-out evidence recall ≥ 0.95).
    pub thresholds: BTreeMap<String, f64>,
    /// Default `min_relevance` for the filter modes (the `useful` operating point).
    pub min_relevance: f64,
    /// Lowest evidence probability of a kept passage for the answer to use it; below it the answer says the
    /// documents do not say.
    pub answer_threshold: f64,
    /// Where and how it was fitted, for display.
    pub fitted_on: String,
    /// The extractive answer's sentence model (`None`: sentences ranked by cosine).
    #[serde(default)]
    pub sentence: Option<Logistic>,
}

/// The fit shipped with this build.
pub fn shipped_fit() -> &'static JudgeFit {
    static FIT: OnceLock<JudgeFit> = OnceLock::new();
    FIT.get_or_init(|| serde_json::from_str(include_str!("fit.json")).expect("the shipped local judge fit parses"))
}

/// The local judge over an embedder, optionally a language model, and the library's term statistics.
pub struct LocalJudge<'a> {
    pub embedder: &'a dyn Embedder,
    pub model: Option<&'a dyn LanguageModel>,
    pub stats: Option<&'a dyn TermStats>,
    pub fit: &'a JudgeFit,
}

impl<'a> LocalJudge<'a> {
    pub fn new(
        embedder: &'a dyn Embedder,
        model: Option<&'a dyn LanguageModel>,
        stats: Option<&'a dyn TermStats>,
    ) -> Self {
        LocalJudge {
            embedder,
            model,
            stats,
            fit: shipped_fit(),
        }
    }

    /// The language model whose signals this fit can read: the one it was fitted on, when present.
    fn usable_model(&self) -> Option<&'a dyn LanguageModel> {
        let fitted = self.fit.language_model.as_deref()?;
        self.model
            .filter(|m| m.id() == fitted && !self.fit.with_model.is_empty())
    }

    fn models(&self) -> &BTreeMap<String, Logistic> {
        if self.usable_model().is_some() {
            &self.fit.with_model
        } else {
            &self.fit.without_model
        }
    }

    /// The signals of each passage (exposed for the extractive answerer and the benchmark).
    pub fn signals(&self, query: &str, passages: &[String]) -> Result<Vec<Signals>> {
        signals::compute(
            query,
            passages,
            &SignalSources {
                embedder: self.embedder,
                model: self.usable_model(),
                stats: self.stats,
            },
        )
    }

    /// The probability `key`'s model gives a passage with these signals.
    pub fn probability(&self, key: &str, signals: &Signals, passage: &str) -> Option<f64> {
        let m = self.models().get(key)?;
        Some(m.predict(&feature_row(m, signals, passage)))
    }
}

/// The values a model reads, in its feature order: signals by name, injection pattern counts by name.
pub fn feature_row(m: &Logistic, signals: &Signals, passage: &str) -> Vec<f64> {
    let inj = if m.features.iter().any(|f| f.starts_with("inj_")) {
        Some(injection::scan(passage).values())
    } else {
        None
    };
    m.features
        .iter()
        .map(|f| match injection::FEATURES.iter().position(|x| x == f) {
            Some(k) => inj.map(|v| v[k]).unwrap_or(0.0),
            None => f64::from(signals.get(f)),
        })
        .collect()
}

impl Judge for LocalJudge<'_> {
    fn name(&self) -> &'static str {
        crate::JudgeName::Local.as_str()
    }

    fn model(&self) -> String {
        match self.usable_model() {
            Some(m) => format!("signals:{}+{}", self.embedder.id(), m.id()),
            None => format!("signals:{}", self.embedder.id()),
        }
    }

    fn prompt_version(&self) -> String {
        self.fit.version.clone()
    }

    fn calibrated(&self) -> bool {
        true
    }

    fn contextual(&self) -> bool {
        true
    }

    fn not_assessed(&self) -> Vec<String> {
        self.fit.not_assessed.clone()
    }

    fn defaults(&self) -> JudgeDefaults {
        self.fit.defaults()
    }

    fn judge(&self, query: &str, passages: &[String], questions: &[JudgeQuestion]) -> Result<Vec<PassageJudgment>> {
        let start = Instant::now();
        let signals = self.signals(query, passages)?;
        let per_passage_ms = start.elapsed().as_secs_f64() * 1e3 / passages.len().max(1) as f64;
        let models = self.models();
        let model_name = self.model();
        passages
            .iter()
            .zip(&signals)
            .map(|(passage, s)| {
                let mut answers = BTreeMap::new();
                for q in questions {
                    if self.fit.not_assessed.contains(&q.key) {
                        continue;
                    }
                    // `useful` is rag-jev's usefulness; offline it is the evidence model unless fitted apart.
                    let m = models
                        .get(&q.key)
                        .or_else(|| models.get(ragsift_policy::CONTAINS_ANSWER_EVIDENCE))
                        .ok_or_else(|| Error::Judge {
                            code: ragsift_core::JudgeCode::NotFitted,
                            message: format!("the local judge has no model for `{}`", q.key),
                        })?;
                    answers.insert(q.key.clone(), m.predict(&feature_row(m, s, passage)));
                }
                Ok(PassageJudgment {
                    scores: answers,
                    model: model_name.clone(),
                    input_tokens: s.lm_tokens,
                    output_tokens: 0,
                    latency_ms: per_passage_ms,
                    request_id: None,
                })
            })
            .collect()
    }
}

impl JudgeFit {
    /// The fitted operating points as policy defaults; a question without one keeps Spring's threshold.
    pub fn defaults(&self) -> JudgeDefaults {
        let mut d = JudgeDefaults {
            source: self.version.clone(),
            ..JudgeDefaults::default()
        };
        for (k, &v) in &self.thresholds {
            d.thresholds.insert(k.clone(), v);
        }
        d.min_relevance = Some(self.min_relevance);
        d.answer_threshold = self.answer_threshold;
        d
    }
}

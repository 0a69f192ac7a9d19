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
//!
//! What the judge measures of a passage without the question (`passage`) can be kept between selections in a
//! [`cache::PassageCache`]; with a deadline, the passages measured before it are judged and the others fail with
//! `deadline_exceeded`.

pub mod cache;
pub mod injection;
pub mod model;
pub mod passage;
pub mod signals;
#[cfg(test)]
mod tests;
pub mod text;
pub mod units;

use super::{Judge, JudgeQuestion, PassageJudgment};
use crate::{Error, Result};
use cache::PassageCache;
use model::Logistic;
use passage::{Keep, Needs};
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
    /// Where measured passages are kept between selections (`None`: every passage is measured again).
    pub cache: Option<&'a PassageCache>,
    /// No passage is measured after it: the passages not measured by then fail with `deadline_exceeded`.
    pub deadline: Option<Instant>,
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
            cache: None,
            deadline: None,
        }
    }

    /// The judge keeping what it measures of each passage in `cache`, and taking it from there.
    pub fn with_cache(self, cache: &'a PassageCache) -> Self {
        LocalJudge {
            cache: Some(cache),
            ..self
        }
    }

    /// The judge measuring no passage after `deadline`.
    pub fn with_deadline(self, deadline: Instant) -> Self {
        LocalJudge {
            deadline: Some(deadline),
            ..self
        }
    }

    /// What the cache keys a passage's measurement by besides its text: the embedding model, the fit, and the
    /// version of the measurement.
    fn cache_tag(&self) -> String {
        format!(
            "{}|{}|{}",
            self.embedder.id(),
            self.fit.version,
            passage::PASSAGE_SIGNALS_VERSION
        )
    }

    /// The model that answers `key` (`useful` is the evidence model unless fitted apart).
    fn model_for(&self, key: &str) -> Result<&Logistic> {
        let models = self.models();
        models
            .get(key)
            .or_else(|| models.get(ragsift_policy::CONTAINS_ANSWER_EVIDENCE))
            .ok_or_else(|| Error::Judge {
                code: ragsift_core::JudgeCode::NotFitted,
                message: format!("the local judge has no model for `{key}`"),
            })
    }

    /// What the models answering `questions` read of a passage beyond its sentences.
    fn needs(&self, questions: &[JudgeQuestion]) -> Needs {
        let reads = |f: &String| f == "cos_chunk" || f == "cos_chunk_gap";
        Needs {
            passage_vector: (questions.iter())
                .filter(|q| !self.fit.not_assessed.contains(&q.key))
                .any(|q| self.model_for(&q.key).map_or(true, |m| m.features.iter().any(reads))),
        }
    }

    /// The signals of the passages measured before the deadline, judged together (a passage's `_gap` signals
    /// compare it with those), with their places in `passages`.
    fn measured_signals(&self, query: &str, passages: &[String], needs: Needs) -> Result<(Vec<usize>, Vec<Signals>)> {
        let tag = self.cache_tag();
        let keep = self.cache.map(|cache| Keep { cache, tag: &tag });
        let measured = passage::measure(query, passages, self.embedder, keep.as_ref(), needs, self.deadline)?;
        let Some(q) = measured.query else {
            return Ok((Vec::new(), Vec::new()));
        };
        let (done, parts): (Vec<usize>, Vec<&passage::PassageSignals>) = (measured.passages.iter().enumerate())
            .filter_map(|(i, p)| Some((i, p.as_deref()?)))
            .unzip();
        let signals = signals::combine(query, &q, &parts, &done, &self.sources())?;
        Ok((done, signals))
    }

    fn sources(&self) -> SignalSources<'a> {
        SignalSources {
            embedder: self.embedder,
            model: self.usable_model(),
            stats: self.stats,
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
        signals::compute(query, passages, &self.sources())
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
        self.judge_each(query, passages, questions).into_iter().collect()
    }

    /// Every passage measured before the deadline is judged (against the others measured, as one contextual
    /// batch); the rest fail with `deadline_exceeded`. Without a deadline every passage is judged.
    fn judge_each(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> Vec<Result<PassageJudgment>> {
        let start = Instant::now();
        let (done, signals) = match self.measured_signals(query, passages, self.needs(questions)) {
            Ok(measured) => measured,
            Err(e) => return crate::every_passage_fails(passages.len(), &e),
        };
        let per_passage_ms = start.elapsed().as_secs_f64() * 1e3 / done.len().max(1) as f64;
        let model_name = self.model();
        let mut results: Vec<Result<PassageJudgment>> = (0..passages.len())
            .map(|_| {
                Err(Error::Judge {
                    code: ragsift_core::JudgeCode::DeadlineExceeded,
                    message: "the deadline passed before this passage was measured".into(),
                })
            })
            .collect();
        for (&i, s) in done.iter().zip(&signals) {
            let answers: Result<BTreeMap<String, f64>> = (questions.iter())
                .filter(|q| !self.fit.not_assessed.contains(&q.key))
                .map(|q| {
                    let m = self.model_for(&q.key)?;
                    Ok((q.key.clone(), m.predict(&feature_row(m, s, &passages[i]))))
                })
                .collect();
            results[i] = answers.map(|scores| PassageJudgment {
                scores,
                model: model_name.clone(),
                input_tokens: s.lm_tokens,
                output_tokens: 0,
                latency_ms: per_passage_ms,
                request_id: None,
            });
        }
        results
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

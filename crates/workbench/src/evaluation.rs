//! Evaluation over rag-jev cases: saved traces replayed, or cases scored live by the judge answers use; the
//! metrics per policy and the threshold sweep.

use super::Workbench;
use crate::settings::JudgeKind;
use crate::{Error, Result};
use ragsift_eval::{self as eval, EvalOptions, EvalReport, Sweep};
use ragsift_library::retrieve::LibraryRetriever;
use serde::{Deserialize, Serialize};

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
    /// The judge that scores cases live (`auto` resolved as for answers; `none` is refused). Jev sends rag-jev's
    /// own request, one per passage or (with `scoring` contextual) one per case.
    pub judge: JudgeKind,
    #[serde(default)]
    pub scoring: eval::ScoringStrategy,
    pub min_relevance: f64,
    pub top_n: Option<u32>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalView {
    pub report: EvalReport,
    pub sweep: Sweep,
}

impl Default for EvalRequest {
    /// The evaluation's defaults, for the app's form and the CLI alike: the library's top 10 for cases without
    /// documents, the judge answers use (`auto`), rag-jev's independent scoring, and min relevance 0.5.
    fn default() -> Self {
        EvalRequest {
            cases_path: String::new(),
            traces_path: None,
            from_library: false,
            top_k: 10,
            judge: JudgeKind::Auto,
            scoring: eval::ScoringStrategy::Independent,
            min_relevance: 0.5,
            top_n: None,
        }
    }
}

/// The bounds of an evaluation's numbers, checked here and shown by the app's form (one source of truth).
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalLimits {
    pub top_k_max: u32,
    pub top_n_max: u32,
}

/// The largest top-k and top-N an evaluation takes.
pub const EVAL_LIMITS: EvalLimits = EvalLimits {
    top_k_max: 200,
    top_n_max: 256,
};

impl EvalRequest {
    /// What is wrong with the request, in the words the app and the CLI show.
    pub fn validate(&self) -> Result<()> {
        let problem = if self.cases_path.trim().is_empty() {
            Some("Choose a cases file (rag-jev format).".to_string())
        } else if !(0.0..=1.0).contains(&self.min_relevance) {
            Some("Min relevance must be between 0 and 1.".to_string())
        } else if !(1..=EVAL_LIMITS.top_k_max).contains(&self.top_k) {
            Some(format!("Top-k must be between 1 and {}.", EVAL_LIMITS.top_k_max))
        } else if self.top_n.is_some_and(|n| !(1..=EVAL_LIMITS.top_n_max).contains(&n)) {
            let max = EVAL_LIMITS.top_n_max;
            Some(format!("Top-N must be between 1 and {max}, or empty for off."))
        } else {
            None
        };
        problem.map_or(Ok(()), |p| Err(Error::Invalid(p)))
    }
}

/// An evaluation with what it was made from: the cases as evaluated (with their retrieved documents) and the
/// traces (saved, or scored live), so both can be saved and evaluated again without a judge.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub cases: Vec<eval::EvalCase>,
    pub traces: Vec<eval::RagJevTrace>,
    pub view: EvalView,
}

impl Workbench {
    /// Metrics per policy and the threshold sweep over rag-jev cases.
    pub fn evaluate(&self, request: &EvalRequest, job: &str) -> Result<EvalView> {
        self.evaluation(request, job).map(|e| e.view)
    }

    /// [`Workbench::evaluate`], keeping the cases and traces it was made from.
    pub fn evaluation(&self, request: &EvalRequest, job: &str) -> Result<Evaluation> {
        request.validate()?;
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let cases = if request.from_library {
            let (lib, embedder) = (self.library(), self.query_embedder()?);
            let retriever = LibraryRetriever {
                library: &lib,
                embedder: embedder.as_ref(),
            };
            eval::library::load_cases_from_library(&request.cases_path, &retriever, request.top_k as usize)
        } else {
            eval::load_cases(&request.cases_path)
        }?;
        let traces = match &request.traces_path {
            Some(path) => eval::load_traces(path)?,
            None => {
                let (model, embedder, lib) = (self.model(None)?, self.embedder()?, self.library());
                let judge = self
                    .build_judge(
                        request.judge,
                        request.scoring.jev_request(),
                        embedder.as_ref(),
                        model.as_ref(),
                        lib.store(),
                    )?
                    .ok_or_else(|| Error::Invalid("scoring cases live needs a judge (jev or local)".into()))?;
                eval::live::score_cases(judge.as_ref(), &cases, &cancel, &mut |_, _| {})?
            }
        };
        let options = EvalOptions {
            min_relevance: request.min_relevance,
            top_n: request.top_n.map(|n| n as usize),
        };
        let report = eval::evaluate(&cases, &traces, &options)?;
        let sweep = eval::sweep(&cases, &traces, &options, &eval::threshold_grid(eval::SWEEP_STEP))?;
        Ok(Evaluation {
            cases,
            traces,
            view: EvalView { report, sweep },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(f: impl FnOnce(&mut EvalRequest)) -> EvalRequest {
        let mut r = EvalRequest {
            cases_path: "cases.json".into(),
            ..EvalRequest::default()
        };
        f(&mut r);
        r
    }

    #[test]
    fn the_bounds_hold_at_their_edges() {
        assert!(request(|_| {}).validate().is_ok());
        assert!(request(|r| r.cases_path = " ".into()).validate().is_err());
        for (k, ok) in [(0, false), (1, true), (200, true), (201, false)] {
            assert_eq!(request(|r| r.top_k = k).validate().is_ok(), ok, "top_k {k}");
        }
        for (n, ok) in [(0, false), (1, true), (256, true), (257, false)] {
            assert_eq!(request(|r| r.top_n = Some(n)).validate().is_ok(), ok, "top_n {n}");
        }
        for (m, ok) in [
            (-0.0001, false),
            (0.0, true),
            (1.0, true),
            (1.0001, false),
            (f64::NAN, false),
        ] {
            assert_eq!(
                request(|r| r.min_relevance = m).validate().is_ok(),
                ok,
                "min_relevance {m}"
            );
        }
    }

    #[test]
    fn the_defaults_are_the_ones_answers_use() {
        let d = EvalRequest::default();
        assert_eq!(d.judge, JudgeKind::Auto);
        assert_eq!((d.top_k, d.min_relevance, d.top_n), (10, 0.5, None));
        assert_eq!(d.scoring, eval::ScoringStrategy::Independent);
    }
}

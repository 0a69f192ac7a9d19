//! Evaluation over rag-jev cases: saved traces replayed, or cases scored live by the judge answers use; the
//! metrics per policy and the threshold sweep.

use super::Workbench;
use crate::settings::JudgeKind;
use crate::{Error, Result};
use ragsift_eval::{self as eval, EvalOptions, EvalReport, Sweep};
use ragsift_store::retrieve::LibraryRetriever;
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

impl Workbench {
    /// Metrics per policy and the threshold sweep over rag-jev cases.
    pub fn evaluate(&self, request: &EvalRequest, job: &str) -> Result<EvalView> {
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
        Ok(EvalView { report, sweep })
    }
}

//! rag-jev's `calibrate` as a workbench job: cases and traces read from files, held-out cases scored live only
//! after the frozen choice is on disk (`ragsift_eval::calibrate::run`), with the judge chosen as for evaluation.

use super::Workbench;
use crate::settings::JudgeKind;
use crate::{Error, Result};
use ragsift_eval::calibrate::{self, Artifacts, CalibrateOptions, Calibration, Split, Traces};
use ragsift_eval::{live, EvalCase, RagJevTrace, ScoringStrategy};
use ragsift_judge::Judge;
use std::path::PathBuf;

/// One calibration: the two splits, where to write, where the traces come from, and rag-jev's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrateRequest {
    pub development: PathBuf,
    pub evaluation: PathBuf,
    /// The held-out report; the other artifacts are named after it ([`Artifacts::next_to`]).
    pub report: PathBuf,
    /// Where the frozen choice goes instead of rag-jev's `<report>.frozen.json`.
    pub frozen: Option<PathBuf>,
    /// Saved traces covering both splits; without them the cases are scored live.
    pub traces_path: Option<PathBuf>,
    /// The judge for live scoring (`auto`: Jev when a key is available, else local).
    pub judge: JudgeKind,
    pub options: CalibrateOptions,
}

impl CalibrateRequest {
    /// Where this calibration writes.
    pub fn artifacts(&self) -> Artifacts {
        let mut artifacts = Artifacts::next_to(&self.report);
        if let Some(frozen) = &self.frozen {
            artifacts.frozen = frozen.clone();
        }
        artifacts
    }
}

fn load_splits(request: &CalibrateRequest) -> Result<(Vec<EvalCase>, Vec<EvalCase>)> {
    let development = ragsift_eval::load_cases(&request.development)?;
    let evaluation = ragsift_eval::load_cases(&request.evaluation)?;
    Ok((development, evaluation))
}

/// A calibration from the saved traces in `request.traces_path`: no judge, no library, no model.
pub fn from_traces(request: &CalibrateRequest) -> Result<Calibration> {
    let path = (request.traces_path.as_ref())
        .ok_or_else(|| Error::Invalid("a calibration from traces needs saved traces".into()))?;
    let (development, evaluation) = load_splits(request)?;
    let traces = ragsift_eval::load_traces(path)?;
    calibrate::run(
        &development,
        &evaluation,
        &request.options,
        &request.artifacts(),
        Traces::Replay(traces),
    )
}

impl Workbench {
    /// Runs a calibration as job `job` (cancellable between cases); `on_case(split, done, total)` reports live
    /// scoring. A Jev judge is built without loading the local models; the local judge scores independently only.
    pub fn calibrate(
        &self,
        request: &CalibrateRequest,
        job: &str,
        on_case: &mut dyn FnMut(Split, usize, usize),
    ) -> Result<Calibration> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        if request.traces_path.is_some() {
            return from_traces(request);
        }
        let (development, evaluation) = load_splits(request)?;
        let artifacts = request.artifacts();
        // Check the splits and the artifacts before building a judge (and before any model loads).
        calibrate::check_split(&development, &evaluation)?;
        if let Some(path) = artifacts.existing() {
            return Err(calibrate::exists(path));
        }
        let strategy = request.options.scoring_strategy;
        let mut score_with = |judge: &dyn Judge| -> Result<Calibration> {
            let mut score = |split: Split, cases: &[EvalCase]| -> Result<Vec<RagJevTrace>> {
                live::score_cases(judge, cases, &cancel, &mut |done, total| on_case(split, done, total))
            };
            calibrate::run(
                &development,
                &evaluation,
                &request.options,
                &artifacts,
                Traces::Live(&mut score),
            )
        };
        match self.resolve_judge(request.judge)? {
            JudgeKind::Local => {
                if strategy == ScoringStrategy::Contextual {
                    return Err(Error::Invalid(
                        "the local judge scores each passage on its own: pass --scoring-strategy independent, or \
                         use the Jev judge for contextual scoring"
                            .into(),
                    ));
                }
                let (model, embedder, lib) = (self.model(None)?, self.embedder()?, self.library());
                let judge = self
                    .build_judge(
                        JudgeKind::Local,
                        strategy.jev_request(),
                        embedder.as_ref(),
                        model.as_ref(),
                        lib.store(),
                    )?
                    .ok_or_else(|| Error::Invalid("no local judge".into()))?;
                score_with(judge.as_ref())
            }
            JudgeKind::Auto | JudgeKind::None => Err(Error::Invalid(
                "scoring cases live needs a judge (jev, systemone, ollama, openai or local), or --from-traces with \
                 saved traces"
                    .into(),
            )),
            decision => score_with(&self.decision_judge(decision, strategy.jev_request())?),
        }
    }
}

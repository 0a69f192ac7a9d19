//! rag-jev's `calibrate`: split checks, a policy grid, a choice frozen on development cases, held-out assessment.
//!
//! Follows `src/rag_jev/calibration.py` @fa73e740 step by step ([`run`]):
//!
//! 1. [`check_split`]: two separate splits (unique ids and normalised questions, no shared family, labelled
//!    development evidence);
//! 2. [`grid`]: `filter` and `filter_and_rerank` at each cutoff, `rerank` at each top-N, one shared token budget;
//! 3. refuse to start when any artifact exists (report, `.frozen.json`, `.policy.json`, `.traces.json`: rag-jev's
//!    names next to the report, [`Artifacts::next_to`]), so no calibration is ever overwritten;
//! 4. development traces (replayed, or scored live by the caller), every policy assessed on them, and the
//!    [`choose`] rule: fewest development context tokens among the policies whose development evidence recall is
//!    at least `min_recall` (ties: higher nDCG, then policy version);
//! 5. the choice written to the frozen file ([`Frozen`]) **before** the held-out traces are asked for, so a live
//!    held-out case is scored only once the choice is on disk;
//! 6. the held-out report ([`Report`]): baseline, every policy (descriptive), the frozen policy, and the paired
//!    bootstrap 95% interval of its context-token difference against the baseline, resampled by family
//!    ([`paired_interval`], rag-jev's seed and 2,000 draws, Python's generator); when eligible, rag-jev's
//!    `.policy.json` (the policy, in shadow mode, with its scoring strategy).
//!
//! JSON field names are rag-jev's; ragsift adds a few fields, each documented where it is declared. Context
//! tokens are counted with cl100k_base, as rag-jev counts them (not ragsift's `estimate_tokens`). The frozen
//! file's `policy` is both rag-jev's `Policy` and a [`ragsift_policy::PolicyOptions`] document
//! ([`frozen_policy_options`]), so the app can apply it in Replay or save it as the default.

mod bootstrap;
mod grid;
mod report;
mod split;

#[cfg(test)]
mod tests;

pub use bootstrap::{
    bootstrap_interval, paired_interval, PairedInterval, PythonRandom, DRAWS, INTERVAL_SCOPE, SEED, TOO_FEW_UNITS,
};
pub use grid::{
    assess, assess_grid, choose, grid, Assessment, CalibrationSummary, Choice, GridResult, Keyed, Policy, Row,
    NO_ELIGIBLE_POLICY,
};
pub use report::{Calibration, DevelopmentRow, Frozen, PairedRow, Report, TokenUsage};
pub use split::{check_split, ragjev_question_key};

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{python_json_dumps, EvalCase, RagJevTrace, ScoringStrategy};
use crate::{Error, Result};
use ragsift_policy::PolicyOptions;

/// How context tokens are counted here.
pub const TOKEN_COUNTER: &str = "cl100k_base passage-text estimate; excludes prompts, separators and output";
/// rag-jev's description of the choice rule.
pub const SELECTION_RULE: &str =
    "Minimize development context tokens subject to observed recall; ties higher NDCG then policy ID";
/// rag-jev's scope of the held-out report.
pub const SCOPE: &str = "Evidence already in candidate sets. No semantic accuracy or total-cost claim. Held-out \
                         policies are descriptive; never reselect from this table.";
/// rag-jev's warning on the artifacts.
pub const DATA_WARNING: &str = "Artifacts include query and passage text; keep private inputs local.";

/// Calibration settings; the defaults are rag-jev's CLI defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrateOptions {
    /// How traces were (or are) scored; every trace must match it. rag-jev's default is contextual.
    pub scoring_strategy: ScoringStrategy,
    pub cutoffs: Vec<f64>,
    pub top_ns: Vec<usize>,
    pub max_context_tokens: Option<u32>,
    pub min_recall: f64,
}

impl Default for CalibrateOptions {
    fn default() -> Self {
        CalibrateOptions {
            scoring_strategy: ScoringStrategy::Contextual,
            cutoffs: vec![0.2, 0.35, 0.5],
            top_ns: vec![3, 5, 8],
            max_context_tokens: None,
            min_recall: 0.98,
        }
    }
}

/// Where a calibration writes; none of these may exist beforehand.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Artifacts {
    /// The held-out report.
    pub report: PathBuf,
    /// The frozen choice, written before any held-out scoring.
    pub frozen: PathBuf,
    /// rag-jev's policy config (the chosen policy in shadow mode), only when a policy qualified.
    pub policy: PathBuf,
    /// Live traces of both splits (not written when replaying), for a later `--from-traces`.
    pub traces: PathBuf,
}

impl Artifacts {
    /// rag-jev's names: the report's last extension replaced (or, without one, extended) by `.frozen.json`,
    /// `.policy.json` and `.traces.json`, as Python's `Path.with_suffix`.
    pub fn next_to(report: &Path) -> Artifacts {
        Artifacts {
            report: report.to_path_buf(),
            frozen: report.with_extension("frozen.json"),
            policy: report.with_extension("policy.json"),
            traces: report.with_extension("traces.json"),
        }
    }

    fn all(&self) -> [&Path; 4] {
        [&self.report, &self.frozen, &self.policy, &self.traces]
    }

    /// The first artifact that already exists, if any (then a calibration refuses to start).
    pub fn existing(&self) -> Option<&Path> {
        self.all().into_iter().find(|p| p.exists())
    }
}

/// Which split traces are asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Development,
    Evaluation,
}

impl Split {
    pub fn name(self) -> &'static str {
        match self {
            Split::Development => "development",
            Split::Evaluation => "evaluation",
        }
    }
}

/// Scores one split's cases live (e.g. [`crate::live::score_cases`]); called once per split, development first.
pub type ScoreSplit<'a> = &'a mut dyn FnMut(Split, &[EvalCase]) -> Result<Vec<RagJevTrace>>;

/// Where the traces come from.
pub enum Traces<'a> {
    /// Saved traces covering both splits exactly; no judge is called.
    Replay(Vec<RagJevTrace>),
    /// Scored by the closure, per split; written to [`Artifacts::traces`] as they come.
    Live(ScoreSplit<'a>),
}

/// Mean with Neumaier-compensated summation (close to Python's exact `statistics.mean`); `None` when empty.
pub(crate) fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut compensation, mut n) = (0.0f64, 0.0f64, 0usize);
    for v in values {
        let t = sum + v;
        compensation += if sum.abs() >= v.abs() {
            (sum - t) + v
        } else {
            (v - t) + sum
        };
        sum = t;
        n += 1;
    }
    (n > 0).then(|| (sum + compensation) / n as f64)
}

/// rag-jev's `digest`: sha256 hex of Python's `json.dumps(value, sort_keys=True)`.
pub fn digest(value: &impl Serialize) -> Result<String> {
    let value = serde_json::to_value(value).map_err(|e| Error::Invalid(e.to_string()))?;
    Ok(hex::encode(Sha256::digest(python_json_dumps(&value).as_bytes())))
}

/// The frozen file's `policy` as ragsift selection options; `None` when no policy qualified.
pub fn frozen_policy_options(frozen: &Value) -> Result<Option<PolicyOptions>> {
    match frozen.get("policy") {
        None => Err(Error::Invalid("not a frozen calibration: no `policy` field".into())),
        Some(Value::Null) => Ok(None),
        Some(p) => {
            let options: PolicyOptions =
                serde_json::from_value(p.clone()).map_err(|e| Error::Invalid(format!("frozen policy: {e}")))?;
            options.validate_resolved().map_err(Error::Invalid)?;
            Ok(Some(options))
        }
    }
}

/// Writes `value` as indented JSON to a file that must not exist yet (never overwrites, even in a race).
fn write_new(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(e.to_string()))? + "\n";
    write_new_text(path, &text)
}

fn write_new_text(path: &Path, text: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => exists(path),
            _ => Error::io(path, e),
        })?;
    file.write_all(text.as_bytes()).map_err(|e| Error::io(path, e))
}

/// The error for an artifact that exists already.
pub fn exists(path: &Path) -> Error {
    Error::Invalid(format!(
        "{} already exists: calibration artifacts are never overwritten; use a fresh output path",
        path.display()
    ))
}

fn sorted<'a>(values: impl Iterator<Item = &'a str>) -> Vec<String> {
    values
        .map(str::to_string)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn usage(traces: &[&RagJevTrace]) -> TokenUsage {
    let per = |t: &RagJevTrace| match &t.scoring_usage {
        Some(u) => (u.input_tokens, u.output_tokens),
        None => (
            t.judgments.iter().map(|j| j.input_tokens).sum(),
            t.judgments.iter().map(|j| j.output_tokens).sum(),
        ),
    };
    TokenUsage {
        input_tokens: traces.iter().map(|t| per(t).0).sum(),
        output_tokens: traces.iter().map(|t| per(t).1).sum(),
    }
}

/// Splits replayed traces by split after rag-jev's check that they cover both splits exactly.
fn split_replay(
    traces: Vec<RagJevTrace>,
    development: &[EvalCase],
    evaluation: &[EvalCase],
) -> Result<(Vec<RagJevTrace>, Vec<RagJevTrace>)> {
    let ids: BTreeSet<&str> = development.iter().chain(evaluation).map(|c| c.id.as_str()).collect();
    let traced: BTreeSet<&str> = traces.iter().map(|t| t.case_id.as_str()).collect();
    if traced.len() != traces.len() || traced != ids {
        return Err(Error::Invalid(
            "replay traces must cover both splits exactly (one trace per development and evaluation case)".into(),
        ));
    }
    let dev_ids: BTreeSet<&str> = development.iter().map(|c| c.id.as_str()).collect();
    Ok(traces.into_iter().partition(|t| dev_ids.contains(t.case_id.as_str())))
}

/// rag-jev's calibration end to end; see the module docs for the steps. The frozen file is on disk before
/// `traces` is asked for the evaluation split; the report (and, when a policy qualified, the policy config)
/// after.
pub fn run(
    development: &[EvalCase],
    evaluation: &[EvalCase],
    options: &CalibrateOptions,
    artifacts: &Artifacts,
    traces: Traces<'_>,
) -> Result<Calibration> {
    if !(options.min_recall.is_finite() && (0.0..=1.0).contains(&options.min_recall)) {
        return Err(Error::Invalid(format!(
            "min_recall must be finite and between zero and one, got {}",
            options.min_recall
        )));
    }
    check_split(development, evaluation)?;
    let policies = grid(&options.cutoffs, &options.top_ns, options.max_context_tokens)?;
    if let Some(path) = artifacts.existing() {
        return Err(exists(path));
    }
    let (mut replay, mut live) = match traces {
        Traces::Replay(all) => (Some(split_replay(all, development, evaluation)?), None),
        Traces::Live(score) => (None, Some(score)),
    };
    for path in artifacts.all() {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
    }
    let mut collected: Vec<RagJevTrace> = Vec::new();
    let mut obtain = |split: Split, cases: &[EvalCase]| -> Result<Vec<RagJevTrace>> {
        if let Some((dev, eval)) = replay.as_mut() {
            return Ok(std::mem::take(match split {
                Split::Development => dev,
                Split::Evaluation => eval,
            }));
        }
        let score = live.as_mut().ok_or_else(|| Error::Invalid("no trace source".into()))?;
        let scored = score(split, cases)?;
        collected.extend(scored.iter().cloned());
        let text = crate::traces_json(&collected)? + "\n";
        if split == Split::Development {
            write_new_text(&artifacts.traces, &text)?;
        } else {
            std::fs::write(&artifacts.traces, text).map_err(|e| Error::io(&artifacts.traces, e))?;
        }
        Ok(scored)
    };

    // Development: every policy, the choice, the frozen file.
    let dev_traces = obtain(Split::Development, development)?;
    let strategy = options.scoring_strategy;
    let dev_prepared = grid::prepare(development, &dev_traces, strategy)?;
    let dev_results = grid::grid_on(&dev_prepared, &policies);
    let choice = choose(&dev_results, options.min_recall)?;
    let frozen = Frozen {
        eligible: choice.eligible,
        policy: choice.policy.clone(),
        development: Keyed(
            (dev_results.iter())
                .map(|r| (r.version.clone(), r.assessment.clone()))
                .collect(),
        ),
        reason: choice.reason.clone(),
        scoring_strategy: strategy,
        min_recall: options.min_recall,
        development_hash: digest(&development)?,
        evaluation_hash: digest(&evaluation)?,
        candidate_policies: policies.clone(),
        sources: sorted(dev_traces.iter().map(|t| t.source.as_str())),
        models: sorted(dev_traces.iter().flat_map(|t| &t.judgments).map(|j| j.model.as_str())),
        policy_version: choice.version.clone(),
        context_tokens_estimator: TOKEN_COUNTER,
    };
    // The choice is on disk before any held-out trace is read or scored.
    write_new(&artifacts.frozen, &frozen)?;
    let freeze_hash = digest(&frozen)?;

    // Held out: baseline, every policy (descriptive), the frozen policy against the baseline.
    let eval_traces = obtain(Split::Evaluation, evaluation)?;
    let prepared = grid::prepare(evaluation, &eval_traces, strategy)?;
    let baseline = grid::assess_prepared(&prepared, None);
    let held_out = grid::grid_on(&prepared, &policies);
    let chosen = choice
        .version
        .as_ref()
        .and_then(|v| held_out.iter().find(|r| &r.version == v))
        .cloned();
    let units: Vec<String> = (evaluation.iter())
        .map(|c| match &c.family_id {
            Some(f) => format!("family:{f}"),
            None => format!("question:{}", c.id),
        })
        .collect();
    let (mut context_difference, mut recall_difference, mut paired) = (None, None, Vec::new());
    if let Some(chosen) = &chosen {
        let (base_rows, rows) = (&baseline.rows, &chosen.assessment.rows);
        let tokens = |rows: &[Row]| -> Vec<f64> { rows.iter().map(|r| r.metrics.context_tokens as f64).collect() };
        context_difference = paired_interval(&tokens(base_rows), &tokens(rows), Some(&units));
        let labelled: Vec<usize> = (0..rows.len())
            .filter(|&i| base_rows[i].metrics.evidence_recall.is_some())
            .collect();
        let recall = |rows: &[Row]| -> Vec<f64> {
            labelled
                .iter()
                .map(|&i| rows[i].metrics.evidence_recall.unwrap_or(0.0))
                .collect()
        };
        let labelled_units: Vec<String> = labelled.iter().map(|&i| units[i].clone()).collect();
        recall_difference = paired_interval(&recall(base_rows), &recall(rows), Some(&labelled_units));
        paired = (0..rows.len())
            .map(|i| PairedRow {
                case_id: rows[i].case_id.clone(),
                unit: units[i].clone(),
                baseline_context_tokens: base_rows[i].metrics.context_tokens,
                frozen_context_tokens: rows[i].metrics.context_tokens,
                context_token_difference: rows[i].metrics.context_tokens as i64
                    - base_rows[i].metrics.context_tokens as i64,
                baseline_evidence_recall: base_rows[i].metrics.evidence_recall,
                frozen_evidence_recall: rows[i].metrics.evidence_recall,
            })
            .collect();
    }
    let all_traces: Vec<&RagJevTrace> = dev_traces.iter().chain(&eval_traces).collect();
    let report = Report {
        baseline,
        policies: Keyed(held_out.iter().map(|r| (r.version.clone(), r.clone())).collect()),
        frozen_policy: choice.policy.clone(),
        eligible: choice.eligible,
        answer_quality: "not_evaluated",
        selection_rule: SELECTION_RULE,
        scope: SCOPE,
        frozen_policy_held_out: chosen,
        context_token_difference: context_difference,
        freeze_hash,
        development_questions: development.len(),
        evaluation_questions: evaluation.len(),
        minimum_development_recall: options.min_recall,
        sources: sorted(all_traces.iter().map(|t| t.source.as_str())),
        models: sorted(all_traces.iter().flat_map(|t| &t.judgments).map(|j| j.model.as_str())),
        scoring_usage: usage(&all_traces),
        data_warning: DATA_WARNING,
        frozen_policy_version: choice.version.clone(),
        development: Keyed(
            (dev_results.iter())
                .map(|r| {
                    let row = DevelopmentRow {
                        policy: r.policy.clone(),
                        summary: r.assessment.summary.clone(),
                        eligible: r
                            .assessment
                            .summary
                            .evidence_recall
                            .is_some_and(|x| x >= options.min_recall),
                        chosen: choice.version.as_ref() == Some(&r.version),
                    };
                    (r.version.clone(), row)
                })
                .collect(),
        ),
        evidence_recall_difference: recall_difference,
        paired_differences: paired,
        context_tokens_estimator: TOKEN_COUNTER,
    };
    write_new(&artifacts.report, &report)?;
    let policy_written = match &choice.policy {
        Some(policy) => {
            let mut config = serde_json::to_value(policy).map_err(|e| Error::Invalid(e.to_string()))?;
            config["scoring_strategy"] = serde_json::to_value(strategy).map_err(|e| Error::Invalid(e.to_string()))?;
            config["shadow"] = Value::Bool(true);
            write_new(&artifacts.policy, &config)?;
            true
        }
        None => false,
    };
    Ok(Calibration {
        frozen,
        report,
        artifacts: artifacts.clone(),
        policy_written,
        traces_written: !collected.is_empty(),
    })
}

//! The Evaluation view's calibration: the form the app sends, and what it shows back — the development grid with
//! its eligible and chosen policies, the frozen choice (as selection options Replay can apply and save), and the
//! held-out table with its paired bootstrap intervals.

use super::calibration::CalibrateRequest;
use super::Workbench;
use crate::settings::JudgeKind;
use crate::{Error, Result};
use ragsift_eval::calibrate::{CalibrateOptions, Calibration, CalibrationSummary, PairedInterval, Split};
use ragsift_eval::ScoringStrategy;
use ragsift_policy::PolicyOptions;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A calibration as the app asks for it: the two splits, the report path (the frozen choice is written next to
/// it), saved traces or a live judge, and rag-jev's grid and rule.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CalibrateForm {
    pub development: String,
    pub evaluation: String,
    pub report: String,
    /// Saved rag-jev traces covering both splits (`None`: the cases are scored live).
    #[serde(alias = "replay")]
    pub traces_path: Option<String>,
    pub judge: JudgeKind,
    pub scoring: ScoringStrategy,
    pub cutoffs: Vec<f64>,
    pub top_ns: Vec<u32>,
    pub max_context_tokens: Option<u32>,
    pub min_recall: f64,
}

/// Query-level means of one policy on one split.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CalibrationMetrics {
    pub evidence_recall: Option<f64>,
    pub precision: Option<f64>,
    pub context_tokens: Option<f64>,
    pub documents: Option<f64>,
}

impl From<&CalibrationSummary> for CalibrationMetrics {
    fn from(s: &CalibrationSummary) -> Self {
        CalibrationMetrics {
            evidence_recall: s.evidence_recall,
            precision: s.precision,
            context_tokens: s.context_tokens,
            documents: s.documents,
        }
    }
}

/// One candidate policy on the development split.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CalibrationGridRow {
    pub version: String,
    pub label: String,
    pub policy: PolicyOptions,
    pub development: CalibrationMetrics,
    /// Development evidence recall reaches the minimum.
    pub eligible: bool,
    /// The frozen choice.
    pub chosen: bool,
}

/// A paired held-out difference (frozen − baseline) with its 95% bootstrap interval.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct IntervalView {
    pub delta: f64,
    /// `None` with fewer than two independent units.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub questions: u32,
    pub independent_units: u32,
    pub scope: String,
}

impl From<&PairedInterval> for IntervalView {
    fn from(p: &PairedInterval) -> Self {
        IntervalView {
            delta: p.delta,
            low: p.ci95.map(|c| c[0]),
            high: p.ci95.map(|c| c[1]),
            questions: p.questions as u32,
            independent_units: p.independent_units as u32,
            scope: p.scope.clone(),
        }
    }
}

/// What a calibration shows.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CalibrationView {
    pub grid: Vec<CalibrationGridRow>,
    /// The frozen choice as selection options (apply in Replay, save as default); `None` when none qualified.
    pub frozen_policy: Option<PolicyOptions>,
    pub frozen_label: Option<String>,
    /// Why nothing was chosen.
    pub reason: Option<String>,
    pub min_recall: f64,
    /// Held-out means: the baseline, then the frozen policy.
    pub held_out_baseline: CalibrationMetrics,
    pub held_out_frozen: Option<CalibrationMetrics>,
    pub context_token_difference: Option<IntervalView>,
    pub evidence_recall_difference: Option<IntervalView>,
    pub development_questions: u32,
    pub evaluation_questions: u32,
    pub freeze_hash: String,
    pub frozen_path: String,
    pub report_path: String,
}

impl From<&Calibration> for CalibrationView {
    fn from(c: &Calibration) -> Self {
        let r = &c.report;
        let grid = (r.development.0.iter())
            .map(|(version, row)| CalibrationGridRow {
                version: version.clone(),
                label: row.policy.label(),
                policy: row.policy.options(),
                development: (&row.summary).into(),
                eligible: row.eligible,
                chosen: row.chosen,
            })
            .collect();
        CalibrationView {
            grid,
            frozen_policy: c.frozen.policy.as_ref().map(|p| p.options()),
            frozen_label: c.frozen.policy.as_ref().map(|p| p.label()),
            reason: c.frozen.reason.clone(),
            min_recall: c.frozen.min_recall,
            held_out_baseline: (&r.baseline.summary).into(),
            held_out_frozen: r
                .frozen_policy_held_out
                .as_ref()
                .map(|g| (&g.assessment.summary).into()),
            context_token_difference: r.context_token_difference.as_ref().map(Into::into),
            evidence_recall_difference: r.evidence_recall_difference.as_ref().map(Into::into),
            development_questions: r.development_questions as u32,
            evaluation_questions: r.evaluation_questions as u32,
            freeze_hash: r.freeze_hash.clone(),
            frozen_path: c.artifacts.frozen.display().to_string(),
            report_path: c.artifacts.report.display().to_string(),
        }
    }
}

impl CalibrateForm {
    fn request(&self) -> Result<CalibrateRequest> {
        let path = |s: &str, what: &str| -> Result<PathBuf> {
            let s = s.trim();
            if s.is_empty() {
                return Err(Error::Invalid(format!("calibration needs {what}")));
            }
            Ok(PathBuf::from(s))
        };
        Ok(CalibrateRequest {
            development: path(&self.development, "a development cases file")?,
            evaluation: path(&self.evaluation, "a held-out cases file")?,
            report: path(&self.report, "a report path (the frozen choice is written next to it)")?,
            frozen: None,
            traces_path: self
                .traces_path
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
            judge: self.judge,
            options: CalibrateOptions {
                scoring_strategy: self.scoring,
                cutoffs: self.cutoffs.clone(),
                top_ns: self.top_ns.iter().map(|&n| n as usize).collect(),
                max_context_tokens: self.max_context_tokens,
                min_recall: self.min_recall,
            },
        })
    }
}

impl Workbench {
    /// [`Workbench::calibrate`] for the app: the form checked, the calibration run as job `job`, its view.
    pub fn calibrate_view(&self, form: &CalibrateForm, job: &str) -> Result<CalibrationView> {
        let request = form.request()?;
        let calibration = self.calibrate(&request, job, &mut |_: Split, _, _| {})?;
        Ok((&calibration).into())
    }
}

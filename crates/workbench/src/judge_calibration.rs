//! Judge calibration over the library's labelled runs: per judge (name + model + prompt version) and question, a
//! reliability diagram, Brier and AUC, and the fit cross-validation chose ([`ragsift_eval::judge_calibration`]
//! says how), stored in `<home>/judge-calibration.json` (atomically, keyed by the judge triple) so runs can show
//! the calibrated probability beside the raw one and thresholds can be set in calibrated probability.

use super::Workbench;
use crate::settings::JudgeKind;
use crate::{Error, Result};
use ragsift_eval::judge_calibration::{Calibrator, Comparison, JudgeKey, LabelledScores, QuestionCalibration};
use ragsift_eval::{EvalCase, RagJevTrace};
use ragsift_judge::JudgeName;
use ragsift_pipeline::Trace;
use ragsift_policy::{PolicyOptions, IS_RELEVANT, USEFUL};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file in the home holding the stored fits.
pub const FILE: &str = "judge-calibration.json";
/// Its `format`.
pub const FORMAT: &str = "ragsift-judge-calibration";
/// Its layout version.
pub const VERSION: u32 = 1;

/// Serialises read-modify-write of the file within this process.
static FILE_LOCK: Mutex<()> = Mutex::new(());

/// One judge's calibration, as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeReport {
    pub judge: String,
    pub model: String,
    pub prompt_version: String,
    /// Labelled runs (or cases) the labels came from.
    pub runs: u32,
    /// Per question key: `{n, auc, brier_raw, brier_calibrated, method, bins, bins_calibrated, note}`.
    pub questions: BTreeMap<String, QuestionCalibration>,
}

/// What a calibration looked at, found and stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeCalibrationReport {
    /// Runs (or cases) read.
    pub runs_read: u32,
    /// Those with relevance labels, of the judge asked for.
    pub runs_labelled: u32,
    pub judges: Vec<JudgeReport>,
    /// Where the fits were stored (`None`: not stored, e.g. from rag-jev files).
    pub stored: Option<String>,
}

/// One question's stored fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StoredQuestionFit {
    pub calibrator: Calibrator,
    pub n: u32,
    pub brier_raw: Option<f64>,
    pub brier_calibrated: Option<f64>,
}

/// A judge's stored fits: valid for this judge, model and prompt version only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeCalibration {
    pub judge: String,
    pub model: String,
    pub prompt_version: String,
    /// Unix seconds.
    pub fitted_at: i64,
    pub runs: u32,
    pub questions: BTreeMap<String, StoredQuestionFit>,
}

impl JudgeCalibration {
    fn key(&self) -> (&str, &str, &str) {
        (&self.judge, &self.model, &self.prompt_version)
    }

    /// The calibrated probability of `raw` for `question`; `None` without a fit for it.
    pub fn apply(&self, question: &str, raw: f64) -> Option<f64> {
        self.questions.get(question).map(|f| f.calibrator.apply(raw))
    }
}

/// `<home>/judge-calibration.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct CalibrationFile {
    format: String,
    version: u32,
    judges: Vec<JudgeCalibration>,
}

/// Raw thresholds for the policy, from thresholds set in calibrated probability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RawThresholds {
    /// The policy with `thresholds` and `min_relevance` in raw probability.
    pub policy: PolicyOptions,
    /// Thresholds left as they were (no fit for their question) or with no exact raw equivalent.
    pub notes: Vec<String>,
}

/// Gathers labelled probabilities from runs with their relevant ids (from run labels, or later span labels): every
/// candidate named is a positive, every other judged candidate of the run a negative.
pub fn gather<'a>(runs: impl IntoIterator<Item = (&'a Trace, &'a [String])>) -> LabelledScores {
    let mut scores = LabelledScores::default();
    for (trace, relevant) in runs {
        let relevant: HashSet<&str> = relevant.iter().map(String::as_str).collect();
        let key = judge_key(trace);
        scores.add_set(
            &key,
            (trace.judge.judgments.iter()).map(|j| (&j.scores, relevant.contains(j.chunk_id.as_str()))),
        );
    }
    scores
}

fn judge_key(trace: &Trace) -> JudgeKey {
    JudgeKey {
        judge: trace.judge.judge.clone(),
        model: trace.judge.model.clone(),
        prompt_version: trace.judge.prompt_version.clone(),
    }
}

/// Whether a run's judge name belongs to `kind`: `jev` covers `jev`, `jev-ragjev` and `jev-contextual`, `ollama`
/// Ollama's three, and so on; `auto` every judge.
pub fn judge_matches(kind: JudgeKind, name: &str) -> bool {
    match kind {
        JudgeKind::Auto => true,
        JudgeKind::Local => JudgeName::parse(name) == Some(JudgeName::Local),
        JudgeKind::None => false,
        decision => JudgeName::parse(name).and_then(JudgeName::backend) == decision.backend(),
    }
}

/// Fits every judge and question of `scores`: the report, and the fits to store.
pub fn fit_all(scores: &LabelledScores, fitted_at: i64) -> (Vec<JudgeReport>, Vec<JudgeCalibration>) {
    let mut reports = Vec::new();
    let mut stored = Vec::new();
    for (key, fits) in scores.calibrate() {
        let (runs, fits) = (fits.sets, fits.questions);
        reports.push(JudgeReport {
            judge: key.judge.clone(),
            model: key.model.clone(),
            prompt_version: key.prompt_version.clone(),
            runs,
            questions: fits.iter().map(|(q, f)| (q.clone(), f.report.clone())).collect(),
        });
        stored.push(JudgeCalibration {
            judge: key.judge,
            model: key.model,
            prompt_version: key.prompt_version,
            fitted_at,
            runs,
            questions: (fits.into_iter())
                .map(|(q, f)| {
                    let fit = StoredQuestionFit {
                        calibrator: f.calibrator,
                        n: f.report.n,
                        brier_raw: f.report.brier_raw,
                        brier_calibrated: f.report.brier_calibrated,
                    };
                    (q, fit)
                })
                .collect(),
        });
    }
    (reports, stored)
}

/// Calibration over rag-jev eval cases and their saved traces (offline; nothing stored).
pub fn from_rag_jev(cases: &[EvalCase], traces: &[RagJevTrace]) -> Result<JudgeCalibrationReport> {
    let mut scores = LabelledScores::default();
    scores.add_rag_jev(cases, traces)?;
    let (judges, _) = fit_all(&scores, now());
    Ok(JudgeCalibrationReport {
        runs_read: u32::try_from(cases.len()).unwrap_or(u32::MAX),
        runs_labelled: u32::try_from(cases.len()).unwrap_or(u32::MAX),
        judges,
        stored: None,
    })
}

/// How the policy compares a question's probability with its threshold.
fn comparison(question: &str) -> Comparison {
    match question {
        IS_RELEVANT | USEFUL => Comparison::AtLeast,
        _ => Comparison::Above,
    }
}

/// `calibrated` (thresholds and `min_relevance` in calibrated probability) with raw thresholds making the same
/// decisions under `fit`. `min_relevance` is read with the `useful` fit, else the `is_relevant` one, as the policy
/// reads `useful` when the judge gives it. A threshold without a fit for its question is left as it is.
pub fn raw_thresholds(fit: &JudgeCalibration, calibrated: &PolicyOptions) -> RawThresholds {
    let mut policy = calibrated.clone();
    let mut notes = Vec::new();
    let convert = |question: &str, t: f64, notes: &mut Vec<String>| -> f64 {
        let Some(q) = fit.questions.get(question) else {
            notes.push(format!("{question}: no calibration for this judge; {t} is read as raw"));
            return t;
        };
        let cmp = comparison(question);
        match q.calibrator.raw_threshold(t, cmp) {
            Some(raw) => raw,
            None => {
                // AtLeast with nothing reaching t: 1.0 keeps only raw 1.0.
                notes.push(format!(
                    "{question}: no raw probability reaches calibrated {t}; the raw threshold is 1"
                ));
                1.0
            }
        }
    };
    let keys: Vec<String> = calibrated.thresholds.keys().cloned().collect();
    for key in keys {
        if let Some(t) = calibrated.thresholds.get(&key).copied() {
            let raw = convert(&key, t, &mut notes);
            policy.thresholds.insert(key, raw);
        }
    }
    if let Some(t) = calibrated.min_relevance {
        let question = if fit.questions.contains_key(USEFUL) {
            USEFUL
        } else {
            IS_RELEVANT
        };
        policy.min_relevance = Some(convert(question, t, &mut notes));
    }
    RawThresholds { policy, notes }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn path(home: &Path) -> PathBuf {
    home.join(FILE)
}

fn read_file(home: &Path) -> Result<CalibrationFile> {
    let p = path(home);
    if !p.exists() {
        return Ok(CalibrationFile {
            format: FORMAT.into(),
            version: VERSION,
            judges: Vec::new(),
        });
    }
    let text = ragsift_core::read::read_text(&p, ragsift_core::read::JSON_MAX_MB)?;
    let file: CalibrationFile =
        serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("{}: {e}", p.display())))?;
    if file.format != FORMAT || file.version != VERSION {
        return Err(Error::Invalid(format!(
            "{}: not a {FORMAT} file of version {VERSION}",
            p.display()
        )));
    }
    Ok(file)
}

/// Replaces the fits of the same judge triples and keeps the others; one writer at a time across threads and
/// processes, written atomically and durably.
fn store(home: &Path, fits: Vec<JudgeCalibration>) -> Result<PathBuf> {
    let _guard = FILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _lock = ragsift_core::fsx::lock(&home.join(format!("{FILE}.lock")))?;
    let mut file = read_file(home)?;
    file.judges.retain(|old| !fits.iter().any(|new| new.key() == old.key()));
    file.judges.extend(fits);
    file.judges.sort_by(|a, b| a.key().cmp(&b.key()));
    let p = path(home);
    let json = serde_json::to_vec_pretty(&file).map_err(|e| Error::Invalid(e.to_string()))?;
    ragsift_core::fsx::write_atomic(&p, &json, ragsift_core::fsx::Access::Private)?;
    Ok(p)
}

impl Workbench {
    /// Calibrates the judges of `kind` (`auto`: every judge) over the library's runs with relevance labels, and
    /// stores the fits (replacing those of the same judge, model and prompt version).
    pub fn calibrate_judge(&self, kind: JudgeKind) -> Result<JudgeCalibrationReport> {
        if kind == JudgeKind::None {
            return Err(Error::Invalid(
                "calibrating a judge needs a judge: jev, local or auto".into(),
            ));
        }
        let lib = self.library();
        let summaries = self.runs(u32::MAX)?;
        let mut traces = Vec::new();
        for s in summaries.iter().filter(|s| judge_matches(kind, &s.judge)) {
            // Loaded directly, so the trace the app keeps for replay stays cached.
            let trace = Trace::load(lib.store(), &s.id)?;
            if !judge_matches(kind, &trace.judge.judge) {
                continue;
            }
            // Explicit relevant ids first; else the question's span labels, when they label any candidate.
            let relevant = match &trace.labels.relevant_ids {
                Some(ids) => Some(ids.clone()),
                None => {
                    let spans = self.run_span_labels(&trace)?;
                    (!spans.relevant_ids.is_empty() || !spans.not_relevant_ids.is_empty()).then_some(spans.relevant_ids)
                }
            };
            if let Some(ids) = relevant {
                traces.push((trace, ids));
            }
        }
        // In an order of their content, not of when they were stored: the folds, and so the fit, are the same for
        // the same labelled runs (runs stored in the same millisecond listed in either order moved the choice).
        traces.sort_by(|(a, _), (b, _)| (&a.fingerprint, &a.run_id).cmp(&(&b.fingerprint, &b.run_id)));
        let scores = gather(traces.iter().map(|(t, ids)| (t, ids.as_slice())));
        let (judges, fits) = fit_all(&scores, now());
        let stored = if fits.is_empty() {
            None
        } else {
            Some(store(&self.home, fits)?.display().to_string())
        };
        Ok(JudgeCalibrationReport {
            runs_read: u32::try_from(summaries.len()).unwrap_or(u32::MAX),
            runs_labelled: u32::try_from(traces.len()).unwrap_or(u32::MAX),
            judges,
            stored,
        })
    }

    /// The stored fits of a judge, model and prompt version.
    pub fn judge_calibration(
        &self,
        judge: &str,
        model: &str,
        prompt_version: &str,
    ) -> Result<Option<JudgeCalibration>> {
        Ok(read_file(&self.home)?
            .judges
            .into_iter()
            .find(|c| c.key() == (judge, model, prompt_version)))
    }

    /// Per candidate of `trace` (in its judgments' order), the calibrated probability of each question with a
    /// stored fit for the run's judge; empty when there is none.
    pub fn calibrated_scores(&self, trace: &Trace) -> Result<Vec<BTreeMap<String, f64>>> {
        let j = &trace.judge;
        let Some(fit) = self.judge_calibration(&j.judge, &j.model, &j.prompt_version)? else {
            return Ok(Vec::new());
        };
        Ok((j.judgments.iter())
            .map(|c| {
                (c.scores.iter())
                    .filter_map(|(q, &p)| fit.apply(q, p).map(|v| (q.clone(), v)))
                    .collect()
            })
            .collect())
    }

    /// [`Workbench::raw_thresholds`] for a stored run's judge.
    pub fn run_raw_thresholds(&self, run_id: &str, calibrated: &PolicyOptions) -> Result<RawThresholds> {
        let t = self.run(run_id)?;
        self.raw_thresholds(&t.judge.judge, &t.judge.model, &t.judge.prompt_version, calibrated)
    }

    /// `calibrated` (thresholds set in calibrated probability) as the raw thresholds the policy applies to this
    /// judge's probabilities; unchanged, with a note, without a stored fit.
    pub fn raw_thresholds(
        &self,
        judge: &str,
        model: &str,
        prompt_version: &str,
        calibrated: &PolicyOptions,
    ) -> Result<RawThresholds> {
        Ok(match self.judge_calibration(judge, model, prompt_version)? {
            Some(fit) => raw_thresholds(&fit, calibrated),
            None => RawThresholds {
                policy: calibrated.clone(),
                notes: vec![format!(
                    "no calibration stored for {judge} {model} {prompt_version}: thresholds are read as raw"
                )],
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragsift_eval::judge_calibration::Method;
    use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE};

    /// rag-jev traces scored on other input are stale (score them again), not invalid: the app says so.
    #[test]
    fn a_trace_of_changed_input_reads_as_stale() {
        let fx = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/eval");
        let cases = ragsift_eval::load_cases(fx.join("cases.json")).unwrap();
        let fresh = ragsift_eval::load_traces(fx.join("traces.json")).unwrap();
        assert!(from_rag_jev(&cases, &fresh).is_ok());
        let stale = ragsift_eval::load_traces(fx.join("traces-stale-fingerprint.json")).unwrap();
        let e = from_rag_jev(&cases, &stale).unwrap_err();
        assert_eq!(e.code(), "stale", "{e}");
        assert!(e.to_string().contains("score the case again"), "{e}");
    }

    #[test]
    fn raw_thresholds_follow_each_questions_comparison() {
        let fit = JudgeCalibration {
            judge: "jev".into(),
            model: "m".into(),
            prompt_version: "v".into(),
            fitted_at: 0,
            runs: 3,
            questions: BTreeMap::from([
                (
                    IS_RELEVANT.to_string(),
                    StoredQuestionFit {
                        calibrator: Calibrator::Isotonic {
                            x: vec![0.0, 0.4, 0.7],
                            y: vec![0.1, 0.5, 0.9],
                        },
                        n: 30,
                        brier_raw: None,
                        brier_calibrated: None,
                    },
                ),
                (
                    CONTAINS_ANSWER_EVIDENCE.to_string(),
                    StoredQuestionFit {
                        calibrator: Calibrator::Isotonic {
                            x: vec![0.0, 0.4, 0.7],
                            y: vec![0.1, 0.5, 0.9],
                        },
                        n: 30,
                        brier_raw: None,
                        brier_calibrated: None,
                    },
                ),
            ]),
        };
        let calibrated = PolicyOptions {
            thresholds: BTreeMap::from([
                (IS_RELEVANT.to_string(), 0.5),
                (CONTAINS_ANSWER_EVIDENCE.to_string(), 0.5),
                (CONTAINS_PROMPT_INJECTION.to_string(), 0.7),
            ]),
            min_relevance: Some(0.6),
            ..PolicyOptions::default()
        };
        let raw = raw_thresholds(&fit, &calibrated);
        // is_relevant keeps p ≥ t: the first raw p whose calibrated value is 0.5 is 0.4.
        assert_eq!(raw.policy.thresholds[IS_RELEVANT], 0.4);
        // evidence retains p > t: calibrated > 0.5 from raw 0.7 on, so the raw threshold is just below 0.7.
        let evidence = raw.policy.thresholds[CONTAINS_ANSWER_EVIDENCE];
        assert!(evidence < 0.7 && f64::from_bits(evidence.to_bits() + 1) == 0.7);
        assert_eq!(
            raw.policy.thresholds[CONTAINS_PROMPT_INJECTION], 0.7,
            "no fit: unchanged"
        );
        assert_eq!(
            raw.policy.min_relevance,
            Some(0.7),
            "min_relevance read with is_relevant's fit"
        );
        assert_eq!(raw.notes.len(), 1);
        let strict = [
            CONTAINS_ANSWER_EVIDENCE,
            CONTAINS_PROMPT_INJECTION,
            CONTRADICTS_QUERY_PREMISE,
        ];
        assert!(strict.iter().all(|q| comparison(q) == Comparison::Above));
    }

    #[test]
    fn judge_names_match_their_kind() {
        assert!(judge_matches(JudgeKind::Jev, "jev-ragjev") && judge_matches(JudgeKind::Jev, "jev"));
        assert!(!judge_matches(JudgeKind::Jev, "local") && !judge_matches(JudgeKind::Jev, "jevx"));
        assert!(judge_matches(JudgeKind::Local, "local") && judge_matches(JudgeKind::Auto, "readout"));
        assert_eq!(Method::None.name(), "none");
    }
}

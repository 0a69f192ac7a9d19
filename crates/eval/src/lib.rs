//! Evaluation of selection policies before enabling one: labelled cases and saved judgments in rag-jev's formats.
//!
//! Compares five policies on every case, reusing one judgment per passage (nothing is scored here): `baseline`
//! (retrieval order, or the case's `baseline_ids`), and the [`ragsift_policy`] modes `filter`, `rerank`,
//! `filter_and_rerank` and `fusion` (the trace's `relevance` is the [`USEFUL`] score; `min_relevance` applies to the filter
//! modes, compared in f64 as rag-jev's Python floats). `top_n` caps every policy, baseline included (a case's explicit
//! `baseline_ids` are used as they are, as in rag-jev); groups stay together. Metrics and summary follow rag-jev's `evaluate` ([`metrics`] says how), except that context tokens
//! are estimated. A trace must carry the case's [`fingerprint`] and the prompt version of its scoring strategy;
//! otherwise it judged other input and is refused. Answers are not generated: `answer_quality` is
//! `"not_evaluated"`. [`sweep`] replays the filter policy over a threshold grid to show the precision/recall
//! tradeoff. Test data in these formats, made for ragsift, is in `fixtures/eval/`.
//!
//! Long because it is the eval report in one place: the case format, the metrics per case and their summary.

pub mod calibrate;
pub mod curves;
pub mod judge_calibration;
pub mod library;
pub mod live;
pub mod metrics;
pub mod qa;
pub mod ragjev;
pub mod select;
pub mod spans;

pub use ragsift_core::{Error, Result};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use metrics::{estimate_tokens, measure, summarize, Metrics, Summary, TOKEN_ESTIMATOR};
pub use ragjev::{
    fingerprint, is_rag_jev_version, python_float_repr, python_json_dumps, traces_json, Document, EvalCase,
    RagJevJudgment, RagJevTrace, ScoringStrategy, Usage, CONTEXTUAL_PROMPT_VERSION, PROMPT_VERSION,
};
use ragsift_policy::{select, ChunkJudgment, Mode, PolicyOptions, USEFUL};

#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    Io {
        path: PathBuf,
        message: String,
    },
    /// Not JSON, or not rag-jev's shape.
    Format {
        path: PathBuf,
        message: String,
    },
    /// Invalid options, cases or traces, or traces that do not pair one-to-one with the cases.
    Invalid(String),
    /// The trace was scored on different input (query, documents or retrieval query changed since).
    FingerprintMismatch {
        case_id: String,
        expected: String,
        found: String,
    },
    /// The trace was scored with another prompt than rag-jev uses for its scoring strategy.
    PromptVersionMismatch {
        case_id: String,
        expected: String,
        found: String,
    },
}

/// The engine's error for an evaluation's: traces scored on other input or with another prompt are stale (score
/// them again); unreadable files, bad formats and invalid options are invalid.
impl From<EvalError> for ragsift_core::Error {
    fn from(e: EvalError) -> Self {
        match e {
            EvalError::FingerprintMismatch { .. } | EvalError::PromptVersionMismatch { .. } => {
                ragsift_core::Error::Stale(e.to_string())
            }
            EvalError::Io { .. } | EvalError::Format { .. } | EvalError::Invalid(_) => {
                ragsift_core::Error::Invalid(e.to_string())
            }
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Io { path, message } => write!(f, "cannot read {}: {message}", path.display()),
            EvalError::Format { path, message } => write!(f, "{}: {message}", path.display()),
            EvalError::Invalid(message) => f.write_str(message),
            EvalError::FingerprintMismatch {
                case_id,
                expected,
                found,
            } => write!(
                f,
                "stale trace for case `{case_id}`: its input fingerprint {found} is not the case's {expected}; \
                 the query or documents changed since scoring, so score the case again"
            ),
            EvalError::PromptVersionMismatch {
                case_id,
                expected,
                found,
            } => write!(
                f,
                "trace for case `{case_id}` was scored with prompt version `{found}`, expected `{expected}`; \
                 score the case again"
            ),
        }
    }
}

impl std::error::Error for EvalError {}

/// The shared policy settings: `min_relevance` for the filter modes, `top_n` for every policy.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalOptions {
    pub min_relevance: f64,
    #[serde(default)]
    pub top_n: Option<usize>,
}

impl EvalOptions {
    pub fn validate(&self) -> Result<(), EvalError> {
        if !(0.0..=1.0).contains(&self.min_relevance) {
            return Err(EvalError::Invalid(format!(
                "min_relevance must be between 0 and 1, got {}",
                self.min_relevance
            )));
        }
        if self.top_n.is_some_and(|n| !(1..=256).contains(&n)) {
            return Err(EvalError::Invalid("top_n must be between 1 and 256 when set".into()));
        }
        Ok(())
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum EvalPolicy {
    Baseline,
    Filter,
    Rerank,
    FilterAndRerank,
    /// rag-jev's reciprocal-rank fusion (k = 60) of the retrieval rank and the judge's rank.
    Fusion,
}

impl EvalPolicy {
    pub const ALL: [EvalPolicy; 5] = [
        EvalPolicy::Baseline,
        EvalPolicy::Filter,
        EvalPolicy::Rerank,
        EvalPolicy::FilterAndRerank,
        EvalPolicy::Fusion,
    ];

    fn mode(self) -> Option<Mode> {
        match self {
            EvalPolicy::Baseline => None,
            EvalPolicy::Filter => Some(Mode::Filter),
            EvalPolicy::Rerank => Some(Mode::Rerank),
            EvalPolicy::FilterAndRerank => Some(Mode::FilterAndRerank),
            EvalPolicy::Fusion => Some(Mode::Fusion),
        }
    }
}

/// One value per compared policy; serialises as
/// `{"baseline": …, "filter": …, "rerank": …, "filter_and_rerank": …, "fusion": …}`.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ByPolicy<T> {
    pub baseline: T,
    pub filter: T,
    pub rerank: T,
    pub filter_and_rerank: T,
    pub fusion: T,
}

impl<T> ByPolicy<T> {
    fn from_fn(mut f: impl FnMut(EvalPolicy) -> T) -> Self {
        ByPolicy {
            baseline: f(EvalPolicy::Baseline),
            filter: f(EvalPolicy::Filter),
            rerank: f(EvalPolicy::Rerank),
            filter_and_rerank: f(EvalPolicy::FilterAndRerank),
            fusion: f(EvalPolicy::Fusion),
        }
    }

    pub fn get(&self, policy: EvalPolicy) -> &T {
        match policy {
            EvalPolicy::Baseline => &self.baseline,
            EvalPolicy::Filter => &self.filter,
            EvalPolicy::Rerank => &self.rerank,
            EvalPolicy::FilterAndRerank => &self.filter_and_rerank,
            EvalPolicy::Fusion => &self.fusion,
        }
    }
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CaseRow {
    pub case_id: String,
    pub metrics: ByPolicy<Metrics>,
    pub elapsed_ms: f64,
}

/// Scoring tokens reported by the traces: a contextual trace's shared usage, else the sum over its judgments.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ScoringUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub note: &'static str,
}

/// rag-jev's report shape (`cases` is a count, per-case metrics are in `rows`), plus the settings and the
/// optional [`Sweep`], which [`evaluate`] leaves empty.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvalReport {
    pub cases: usize,
    pub sources: Vec<String>,
    pub models: Vec<String>,
    pub answer_quality: &'static str,
    pub context_size_unit: &'static str,
    pub context_tokens_estimator: &'static str,
    pub recall_scope: &'static str,
    /// `top_n`, or a sentence saying the candidate count of each query is used.
    pub ndcg_cutoff: Value,
    pub min_relevance: f64,
    pub top_n: Option<usize>,
    pub usage: ScoringUsage,
    /// p95 of the traces' `elapsed_ms` (see [`metrics::p95`]).
    pub scoring_p95_ms: f64,
    pub summary: ByPolicy<Summary>,
    pub rows: Vec<CaseRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
}

/// Reads and checks an eval-cases file (`rag-jev eval`'s input).
pub fn load_cases(path: impl AsRef<Path>) -> Result<Vec<EvalCase>, EvalError> {
    let path = path.as_ref();
    let cases: Vec<EvalCase> = ragjev::load_list(path, "cases")?;
    for case in &cases {
        case.validate().map_err(|e| EvalError::Format {
            path: path.into(),
            message: format!("case `{}`: {e}", case.id),
        })?;
    }
    Ok(cases)
}

/// Reads and checks a saved-traces file (`rag-jev eval --save-traces`).
pub fn load_traces(path: impl AsRef<Path>) -> Result<Vec<RagJevTrace>, EvalError> {
    let path = path.as_ref();
    let traces: Vec<RagJevTrace> = ragjev::load_list(path, "traces")?;
    for t in &traces {
        t.validate().map_err(|e| EvalError::Format {
            path: path.into(),
            message: format!("trace `{}`: {e}", t.case_id),
        })?;
    }
    Ok(traces)
}

/// Pairs every case with its trace after rag-jev's checks: unique ids on both sides, exactly the same ids, valid
/// cases and traces, a matching fingerprint and prompt version, one judgment per document.
pub(crate) fn pair<'a>(
    cases: &'a [EvalCase],
    traces: &'a [RagJevTrace],
) -> Result<Vec<(&'a EvalCase, &'a RagJevTrace)>, EvalError> {
    let invalid = |m: String| Err(EvalError::Invalid(m));
    if cases.is_empty() || cases.iter().map(|c| &c.id).collect::<HashSet<_>>().len() != cases.len() {
        return invalid("evaluation requires non-empty cases with unique ids".into());
    }
    let by_id: HashMap<&str, &RagJevTrace> = traces.iter().map(|t| (t.case_id.as_str(), t)).collect();
    if by_id.len() != traces.len() {
        return invalid("two traces share a case_id".into());
    }
    if let Some(t) = traces.iter().find(|t| !cases.iter().any(|c| c.id == t.case_id)) {
        return invalid(format!("trace for unknown case `{}`", t.case_id));
    }
    let rag_jev_set = traces.iter().any(|t| is_rag_jev_version(&t.prompt_version));
    let mut pairs = Vec::with_capacity(cases.len());
    for case in cases {
        let Some(&trace) = by_id.get(case.id.as_str()) else {
            return invalid(format!("no trace for case `{}`", case.id));
        };
        let named = |what: &str, e: String| EvalError::Invalid(format!("{what} `{}`: {e}", case.id));
        case.validate().map_err(|e| named("case", e))?;
        trace.validate().map_err(|e| named("trace for case", e))?;
        let expected = fingerprint(case);
        if trace.input_hash != expected {
            let found = trace.input_hash.clone();
            return Err(EvalError::FingerprintMismatch {
                case_id: case.id.clone(),
                expected,
                found,
            });
        }
        // A set holding rag-jev's versions is read as rag-jev reads it: each trace's version matches its scoring
        // strategy. Another judge's own version is evaluated as such, but never mixed with a different one.
        let mismatch = if rag_jev_set {
            trace.prompt_version != trace.expected_prompt_version()
        } else {
            false
        };
        if !rag_jev_set && trace.prompt_version != traces[0].prompt_version {
            return invalid(format!(
                "traces mix prompt versions `{}` and `{}`: evaluate each judge's traces on their own",
                traces[0].prompt_version, trace.prompt_version
            ));
        }
        if mismatch {
            return Err(EvalError::PromptVersionMismatch {
                case_id: case.id.clone(),
                expected: trace.expected_prompt_version().into(),
                found: trace.prompt_version.clone(),
            });
        }
        if trace.judgments.len() != case.documents.len() {
            let (j, d) = (trace.judgments.len(), case.documents.len());
            return invalid(format!(
                "trace for case `{}` has {j} judgments for {d} documents",
                case.id
            ));
        }
        pairs.push((case, trace));
    }
    Ok(pairs)
}

/// What `policy` hands downstream for a checked case/trace pair, in final order. The one known divergence from
/// rag-jev's `apply_policy` here: in `filter_and_rerank` a pinned group ranks by its best kept or pinned member,
/// where rag-jev takes its best member, so pins with below-threshold siblings may order differently.
fn selection<'a>(
    case: &'a EvalCase,
    trace: &RagJevTrace,
    policy: EvalPolicy,
    options: &EvalOptions,
) -> Vec<&'a Document> {
    let Some(mode) = policy.mode() else {
        return match &case.baseline_ids {
            Some(ids) => ids
                .iter()
                .filter_map(|id| case.documents.iter().find(|d| &d.id == id))
                .collect(),
            None => case
                .documents
                .iter()
                .take(options.top_n.unwrap_or(usize::MAX))
                .collect(),
        };
    };
    let policy_options = PolicyOptions {
        mode,
        min_relevance: matches!(mode, Mode::Filter | Mode::FilterAndRerank).then_some(options.min_relevance),
        top_n: options.top_n,
        max_context_tokens: None,
        shadow: false,
        keep_groups_together: true,
        ..PolicyOptions::default()
    };
    handed_on(case, trace, &policy_options)
}

/// What `options` hand downstream for a checked case/trace pair, in final order: rag-jev's selection, or the
/// original context when bypassed; tokens are estimated ([`estimate_tokens`]).
pub(crate) fn handed_on<'a>(case: &'a EvalCase, trace: &RagJevTrace, options: &PolicyOptions) -> Vec<&'a Document> {
    let judgments: Vec<ChunkJudgment> = (case.documents.iter().zip(&trace.judgments).enumerate())
        .map(|(i, (d, j))| ChunkJudgment {
            chunk_id: d.id.clone(),
            input_index: i,
            tokens: u32::try_from(estimate_tokens(&d.text)).unwrap_or(u32::MAX),
            characters: u32::try_from(d.text.chars().count()).unwrap_or(u32::MAX),
            pinned: d.pinned,
            group: d.group_id.clone(),
            scores: BTreeMap::from([(USEFUL.to_string(), j.relevance)]),
            not_assessed: Vec::new(),
        })
        .collect();
    let by_id: HashMap<&str, &Document> = case.documents.iter().map(|d| (d.id.as_str(), d)).collect();
    let chosen = select(&judgments, options).returned_ids;
    chosen.iter().filter_map(|id| by_id.get(id.as_str()).copied()).collect()
}

/// Compares the four policies on every case; refuses traces that do not match their cases.
pub fn evaluate(cases: &[EvalCase], traces: &[RagJevTrace], options: &EvalOptions) -> Result<EvalReport, EvalError> {
    options.validate()?;
    let pairs = pair(cases, traces)?;
    let rows: Vec<CaseRow> = pairs
        .iter()
        .map(|&(case, trace)| CaseRow {
            case_id: case.id.clone(),
            metrics: ByPolicy::from_fn(|p| measure(case, &selection(case, trace, p, options), options.top_n)),
            elapsed_ms: trace.elapsed_ms,
        })
        .collect();
    let summary = ByPolicy::from_fn(|p| summarize(rows.iter().map(|r| r.metrics.get(p))));
    let tokens = |shared: fn(&Usage) -> u64, own: fn(&RagJevJudgment) -> u64| -> u64 {
        let per_trace = |t: &RagJevTrace| {
            t.scoring_usage
                .as_ref()
                .map_or_else(|| t.judgments.iter().map(own).sum(), shared)
        };
        traces.iter().map(per_trace).sum()
    };
    Ok(EvalReport {
        cases: cases.len(),
        sources: traces
            .iter()
            .map(|t| t.source.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        models: (traces.iter().flat_map(|t| &t.judgments).map(|j| j.model.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        answer_quality: "not_evaluated",
        context_size_unit: "characters (not model tokens)",
        context_tokens_estimator: TOKEN_ESTIMATOR,
        recall_scope: "relevant evidence already present in retrieved candidates",
        ndcg_cutoff: options.top_n.map_or_else(
            || Value::from("candidate count per query; shorter outputs padded with zeros"),
            Value::from,
        ),
        min_relevance: options.min_relevance,
        top_n: options.top_n,
        usage: ScoringUsage {
            input_tokens: tokens(|u| u.input_tokens, |j| j.input_tokens),
            output_tokens: tokens(|u| u.output_tokens, |j| j.output_tokens),
            note: "scoring performed once; policy comparisons reuse judgments",
        },
        scoring_p95_ms: metrics::p95(traces.iter().map(|t| t.elapsed_ms)),
        summary,
        rows,
        sweep: None,
    })
}

/// The filter policy at one threshold: query-level means, as in the summary.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SweepPoint {
    pub threshold: f64,
    pub precision: f64,
    /// `None` when no case has relevant candidates.
    pub evidence_recall: Option<f64>,
    /// Mean number of selected passages per case.
    pub selected_mean: f64,
}

#[derive(Serialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Sweep {
    pub policy: EvalPolicy,
    pub top_n: Option<usize>,
    pub points: Vec<SweepPoint>,
}

impl Sweep {
    /// `threshold,precision,evidence_recall,selected_mean`, one line per point; a missing recall is an empty field.
    pub fn to_csv(&self) -> String {
        let mut csv = String::from("threshold,precision,evidence_recall,selected_mean\n");
        for p in &self.points {
            let recall = p.evidence_recall.map(|r| format!("{r:.6}")).unwrap_or_default();
            csv += &format!("{},{:.6},{recall},{:.6}\n", p.threshold, p.precision, p.selected_mean);
        }
        csv
    }
}

/// Default sweep spacing.
pub const SWEEP_STEP: f64 = 0.05;

/// Thresholds 0, step, 2·step, … while ≤ 1 (so 1 itself for 0.05), each rounded to 9 decimals (0.05 · 7 is
/// exactly 0.35); empty unless 0 < step ≤ 1.
pub fn threshold_grid(step: f64) -> Vec<f64> {
    if !(step > 0.0 && step <= 1.0) {
        return vec![];
    }
    let n = (1.0 / step + 1e-9).floor() as usize;
    (0..=n).map(|i| (i as f64 * step * 1e9).round() / 1e9).collect()
}

/// Mean precision, evidence recall and selection size of the filter policy at each threshold (in [0, 1]), with
/// `options.top_n`; `options.min_relevance` is not used. Same checks as [`evaluate`].
pub fn sweep(
    cases: &[EvalCase],
    traces: &[RagJevTrace],
    options: &EvalOptions,
    thresholds: &[f64],
) -> Result<Sweep, EvalError> {
    options.validate()?;
    let pairs = pair(cases, traces)?;
    let mut points = Vec::with_capacity(thresholds.len());
    for &threshold in thresholds {
        let at = EvalOptions {
            min_relevance: threshold,
            ..*options
        };
        at.validate()?;
        let rows: Vec<Metrics> = (pairs.iter())
            .map(|&(case, trace)| measure(case, &selection(case, trace, EvalPolicy::Filter, &at), at.top_n))
            .collect();
        let s = summarize(rows.iter());
        points.push(SweepPoint {
            threshold,
            precision: s.precision.unwrap_or(0.0),
            evidence_recall: s.evidence_recall,
            selected_mean: s.documents.unwrap_or(0.0),
        });
    }
    Ok(Sweep {
        policy: EvalPolicy::Filter,
        top_n: options.top_n,
        points,
    })
}

#[cfg(test)]
mod tests;

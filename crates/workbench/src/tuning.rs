//! Tuning from what runs already hold, and two configurations side by side.
//!
//! - [`Workbench::run_curves`]: operating curves over stored runs with relevance labels, replayed from each run's
//!   cached judgments (no judge call): classify's four thresholds, `min_relevance`, top-N and the token budget,
//!   each point with the [`PolicyOptions`] that make it and the first run's own setting marked.
//! - [`Workbench::ablate`]: per query variant, what it alone found and what it cost ([`ablation::ablate`]).
//! - [`Workbench::compare`]: two [`CompareConfig`]s run over the same labelled questions through `ask`, so judgments
//!   go through the judgment cache (keyed by question, chunk text, judge and prompt version): a configuration that
//!   differs only in its policy makes no judge request. A side with another chunk size runs against a derived
//!   library (the same files re-chunked in `<home>/derived/`, see [`derived`]) with its own judgment cache; its
//!   evidence is then compared by (document, page), since chunk ids do not survive re-chunking.
//!
//! Long because it is one comparison of two pipeline sides end to end, derived libraries included.

mod derived;
mod report;

use super::Workbench;
use crate::answers::{AskOptions, AskRequest};
use crate::labels::{spans_of_documents, SpanLabel};
use crate::{Error, Result};
pub use derived::Note;
use derived::{chunk_units, page_units, Units};
use ragsift_eval::curves::{
    budget_grid, build_curve, mean_point, threshold_keys, top_n_grid, Curve, CurvePoint, Observation,
    MAX_CONTEXT_TOKENS, MIN_RELEVANCE, TOP_N,
};
use ragsift_eval::{threshold_grid, SWEEP_STEP};
use ragsift_judge::expected_prompt_version;
use ragsift_pipeline::ablation::{self, VariantAblation};
use ragsift_pipeline::answer::AnswerMode;
use ragsift_pipeline::join::Candidate;
use ragsift_pipeline::Trace;
use ragsift_policy::{Mode, PolicyOptions, IS_RELEVANT, USEFUL};
pub use report::{
    CaseSource, CompareConfig, CompareDelta, CompareQuestion, CompareReport, CompareRequest, CompareSide,
    CompareSummary, EvidenceRef,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::sync::Arc;

/// Operating curves over `traces` (each needs relevance labels), from their cached judgments. The first run's
/// policy is the base every curve varies one parameter of; curves of its own mode mark its setting. Classify
/// curves appear only when the judgments answer that question; the rag-jev modes' only when they carry a
/// usefulness (or relevance) score. A filter mode's fixed `min_relevance` is the run's, else the judge's default,
/// else 0.
pub fn curves_over_runs(traces: &[Trace]) -> Result<Vec<Curve>> {
    let first = traces
        .first()
        .ok_or_else(|| Error::Invalid("curves need at least one run".into()))?;
    if let Some(t) = traces.iter().find(|t| t.labels.relevant_ids.is_none()) {
        return Err(Error::Invalid(format!(
            "run {} has no relevance labels: label it first (ragsift label)",
            t.run_id
        )));
    }
    // Probabilities of different judges are not comparable: a curve belongs to one judge, model and wording.
    let identity = |t: &Trace| {
        (
            t.judge.judge.clone(),
            t.judge.model.clone(),
            t.judge.prompt_version.clone(),
        )
    };
    if let Some(t) = traces.iter().find(|t| identity(t) != identity(first)) {
        return Err(Error::Invalid(format!(
            "operating curves are drawn for one judge at a time: run {} was judged by {} · {}, run {} by {} · {}",
            first.run_id, first.judge.judge, first.judge.model, t.run_id, t.judge.judge, t.judge.model
        )));
    }
    let has = |key: &str| (traces.iter().flat_map(|t| &t.judge.judgments)).any(|j| j.scores.contains_key(key));
    let max_candidates = traces.iter().map(|t| t.candidates.len()).max().unwrap_or(0);
    let max_tokens = (traces.iter())
        .map(|t| t.candidates.iter().map(|c| u64::from(c.tokens)).sum::<u64>())
        .max()
        .unwrap_or(0);
    // Each run is checked once (its fingerprint hashes every candidate's text), not at every point.
    for t in traces {
        t.check_replayable(expected_prompt_version(&t.judge.judge).as_deref())?;
    }
    let point = |value: f64, options: PolicyOptions| -> Result<CurvePoint> {
        let mut observations = Vec::with_capacity(traces.len());
        for t in traces {
            let replay = t.reselect(&options)?;
            let labels = replay.labels.as_ref();
            observations.push(Observation {
                evidence_recall: labels.and_then(|l| l.evidence_recall),
                precision: labels.and_then(|l| l.precision),
                context_tokens: labels.map_or(0, |l| l.selected_tokens) as f64,
                documents: replay.selection.selected().len() as f64,
            });
        }
        Ok(mean_point(value, options, &observations))
    };
    let base = &first.policy;
    let mut out = Vec::new();
    for mode in [
        Mode::Classify,
        Mode::Filter,
        Mode::FilterAndRerank,
        Mode::Rerank,
        Mode::Fusion,
    ] {
        let scored = match mode {
            Mode::Classify => threshold_keys().all(|k| has(k) || first.judge.not_assessed.iter().any(|n| n == k)),
            _ => has(USEFUL) || has(IS_RELEVANT),
        };
        if !scored {
            continue;
        }
        let filters = matches!(mode, Mode::Filter | Mode::FilterAndRerank);
        let mut at = base.clone();
        at.mode = mode;
        at.min_relevance = if filters {
            Some(base.min_relevance.or(first.judge.defaults.min_relevance).unwrap_or(0.0))
        } else if mode == Mode::Classify {
            base.min_relevance.filter(|_| mode == base.mode)
        } else {
            None
        };
        let mark = mode == base.mode;
        let grid = threshold_grid(SWEEP_STEP);
        if mode == Mode::Classify {
            for key in threshold_keys().filter(|&k| has(k)) {
                out.push(build_curve(&at, key, &grid, true, point)?);
            }
        }
        if filters {
            out.push(build_curve(&at, MIN_RELEVANCE, &grid, mark, point)?);
        }
        out.push(build_curve(&at, TOP_N, &top_n_grid(max_candidates), mark, point)?);
        out.push(build_curve(
            &at,
            MAX_CONTEXT_TOKENS,
            &budget_grid(max_tokens, ragsift_eval::curves::BUDGET_STEPS),
            mark,
            point,
        )?);
    }
    // Classify curves mark the run's thresholds only when the run classified.
    for c in out
        .iter_mut()
        .filter(|c| c.mode == Mode::Classify && base.mode != Mode::Classify)
    {
        c.current = None;
    }
    Ok(out)
}

/// A run's variant ablation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunAblation {
    pub run_id: String,
    pub query: String,
    /// Candidates after joining.
    pub candidates: usize,
    /// Whether the run has relevance labels (else the evidence fields are `None`).
    pub labelled: bool,
    pub variants: Vec<VariantAblation>,
}

/// A labelled question, as compare reads it (other fields are ignored), in one of two forms:
///
/// - the library case format (as `eval --from-library` reads it): `id`, `query`, and `relevant_ids` naming the
///   evidence by chunk id or document (file name or path); no `documents`;
/// - a case of `ragsift labels export` (rag-jev's case format, see [`Workbench::export_labels_as_cases`]): its
///   `documents` (the candidates of the question's latest run) carry the labelled spans in
///   `metadata.ragsift_spans`. Compare retrieves afresh, so the documents are not candidates here: the relevant
///   spans on them are the evidence, matched against each run's candidates as labels are (a chunk holding most
///   of a span, on the same document version), which holds at another chunk size too. Its `relevant_ids` (the
///   exported run's chunk ids) are not used.
///
/// A case with documents and no spans on them (a plain rag-jev case) is refused.
#[derive(Deserialize)]
struct CompareCase {
    id: String,
    query: String,
    #[serde(default)]
    relevant_ids: Vec<String>,
    #[serde(default)]
    documents: Option<Vec<Value>>,
    /// The labelled spans of an exported case (read from its documents), else `None`.
    #[serde(skip)]
    spans: Option<Vec<SpanLabel>>,
}

impl CompareCase {
    /// Whether the case names any evidence (else it is unanswerable).
    fn answerable(&self) -> bool {
        match &self.spans {
            Some(spans) => spans.iter().any(|l| l.relevant),
            None => !self.relevant_ids.is_empty(),
        }
    }

    /// The chunk ids of `trace` (a run of `wb`'s library) that are this case's evidence.
    fn evidence(&self, wb: &Workbench, trace: &Trace) -> Result<HashSet<String>> {
        Ok(match &self.spans {
            Some(spans) => wb.span_evidence(trace, spans)?.into_iter().collect(),
            None => (trace.candidates.iter())
                .filter(|c| is_evidence(c, &self.relevant_ids))
                .map(|c| c.chunk_id.clone())
                .collect(),
        })
    }
}

/// Why compare on the library's labels cannot run yet.
const NO_LABELS: &str = "no labelled questions yet: label passages in the Inspector or with `ragsift label`";

fn read_cases(path: &str) -> Result<Vec<CompareCase>> {
    let p = Path::new(path);
    let text = ragsift_core::read::read_text(p, ragsift_core::read::JSON_MAX_MB)?;
    let bad = |m: String| Error::Invalid(format!("{path}: {m}"));
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let list = match value {
        Value::Object(mut o) => o.remove("cases").unwrap_or(Value::Null),
        v => v,
    };
    compare_cases(list).map_err(bad)
}

/// The cases of a list (JSON), their spans read; refused when there are none, for a repeated id, a blank query,
/// and for documents without labelled spans.
fn compare_cases(list: Value) -> std::result::Result<Vec<CompareCase>, String> {
    let mut cases: Vec<CompareCase> =
        serde_json::from_value(list).map_err(|e| format!("expected a list of cases: {e}"))?;
    if cases.is_empty() {
        return Err("no cases".into());
    }
    let mut ids = HashSet::new();
    for c in &mut cases {
        if !ids.insert(c.id.clone()) {
            return Err(format!("case id `{}` appears twice", c.id));
        }
        if c.query.trim().is_empty() {
            return Err(format!("case `{}` has no query", c.id));
        }
        if let Some(documents) = c.documents.as_deref().filter(|d| !d.is_empty()) {
            c.spans = spans_of_documents(&c.query, documents).map_err(|e| format!("case `{}`: {e}", c.id))?;
            if c.spans.is_none() {
                return Err(format!(
                    "case `{}` carries its own documents and no labelled spans on them: compare retrieves from the \
                     library, so use cases without documents (as `eval --from-library` reads them), or the cases \
                     `ragsift labels export` writes",
                    c.id
                ));
            }
        }
    }
    Ok(cases)
}

/// Whether `c` is labelled evidence: its chunk id, document path or file name is named.
fn is_evidence(c: &Candidate, named: &[String]) -> bool {
    let file = Path::new(&c.document)
        .file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default();
    named
        .iter()
        .any(|n| *n == c.chunk_id || *n == c.document || (!file.is_empty() && *n == file))
}

fn refs(list: &[&Candidate], others: &BTreeSet<String>, units: Units) -> Vec<EvidenceRef> {
    (list.iter())
        .filter(|c| !units(c).iter().all(|u| others.contains(u)))
        .map(|c| EvidenceRef {
            chunk_id: c.chunk_id.clone(),
            document: c.document.clone(),
            page_start: c.page_start,
            page_end: c.page_end,
            text: c.text.clone(),
        })
        .collect()
}

/// The context actually handed on (the selection, or the original context when bypassed or shadowed).
fn context(trace: &Trace) -> BTreeSet<&str> {
    trace.selection.returned_ids.iter().map(String::as_str).collect()
}

/// One side: `kept` is its labelled evidence in the context, `covered` the evidence units they cover.
fn side(trace: &Trace, kept: usize, covered: usize, pooled: usize, answerable: bool) -> CompareSide {
    let ctx = context(trace);
    CompareSide {
        run_id: trace.run_id.clone(),
        evidence_recall: if pooled == 0 {
            answerable.then_some(0.0)
        } else {
            Some(covered as f64 / pooled as f64)
        },
        precision: if ctx.is_empty() {
            0.0
        } else {
            kept as f64 / ctx.len() as f64
        },
        context_tokens: (trace.candidates.iter())
            .filter(|c| ctx.contains(c.chunk_id.as_str()))
            .map(|c| u64::from(c.tokens))
            .sum(),
        documents: ctx.len(),
        candidates: trace.candidates.len(),
        fresh_judgments: trace.judge.fresh_passages,
        cached_judgments: trace.judge.cached_passages,
        judge_input_tokens: u64::from(trace.judge.input_tokens),
        judge_output_tokens: u64::from(trace.judge.output_tokens),
    }
}

/// `trace`'s labelled evidence (the chunk ids `evidence`), once per chunk: retrieved, or (`in_context`) handed on.
fn evidence_in<'t>(trace: &'t Trace, evidence: &HashSet<String>, in_context: bool) -> Vec<&'t Candidate> {
    let ctx = context(trace);
    let mut seen = HashSet::new();
    (trace.candidates.iter())
        .filter(|c| evidence.contains(&c.chunk_id) && (!in_context || ctx.contains(c.chunk_id.as_str())))
        .filter(|c| seen.insert(c.chunk_id.as_str()))
        .collect()
}

/// A run and the chunk ids of its candidates that are the question's evidence.
type Side<'t> = (&'t Trace, &'t HashSet<String>);

/// One question's comparison from A's and B's runs, evidence counted in `units`.
fn question(case: &CompareCase, (a, ev_a): Side, (b, ev_b): Side, units: Units) -> CompareQuestion {
    let cover = |list: &[&Candidate]| -> BTreeSet<String> { list.iter().flat_map(|c| units(c)).collect() };
    let (found_a, found_b) = (evidence_in(a, ev_a, false), evidence_in(b, ev_b, false));
    let (kept_a, kept_b) = (evidence_in(a, ev_a, true), evidence_in(b, ev_b, true));
    let (ra, rb, ka, kb) = (cover(&found_a), cover(&found_b), cover(&kept_a), cover(&kept_b));
    let pooled = ra.union(&rb).count();
    let answerable = case.answerable();
    let (sa, sb) = (
        side(a, kept_a.len(), ka.len(), pooled, answerable),
        side(b, kept_b.len(), kb.len(), pooled, answerable),
    );
    CompareQuestion {
        id: case.id.clone(),
        query: case.query.clone(),
        evidence: pooled,
        delta: CompareDelta {
            evidence_recall: sa.evidence_recall.zip(sb.evidence_recall).map(|(x, y)| y - x),
            precision: sb.precision - sa.precision,
            context_tokens: sb.context_tokens as i64 - sa.context_tokens as i64,
        },
        a: sa,
        b: sb,
        kept_only_a: refs(&kept_a, &kb, units),
        kept_only_b: refs(&kept_b, &ka, units),
        retrieved_only_a: refs(&found_a, &rb, units),
        retrieved_only_b: refs(&found_b, &ra, units),
    }
}

fn summary(config: &CompareConfig, sides: &[&CompareSide]) -> CompareSummary {
    let mean = |v: Vec<f64>| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    CompareSummary {
        config: config.clone(),
        evidence_recall: mean(sides.iter().filter_map(|s| s.evidence_recall).collect()),
        precision: mean(sides.iter().map(|s| s.precision).collect()),
        context_tokens: mean(sides.iter().map(|s| s.context_tokens as f64).collect()).unwrap_or(0.0),
        documents: mean(sides.iter().map(|s| s.documents as f64).collect()).unwrap_or(0.0),
        fresh_judgments: sides.iter().map(|s| s.fresh_judgments).sum(),
        cached_judgments: sides.iter().map(|s| s.cached_judgments).sum(),
        judge_input_tokens: sides.iter().map(|s| s.judge_input_tokens).sum(),
        judge_output_tokens: sides.iter().map(|s| s.judge_output_tokens).sum(),
    }
}

/// Operating curves over rag-jev cases and their saved traces, from the cached judgments only; the filter modes'
/// fixed `min_relevance` and the passage cap default to the evaluation's ([`crate::EvalRequest::default`]).
pub fn curves_over_cases(
    cases: &Path,
    traces: &Path,
    min_relevance: Option<f64>,
    top_n: Option<usize>,
) -> Result<Vec<Curve>> {
    let (cases, traces) = (ragsift_eval::load_cases(cases)?, ragsift_eval::load_traces(traces)?);
    let options = ragsift_eval::EvalOptions {
        min_relevance: min_relevance.unwrap_or(crate::EvalRequest::default().min_relevance),
        top_n,
    };
    Ok(ragsift_eval::curves::curves(&cases, &traces, &options)?)
}

impl Workbench {
    /// Operating curves over stored runs with relevance labels ([`curves_over_runs`]); no judge call. A run
    /// without explicit relevant ids is labelled by its question's spans.
    pub fn run_curves(&self, run_ids: &[String]) -> Result<Vec<Curve>> {
        let lib = self.library();
        let traces = (run_ids.iter())
            .map(|id| self.with_span_labels(Trace::load(lib.store(), id)?))
            .collect::<Result<Vec<_>>>()?;
        curves_over_runs(&traces)
    }

    /// `trace` with its question's span labels as its relevant ids, when it has none of its own.
    fn with_span_labels(&self, mut trace: Trace) -> Result<Trace> {
        if let Some(labels) = self.run_span_labels(&trace)?.run_labels(&trace.labels) {
            trace.labels = labels;
        }
        Ok(trace)
    }

    /// [`Workbench::compare`] from the two configurations' JSON (what the app's form sends); `{}` is the saved
    /// defaults.
    pub fn compare_json(&self, cases: &CaseSource, a: &str, b: &str, job: &str) -> Result<CompareReport> {
        let parse = |name: &str, text: &str| -> Result<CompareConfig> {
            let text = if text.trim().is_empty() { "{}" } else { text };
            let value: Value = serde_json::from_str(text)
                .map_err(|e| Error::Invalid(format!("configuration {name} is not JSON: {e}")))?;
            self.compare_config(name, &value)
        };
        let request = CompareRequest {
            cases: cases.clone(),
            a: parse("A", a)?,
            b: parse("B", b)?,
        };
        self.compare(&request, job)
    }

    /// The cases of `source`: a file's, or the library's span labels as [`Workbench::export_labels_as_cases`]
    /// makes them, read exactly as that export's file would be; refused when no question is labelled.
    fn compare_cases_of(&self, source: &CaseSource) -> Result<Vec<CompareCase>> {
        match source {
            CaseSource::File { path } => read_cases(path.trim()),
            CaseSource::Labels => {
                let exported = self.export_labels_as_cases(None)?;
                if exported.is_empty() {
                    return Err(Error::Invalid(NO_LABELS.into()));
                }
                let list = serde_json::to_value(&exported).map_err(|e| Error::Invalid(format!("your labels: {e}")))?;
                compare_cases(list).map_err(|m| Error::Invalid(format!("your labels: {m}")))
            }
        }
    }

    /// Per query variant of a stored run: the candidates and labelled evidence it alone found, and their tokens.
    pub fn ablate(&self, run_id: &str) -> Result<RunAblation> {
        let trace = self.with_span_labels((*self.run(run_id)?).clone())?;
        Ok(RunAblation {
            run_id: trace.run_id.clone(),
            query: trace.query.clone(),
            candidates: trace.candidates.len(),
            labelled: trace.labels.relevant_ids.is_some(),
            variants: ablation::ablate(&trace),
        })
    }

    /// A comparison side from a config file's JSON: any [`AskOptions`] field (the saved defaults fill the rest;
    /// `policy` is taken whole, its own missing fields at their defaults), plus `name` and `chunk_tokens` (`mode` is read as `search_mode`).
    /// Unknown keys are refused.
    pub fn compare_config(&self, default_name: &str, json: &Value) -> Result<CompareConfig> {
        let bad = |m: String| Error::Invalid(format!("config {default_name}: {m}"));
        let given = json.as_object().ok_or_else(|| bad("expected a JSON object".into()))?;
        let mut merged = match serde_json::to_value(self.ask_defaults()) {
            Ok(Value::Object(o)) => o,
            _ => return Err(bad("cannot read the saved defaults".into())),
        };
        let (mut name, mut chunk_tokens) = (default_name.to_string(), None);
        for (key, value) in given {
            match key.as_str() {
                "name" => {
                    name = value
                        .as_str()
                        .ok_or_else(|| bad("`name` must be a string".into()))?
                        .into();
                }
                "chunk_tokens" => {
                    chunk_tokens = Some(
                        (value.as_u64().and_then(|n| u32::try_from(n).ok()))
                            .ok_or_else(|| bad("`chunk_tokens` must be a positive integer".into()))?,
                    );
                }
                // The search's mode, by its name before the rename.
                "mode" => {
                    merged.insert("search_mode".into(), value.clone());
                }
                k if merged.contains_key(k) => {
                    merged.insert(k.to_string(), value.clone());
                }
                k => {
                    let mut known: Vec<&str> = merged.keys().map(String::as_str).collect();
                    known.extend(["name", "chunk_tokens"]);
                    return Err(bad(format!("unknown key `{k}`; expected one of {}", known.join(", "))));
                }
            }
        }
        let options: AskOptions = serde_json::from_value(Value::Object(merged)).map_err(|e| bad(e.to_string()))?;
        Ok(CompareConfig {
            name,
            chunk_tokens,
            options,
        })
    }

    /// Runs A, then B, over every question through `ask` (extractive answers, so no answer is generated);
    /// judgments are shared through the cache. A side whose `chunk_tokens` differs from the library's runs against
    /// a derived library ([`Workbench::compare_with_progress`], progress dropped).
    pub fn compare(&self, request: &CompareRequest, job: &str) -> Result<CompareReport> {
        self.compare_with_progress(request, job, &|_| {})
    }

    /// [`Workbench::compare`], with a line in `note` for each step of bringing a derived library up to date.
    /// Cases naming evidence by chunk id are refused for a side on a derived library (its chunk ids differ).
    pub fn compare_with_progress(&self, request: &CompareRequest, job: &str, note: Note) -> Result<CompareReport> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let library_chunks = self.settings().library.chunk_tokens;
        for c in [&request.a, &request.b] {
            c.options
                .policy
                .validate()
                .map_err(|e| Error::Invalid(format!("config {}: {e}", c.name)))?;
        }
        let cases = self.compare_cases_of(&request.cases)?;
        let chunks = |c: &CompareConfig| c.chunk_tokens.map_or(library_chunks, |n| n as usize);
        let (chunks_a, chunks_b) = (chunks(&request.a), chunks(&request.b));
        if chunks_a != library_chunks || chunks_b != library_chunks {
            let size = if chunks_a != library_chunks { chunks_a } else { chunks_b };
            self.evidence_by_document(&cases, size)?;
        }
        let mut derived: Vec<(usize, Workbench)> = Vec::new();
        for (n, c) in [&request.a, &request.b].into_iter().enumerate() {
            let size = [chunks_a, chunks_b][n];
            if size != library_chunks && !derived.iter().any(|(s, _)| *s == size) {
                let wb = (self.derived_library(size, &cancel, note))
                    .map_err(|e| Error::Invalid(format!("config {}: {e}", c.name)))?;
                derived.push((size, wb));
            }
        }
        let mut runs: [Vec<(Trace, HashSet<String>)>; 2] = [Vec::new(), Vec::new()];
        for (n, config) in [&request.a, &request.b].into_iter().enumerate() {
            let size = [chunks_a, chunks_b][n];
            let wb = (derived.iter().find(|(s, _)| *s == size)).map_or(self, |(_, wb)| wb);
            let mut options = config.options.clone();
            options.answer_mode = AnswerMode::Extractive;
            for (i, case) in cases.iter().enumerate() {
                if cancel.is_cancelled() {
                    return Err(Error::Cancelled);
                }
                let ask = AskRequest {
                    question: case.query.clone(),
                    history: Vec::new(),
                    options: Some(options.clone()),
                };
                let trace = wb.ask(&ask, &format!("{job}/{n}/{i}"), Arc::new(|_| {}))?;
                let evidence = case.evidence(wb, &trace)?;
                runs[n].push((trace, evidence));
            }
        }
        let (units, recall_scope): (Units, &str) = if chunks_a == chunks_b {
            (
                chunk_units,
                "labelled evidence retrieved by either configuration for the question",
            )
        } else {
            (
                page_units,
                "labelled evidence pages (document, page) retrieved by either configuration for the question: the \
                 sides are chunked differently, so their chunks are matched by the pages they cover",
            )
        };
        let questions: Vec<CompareQuestion> = (cases.iter().zip(runs[0].iter().zip(&runs[1])))
            .map(|(case, ((a, ev_a), (b, ev_b)))| question(case, (a, ev_a), (b, ev_b), units))
            .collect();
        let sides = |f: fn(&CompareQuestion) -> &CompareSide| questions.iter().map(f).collect::<Vec<_>>();
        Ok(CompareReport {
            cases: cases.len(),
            recall_scope: recall_scope.into(),
            a: summary(&request.a, &sides(|q| &q.a)),
            b: summary(&request.b, &sides(|q| &q.b)),
            questions,
        })
    }
}

#[cfg(test)]
mod tests;

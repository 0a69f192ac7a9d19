//! Tuning from what runs already hold, and two configurations side by side.
//!
//! - [`Workbench::run_curves`]: operating curves over stored runs with relevance labels, replayed from each run's
//!   cached judgments (no judge call): classify's four thresholds, `min_relevance`, top-N and the token budget,
//!   each point with the [`PolicyOptions`] that make it and the first run's own setting marked.
//! - [`Workbench::ablate`]: per query variant, what it alone found and what it cost ([`ablation::ablate`]).
//! - [`Workbench::compare`]: two [`CompareConfig`]s run over the same labelled questions through `ask`, so judgments
//!   go through the judgment cache (keyed by question, chunk text, judge and prompt version): a configuration that
//!   differs only in its policy makes no judge request. A different chunk size would need a second library, which
//!   is refused, not faked.

use super::Workbench;
use crate::answers::{AskOptions, AskRequest};
use crate::{Error, Result};
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
    let has = |key: &str| (traces.iter().flat_map(|t| &t.judge.judgments)).any(|j| j.answers.contains_key(key));
    let max_candidates = traces.iter().map(|t| t.candidates.len()).max().unwrap_or(0);
    let max_tokens = (traces.iter())
        .map(|t| t.candidates.iter().map(|c| u64::from(c.tokens)).sum::<u64>())
        .max()
        .unwrap_or(0);
    let point = |value: f64, options: PolicyOptions| -> Result<CurvePoint> {
        let mut observations = Vec::with_capacity(traces.len());
        for t in traces {
            let replay = t.replay(&options, expected_prompt_version(&t.judge.judge).as_deref())?;
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

/// One side of a comparison: a name, the answer options, and the chunk size it expects (`None`: the library's).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareConfig {
    pub name: String,
    pub chunk_tokens: Option<u32>,
    pub options: AskOptions,
}

/// Two configurations over the labelled questions in `cases_path` (the library case format `eval
/// --from-library` reads: `id`, `query`, `relevant_ids` naming chunk ids or document file names or paths).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareRequest {
    pub cases_path: String,
    pub a: CompareConfig,
    pub b: CompareConfig,
}

/// A labelled passage, named for people.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EvidenceRef {
    pub chunk_id: String,
    pub document: String,
    pub page_start: u32,
}

/// One configuration on one question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareSide {
    pub run_id: String,
    /// Labelled evidence in the context / the question's evidence (pooled over both sides); `None` when the
    /// question has none (unanswerable).
    pub evidence_recall: Option<f64>,
    /// Labelled evidence in the context / passages in the context; 0 for an empty context.
    pub precision: f64,
    /// Tokens of the context handed to the answer.
    pub context_tokens: u64,
    pub documents: usize,
    pub candidates: usize,
    /// Passages sent to the judge (not found in the cache).
    pub fresh_judgments: usize,
    pub cached_judgments: usize,
    pub judge_input_tokens: u64,
    pub judge_output_tokens: u64,
}

/// B − A on one question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareDelta {
    pub evidence_recall: Option<f64>,
    pub precision: f64,
    pub context_tokens: i64,
}

/// One question under both configurations, and the labelled evidence one found and the other lost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareQuestion {
    pub id: String,
    pub query: String,
    /// Labelled evidence chunks retrieved by A or B.
    pub evidence: usize,
    pub a: CompareSide,
    pub b: CompareSide,
    pub delta: CompareDelta,
    /// Evidence in A's context and not in B's.
    pub kept_only_a: Vec<EvidenceRef>,
    pub kept_only_b: Vec<EvidenceRef>,
    /// Evidence A retrieved and B did not.
    pub retrieved_only_a: Vec<EvidenceRef>,
    pub retrieved_only_b: Vec<EvidenceRef>,
}

/// One configuration over all questions: query-level means and judge totals.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareSummary {
    pub config: CompareConfig,
    pub evidence_recall: Option<f64>,
    pub precision: Option<f64>,
    pub context_tokens: f64,
    pub documents: f64,
    pub fresh_judgments: usize,
    pub cached_judgments: usize,
    pub judge_input_tokens: u64,
    pub judge_output_tokens: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CompareReport {
    pub cases: usize,
    /// What recall is measured against.
    pub recall_scope: String,
    pub a: CompareSummary,
    pub b: CompareSummary,
    pub questions: Vec<CompareQuestion>,
}

/// A labelled question of the library case format (other fields are ignored).
#[derive(Deserialize)]
struct CompareCase {
    id: String,
    query: String,
    #[serde(default)]
    relevant_ids: Vec<String>,
    #[serde(default)]
    documents: Option<Vec<Value>>,
}

fn read_cases(path: &str) -> Result<Vec<CompareCase>> {
    let p = Path::new(path);
    let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
    let bad = |m: String| Error::Invalid(format!("{path}: {m}"));
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let list = match value {
        Value::Object(mut o) => o.remove("cases").unwrap_or(Value::Null),
        v => v,
    };
    let cases: Vec<CompareCase> =
        serde_json::from_value(list).map_err(|e| bad(format!("expected a list of cases: {e}")))?;
    if cases.is_empty() {
        return Err(bad("no cases".into()));
    }
    let mut ids = HashSet::new();
    for c in &cases {
        if !ids.insert(c.id.as_str()) {
            return Err(bad(format!("case id `{}` appears twice", c.id)));
        }
        if c.query.trim().is_empty() {
            return Err(bad(format!("case `{}` has no query", c.id)));
        }
        if c.documents.as_ref().is_some_and(|d| !d.is_empty()) {
            return Err(bad(format!(
                "case `{}` carries its own documents: compare retrieves from the library, so use cases without \
                 documents (as `eval --from-library` reads them)",
                c.id
            )));
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

fn refs(trace: &Trace, ids: &BTreeSet<&str>, not_in: &BTreeSet<&str>) -> Vec<EvidenceRef> {
    (trace.candidates.iter())
        .filter(|c| ids.contains(c.chunk_id.as_str()) && !not_in.contains(c.chunk_id.as_str()))
        .map(|c| EvidenceRef {
            chunk_id: c.chunk_id.clone(),
            document: c.document.clone(),
            page_start: c.page_start,
        })
        .collect()
}

/// The context actually handed on (the selection, or the original context when bypassed or shadowed).
fn context(trace: &Trace) -> BTreeSet<&str> {
    trace.selection.returned_ids.iter().map(String::as_str).collect()
}

fn side(trace: &Trace, evidence: &BTreeSet<&str>, answerable: bool) -> CompareSide {
    let kept = context(trace);
    let hits = kept.intersection(evidence).count();
    CompareSide {
        run_id: trace.run_id.clone(),
        evidence_recall: if evidence.is_empty() {
            answerable.then_some(0.0)
        } else {
            Some(hits as f64 / evidence.len() as f64)
        },
        precision: if kept.is_empty() {
            0.0
        } else {
            hits as f64 / kept.len() as f64
        },
        context_tokens: (trace.candidates.iter())
            .filter(|c| kept.contains(c.chunk_id.as_str()))
            .map(|c| u64::from(c.tokens))
            .sum(),
        documents: kept.len(),
        candidates: trace.candidates.len(),
        fresh_judgments: trace.judge.fresh_passages,
        cached_judgments: trace.judge.cached_passages,
        judge_input_tokens: u64::from(trace.judge.input_tokens),
        judge_output_tokens: u64::from(trace.judge.output_tokens),
    }
}

/// One question's comparison from A's and B's runs.
fn question(case: &CompareCase, a: &Trace, b: &Trace) -> CompareQuestion {
    let found = |t: &Trace| -> BTreeSet<String> {
        (t.candidates.iter())
            .filter(|c| is_evidence(c, &case.relevant_ids))
            .map(|c| c.chunk_id.clone())
            .collect()
    };
    let (found_a, found_b) = (found(a), found(b));
    let pooled: BTreeSet<&str> = found_a.union(&found_b).map(String::as_str).collect();
    let answerable = !case.relevant_ids.is_empty();
    let (sa, sb) = (side(a, &pooled, answerable), side(b, &pooled, answerable));
    let kept = |t: &Trace| -> BTreeSet<&str> {
        let ctx = context(t);
        pooled.iter().filter(|id| ctx.contains(*id)).copied().collect()
    };
    let (kept_a, kept_b) = (kept(a), kept(b));
    let (ra, rb): (BTreeSet<&str>, BTreeSet<&str>) = (
        found_a.iter().map(String::as_str).collect(),
        found_b.iter().map(String::as_str).collect(),
    );
    CompareQuestion {
        id: case.id.clone(),
        query: case.query.clone(),
        evidence: pooled.len(),
        delta: CompareDelta {
            evidence_recall: sa.evidence_recall.zip(sb.evidence_recall).map(|(x, y)| y - x),
            precision: sb.precision - sa.precision,
            context_tokens: sb.context_tokens as i64 - sa.context_tokens as i64,
        },
        a: sa,
        b: sb,
        kept_only_a: refs(a, &kept_a, &kept_b),
        kept_only_b: refs(b, &kept_b, &kept_a),
        retrieved_only_a: refs(a, &ra, &rb),
        retrieved_only_b: refs(b, &rb, &ra),
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
    pub fn compare_json(&self, cases_path: &str, a: &str, b: &str, job: &str) -> Result<CompareReport> {
        let parse = |name: &str, text: &str| -> Result<CompareConfig> {
            let text = if text.trim().is_empty() { "{}" } else { text };
            let value: Value = serde_json::from_str(text)
                .map_err(|e| Error::Invalid(format!("configuration {name} is not JSON: {e}")))?;
            self.compare_config(name, &value)
        };
        let request = CompareRequest {
            cases_path: cases_path.trim().to_string(),
            a: parse("A", a)?,
            b: parse("B", b)?,
        };
        self.compare(&request, job)
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
    /// `policy` is taken whole, its own missing fields at their defaults), plus `name` and `chunk_tokens`.
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
    /// judgments are shared through the cache. Refuses a chunk size other than the library's.
    pub fn compare(&self, request: &CompareRequest, job: &str) -> Result<CompareReport> {
        let cancel = self.jobs.start(job);
        let _done = self.jobs.finish_on_drop(job);
        let library_chunks = self.settings().library.chunk_tokens;
        for c in [&request.a, &request.b] {
            if let Some(n) = c.chunk_tokens.filter(|&n| n as usize != library_chunks) {
                return Err(Error::Invalid(format!(
                    "config {}: chunk_tokens {n} differs from this library's {library_chunks}: comparing chunk sizes \
                     needs a second library chunked that way, which compare does not build; ingest the files into \
                     another --home with chunk_tokens {n} and compare configurations there",
                    c.name
                )));
            }
            c.options
                .policy
                .validate()
                .map_err(|e| Error::Invalid(format!("config {}: {e}", c.name)))?;
        }
        let cases = read_cases(&request.cases_path)?;
        let mut runs: [Vec<Trace>; 2] = [Vec::new(), Vec::new()];
        for (n, config) in [&request.a, &request.b].into_iter().enumerate() {
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
                let trace = self.ask(&ask, &format!("{job}/{n}/{i}"), Arc::new(|_| {}))?;
                runs[n].push(trace);
            }
        }
        let questions: Vec<CompareQuestion> = (cases.iter().zip(runs[0].iter().zip(&runs[1])))
            .map(|(case, (a, b))| question(case, a, b))
            .collect();
        let sides = |f: fn(&CompareQuestion) -> &CompareSide| questions.iter().map(f).collect::<Vec<_>>();
        Ok(CompareReport {
            cases: cases.len(),
            recall_scope: "labelled evidence retrieved by either configuration for the question".into(),
            a: summary(&request.a, &sides(|q| &q.a)),
            b: summary(&request.b, &sides(|q| &q.b)),
            questions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragsift_pipeline::join::Provenance;
    use ragsift_pipeline::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
    use ragsift_pipeline::labels::RunLabels;
    use ragsift_pipeline::trace::VariantHits;
    use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE};
    use std::collections::BTreeMap;

    /// A labelled run over candidates c0.. with these (relevance = evidence = usefulness) scores, 10·(i+1) tokens.
    fn run(scores: &[f64], relevant: &[&str], policy: &PolicyOptions) -> Trace {
        let candidates: Vec<Candidate> = (0..scores.len())
            .map(|i| Candidate {
                chunk_id: format!("c{i}"),
                document_id: "d".into(),
                document: "d.pdf".into(),
                title: "d".into(),
                page_start: 1,
                page_end: 1,
                char_start: 0,
                char_end: 1,
                tokens: 10 * (i as u32 + 1),
                text: format!("passage {i}"),
                score: 0.5,
                found_by: vec![Provenance {
                    variant: 0,
                    rank: i + 1,
                    score: 0.5,
                }],
                metadata: None,
                group_id: None,
                pinned: false,
            })
            .collect();
        let judgments = (candidates.iter().zip(scores))
            .map(|(c, &p)| CandidateJudgment {
                chunk_id: c.chunk_id.clone(),
                answers: BTreeMap::from([
                    (CONTAINS_PROMPT_INJECTION.to_string(), 0.01),
                    (CONTRADICTS_QUERY_PREMISE.to_string(), 0.01),
                    (IS_RELEVANT.to_string(), p),
                    (CONTAINS_ANSWER_EVIDENCE.to_string(), p),
                    (USEFUL.to_string(), p),
                ]),
                model: "m".into(),
                cached: false,
                input_tokens: 100,
                output_tokens: 1,
                latency_ms: 1.0,
            })
            .collect();
        let judge = JudgeOutcome {
            judge: "test".into(),
            model: "m".into(),
            prompt_version: "v".into(),
            calibrated: true,
            status: JudgeStatus::Judged,
            error_code: None,
            error: None,
            judgments,
            fresh_passages: scores.len(),
            cached_passages: 0,
            unscreened_passages: 0,
            input_tokens: 0,
            output_tokens: 0,
            latency_ms: 0.0,
            not_assessed: Vec::new(),
            defaults: Default::default(),
        };
        let variant = VariantHits {
            query: "q".into(),
            hits: Vec::new(),
        };
        let labels = RunLabels {
            relevant_ids: Some(relevant.iter().map(|s| s.to_string()).collect()),
            ..RunLabels::default()
        };
        Trace::imported("q", variant, candidates, judge, policy, labels).unwrap()
    }

    #[test]
    fn run_curves_are_replays_and_mark_the_runs_setting() {
        let policy = PolicyOptions {
            mode: Mode::Filter,
            min_relevance: Some(0.5),
            ..PolicyOptions::default()
        };
        let runs = [
            run(&[0.9, 0.6, 0.3, 0.1], &["c0", "c2"], &policy),
            run(&[0.8, 0.2], &["c1"], &policy),
        ];
        let curves = curves_over_runs(&runs).unwrap();
        let find = |mode: Mode, p: &str| curves.iter().find(|c| c.mode == mode && c.parameter == p).unwrap();
        // Every point is the mean of the runs' replays at its options.
        for c in &curves {
            for p in &c.points {
                let reports: Vec<_> = (runs.iter())
                    .map(|t| t.replay(&p.options, None).unwrap().labels.unwrap())
                    .collect();
                let tokens = reports.iter().map(|r| r.selected_tokens as f64).sum::<f64>() / 2.0;
                assert_eq!(p.context_tokens, tokens, "{:?} {} at {}", c.mode, c.parameter, p.value);
                let recall: Vec<f64> = reports.iter().filter_map(|r| r.evidence_recall).collect();
                assert_eq!(
                    p.evidence_recall,
                    Some(recall.iter().sum::<f64>() / recall.len() as f64)
                );
            }
        }
        // Filter at 0.5: run 1 keeps c0, c1 (recall 1/2, precision 1/2), run 2 keeps c0 (recall 0, precision 0).
        let filter = find(Mode::Filter, MIN_RELEVANCE);
        let marked = &filter.points[filter.current.unwrap()];
        assert_eq!(
            (marked.value, marked.evidence_recall, marked.precision),
            (0.5, Some(0.25), Some(0.25))
        );
        assert_eq!(marked.context_tokens, (30.0 + 10.0) / 2.0);
        // Classify sweeps its four thresholds; the run filtered, so no classify point is marked.
        let keys: Vec<&str> = (curves.iter().filter(|c| c.mode == Mode::Classify))
            .map(|c| c.parameter.as_str())
            .filter(|p| p.starts_with("con") || p.starts_with("is_"))
            .collect();
        assert_eq!(keys.len(), 4, "{keys:?}");
        assert!(curves
            .iter()
            .filter(|c| c.mode != Mode::Filter)
            .all(|c| c.current.is_none()));
        let budget = find(Mode::Rerank, MAX_CONTEXT_TOKENS);
        assert_eq!(
            budget.points.last().unwrap().value,
            100.0,
            "up to the largest run's candidates"
        );
        assert!(find(Mode::Fusion, TOP_N).points.len() == 4);

        let mut unlabelled = runs[1].clone();
        unlabelled.labels = RunLabels::default();
        let err = curves_over_runs(&[runs[0].clone(), unlabelled]).unwrap_err();
        assert!(err.to_string().contains("no relevance labels"), "{err}");
    }

    #[test]
    fn evidence_is_named_by_chunk_id_or_document() {
        let t = run(&[0.9], &[], &PolicyOptions::default());
        let c = &t.candidates[0];
        assert!(is_evidence(c, &["d.pdf".into()]) && is_evidence(c, &["c0".into()]));
        assert!(!is_evidence(c, &["other.pdf".into()]));
    }
}

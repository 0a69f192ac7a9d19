//! rag-jev's portable scored runs (`rag_jev/workbench.py`): a `ScoredRun` holds one request and the judgments it
//! got; `POST /v1/replay` re-applies another policy to them with no judge call, and `POST /v1/import` does the same
//! for a `ReplayBundle`, whose recorded comparison must match the replay. Checked as rag-jev's pydantic models
//! check them (unknown fields refused, its validators in its order and with its messages), and never echoing the
//! input in an error.

use super::datetime::normalized_datetime;
use super::issue::Issue;
use super::request::{RagJevMode, SelectRequest};
use super::result::{apply, SelectionResult};
use super::schema;
use crate::ragjev::{RagJevJudgment, ScoringStrategy, Usage, CONTEXTUAL_PROMPT_VERSION, PROMPT_VERSION};
use ragsift_judge::jev::ragjev::cl100k_tokens;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};

/// rag-jev's `RunView.token_estimator` text.
pub const RUN_VIEW_TOKEN_ESTIMATOR: &str = "cl100k_base estimate; actual prompt usage appears after generation";

/// rag-jev's `Policy`: the selection options a replay applies to a recorded run. The same fields open
/// [`SelectRequest`] (rag-jev's request extends its policy); they are declared twice because serde cannot refuse
/// unknown fields through `flatten`, and rag-jev refuses them. `policy_request` maps one onto the other.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(default)]
    pub mode: RagJevMode,
    #[serde(default)]
    pub min_relevance: Option<f64>,
    #[serde(default)]
    pub top_n: Option<u32>,
    #[serde(default)]
    pub max_context_tokens: Option<u32>,
    #[serde(default)]
    pub shadow: bool,
    #[serde(default)]
    pub relevance_guidance: Option<String>,
}

/// Where a scored run's judgments came from.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RunSource {
    Live,
    Fixture,
}

/// rag-jev's `ScoredRun` (a `StudyRequest` with its judgments): the request, optional labels and baseline, and
/// one judgment per document, fingerprinted by [`input_hash`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScoredRun {
    pub request: SelectRequest,
    #[serde(default)]
    pub relevant_ids: Option<Vec<String>>,
    #[serde(default)]
    pub baseline_ids: Option<Vec<String>>,
    #[serde(default = "schema_one")]
    pub schema_version: u8,
    /// An ISO 8601 date and time, written back as pydantic writes it ([`normalized_datetime`]).
    pub created_at: String,
    pub source: RunSource,
    #[serde(default = "independent_version")]
    pub prompt_version: String,
    pub input_hash: String,
    pub judgments: Vec<RagJevJudgment>,
    pub scoring_elapsed_ms: f64,
    #[serde(default)]
    pub scoring_usage: Option<Usage>,
}

fn schema_one() -> u8 {
    1
}

fn independent_version() -> String {
    PROMPT_VERSION.to_string()
}

/// rag-jev's `Answer`, as a recorded comparison carries it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub text: String,
    pub status: AnswerStatus,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub elapsed_ms: f64,
    #[serde(default)]
    pub input_tokens: Option<u64>,
    #[serde(default)]
    pub output_tokens: Option<u64>,
    #[serde(default)]
    pub cached_input_tokens: Option<u64>,
    #[serde(default)]
    pub citations: Vec<String>,
    #[serde(default)]
    pub unknown_citations: Vec<String>,
    #[serde(default)]
    pub source_map: Map<String, Value>,
    #[serde(default)]
    pub error_code: Option<String>,
    #[serde(default)]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub settings: Map<String, Value>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    Generated,
    NoContext,
    Error,
}

/// rag-jev's `Comparison`: the answers a baseline and the selection got, recorded with the run.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Comparison {
    pub input_hash: String,
    pub policy_version: String,
    pub baseline: Answer,
    pub selected: Answer,
    pub baseline_ids: Vec<String>,
    pub selected_ids: Vec<String>,
    pub selection_source: RunSource,
    pub baseline_stage_ms: f64,
    pub selected_stage_ms: f64,
    pub selection_original_ms: f64,
    pub baseline_cost_usd: Option<f64>,
    pub selected_cost_usd: Option<f64>,
    pub selection_cost_usd: Option<f64>,
    #[serde(default = "cost_basis")]
    pub cost_basis: String,
    #[serde(default = "timing_basis")]
    pub timing_basis: String,
    #[serde(default = "citation_check")]
    pub citation_check: String,
}

fn cost_basis() -> String {
    "Estimate from configured per-million rates; excludes retrieval and caching discounts".into()
}
fn timing_basis() -> String {
    "Generation measured now; selected stage adds original scoring time. Retrieval excluded.".into()
}
fn citation_check() -> String {
    "Citation IDs checked; factual support and answer correctness are not graded".into()
}

/// rag-jev's `ReplayBundle` (a `ReplayRequest` with an optional comparison); `/v1/replay` reads it without one.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReplayBundle {
    pub record: ScoredRun,
    pub policy: Policy,
    #[serde(default)]
    pub comparison: Option<Comparison>,
}

/// rag-jev's `RunView`: a recorded run under a policy, with its baseline and evidence recall.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct RunView {
    pub record: ScoredRun,
    pub policy: Policy,
    pub selection: SelectionResult,
    pub baseline_ids: Vec<String>,
    pub baseline_context_tokens: u64,
    pub selected_context_tokens: u64,
    pub token_estimator: String,
    pub evidence_recall: Option<f64>,
    pub relevant_dropped: Option<Vec<String>>,
    pub baseline_evidence_recall: Option<f64>,
}

/// rag-jev's `ImportedRun`: the replayed view and the comparison that came with it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ImportedRun {
    pub view: RunView,
    pub comparison: Option<Comparison>,
}

/// rag-jev's `input_hash`: sha256 of Python's `json.dumps(..., sort_keys=True)` over the query, retrieval query,
/// documents (every field, as pydantic dumps them) and relevance guidance, plus the scoring strategy when it is not
/// `independent`. Labels and policy options are not part of it.
pub fn input_hash(request: &SelectRequest) -> String {
    let documents = request.documents.iter().map(|d| {
        let mut m = Map::new();
        m.insert("id".into(), d.id.as_str().into());
        m.insert("text".into(), d.text.as_str().into());
        m.insert("metadata".into(), Value::Object(d.metadata.clone()));
        m.insert(
            "group_id".into(),
            d.group_id.as_deref().map_or(Value::Null, Value::from),
        );
        m.insert("pinned".into(), d.pinned.into());
        Value::Object(m)
    });
    let mut payload = Map::new();
    payload.insert("query".into(), request.query.as_str().into());
    let optional = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::from);
    payload.insert("retrieval_query".into(), optional(&request.retrieval_query));
    payload.insert("documents".into(), Value::Array(documents.collect()));
    payload.insert("relevance_guidance".into(), optional(&request.relevance_guidance));
    if request.scoring_strategy != ScoringStrategy::Independent {
        payload.insert("scoring_strategy".into(), "contextual".into());
    }
    let text = ragsift_policy::python_json_dumps(&Value::Object(payload));
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Reads a `ReplayRequest` (`comparison` refused) or a `ReplayBundle` from JSON and runs every check rag-jev's
/// models run; the issues are rag-jev's 422 list, with `loc` inside the body.
pub fn parse_bundle(value: Value, comparison_allowed: bool) -> Result<ReplayBundle, Vec<Issue>> {
    bundle_from(Some(&value), comparison_allowed)
}

/// [`parse_bundle`] of a request body (`None`: no body).
pub fn bundle_from(body: Option<&Value>, comparison_allowed: bool) -> Result<ReplayBundle, Vec<Issue>> {
    let model = if comparison_allowed {
        schema::REPLAY_BUNDLE
    } else {
        schema::REPLAY_REQUEST
    };
    let bundle: ReplayBundle = schema::typed(schema::check(body, model)?, &[])?;
    let record = &bundle.record;
    let at_record = |issues: Vec<Issue>| -> Vec<Issue> {
        (issues.into_iter())
            .map(|mut i| {
                i.loc.splice(0..0, ["record".into(), "request".into()]);
                i
            })
            .collect()
    };
    record.request.validate().map_err(at_record)?;
    check_record(record).map_err(|m| vec![Issue::value_error(&["record".into()], &m)])?;
    check_policy(&bundle.policy).map_err(|i| {
        (i.into_iter())
            .map(|mut i| {
                i.loc.insert(0, "policy".into());
                i
            })
            .collect::<Vec<_>>()
    })?;
    if bundle.policy.relevance_guidance != record.request.relevance_guidance {
        return Err(vec![Issue::value_error(
            &[],
            "changing relevance guidance requires new scoring",
        )]);
    }
    if let Some(c) = &bundle.comparison {
        let view = replay(&bundle)?;
        let matches = c.input_hash == record.input_hash
            && c.policy_version == view.selection.policy_version
            && c.baseline_ids == view.baseline_ids
            && Some(&c.selected_ids) == view.selection.selected_ids.as_ref()
            && c.selection_source == record.source;
        if !matches {
            return Err(vec![Issue::value_error(
                &[],
                "recorded answers do not match this run and policy",
            )]);
        }
    }
    Ok(bundle)
}

/// rag-jev's `ScoredRun` and `StudyRequest` validators, in its order.
fn check_record(run: &ScoredRun) -> Result<(), String> {
    let known: HashSet<&str> = run.request.documents.iter().map(|d| d.id.as_str()).collect();
    for ids in [&run.relevant_ids, &run.baseline_ids].into_iter().flatten() {
        let unique: HashSet<&str> = ids.iter().map(String::as_str).collect();
        if unique.len() != ids.len() || !unique.is_subset(&known) {
            return Err("labels and baseline IDs must be unique candidate IDs".into());
        }
    }
    if run.schema_version != 1 {
        return Err("schema_version must be 1".into());
    }
    normalized_datetime(&run.created_at).ok_or("created_at must be an ISO 8601 date and time")?;
    if run.judgments.len() > 256 {
        return Err("judgments: List should have at most 256 items".into());
    }
    if let Some(j) = run.judgments.iter().find(|j| !(0.0..=1.0).contains(&j.relevance)) {
        return Err(format!("judgment relevance {} is outside [0, 1]", j.relevance));
    }
    if run.judgments.iter().any(|j| j.model.is_empty()) {
        return Err("every judgment needs a model name".into());
    }
    if !(run.scoring_elapsed_ms >= 0.0 && run.scoring_elapsed_ms.is_finite()) {
        return Err("scoring_elapsed_ms must be a finite number of at least 0".into());
    }
    if run.input_hash != input_hash(&run.request) {
        return Err("run inputs changed; score the edited inputs again".into());
    }
    if run.judgments.len() != run.request.documents.len() {
        return Err("run must contain exactly one judgment per candidate".into());
    }
    let expected = match run.request.scoring_strategy {
        ScoringStrategy::Independent => PROMPT_VERSION,
        ScoringStrategy::Contextual => CONTEXTUAL_PROMPT_VERSION,
    };
    if run.prompt_version != expected {
        return Err("run prompt version is not supported; rescore inputs".into());
    }
    match (run.request.scoring_strategy, &run.scoring_usage) {
        (ScoringStrategy::Contextual, Some(u))
            if u.complete && u.completed_documents == run.request.documents.len() as u64 =>
        {
            Ok(())
        }
        (ScoringStrategy::Contextual, _) => Err("contextual run requires complete shared usage".into()),
        (ScoringStrategy::Independent, Some(_)) => Err("independent run uses per-document usage".into()),
        (ScoringStrategy::Independent, None) => Ok(()),
    }
}

/// rag-jev's `Policy` limits and rules, checked as the same fields of a request are.
fn check_policy(policy: &Policy) -> Result<(), Vec<Issue>> {
    let probe = SelectRequest {
        query: "policy".into(),
        documents: Vec::new(),
        retrieval_query: None,
        scoring_strategy: ScoringStrategy::Independent,
        ..policy_request(policy)
    };
    probe.validate()
}

fn policy_request(policy: &Policy) -> SelectRequest {
    SelectRequest {
        mode: policy.mode,
        min_relevance: policy.min_relevance,
        top_n: policy.top_n,
        max_context_tokens: policy.max_context_tokens,
        shadow: policy.shadow,
        relevance_guidance: policy.relevance_guidance.clone(),
        scoring_strategy: ScoringStrategy::Independent,
        query: String::new(),
        retrieval_query: None,
        documents: Vec::new(),
    }
}

/// rag-jev's `replay_run`: the record's request under `bundle.policy`, applied to the recorded judgments (no judge
/// is asked), with its baseline (the record's, or every candidate), their cl100k sizes and the evidence recall
/// against the record's labels.
pub fn replay(bundle: &ReplayBundle) -> Result<RunView, Vec<Issue>> {
    let record = &bundle.record;
    let request = SelectRequest {
        scoring_strategy: record.request.scoring_strategy,
        query: record.request.query.clone(),
        retrieval_query: record.request.retrieval_query.clone(),
        documents: record.request.documents.clone(),
        ..policy_request(&bundle.policy)
    };
    request.validate()?;
    let selection = apply(
        &request,
        &record.judgments,
        record.scoring_usage.clone(),
        &record.prompt_version,
        record.scoring_elapsed_ms,
    );
    let baseline =
        (record.baseline_ids.clone()).unwrap_or_else(|| request.documents.iter().map(|d| d.id.clone()).collect());
    let selected = selection.selected_ids.clone().unwrap_or_default();
    let texts: HashMap<&str, &str> = request
        .documents
        .iter()
        .map(|d| (d.id.as_str(), d.text.as_str()))
        .collect();
    let tokens = |ids: &[String]| -> u64 { ids.iter().map(|i| cl100k_tokens(texts[i.as_str()]) as u64).sum() };
    let gold = record.relevant_ids.as_ref();
    let recall = |ids: &[String]| {
        gold.filter(|g| !g.is_empty())
            .map(|g| g.iter().filter(|i| ids.contains(i)).count() as f64 / g.len() as f64)
    };
    let mut record = record.clone();
    record.created_at = normalized_datetime(&record.created_at).unwrap_or(record.created_at);
    Ok(RunView {
        policy: bundle.policy.clone(),
        baseline_context_tokens: tokens(&baseline),
        selected_context_tokens: tokens(&selected),
        token_estimator: RUN_VIEW_TOKEN_ESTIMATOR.into(),
        evidence_recall: recall(&selected),
        relevant_dropped: gold.map(|g| g.iter().filter(|i| !selected.contains(i)).cloned().collect()),
        baseline_evidence_recall: recall(&baseline),
        baseline_ids: baseline,
        selection,
        record,
    })
}

#[cfg(test)]
mod tests;

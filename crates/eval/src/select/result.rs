//! rag-jev's `SelectionResult`, field for field: what [`apply`] (its `apply_policy`) makes of one judgment per
//! document, and what [`bypassed`] returns when the judge failed and the context passes through.

use super::request::{chars, RagJevMode, SelectRequest};
use crate::ragjev::{Document, RagJevJudgment, Usage};
use ragsift_policy::{select as policy_select, Reason, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// rag-jev's `token_estimator` text.
pub const TOKEN_ESTIMATOR: &str = "cl100k_base passage-text estimate; excludes prompts, separators and output";

/// rag-jev's per-document `Decision`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct RagJevDecision {
    pub id: String,
    pub input_index: usize,
    pub relevance: Option<f64>,
    pub model: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub selected: Option<bool>,
    pub returned: bool,
    /// `fusion` mode only: rag-jev 0.2.0's models forbid the field, and its later code defaults it to `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_rank: Option<usize>,
    /// `fusion` mode only, as `original_rank`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jev_rank: Option<usize>,
    /// `fusion` mode only, as `original_rank`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fusion_score: Option<f64>,
    pub reason: Reason,
}

/// rag-jev's `SelectionResult`, in its field order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SelectionResult {
    pub documents: Vec<Document>,
    pub selected_ids: Option<Vec<String>>,
    pub decisions: Vec<RagJevDecision>,
    pub status: Status,
    pub error_code: Option<String>,
    pub models: Vec<String>,
    pub prompt_version: String,
    pub policy_version: String,
    pub usage: Usage,
    pub elapsed_ms: f64,
    pub input_characters: u64,
    pub selected_characters: Option<u64>,
    pub returned_characters: u64,
    pub outcome: String,
    pub top_n_exceeded: bool,
    pub selected_context_tokens: Option<u64>,
    pub context_token_budget_exceeded: Option<bool>,
    pub token_estimator: String,
}

fn round3(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// rag-jev's `apply_policy`: the selection `request` asks for over one judgment per document. `shared_usage` is a
/// contextual request's (then no decision carries its own tokens). Pure, so a saved result can be replayed.
pub fn apply(
    request: &SelectRequest,
    judgments: &[RagJevJudgment],
    shared_usage: Option<Usage>,
    prompt_version: &str,
    elapsed_ms: f64,
) -> SelectionResult {
    let input = request.policy_input(judgments);
    let options = request.policy();
    let selection = policy_select(&input, &options);
    let selected = selection.selected().to_vec();
    let by_id = |id: &String| request.documents.iter().find(|d| &d.id == id).cloned();
    let selected_docs: Vec<Document> = selected.iter().filter_map(by_id).collect();
    let returned = if request.shadow {
        request.documents.clone()
    } else {
        selected_docs.clone()
    };
    let shared = shared_usage.is_some();
    let fusion = request.mode == RagJevMode::Fusion;
    let decisions = (selection.decisions.iter().zip(&request.documents).zip(judgments))
        .map(|((d, doc), j)| RagJevDecision {
            id: doc.id.clone(),
            input_index: d.input_index,
            relevance: Some(j.relevance),
            model: Some(j.model.clone()),
            input_tokens: (!shared).then_some(j.input_tokens),
            output_tokens: (!shared).then_some(j.output_tokens),
            selected: Some(d.is_selected()),
            returned: request.shadow || d.is_selected(),
            original_rank: fusion.then_some(d.input_index + 1),
            jev_rank: d.jev_rank.filter(|_| fusion),
            fusion_score: d.fusion_score.filter(|_| fusion),
            reason: d.reason,
        })
        .collect();
    let usage = shared_usage.unwrap_or_else(|| Usage {
        input_tokens: judgments.iter().map(|j| j.input_tokens).sum(),
        output_tokens: judgments.iter().map(|j| j.output_tokens).sum(),
        completed_documents: judgments.len() as u64,
        complete: true,
    });
    let tokens: u64 = input
        .iter()
        .filter(|c| selected.contains(&c.chunk_id))
        .map(|c| u64::from(c.tokens))
        .sum();
    SelectionResult {
        status: if request.shadow {
            Status::Shadow
        } else {
            Status::Applied
        },
        error_code: None,
        models: judgments
            .iter()
            .map(|j| j.model.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        prompt_version: prompt_version.to_string(),
        policy_version: request.policy_version(),
        usage,
        elapsed_ms: round3(elapsed_ms),
        input_characters: request.documents.iter().map(|d| chars(&d.text)).sum(),
        selected_characters: Some(selected_docs.iter().map(|d| chars(&d.text)).sum()),
        returned_characters: returned.iter().map(|d| chars(&d.text)).sum(),
        outcome: if selected.is_empty() {
            "no_context_selected"
        } else {
            "context_selected"
        }
        .into(),
        top_n_exceeded: request.top_n.is_some_and(|n| selected.len() > n as usize),
        selected_context_tokens: Some(tokens),
        context_token_budget_exceeded: Some(request.max_context_tokens.is_some_and(|max| tokens > u64::from(max))),
        token_estimator: TOKEN_ESTIMATOR.into(),
        documents: returned,
        selected_ids: Some(selected),
        decisions,
    }
}

/// rag-jev's passthrough on a judge failure: the original context, nothing selected, the completed judgments.
pub fn bypassed(
    request: &SelectRequest,
    completed: &[Option<RagJevJudgment>],
    error_code: &str,
    prompt_version: &str,
    elapsed_ms: f64,
) -> SelectionResult {
    let done: Vec<&RagJevJudgment> = completed.iter().flatten().collect();
    let characters = request.documents.iter().map(|d| chars(&d.text)).sum();
    SelectionResult {
        documents: request.documents.clone(),
        selected_ids: None,
        decisions: (request.documents.iter().enumerate())
            .map(|(i, d)| {
                let j = completed.get(i).and_then(Option::as_ref);
                RagJevDecision {
                    id: d.id.clone(),
                    input_index: i,
                    relevance: j.map(|j| j.relevance),
                    model: j.map(|j| j.model.clone()),
                    input_tokens: j.map(|j| j.input_tokens),
                    output_tokens: j.map(|j| j.output_tokens),
                    selected: None,
                    returned: true,
                    original_rank: (request.mode == RagJevMode::Fusion).then_some(i + 1),
                    jev_rank: None,
                    fusion_score: None,
                    reason: Reason::Bypassed,
                }
            })
            .collect(),
        status: Status::Bypassed,
        error_code: Some(error_code.to_string()),
        models: done
            .iter()
            .map(|j| j.model.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        prompt_version: prompt_version.to_string(),
        policy_version: request.policy_version(),
        usage: Usage {
            input_tokens: done.iter().map(|j| j.input_tokens).sum(),
            output_tokens: done.iter().map(|j| j.output_tokens).sum(),
            completed_documents: done.len() as u64,
            complete: false,
        },
        elapsed_ms: round3(elapsed_ms),
        input_characters: characters,
        selected_characters: None,
        returned_characters: characters,
        outcome: "not_evaluated".into(),
        top_n_exceeded: false,
        selected_context_tokens: None,
        context_token_budget_exceeded: None,
        token_estimator: TOKEN_ESTIMATOR.into(),
    }
}

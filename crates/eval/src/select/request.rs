//! rag-jev's `SelectRequest`: parsed and checked as its pydantic models check it (unknown fields refused, the same
//! limits and messages), and turned into the pure policy's input.

use super::issue::Issue;
use crate::ragjev::{Document, RagJevJudgment, ScoringStrategy};
use ragsift_judge::jev::ragjev::cl100k_tokens;
use ragsift_policy::{ChunkJudgment, Mode, PolicyOptions, USEFUL};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// rag-jev's `SelectRequest`: the policy options, the query and the candidates.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct SelectRequest {
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
    /// Extra relevance criteria, appended to the judge's question as rag-jev appends them.
    #[serde(default)]
    pub relevance_guidance: Option<String>,
    #[serde(default)]
    pub scoring_strategy: ScoringStrategy,
    pub query: String,
    /// The query the candidates were retrieved for; the judge is asked about it instead of `query`.
    #[serde(default)]
    pub retrieval_query: Option<String>,
    pub documents: Vec<Document>,
}

/// rag-jev's modes (it has no `classify`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RagJevMode {
    #[default]
    Filter,
    Rerank,
    FilterAndRerank,
    Fusion,
}

impl From<RagJevMode> for Mode {
    fn from(m: RagJevMode) -> Mode {
        match m {
            RagJevMode::Filter => Mode::Filter,
            RagJevMode::Rerank => Mode::Rerank,
            RagJevMode::FilterAndRerank => Mode::FilterAndRerank,
            RagJevMode::Fusion => Mode::Fusion,
        }
    }
}

impl SelectRequest {
    /// The request with `policy`'s selection options in place of its own (`ragsift serve --policy saved`): mode,
    /// min relevance (filter modes only, as rag-jev requires), top-N, token budget and shadow. Refused when the
    /// policy is not one rag-jev's service can apply: Spring's `classify`, or a filter mode without a minimum.
    pub fn with_policy(&self, policy: &PolicyOptions) -> Result<SelectRequest, String> {
        let mode = match policy.mode {
            Mode::Filter => RagJevMode::Filter,
            Mode::Rerank => RagJevMode::Rerank,
            Mode::FilterAndRerank => RagJevMode::FilterAndRerank,
            Mode::Fusion => RagJevMode::Fusion,
            // Spring's post-processors, the community's and 2.1's: not a rag-jev selection.
            m @ (Mode::Classify
            | Mode::JevRerank
            | Mode::JevChain
            | Mode::DecisionFilter
            | Mode::DecisionRerank
            | Mode::DecisionChain) => {
                return Err(format!(
                    "the saved policy is Spring's {}; rag-jev's service applies filter, rerank, \
                     filter_and_rerank or fusion",
                    m.name()
                ))
            }
        };
        let filters = matches!(mode, RagJevMode::Filter | RagJevMode::FilterAndRerank);
        let min_relevance = match (filters, policy.min_relevance) {
            (true, None) => return Err("the saved filter policy has no min_relevance".into()),
            (true, m) => m,
            (false, _) => None,
        };
        let top_n = match policy.top_n {
            Some(n) if !(1..=256).contains(&n) => return Err(format!("the saved top_n {n} is outside 1..256")),
            n => n.map(|n| n as u32),
        };
        Ok(SelectRequest {
            mode,
            min_relevance,
            top_n,
            max_context_tokens: policy.max_context_tokens,
            shadow: policy.shadow,
            ..self.clone()
        })
    }
}

/// Parses and checks a request; the issues are what rag-jev's CLI prints as `{"error": "invalid_input", "issues"}`.
/// JSON that does not parse names its line and column, never its text.
pub fn parse_request(json: &str) -> Result<SelectRequest, Vec<Issue>> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        let at = format!("JSON decode error at line {} column {}", e.line(), e.column());
        vec![Issue::at(&[], "json_invalid", at)]
    })?;
    request_from(Some(&value))
}

/// A request body (`None`: no body) checked as rag-jev's service checks it: its model's fields, then its rules.
pub fn request_from(body: Option<&Value>) -> Result<SelectRequest, Vec<Issue>> {
    let value = super::schema::check(body, super::schema::SELECT_REQUEST)?;
    let request: SelectRequest = super::schema::typed(value, &[])?;
    request.validate()?;
    Ok(request)
}

fn length(loc: &[Value], s: &str, min: usize, max: usize, issues: &mut Vec<Issue>) {
    let n = s.chars().count();
    if n < min {
        let unit = if min == 1 { "character" } else { "characters" };
        let message = format!("String should have at least {min} {unit}");
        issues.push(Issue::at(loc, "string_too_short", message));
    } else if n > max {
        let message = format!("String should have at most {max} characters");
        issues.push(Issue::at(loc, "string_too_long", message));
    }
}

fn range<T: PartialOrd + std::fmt::Display>(loc: &[Value], v: T, min: T, max: T, issues: &mut Vec<Issue>) {
    if v < min {
        let message = format!("Input should be greater than or equal to {min}");
        issues.push(Issue::at(loc, "greater_than_equal", message));
    } else if v > max {
        let message = format!("Input should be less than or equal to {max}");
        issues.push(Issue::at(loc, "less_than_equal", message));
    }
}

impl SelectRequest {
    /// rag-jev's field limits, then (only when they pass, as pydantic's after-validators) its policy and request
    /// rules.
    pub fn validate(&self) -> Result<(), Vec<Issue>> {
        let mut issues = Vec::new();
        if let Some(p) = self.min_relevance {
            if p.is_finite() {
                range(&["min_relevance".into()], p, 0.0, 1.0, &mut issues);
            } else {
                let loc = ["min_relevance".into()];
                issues.push(Issue::at(&loc, "finite_number", "Input should be a finite number"));
            }
        }
        if let Some(n) = self.top_n {
            range(&["top_n".into()], n, 1, 256, &mut issues);
        }
        if let Some(n) = self.max_context_tokens {
            range(&["max_context_tokens".into()], n, 1, 1_000_000, &mut issues);
        }
        if let Some(g) = &self.relevance_guidance {
            length(&["relevance_guidance".into()], g, 1, 2000, &mut issues);
        }
        length(&["query".into()], &self.query, 1, 8000, &mut issues);
        if let Some(q) = &self.retrieval_query {
            length(&["retrieval_query".into()], q, 1, 8000, &mut issues);
        }
        if self.documents.len() > 256 {
            let message = format!(
                "List should have at most 256 items after validation, not {}",
                self.documents.len()
            );
            issues.push(Issue::at(&["documents".into()], "too_long", message));
        }
        for (i, d) in self.documents.iter().enumerate() {
            let at = |field: &str| -> Vec<Value> { vec!["documents".into(), i.into(), field.into()] };
            length(&at("id"), &d.id, 1, 256, &mut issues);
            length(&at("text"), &d.text, 1, 60_000, &mut issues);
            if let Some(g) = &d.group_id {
                length(&at("group_id"), g, 1, 256, &mut issues);
            }
        }
        if issues.is_empty() {
            if let Err(message) = self.check_rules() {
                issues.push(Issue::value_error(&[], message));
            }
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    fn check_rules(&self) -> Result<(), &'static str> {
        match (self.mode, self.min_relevance) {
            (RagJevMode::Filter | RagJevMode::FilterAndRerank, None) => {
                return Err("min_relevance is required for filtering; calibrate on your data")
            }
            (RagJevMode::Rerank, Some(_)) => {
                return Err("use filter_and_rerank when combining a threshold with reranking")
            }
            (RagJevMode::Fusion, Some(_)) => return Err("fusion combines ranks without a relevance threshold"),
            _ => {}
        }
        if self.query.trim().is_empty() {
            return Err("query must contain non-whitespace text");
        }
        if self.retrieval_query.as_ref().is_some_and(|q| q.trim().is_empty()) {
            return Err("retrieval_query must contain non-whitespace text");
        }
        if self.documents.iter().map(|d| &d.id).collect::<HashSet<_>>().len() != self.documents.len() {
            return Err("document IDs must be unique within a request");
        }
        if self
            .documents
            .iter()
            .any(|d| d.text.trim().is_empty() || d.id.trim().is_empty())
        {
            return Err("document IDs and text must contain non-whitespace characters");
        }
        if self.documents.iter().map(|d| d.text.chars().count()).sum::<usize>() > 1_000_000 {
            return Err("total document text exceeds 1,000,000 characters");
        }
        Ok(())
    }

    /// The query the judge is asked about: `retrieval_query or query`.
    pub fn judged_query(&self) -> &str {
        self.retrieval_query.as_deref().unwrap_or(&self.query)
    }

    /// The policy these options make (rag-jev keeps groups together and reads pins from the documents).
    pub fn policy(&self) -> PolicyOptions {
        PolicyOptions {
            mode: self.mode.into(),
            min_relevance: self.min_relevance,
            top_n: self.top_n.map(|n| n as usize),
            max_context_tokens: self.max_context_tokens,
            shadow: self.shadow,
            keep_groups_together: true,
            ..PolicyOptions::default()
        }
    }

    /// rag-jev's `Policy.version` (guidance included, shadow not).
    pub fn policy_version(&self) -> String {
        self.policy()
            .policy_version_with_guidance(self.relevance_guidance.as_deref())
    }

    /// The policy's input: the documents with their pins, groups and cl100k token counts, scored by `judgments`.
    pub fn policy_input(&self, judgments: &[RagJevJudgment]) -> Vec<ChunkJudgment> {
        self.documents
            .iter()
            .zip(judgments)
            .enumerate()
            .map(|(i, (d, j))| ChunkJudgment {
                chunk_id: d.id.clone(),
                input_index: i,
                tokens: u32::try_from(cl100k_tokens(&d.text)).unwrap_or(u32::MAX),
                characters: chars(&d.text) as u32,
                pinned: d.pinned,
                group: d.group_id.clone(),
                scores: BTreeMap::from([(USEFUL.to_string(), j.relevance)]),
                not_assessed: Vec::new(),
            })
            .collect()
    }
}

pub(super) fn chars(s: &str) -> u64 {
    s.chars().count() as u64
}

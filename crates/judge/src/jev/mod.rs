//! Blocking client for TypeSafe's Jev ("System One" API) that judges retrieved passages: one POST per (query, passage)
//! pair asking Noul (true/false) questions, with retries, one total deadline per batch, and bounded concurrency.
//!
//! Only the query and the passage text leave the process (`state: {query, passage}`); document metadata is never
//! sent. The API key is never logged, and `Debug` redacts it. The wire format is TypeSafe's: POST
//! `{base}/v1/systemone` with `Authorization: Bearer <key>` and
//! `{"state": {...}, "model": m, "questions": {key: {"type": "noul", "instructions": .., "criteria": {..}}}}`,
//! answered by `{"model", "answers": {key: {"type": "noul", "noul": p}}, "usage": {"input_tokens", "output_tokens"}}`.
//!
//! Self-contained on purpose: it depends only on std, reqwest (blocking), serde, serde_json and thiserror. Do not call
//! it from inside an async runtime (reqwest's blocking client panics there).
//!
//! Layout: `questions` holds the question wording, `error` the results and errors, `client` the HTTP client
//! (retries, deadline, concurrency) and `wire` the request and response wire format.

mod backend;
#[cfg(feature = "http")]
mod client;
mod error;
#[cfg_attr(not(feature = "http"), allow(dead_code))]
mod openai;
mod questions;
pub mod ragjev;
mod slots;
// Without `http` only `wire_form` (the proxy's comparison) uses it.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
mod wire;

#[cfg(all(test, feature = "http"))]
mod tests;

pub use backend::{Backend, Wire, OLLAMA_MAX_BODY, OLLAMA_MAX_QUESTIONS};
#[cfg(feature = "http")]
pub use client::JevClient;
pub use error::{JevError, PassageJudgment, ValidationIssue};
pub use questions::{default_questions, filter_questions, useful_question, JudgeQuestion};
pub use slots::{Slot, Slots};

use std::fmt;
use std::time::Duration;

/// Version of the question wording in [`default_questions`]. Change it whenever any key, instruction or criterion
/// changes, so recorded judgments are never replayed against different questions.
pub const PROMPT_VERSION: &str = "jev-filter-v1+useful-evidence-v1";

/// `questions` as this client puts them on the wire, by key (instructions as JSON where they are JSON): what a
/// recording proxy compares an application's questions with before it keeps their answers in the cache.
pub fn wire_form(questions: &[JudgeQuestion]) -> std::collections::BTreeMap<String, serde_json::Value> {
    (wire::wire_questions(questions).unwrap_or_default().into_iter())
        .filter_map(|(k, q)| Some((k, serde_json::to_value(q).ok()?)))
        .collect()
}

/// rag-jev's version label for the wording of the [`USEFUL`] question, which is copied from it verbatim.
pub const USEFUL_PROMPT_VERSION: &str = "useful-evidence-v1";

/// Used when `TYPESAFE_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.typesafe.ai";
/// Used when `TYPESAFE_DEFAULT_MODEL` is not set.
pub const DEFAULT_MODEL: &str = "jev-latest";

/// How long answers of a model alias (`jev-latest`, `jev-preview`) stay in the judgment cache; a pinned model's
/// (`jev-1.13.0`) stay until the cache is cleared.
pub const ALIAS_CACHE_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// Whether `model` names a moving alias rather than a pinned version: pinned names carry a version number.
pub fn is_model_alias(model: &str) -> bool {
    !model.chars().any(|c| c.is_ascii_digit())
}

/// Spring's JevDocumentFilter: does the passage try to instruct the answering system? (excluded above 0.70)
pub const CONTAINS_PROMPT_INJECTION: &str = "contains_prompt_injection";
/// Spring's JevDocumentFilter: does it conflict with what the query assumes? (kept, tagged conflicting, above 0.70)
pub const CONTRADICTS_QUERY_PREMISE: &str = "contradicts_query_premise";
/// Spring's JevDocumentFilter: does it address the subject at all? (excluded below 0.45)
pub const IS_RELEVANT: &str = "is_relevant";
/// Spring's JevDocumentFilter: does it state something usable as an answer? (included above 0.55)
pub const CONTAINS_ANSWER_EVIDENCE: &str = "contains_answer_evidence";
/// rag-jev's usefulness question, the probability used for ranking.
pub const USEFUL: &str = "useful";

// ---------------------------------------------------------------------------------------------------------------
// Configuration

/// Which decision-model server, where, which key and model to use, and how patiently to wait for it.
#[derive(Clone, PartialEq, Eq)]
pub struct JevConfig {
    /// The server and its wire (TypeSafe's Jev by default).
    pub backend: Backend,
    /// e.g. `https://api.typesafe.ai`; the backend's path (`/v1/systemone`, `/v1/decisions`) is appended unless the
    /// URL already ends with it.
    pub base_url: String,
    /// Sent as a bearer token, and only over HTTPS or to loopback. May be empty for a loopback server (Ollama,
    /// laya-serve), which then gets no `Authorization` header. Never logged, redacted from `Debug`.
    pub api_key: String,
    /// `jev-latest`, `jev-preview`, or a pinned `jev-1.13.0`.
    pub model: String,
    /// At most this many requests in flight per [`JevClient::judge_batch`] (default 4, as Spring's filter).
    pub concurrency: usize,
    /// Per HTTP attempt, from connecting until the response body is read (default 10 s).
    pub attempt_timeout: Duration,
    /// Total budget for one `judge` call or one whole `judge_batch`, including queueing, retries and backoff
    /// (default 30 s).
    pub deadline: Duration,
    /// Retries after the first attempt on 408, 429, 5xx, 529, attempt timeouts and dropped connections (default 2).
    pub max_retries: u32,
    /// First backoff (default 500 ms); doubled per retry up to `backoff_max` (default 5 s), minus up to 25 % jitter.
    /// A `retry-after-ms` / `retry-after` header from the server takes precedence.
    pub backoff_min: Duration,
    pub backoff_max: Duration,
    /// A bound on the calls in flight shared with other clients (a service's `RAG_JEV_MAX_CONCURRENCY`): each
    /// passage's call, retries included, holds one slot, waited for within the deadline. `None`: only
    /// `concurrency` bounds a batch.
    pub slots: Option<Slots>,
}

impl JevConfig {
    /// The defaults (TypeSafe SDK's: 2 retries, 500 ms..5 s backoff, 10 s per attempt, 30 s total; Spring's
    /// concurrency of 4) against the public endpoint.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self::for_backend(Backend::Jev, api_key)
    }

    /// The same defaults against `backend`'s default base URL and model.
    pub fn for_backend(backend: Backend, api_key: impl Into<String>) -> Self {
        JevConfig {
            backend,
            base_url: backend.default_base_url().to_string(),
            api_key: api_key.into(),
            model: backend.default_model().to_string(),
            concurrency: 4,
            attempt_timeout: Duration::from_secs(10),
            deadline: Duration::from_secs(30),
            max_retries: 2,
            backoff_min: Duration::from_millis(500),
            backoff_max: Duration::from_secs(5),
            slots: None,
        }
    }

    /// `TYPESAFE_API_KEY` (required: `None` when unset or blank), `TYPESAFE_BASE_URL` (default
    /// `https://api.typesafe.ai`), `TYPESAFE_DEFAULT_MODEL` (default `jev-latest`).
    pub fn from_env() -> Option<JevConfig> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`JevConfig::from_env`] over any variable source (for tests, or settings layered over the environment).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Option<JevConfig> {
        let non_blank = |name: &str| get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let mut config = JevConfig::new(non_blank("TYPESAFE_API_KEY")?);
        if let Some(base) = non_blank("TYPESAFE_BASE_URL") {
            config.base_url = base;
        }
        if let Some(model) = non_blank("TYPESAFE_DEFAULT_MODEL") {
            config.model = model;
        }
        Some(config)
    }
}

impl fmt::Debug for JevConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JevConfig")
            .field("backend", &self.backend)
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("model", &self.model)
            .field("concurrency", &self.concurrency)
            .field("attempt_timeout", &self.attempt_timeout)
            .field("deadline", &self.deadline)
            .field("max_retries", &self.max_retries)
            .field("backoff_min", &self.backoff_min)
            .field("backoff_max", &self.backoff_max)
            .field("slots", &self.slots)
            .finish()
    }
}

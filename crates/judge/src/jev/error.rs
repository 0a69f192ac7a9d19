//! What a judgment yields: [`PassageJudgment`] on success, [`JevError`] (with [`ValidationIssue`]s for a 422) on
//! failure.

use ragsift_core::JudgeCode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// The judge's scores for one passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PassageJudgment {
    /// Question key → probability that the answer is yes, in [0, 1]. Exactly the requested keys. (Jev's wire
    /// and ragsift's stored runs call them `answers`; in code they are scores, so that "answer" is only ever the
    /// model's answer.)
    #[serde(rename = "answers")]
    pub scores: BTreeMap<String, f64>,
    /// The model that answered, as Jev reports it (e.g. `jev-1.13.0` for `jev-latest`).
    pub model: String,
    pub input_tokens: u32,
    pub output_tokens: u32,
    /// Wall-clock time from the first attempt to the parsed answer, retries and backoff included.
    pub latency_ms: f64,
    /// The `x-typesafe-request-id` response header, for support tickets.
    pub request_id: Option<String>,
}

impl PassageJudgment {
    /// The score for question `key`, if it was asked.
    pub fn score(&self, key: &str) -> Option<f64> {
        self.scores.get(key).copied()
    }
}

/// One entry of a 422 response's `detail` array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationIssue {
    /// `type`, e.g. `missing` or `string_type`.
    pub kind: String,
    /// `loc`, e.g. `["body", "questions", "x", "instructions"]`.
    pub loc: Vec<String>,
    pub msg: String,
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.loc.join("."), self.msg, self.kind)
    }
}

/// Why a judgment failed. Messages never contain the API key or the passage text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JevError {
    /// 401 (key rejected) or 403 (key missing or not allowed). Not retried.
    #[error("Jev refused the credentials (HTTP {status}): {message}")]
    Auth { status: u16, message: String },
    /// 400, typically an unknown model. Not retried.
    #[error("Jev rejected the request (HTTP 400), most likely the model name: {message}")]
    BadModel { message: String },
    /// 422 with the server's list of problems. Not retried.
    #[error("Jev found the request invalid (HTTP 422): {}", join_issues(.issues))]
    Validation { issues: Vec<ValidationIssue> },
    /// 429 on every attempt.
    #[error("Jev is rate limiting this key (HTTP 429 on all {attempts} attempts)")]
    RateLimited { attempts: u32 },
    /// 529 on every attempt.
    #[error("Jev is overloaded (HTTP 529 on all {attempts} attempts)")]
    Overloaded { attempts: u32 },
    /// Another 5xx on the last of `attempts` attempts.
    #[error("Jev failed (HTTP {status} after {attempts} attempts): {message}")]
    Server {
        status: u16,
        attempts: u32,
        message: String,
    },
    /// The server does not have the model (Ollama's 404 for an unpulled tag, OpenAI's `model_not_found`). Not
    /// retried.
    #[error("the server has no model {model}{}", pull_hint(.model, *.pull))]
    NoSuchModel { model: String, pull: bool },
    /// Any other non-success status (404, 413, ...). Not retried.
    #[error("Jev answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    /// Every attempt ran past `attempt_timeout` (or the server answered 408).
    #[error("Jev did not answer within the attempt timeout ({attempts} attempts)")]
    Timeout { attempts: u32 },
    /// The total deadline ran out: mid-attempt, before a retry whose wait would pass it, or while queued in a batch.
    #[error("the {}ms deadline for Jev ran out after {attempts} attempts{}", .deadline.as_millis(), last_suffix(.last))]
    DeadlineExceeded {
        deadline: Duration,
        attempts: u32,
        #[source]
        last: Option<Box<JevError>>,
    },
    /// Nothing accepted the connection (refused, DNS failure, TLS handshake failure). Not retried.
    #[error("Jev is unreachable: {message}")]
    Unreachable { message: String },
    /// The connection broke mid-exchange on the last of `attempts` attempts.
    #[error("the connection to Jev failed after {attempts} attempts: {message}")]
    Transport { attempts: u32, message: String },
    /// A 2xx response that is not the documented JSON, or a probability that is not a number in [0, 1].
    #[error("Jev sent an invalid response: {message}")]
    Malformed { message: String },
    /// A 2xx response without an answer for some requested keys.
    #[error("Jev's response lacks answers for {}", .keys.join(", "))]
    MissingAnswers { keys: Vec<String> },
    /// A contextual request's response without both token counts (rag-jev's `missing_provider_usage`).
    #[error("Jev's response to a contextual request lacks its token usage")]
    MissingUsage,
    /// More passages than one contextual request may judge (rag-jev's `contextual_candidate_limit`).
    #[error("contextual scoring judges at most {max} passages at once; this set has {count}")]
    TooManyPassages { count: usize, max: usize },
    /// A contextual request over rag-jev's token limits (`contextual_token_limit`): 24,000 state tokens, 48,000
    /// state and question tokens.
    #[error(
        "contextual scoring is limited to 24000 state tokens and 48000 in all; this set has {state} + {questions}"
    )]
    TooManyTokens { state: usize, questions: usize },
    /// The configuration cannot work (bad URL, key over plain HTTP, concurrency 0, ...).
    #[error("invalid Jev configuration: {message}")]
    Config { message: String },
    /// The questions cannot be sent (none, a blank key, or a duplicate key).
    #[error("invalid Jev request: {message}")]
    InvalidRequest { message: String },
}

impl JevError {
    /// A stable, sanitised code. `provider_auth`, `provider_rate_limit`, `provider_error`, `invalid_provider_response`
    /// and `deadline_exceeded` mean what they mean in rag-jev; the others refine what rag-jev calls `provider_error`.
    pub fn code(&self) -> JudgeCode {
        match self {
            JevError::Auth { .. } => JudgeCode::ProviderAuth,
            JevError::BadModel { .. } | JevError::NoSuchModel { .. } => JudgeCode::ProviderBadModel,
            JevError::Validation { .. } => JudgeCode::ProviderValidation,
            JevError::RateLimited { .. } => JudgeCode::ProviderRateLimit,
            JevError::Overloaded { .. } => JudgeCode::ProviderOverloaded,
            JevError::Server { .. } | JevError::Http { .. } | JevError::Transport { .. } => JudgeCode::ProviderError,
            JevError::Timeout { .. } => JudgeCode::ProviderTimeout,
            JevError::DeadlineExceeded { .. } => JudgeCode::DeadlineExceeded,
            JevError::Unreachable { .. } => JudgeCode::ProviderUnreachable,
            JevError::Malformed { .. } | JevError::MissingAnswers { .. } => JudgeCode::InvalidProviderResponse,
            JevError::MissingUsage => JudgeCode::MissingProviderUsage,
            JevError::TooManyPassages { .. } => JudgeCode::ContextualCandidateLimit,
            JevError::TooManyTokens { .. } => JudgeCode::ContextualTokenLimit,
            JevError::Config { .. } => JudgeCode::ProviderConfig,
            JevError::InvalidRequest { .. } => JudgeCode::InvalidRequest,
        }
    }
}

impl JevError {
    /// The message with the server named as `backend` names it ("Ollama refused the credentials …").
    pub fn message_for(&self, backend: super::Backend) -> String {
        let text = self.to_string();
        match backend {
            super::Backend::Jev => text,
            other => text.replace("Jev", other.label()),
        }
    }
}

fn pull_hint(model: &str, pull: bool) -> String {
    if pull {
        format!(" (ollama pull {model})")
    } else {
        String::new()
    }
}

pub(super) fn join_issues(issues: &[ValidationIssue]) -> String {
    if issues.is_empty() {
        return "no details given".to_string();
    }
    issues.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

fn last_suffix(last: &Option<Box<JevError>>) -> String {
    last.as_ref().map(|e| format!(" (last: {e})")).unwrap_or_default()
}

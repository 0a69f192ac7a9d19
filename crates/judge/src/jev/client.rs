//! The blocking HTTP client: [`JevClient`] with its retries, total deadline and bounded batch concurrency, and the
//! transport helpers (timeouts, connection errors, `retry-after`/`retry-after-ms`/`x-ratelimit-reset` headers,
//! backoff jitter). A server wait that would run past the deadline fails at once with `deadline_exceeded`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::wire::{detail_message, parse_success, validation_issues, wire_questions, WireQuestion, WireRequest};
use super::{openai, Backend, JevConfig, JevError, JudgeQuestion, PassageJudgment, Wire};

/// Spring's state: the query and the passage as a string; nothing else leaves the process.
fn spring_state(query: &str, passage: &str) -> serde_json::Value {
    serde_json::json!({"query": query, "passage": passage})
}

const REQUEST_ID_HEADER: &str = "x-typesafe-request-id";
/// Backoff delays are shortened by up to this fraction at random (the TypeSafe SDK's jitter).
const JITTER: f64 = 0.25;
/// An `X-RateLimit-Reset` above this is a Unix time, not a number of seconds to wait.
const UNIX_TIME_FROM: f64 = 1e9;

/// A blocking Jev client. Cheap to share across threads (`&JevClient` is `Sync`); reuse one per process.
pub struct JevClient {
    config: JevConfig,
    pub(super) endpoint: reqwest::Url,
    http: reqwest::blocking::Client,
}

impl fmt::Debug for JevClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JevClient")
            .field("endpoint", &self.endpoint.as_str())
            .field("config", &self.config)
            .finish()
    }
}

/// What one HTTP attempt produced.
enum Attempt {
    Response {
        status: u16,
        retry_after: Option<Duration>,
        request_id: Option<String>,
        body: Vec<u8>,
    },
    TimedOut,
    Refused(String),
    Broken(String),
}

impl JevClient {
    pub fn new(config: JevConfig) -> Result<Self, JevError> {
        let invalid = |message: String| JevError::Config { message };
        if config.api_key.trim().chars().any(|c| c.is_control()) {
            return Err(invalid("the API key contains control characters".into()));
        }
        if config.model.trim().is_empty() {
            return Err(invalid("the model is empty".into()));
        }
        if config.concurrency == 0 {
            return Err(invalid("concurrency must be at least 1".into()));
        }
        if config.attempt_timeout.is_zero() || config.deadline.is_zero() {
            return Err(invalid("the attempt timeout and the deadline must be positive".into()));
        }
        if config.backoff_min > config.backoff_max {
            return Err(invalid("backoff_min is larger than backoff_max".into()));
        }
        let endpoint = reqwest::Url::parse(&config.backend.endpoint(&config.base_url))
            .map_err(|e| invalid(format!("base URL '{}': {e}", config.base_url.trim())))?;
        let keyless = config.api_key.trim().is_empty();
        match endpoint.scheme() {
            "https" | "http" if keyless && !is_loopback(&endpoint) => {
                return Err(invalid(format!(
                    "{} at {} needs an API key (only a loopback server may go without one)",
                    config.backend.label(),
                    endpoint.host_str().unwrap_or("?")
                )))
            }
            "https" => {}
            "http" if is_loopback(&endpoint) => {}
            "http" => {
                return Err(invalid(format!(
                    "refusing to send the API key over plain HTTP to {}: use https or a loopback address",
                    endpoint.host_str().unwrap_or("?")
                )))
            }
            other => return Err(invalid(format!("base URL scheme '{other}' is not http(s)"))),
        }
        let http = shared_http(config.attempt_timeout).map_err(|e| invalid(format!("HTTP client: {e}")))?;
        Ok(JevClient { config, endpoint, http })
    }

    pub fn config(&self) -> &JevConfig {
        &self.config
    }

    /// Judges one passage against the query within `config.deadline`.
    pub fn judge(&self, query: &str, passage: &str, questions: &[JudgeQuestion]) -> Result<PassageJudgment, JevError> {
        let deadline = Instant::now() + self.config.deadline;
        let wire = wire_questions(questions)?;
        self.judge_until(&spring_state(query, passage), &wire, deadline, false)
    }

    /// One request with any `state` (rag-jev's contextual request judges a whole candidate set at once) within
    /// `config.deadline`. With `require_usage`, a response without both token counts is invalid (rag-jev's
    /// `missing_provider_usage`).
    pub fn judge_state(
        &self,
        state: &serde_json::Value,
        questions: &[JudgeQuestion],
        require_usage: bool,
    ) -> Result<PassageJudgment, JevError> {
        let deadline = Instant::now() + self.config.deadline;
        let wire = wire_questions(questions)?;
        self.judge_until(state, &wire, deadline, require_usage)
    }

    /// Judges every passage against the query, at most `config.concurrency` requests at once, all within one
    /// `config.deadline` (passages still queued when it runs out fail with `DeadlineExceeded` without a request).
    /// Results are in input order; an empty `passages` makes no request.
    pub fn judge_batch(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> Vec<Result<PassageJudgment, JevError>> {
        self.judge_batch_with(passages, questions, |passage| spring_state(query, passage))
    }

    /// [`JevClient::judge_batch`] with each passage's request state built by `state` (rag-jev sends
    /// `{"query", "passage": {"text"}}` where Spring sends the passage as a string).
    pub fn judge_batch_with(
        &self,
        passages: &[String],
        questions: &[JudgeQuestion],
        state: impl Fn(&str) -> serde_json::Value + Sync,
    ) -> Vec<Result<PassageJudgment, JevError>> {
        if passages.is_empty() {
            return Vec::new();
        }
        let deadline = Instant::now() + self.config.deadline;
        let wire = match wire_questions(questions) {
            Ok(wire) => wire,
            Err(e) => return passages.iter().map(|_| Err(e.clone())).collect(),
        };
        let next = AtomicUsize::new(0);
        let workers = self.config.concurrency.min(passages.len());
        let mut done: Vec<(usize, Result<PassageJudgment, JevError>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(passage) = passages.get(i) else { break };
                            let result = if Instant::now() >= deadline {
                                Err(self.deadline_error(0, None))
                            } else {
                                self.judge_until(&state(passage), &wire, deadline, false)
                            };
                            done.push((i, result));
                        }
                        done
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        done.sort_by_key(|(i, _)| *i);
        done.into_iter().map(|(_, result)| result).collect()
    }

    fn deadline_error(&self, attempts: u32, last: Option<JevError>) -> JevError {
        JevError::DeadlineExceeded {
            deadline: self.config.deadline,
            attempts,
            last: last.map(Box::new),
        }
    }

    /// One passage: attempts with retries until success, a final error, or the deadline.
    fn judge_until<S: serde::Serialize>(
        &self,
        state: &S,
        questions: &BTreeMap<String, WireQuestion>,
        deadline: Instant,
        require_usage: bool,
    ) -> Result<PassageJudgment, JevError> {
        let body = match self.config.backend.wire() {
            Wire::SystemOne => serde_json::to_vec(&WireRequest {
                state,
                model: &self.config.model,
                questions,
            })
            .map_err(|e| JevError::InvalidRequest {
                message: format!("serialising the request: {e}"),
            })?,
            Wire::OpenAi => openai::request_body(&self.config.model, state, questions)?,
        };
        self.config.backend.check_limits(questions.len(), body.len())?;
        // The shared bound: one slot for this passage's call and its retries, waited for within the deadline.
        let _slot = match &self.config.slots {
            Some(slots) => Some(
                slots
                    .acquire_until(deadline)
                    .ok_or_else(|| self.deadline_error(0, None))?,
            ),
            None => None,
        };
        let started = Instant::now();
        let mut attempts = 0u32;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(self.deadline_error(attempts, None));
            }
            let capped_by_deadline = remaining < self.config.attempt_timeout;
            let timeout = remaining.min(self.config.attempt_timeout);
            attempts += 1;
            // A retryable failure: the error to report if we stop here, and the server's requested wait.
            let (failure, retry_after) = match self.attempt(&body, timeout) {
                Attempt::Response {
                    status,
                    body,
                    request_id,
                    ..
                } if (200..300).contains(&status) => {
                    let mut judgment = match self.config.backend.wire() {
                        Wire::SystemOne => parse_success(&body, questions, require_usage)?,
                        Wire::OpenAi => openai::parse_success(&body, questions, require_usage)?,
                    };
                    judgment.request_id = request_id;
                    judgment.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
                    return Ok(judgment);
                }
                Attempt::Response {
                    status,
                    retry_after,
                    body,
                    ..
                } => match status {
                    401 | 403 => {
                        return Err(JevError::Auth {
                            status,
                            message: self.detail(&body),
                        })
                    }
                    404 if self.config.backend != Backend::Jev && self.names_the_model(&body) => {
                        return Err(JevError::NoSuchModel {
                            model: self.config.model.clone(),
                            pull: self.config.backend == Backend::Ollama,
                        })
                    }
                    400 => {
                        return Err(JevError::BadModel {
                            message: self.detail(&body),
                        })
                    }
                    422 => {
                        return Err(JevError::Validation {
                            issues: validation_issues(&body),
                        })
                    }
                    408 => (JevError::Timeout { attempts }, retry_after),
                    429 => (JevError::RateLimited { attempts }, retry_after),
                    529 => (JevError::Overloaded { attempts }, retry_after),
                    500..=599 => (
                        JevError::Server {
                            status,
                            attempts,
                            message: self.detail(&body),
                        },
                        retry_after,
                    ),
                    _ => {
                        return Err(JevError::Http {
                            status,
                            message: self.detail(&body),
                        })
                    }
                },
                Attempt::TimedOut if capped_by_deadline => {
                    return Err(self.deadline_error(attempts, Some(JevError::Timeout { attempts })))
                }
                Attempt::TimedOut => (JevError::Timeout { attempts }, None),
                Attempt::Refused(message) => return Err(JevError::Unreachable { message }),
                Attempt::Broken(message) => (JevError::Transport { attempts, message }, None),
            };
            if attempts > self.config.max_retries {
                return Err(failure);
            }
            let wait = retry_after.unwrap_or_else(|| self.backoff(attempts));
            if Instant::now() + wait >= deadline {
                return Err(self.deadline_error(attempts, Some(failure)));
            }
            std::thread::sleep(wait);
        }
    }

    /// Backoff before retry number `retry` (1-based): `backoff_min * 2^(retry-1)`, capped, minus up to 25 % jitter.
    pub(super) fn backoff(&self, retry: u32) -> Duration {
        let base = self
            .config
            .backoff_min
            .saturating_mul(1u32 << (retry - 1).min(20))
            .min(self.config.backoff_max);
        base.mul_f64(1.0 - JITTER * random_fraction())
    }

    /// Whether a 404's body is about the model (Ollama's "model … not found", OpenAI's `model_not_found`), not a
    /// wrong path.
    fn names_the_model(&self, body: &[u8]) -> bool {
        let message = detail_message(body).to_lowercase();
        message.contains("model") && (message.contains("not found") || message.contains("does not exist"))
    }

    /// The error body's message, without anything that looks like the key sent.
    fn detail(&self, body: &[u8]) -> String {
        ragsift_core::secret::redact(&detail_message(body), &self.config().api_key)
    }

    fn attempt(&self, body: &[u8], timeout: Duration) -> Attempt {
        let mut request = self.http.post(self.endpoint.clone());
        if !self.config.api_key.trim().is_empty() {
            request = request.bearer_auth(self.config.api_key.trim());
        }
        let sent = request
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(timeout)
            .body(body.to_vec())
            .send();
        let response = match sent {
            Ok(response) => response,
            Err(e) => return transport_failure(&e),
        };
        let status = response.status().as_u16();
        let headers = response.headers();
        let retry_after = retry_after(headers);
        let request_id = headers
            .get(REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        match response.bytes() {
            Ok(bytes) => Attempt::Response {
                status,
                retry_after,
                request_id,
                body: bytes.to_vec(),
            },
            Err(e) => transport_failure(&e),
        }
    }
}

fn transport_failure(e: &reqwest::Error) -> Attempt {
    if is_timeout(e) {
        Attempt::TimedOut
    } else if e.is_connect() {
        Attempt::Refused(error_chain(e))
    } else {
        Attempt::Broken(error_chain(e))
    }
}

fn is_timeout(e: &reqwest::Error) -> bool {
    if e.is_timeout() {
        return true;
    }
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        source = s.source();
    }
    false
}

/// The error and its causes on one line ("error sending request ...: tcp connect error: Connection refused").
fn error_chain(e: &reqwest::Error) -> String {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = s.source();
    }
    message
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let host = url.host_str().unwrap_or("");
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// `retry-after-ms` (milliseconds, TypeSafe's) or else `retry-after` (seconds; HTTP dates are ignored), if sane.
pub(super) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let wait = match (number("retry-after-ms"), number("retry-after")) {
        (Some(ms), _) => ms / 1000.0,
        (None, Some(s)) => s,
        // The rate-limit window's reset: seconds from now, or a Unix time when it is that large.
        (None, None) => {
            let reset = number("x-ratelimit-reset")?;
            if reset > UNIX_TIME_FROM {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64());
                (reset - now).max(0.0)
            } else {
                reset
            }
        }
    };
    // Any wait the server asks for is honoured; one that runs past the deadline fails at once (see the loop).
    (0.0..1e7).contains(&wait).then(|| Duration::from_secs_f64(wait))
}

/// A pseudo-random number in [0, 1): std's `RandomState` is freshly keyed on every call, which is plenty for jitter.
fn random_fraction() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(Instant::now().elapsed().as_nanos());
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// One HTTP client per attempt timeout for the whole process, so that every judge (a service builds one per
/// request) reuses its TLS set-up and its open connections to Jev instead of paying for them on each request.
fn shared_http(attempt_timeout: Duration) -> reqwest::Result<reqwest::blocking::Client> {
    static CLIENTS: std::sync::OnceLock<std::sync::Mutex<Vec<(Duration, reqwest::blocking::Client)>>> =
        std::sync::OnceLock::new();
    let mut clients = CLIENTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((_, c)) = clients.iter().find(|(t, _)| *t == attempt_timeout) {
        return Ok(c.clone());
    }
    let client = reqwest::blocking::Client::builder()
        .timeout(attempt_timeout)
        .user_agent(concat!("ragsift-jev/", env!("CARGO_PKG_VERSION")))
        .build()?;
    clients.push((attempt_timeout, client.clone()));
    Ok(client)
}

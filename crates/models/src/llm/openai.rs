//! OpenAI-compatible HTTP backend (Ollama, llama.cpp server, LM Studio, hosted APIs): `/v1/chat/completions`
//! with SSE streaming, the yes/no readout from `logprobs`, retries on 429/5xx, and typed errors.

use super::sse::Events;
use super::{ratio, yes_or_no, CancelToken, ChatMessage, Completion, FinishReason, GenerateOptions, LanguageModel};
use super::{Usage, YesNo};
use crate::{Error, Result};
use reqwest::blocking::{Client, Response};
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::io::BufReader;
use std::time::Duration;

/// Where and how to reach the server.
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// e.g. `http://localhost:11434` (Ollama), `http://localhost:8080` (llama.cpp), `http://localhost:1234/v1`.
    pub base_url: String,
    pub model: String,
    /// Sent as a bearer token, only over HTTPS or to a loopback address.
    pub api_key: Option<String>,
    pub timeout: Duration,
    pub max_retries: u32,
    /// First back-off; doubled on each retry unless the server says how long to wait.
    pub retry_delay: Duration,
}

impl OpenAiConfig {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(300),
            max_retries: 3,
            retry_delay: Duration::from_millis(500),
        }
    }
}

pub struct OpenAiModel {
    config: OpenAiConfig,
    /// `…/v1`
    base: String,
    endpoint: String,
    client: Client,
}

impl OpenAiModel {
    pub fn new(config: OpenAiConfig) -> Result<Self> {
        let mut base = config.base_url.trim_end_matches('/').to_string();
        if !base.ends_with("/v1") {
            base.push_str("/v1");
        }
        let url = reqwest::Url::parse(&base).map_err(|e| Error::Invalid(format!("endpoint '{base}': {e}")))?;
        if config.api_key.is_some() && url.scheme() != "https" && !is_loopback(&url) {
            return Err(Error::Invalid(format!(
                "refusing to send the API key over plain HTTP to {}: use https or a loopback address",
                url.host_str().unwrap_or("?")
            )));
        }
        let client = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(config.timeout)
            .build()
            .map_err(|e| Error::Invalid(format!("HTTP client: {e}")))?;
        Ok(OpenAiModel {
            endpoint: format!("{base}/chat/completions"),
            base,
            config,
            client,
        })
    }

    fn messages(messages: &[ChatMessage]) -> Value {
        Value::Array(
            messages
                .iter()
                .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
                .collect(),
        )
    }

    /// The server's configuration (URL, model, key).
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// POSTs JSON to `path` under the server's `/v1` (e.g. `embeddings`) and parses the JSON answer, with the
    /// retries and typed errors of every call.
    pub fn post_json(&self, path: &str, body: &Value) -> Result<Value> {
        let url = format!("{}/{path}", self.base);
        let text = self.post_to(&url, body)?.text().map_err(|e| self.transport_error(e))?;
        serde_json::from_str(&text).map_err(|e| {
            Error::Protocol(format!(
                "{} answered something that is not JSON: {e}",
                self.config.base_url
            ))
        })
    }

    fn post(&self, body: &Value) -> Result<Response> {
        self.post_to(&self.endpoint, body)
    }

    /// POSTs with retries on 429 and 5xx (honouring `retry-after`); maps failures to typed errors.
    fn post_to(&self, url: &str, body: &Value) -> Result<Response> {
        let mut attempt = 0;
        loop {
            let mut req = self.client.post(url).json(body);
            if let Some(key) = &self.config.api_key {
                req = req.bearer_auth(key);
            }
            let resp = req.send().map_err(|e| self.transport_error(e))?;
            let status = resp.status();
            if status.is_success() {
                return Ok(resp);
            }
            let retryable = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
            if retryable && attempt < self.config.max_retries {
                let wait = retry_after(&resp).unwrap_or(self.config.retry_delay * 2u32.pow(attempt));
                std::thread::sleep(wait.min(Duration::from_secs(30)));
                attempt += 1;
                continue;
            }
            // A server may echo the key it was sent: never into our message.
            let detail = ragsift_core::secret::redact_opt(&error_message(resp), self.config.api_key.as_deref());
            return Err(match status.as_u16() {
                401 | 403 => Error::Auth(format!(
                    "{} refused the request (HTTP {status}): {detail}",
                    self.config.base_url
                )),
                404 => Error::ModelNotFound(format!(
                    "model '{}' not found at {} (HTTP 404): {detail}",
                    self.config.model, self.config.base_url
                )),
                429 => Error::RateLimited(format!(
                    "{} is rate limiting (HTTP 429) after {attempt} retries: {detail}",
                    self.config.base_url
                )),
                _ => Error::Protocol(format!("{} answered HTTP {status}: {detail}", self.config.base_url)),
            });
        }
    }

    fn transport_error(&self, e: reqwest::Error) -> Error {
        if e.is_connect() {
            Error::Unreachable(format!(
                "cannot connect to {}: is the server running? ({e})",
                self.config.base_url
            ))
        } else if e.is_timeout() {
            Error::Unreachable(format!(
                "{} did not answer within {:?}",
                self.config.base_url, self.config.timeout
            ))
        } else {
            Error::Protocol(format!("{}: {e}", self.config.base_url))
        }
    }

    fn yes_no_one(&self, prompt: &[ChatMessage]) -> Result<YesNo> {
        let body = json!({
            "model": self.config.model, "messages": Self::messages(prompt), "max_tokens": 1, "temperature": 0,
            "logprobs": true, "top_logprobs": 20, "stream": false,
        });
        let v: Value = self
            .post(&body)?
            .json()
            .map_err(|e| Error::Protocol(format!("malformed response: {e}")))?;
        let usage = parse_usage(&v["usage"]).unwrap_or_default();
        let model = v["model"].as_str().unwrap_or(&self.config.model).to_string();
        let top = &v["choices"][0]["logprobs"]["content"][0]["top_logprobs"];
        if let Some(list) = top.as_array() {
            let (mut yes, mut no) = (0.0f64, 0.0f64);
            for entry in list {
                let p = entry["logprob"].as_f64().map(f64::exp).unwrap_or(0.0);
                match entry["token"].as_str().and_then(yes_or_no) {
                    Some(true) => yes += p,
                    Some(false) => no += p,
                    None => {}
                }
            }
            if yes + no > 0.0 {
                return Ok(YesNo {
                    p_yes: ratio(yes, no),
                    model,
                    usage,
                    calibrated: true,
                });
            }
        }
        let answer = v["choices"][0]["message"]["content"].as_str().unwrap_or("");
        match yes_or_no(answer) {
            Some(b) => Ok(YesNo {
                p_yes: if b { 1.0 } else { 0.0 },
                model,
                usage,
                calibrated: false,
            }),
            None => Err(Error::Protocol(format!(
                "expected yes or no, the model answered {answer:?}"
            ))),
        }
    }
}

impl LanguageModel for OpenAiModel {
    fn id(&self) -> &str {
        &self.config.model
    }

    fn chat(
        &self,
        messages: &[ChatMessage],
        options: &GenerateOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Completion> {
        let body = json!({
            "model": self.config.model, "messages": Self::messages(messages), "stream": true,
            "max_tokens": options.max_tokens, "temperature": options.temperature, "seed": options.seed,
            "stream_options": {"include_usage": true},
        });
        let resp = self.post(&body)?;
        let (mut text, mut usage, mut finish, mut pieces) = (String::new(), None, None, 0u32);
        let mut model = self.config.model.clone();
        for event in Events::new(BufReader::new(resp)) {
            if cancel.is_cancelled() {
                finish = Some(FinishReason::Cancelled);
                break;
            }
            let data = event.map_err(|e| Error::Protocol(format!("the connection dropped mid-answer: {e}")))?;
            if data.trim() == "[DONE]" {
                finish.get_or_insert(FinishReason::Stop);
                break;
            }
            let v: Value = serde_json::from_str(&data)
                .map_err(|e| Error::Protocol(format!("malformed event from the server ({e}): {data:.200}")))?;
            if let Some(m) = v["model"].as_str() {
                model = m.to_string();
            }
            if let Some(piece) = v["choices"][0]["delta"]["content"].as_str().filter(|p| !p.is_empty()) {
                pieces += 1;
                on_token(piece);
                text.push_str(piece);
            }
            match v["choices"][0]["finish_reason"].as_str() {
                Some("length") => finish = Some(FinishReason::Length),
                Some(_) => finish = Some(FinishReason::Stop),
                None => {}
            }
            usage = parse_usage(&v["usage"]).or(usage);
        }
        let finish = finish
            .ok_or_else(|| Error::Protocol("the server ended the stream before the answer was complete".into()))?;
        let usage = usage.unwrap_or(Usage {
            prompt_tokens: 0,
            completion_tokens: pieces,
        });
        Ok(Completion {
            text,
            model,
            usage,
            finish_reason: finish,
        })
    }

    fn yes_no(&self, prompts: &[Vec<ChatMessage>]) -> Result<Vec<YesNo>> {
        prompts.iter().map(|p| self.yes_no_one(p)).collect()
    }
}

fn parse_usage(v: &Value) -> Option<Usage> {
    Some(Usage {
        prompt_tokens: v.get("prompt_tokens")?.as_u64()? as u32,
        completion_tokens: v.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0) as u32,
    })
}

fn retry_after(resp: &Response) -> Option<Duration> {
    let h = resp.headers();
    if let Some(ms) = h
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<f64>().ok())
    {
        return Some(Duration::from_millis(ms as u64));
    }
    h.get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<f64>().ok())
        .map(Duration::from_secs_f64)
}

/// The server's error message (OpenAI's `{"error":{"message":…}}`, or the body's text).
fn error_message(resp: Response) -> String {
    let body = resp.text().unwrap_or_default();
    serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().or(v["error"].as_str()).map(String::from))
        .unwrap_or_else(|| body.chars().take(300).collect())
}

fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host_str() {
        Some("localhost") => true,
        Some(h) => h
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_only_over_https_or_loopback() {
        let with_key = |url: &str| {
            let mut c = OpenAiConfig::new(url, "m");
            c.api_key = Some("sk-test".into());
            OpenAiModel::new(c).map(|m| m.endpoint)
        };
        assert_eq!(
            with_key("http://127.0.0.1:8080").unwrap(),
            "http://127.0.0.1:8080/v1/chat/completions"
        );
        assert!(with_key("http://localhost:11434/v1/").is_ok());
        assert!(with_key("https://api.example.com/v1").is_ok());
        assert!(with_key("http://192.168.1.20:8080").is_err());
        assert!(
            OpenAiModel::new(OpenAiConfig::new("http://192.168.1.20:8080", "m")).is_ok(),
            "no key, no problem"
        );
    }
}

//! TypeSafe's System One wire format: the request body, validating and encoding the questions, parsing a 2xx answer,
//! and reading the message or validation issues out of an error body.

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

use super::error::join_issues;
use super::{JevError, JudgeQuestion, PassageJudgment, ValidationIssue, Wire};

/// Error bodies are quoted in messages up to this many characters.
const MAX_QUOTED_BODY: usize = 300;

/// The request body; `state` carries only the query and the passage text (or the texts, for a contextual request).
#[derive(Serialize)]
pub(super) struct WireRequest<'a, S: Serialize> {
    pub(super) state: &'a S,
    pub(super) model: &'a str,
    pub(super) questions: &'a BTreeMap<String, WireQuestion>,
}

#[derive(Serialize)]
pub(super) struct WireQuestion {
    #[serde(rename = "type")]
    kind: &'static str,
    pub(super) instructions: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    criteria: Option<WireCriteria>,
}

impl WireQuestion {
    /// The `true` and `false` criteria, if the question has them.
    pub(super) fn criteria(&self) -> Option<(&str, &str)> {
        self.criteria
            .as_ref()
            .map(|c| (c.when_true.as_str(), c.when_false.as_str()))
    }
}

#[derive(Serialize)]
struct WireCriteria {
    #[serde(rename = "true")]
    when_true: String,
    #[serde(rename = "false")]
    when_false: String,
}

/// Validates the questions and builds their wire form once per call.
pub(super) fn wire_questions(questions: &[JudgeQuestion]) -> Result<BTreeMap<String, WireQuestion>, JevError> {
    let invalid = |message: String| JevError::InvalidRequest { message };
    if questions.is_empty() {
        return Err(invalid("no questions to ask".into()));
    }
    let mut wire = BTreeMap::new();
    for q in questions {
        if q.key.trim().is_empty() {
            return Err(invalid("a question has a blank key".into()));
        }
        let question = WireQuestion {
            kind: "noul",
            instructions: instructions_value(&q.instructions),
            criteria: q.criteria.as_ref().map(|(t, f)| WireCriteria {
                when_true: t.clone(),
                when_false: f.clone(),
            }),
        };
        if wire.insert(q.key.clone(), question).is_some() {
            return Err(invalid(format!("question key '{}' appears twice", q.key)));
        }
    }
    Ok(wire)
}

/// Serialised JSON objects and arrays go out as JSON; everything else as a string.
pub(super) fn instructions_value(instructions: &str) -> Value {
    let trimmed = instructions.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(value @ (Value::Object(_) | Value::Array(_))) = serde_json::from_str::<Value>(instructions) {
            return value;
        }
    }
    Value::String(instructions.to_string())
}

pub(super) fn malformed(message: impl Into<String>) -> JevError {
    JevError::Malformed {
        message: message.into(),
    }
}

/// A 2xx body's object, the `model` that answered and its `answers` (an object on System One's wire, an array on
/// OpenAI's): what both wires' answers open with.
pub(super) fn answer_head(
    body: &[u8],
    want: Wire,
) -> Result<(serde_json::Map<String, Value>, String, Value), JevError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| malformed(format!("not JSON ({e})")))?;
    let Value::Object(object) = value else {
        return Err(malformed("the body is not a JSON object"));
    };
    let model = object
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("`model` is missing or not a string"))?
        .to_string();
    let answers = match (object.get("answers"), want) {
        (Some(a @ Value::Object(_)), Wire::SystemOne) | (Some(a @ Value::Array(_)), Wire::OpenAi) => a.clone(),
        (_, Wire::SystemOne) => return Err(malformed("`answers` is missing or not an object")),
        (_, Wire::OpenAi) => return Err(malformed("`answers` is missing or not an array")),
    };
    Ok((object, model, answers))
}

/// Parses a 2xx body into the answers for exactly the requested keys (`request_id` and `latency_ms` left empty).
/// With `require_usage`, both token counts must be present.
pub(super) fn parse_success(
    body: &[u8],
    questions: &BTreeMap<String, WireQuestion>,
    require_usage: bool,
) -> Result<PassageJudgment, JevError> {
    let (object, model, answers) = answer_head(body, Wire::SystemOne)?;
    let Value::Object(answers) = answers else {
        return Err(malformed("`answers` is not an object"));
    };
    let missing: Vec<String> = questions
        .keys()
        .filter(|k| !answers.contains_key(*k))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(JevError::MissingAnswers { keys: missing });
    }
    let mut parsed = BTreeMap::new();
    for key in questions.keys() {
        let answer = &answers[key];
        if let Some(kind) = answer.get("type").and_then(Value::as_str) {
            if kind != "noul" {
                return Err(malformed(format!("answer `{key}` is of type `{kind}`, not `noul`")));
            }
        }
        let p = match answer.get("noul") {
            Some(Value::Number(n)) => n
                .as_f64()
                .ok_or_else(|| malformed(format!("answer `{key}` is not a number")))?,
            Some(other) => {
                return Err(malformed(format!(
                    "answer `{key}` is not a number: {}",
                    quote_value(other)
                )))
            }
            None => return Err(malformed(format!("answer `{key}` has no `noul` probability"))),
        };
        if !(0.0..=1.0).contains(&p) {
            return Err(malformed(format!("answer `{key}` is {p}, outside [0, 1]")));
        }
        parsed.insert(key.clone(), p);
    }
    let usage = object.get("usage").filter(|u| !u.is_null());
    let counted = |name: &str| usage.and_then(|u| u.get(name)).is_some_and(|v| !v.is_null());
    if require_usage && !(counted("input_tokens") && counted("output_tokens")) {
        return Err(JevError::MissingUsage);
    }
    let tokens = |name: &str| -> Result<u32, JevError> {
        match usage.and_then(|u| u.get(name)) {
            None | Some(Value::Null) => Ok(0),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| malformed(format!("`usage.{name}` is not a token count: {}", quote_value(v)))),
        }
    };
    Ok(PassageJudgment {
        scores: parsed,
        model,
        input_tokens: tokens("input_tokens")?,
        output_tokens: tokens("output_tokens")?,
        latency_ms: 0.0,
        request_id: None,
    })
}

pub(super) fn quote_value(value: &Value) -> String {
    truncate(&value.to_string())
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(MAX_QUOTED_BODY) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// The message of an error body: Jev's `{"detail": {type, message}}`, `{"detail": "..."}` or `{"detail": [...]}`,
/// Ollama's `{"error": "..."}` or OpenAI's `{"error": {message, type, param, code}}`; else the body itself, shortened.
pub(super) fn detail_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let parsed = serde_json::from_slice::<Value>(body).ok();
    let detail = parsed.as_ref().and_then(|v| v.get("detail").cloned());
    if detail.is_none() {
        if let Some(Value::String(s)) = parsed.as_ref().and_then(|v| v.get("error")) {
            return truncate(s);
        }
        if let Some(message) = parsed.as_ref().and_then(openai_error_message) {
            return truncate(&message);
        }
    }
    let message = match detail {
        Some(Value::String(s)) => s,
        Some(Value::Object(o)) => {
            let kind = o.get("type").and_then(Value::as_str);
            let message = o.get("message").and_then(Value::as_str);
            match (kind, message) {
                (Some(k), Some(m)) => format!("{k}: {m}"),
                (None, Some(m)) => m.to_string(),
                _ => Value::Object(o).to_string(),
            }
        }
        Some(Value::Array(items)) => {
            let issues = issues_from(&items);
            if issues.is_empty() {
                Value::Array(items).to_string()
            } else {
                join_issues(&issues)
            }
        }
        _ if text.trim().is_empty() => "(empty body)".to_string(),
        _ => text.trim().to_string(),
    };
    truncate(&message)
}

pub(super) fn validation_issues(body: &[u8]) -> Vec<ValidationIssue> {
    let detail = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("detail").cloned());
    match detail {
        Some(Value::Array(items)) => issues_from(&items),
        Some(_) | None => vec![ValidationIssue {
            kind: "unknown".into(),
            loc: Vec::new(),
            msg: detail_message(body),
        }],
    }
}

fn issues_from(items: &[Value]) -> Vec<ValidationIssue> {
    items
        .iter()
        .filter_map(Value::as_object)
        .map(|o| ValidationIssue {
            kind: o.get("type").and_then(Value::as_str).unwrap_or("").to_string(),
            loc: o
                .get("loc")
                .and_then(Value::as_array)
                .map(|loc| {
                    loc.iter()
                        .map(|l| l.as_str().map(str::to_string).unwrap_or_else(|| l.to_string()))
                        .collect()
                })
                .unwrap_or_default(),
            msg: truncate(o.get("msg").and_then(Value::as_str).unwrap_or("")),
        })
        .collect()
}

/// The message of OpenAI's error envelope `{"error": {"message", "type", "param", "code"}}`, if the body is one.
fn openai_error_message(body: &Value) -> Option<String> {
    let error = body.get("error")?.as_object()?;
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let code = (error.get("code").and_then(Value::as_str)).or_else(|| error.get("type").and_then(Value::as_str));
    Some(match code {
        Some(code) if !message.is_empty() => format!("{code}: {message}"),
        Some(code) => code.to_string(),
        None => message.to_string(),
    })
}

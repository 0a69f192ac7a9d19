//! OpenAI's Decisions API wire: the request (`input` and an ordered `questions` array of named predicates, each
//! question's criteria folded into its instructions) and the answer (an `answers` array in question order, where a
//! `refusal` leaves its question not assessed; usage with its details).

use serde_json::{json, Value};
use std::collections::BTreeMap;

use super::wire::{answer_head, malformed, quote_value, WireQuestion};
use super::{JevError, PassageJudgment};

/// The request body: the state goes out as `input` (a string as is, an object or array as its JSON text, as
/// clients of the API send structured state), and each question as a named `predicate` in key order.
pub(super) fn request_body<S: serde::Serialize>(
    model: &str,
    state: &S,
    questions: &BTreeMap<String, WireQuestion>,
) -> Result<Vec<u8>, JevError> {
    let state = serde_json::to_value(state).map_err(|e| JevError::InvalidRequest {
        message: format!("serialising the request: {e}"),
    })?;
    let input = match state {
        Value::String(s) => s,
        other => other.to_string(),
    };
    let questions: Vec<Value> = questions
        .iter()
        .map(|(name, q)| json!({"type": "predicate", "name": name, "instructions": instructions_text(q)}))
        .collect();
    serde_json::to_vec(&json!({"model": model, "input": input, "questions": questions})).map_err(|e| {
        JevError::InvalidRequest {
            message: format!("serialising the request: {e}"),
        }
    })
}

/// A predicate's instructions as one string: the System One instructions (a string, or an object's fields as
/// lines) with the `true`/`false` criteria folded in, as gateways that convert between the two wires fold them.
pub(super) fn instructions_text(q: &WireQuestion) -> String {
    let mut text = match &q.instructions {
        Value::String(s) => s.clone(),
        Value::Object(fields) => fields
            .iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("question", Value::String(s)) => s.clone(),
                (_, Value::String(s)) => format!("{k}: {s}"),
                (_, other) => format!("{k}: {other}"),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    };
    if let Some((when_true, when_false)) = q.criteria() {
        text.push_str(&format!(
            "\nAnswer true when: {when_true}\nAnswer false when: {when_false}"
        ));
    }
    text
}

/// Parses a 2xx body: one answer per question, matched by `name` (or by position for an unnamed one). A
/// `predicate` gives its probability; a `refusal` leaves the question out of the scores (not assessed, never a
/// made-up probability). With `require_usage`, both token counts must be present.
pub(super) fn parse_success(
    body: &[u8],
    questions: &BTreeMap<String, WireQuestion>,
    require_usage: bool,
) -> Result<PassageJudgment, JevError> {
    let (object, model, answers) = answer_head(body, super::Wire::OpenAi)?;
    let Value::Array(answers) = answers else {
        return Err(malformed("`answers` is not an array"));
    };
    let keys: Vec<&String> = questions.keys().collect();
    let mut scores = BTreeMap::new();
    let mut answered = vec![false; keys.len()];
    for (position, answer) in answers.iter().enumerate() {
        let name = answer.get("name").and_then(Value::as_str);
        let index = match name {
            Some(name) => keys.iter().position(|k| k.as_str() == name),
            None => (position < keys.len()).then_some(position),
        };
        let Some(index) = index else {
            continue; // an answer to a question not asked
        };
        answered[index] = true;
        let key = keys[index];
        match answer.get("type").and_then(Value::as_str) {
            Some("refusal") => {}
            Some("predicate") => {
                let p = answer.get("probability").and_then(Value::as_f64).ok_or_else(|| {
                    match answer.get("probability") {
                        Some(v) => malformed(format!("answer `{key}` is not a number: {}", quote_value(v))),
                        None => malformed(format!("answer `{key}` has no `probability`")),
                    }
                })?;
                if !(0.0..=1.0).contains(&p) {
                    return Err(malformed(format!("answer `{key}` is {p}, outside [0, 1]")));
                }
                scores.insert(key.clone(), p);
            }
            Some(kind) => {
                return Err(malformed(format!(
                    "answer `{key}` is of type `{kind}`, not `predicate`"
                )))
            }
            None => return Err(malformed(format!("answer `{key}` has no `type`"))),
        }
    }
    let missing: Vec<String> = (keys.iter().zip(&answered))
        .filter(|(_, done)| !**done)
        .map(|(k, _)| k.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(JevError::MissingAnswers { keys: missing });
    }
    let usage = object.get("usage").filter(|u| !u.is_null());
    let count = |name: &str| -> Result<Option<u32>, JevError> {
        match usage.and_then(|u| u.get(name)) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| malformed(format!("`usage.{name}` is not a token count: {}", quote_value(v)))),
        }
    };
    let (input, output) = (count("input_tokens")?, count("output_tokens")?);
    if require_usage && (input.is_none() || output.is_none()) {
        return Err(JevError::MissingUsage);
    }
    Ok(PassageJudgment {
        scores,
        model,
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        latency_ms: 0.0,
        request_id: None,
    })
}

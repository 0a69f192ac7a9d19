//! Stand-in decision-model servers over loopback, each following its wire format as the research file writes it:
//! an Ollama-like System One server (no auth, Ollama's limits and `{"error": "…"}` answers, a model list) and an
//! OpenAI Decisions server (ordered arrays, per-question refusals, usage details, 401 and 429 envelopes).
//! Probabilities are a pure function of the passage and the question, so a test can compute what was answered.

use crate::http::{Reply, Request, Server};
use serde_json::{json, Value};

/// The probability a stand-in gives for `question` about `state_text`: FNV-1a of both, spread over [0.01, 0.99]
/// in steps of 1/1024 (exact in binary, so it round-trips through JSON unchanged).
pub fn probability(state_text: &str, question: &str) -> f64 {
    let hash = format!("{state_text}\u{1f}{question}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    let steps = 10 + (hash % 1004) as i64; // 10..=1013 of 1024
    steps as f64 / 1024.0
}

fn json_reply(status: u16, body: Value) -> Reply {
    Reply::Json(status, Vec::new(), body.to_string())
}

/// The state as the stand-ins hash it: a string as is, anything else as its JSON text.
fn state_text(state: &Value) -> String {
    match state {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Ollama's 64 KiB text-body limit on `/v1/systemone`.
pub const OLLAMA_BODY_LIMIT: usize = 64 * 1024;

/// An Ollama-like server (answers for `d1-omni:600m` are [`probability`] of the state's text; any other model's
/// are salted with its name): `POST /v1/systemone` for the `pulled` models (others get 404), `GET /v1/models`, and every
/// other path answered 200 `{"path": …}` (as chat and tags would be), so a proxy's pass-through can be seen.
pub fn ollama(pulled: &[&str]) -> Server {
    let pulled: Vec<String> = pulled.iter().map(|m| m.to_string()).collect();
    Server::with_handler(move |r: &Request| ollama_reply(&pulled, r))
}

fn ollama_error(status: u16, message: &str) -> Reply {
    json_reply(status, json!({ "error": message }))
}

/// Ollama's answer to one request (for servers that also play other wires).
pub fn ollama_reply(pulled: &[String], r: &Request) -> Reply {
    if r.method == "GET" && r.path == "/v1/models" {
        let data: Vec<Value> = pulled
            .iter()
            .map(|m| json!({"id": m, "object": "model", "owned_by": "library"}))
            .collect();
        return json_reply(200, json!({"object": "list", "data": data}));
    }
    if r.path != "/v1/systemone" {
        return json_reply(200, json!({"path": r.path, "method": r.method}));
    }
    if r.body.len() > OLLAMA_BODY_LIMIT {
        return ollama_error(413, "request body too large");
    }
    let Ok(body) = serde_json::from_str::<Value>(&r.body) else {
        return ollama_error(400, "invalid request body");
    };
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_string();
    if model.is_empty() {
        return ollama_error(400, "model is required");
    }
    if !pulled.contains(&model) {
        return ollama_error(404, &format!("model \"{model}\" not found, try pulling it first"));
    }
    let state = match body.get("state") {
        None | Some(Value::Null) => return ollama_error(400, "state is required"),
        Some(Value::String(s)) if s.is_empty() => return ollama_error(400, "state is required"),
        Some(s) => s.clone(),
    };
    let Some(questions) = body.get("questions").and_then(Value::as_object) else {
        return ollama_error(400, "questions must be an object");
    };
    if questions.is_empty() || questions.len() > 64 {
        return ollama_error(400, "questions must have between 1 and 64 entries");
    }
    // Another model reads the same passage differently: its probabilities are salted with its name.
    let text = match model.as_str() {
        "d1-omni:600m" => state_text(&state),
        other => format!("{}{other}", state_text(&state)),
    };
    let mut answers = serde_json::Map::new();
    for (name, q) in questions {
        if q.get("type").and_then(Value::as_str) != Some("noul") {
            return ollama_error(400, &format!("question {name}: only noul is served here"));
        }
        let instructions = q.get("instructions");
        let blank = match instructions {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.trim().is_empty(),
            Some(Value::Object(o)) => o.is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            Some(_) => false,
        };
        if blank {
            return ollama_error(400, &format!("question {name}: instructions are required"));
        }
        answers.insert(name.clone(), json!({"type": "noul", "noul": probability(&text, name)}));
    }
    json_reply(
        200,
        json!({"model": model, "answers": answers, "usage": {"input_tokens": r.body.len() / 4, "output_tokens": 0}}),
    )
}

/// An OpenAI Decisions server: `POST /v1/decisions` with `Authorization: Bearer {key}` (else 401), the question
/// named `refuse` refused, and a 429 for the first `rate_limited` requests.
pub fn openai(key: &str, refuse: &str, rate_limited: usize) -> Server {
    let (key, refuse) = (key.to_string(), refuse.to_string());
    let seen = std::sync::atomic::AtomicUsize::new(0);
    Server::with_handler(move |r: &Request| {
        if seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < rate_limited {
            return Reply::Json(
                429,
                vec![("retry-after-ms", "5".into())],
                openai_error("Rate limit reached for requests", "requests", "rate_limit_exceeded").to_string(),
            );
        }
        openai_reply(&key, &refuse, r)
    })
}

fn openai_error(message: &str, kind: &str, code: &str) -> Value {
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

/// OpenAI's answer to one request (for servers that also play other wires).
pub fn openai_reply(key: &str, refuse: &str, r: &Request) -> Reply {
    if r.header("authorization") != Some(&format!("Bearer {key}")) {
        return json_reply(
            401,
            openai_error(
                "Incorrect API key provided.",
                "invalid_request_error",
                "invalid_api_key",
            ),
        );
    }
    if r.path != "/v1/decisions" {
        return json_reply(
            404,
            openai_error("Unknown path", "invalid_request_error", "unknown_url"),
        );
    }
    let Ok(body) = serde_json::from_str::<Value>(&r.body) else {
        return json_reply(
            400,
            openai_error(
                "We could not parse the JSON body.",
                "invalid_request_error",
                "invalid_json",
            ),
        );
    };
    let model = body.get("model").and_then(Value::as_str).unwrap_or("");
    if model != "gpt-6-luna" {
        return json_reply(
            404,
            openai_error(
                &format!("The model `{model}` does not exist."),
                "invalid_request_error",
                "model_not_found",
            ),
        );
    }
    let Some(input) = body.get("input").and_then(Value::as_str) else {
        return json_reply(
            400,
            openai_error(
                "`input` must be a string here.",
                "invalid_request_error",
                "invalid_value",
            ),
        );
    };
    let Some(questions) = body.get("questions").and_then(Value::as_array) else {
        return json_reply(
            400,
            openai_error("`questions` must be an array.", "invalid_request_error", "invalid_type"),
        );
    };
    let mut answers = Vec::new();
    for q in questions {
        let name = q.get("name").and_then(Value::as_str).unwrap_or("");
        if q.get("type").and_then(Value::as_str) != Some("predicate")
            || !q.get("instructions").is_some_and(Value::is_string)
        {
            return json_reply(
                400,
                openai_error(
                    "Each question needs a type and string instructions.",
                    "invalid_request_error",
                    "invalid_value",
                ),
            );
        }
        if name == refuse {
            answers.push(json!({"type": "refusal", "name": name}));
        } else {
            answers.push(json!({"type": "predicate", "name": name, "probability": probability(input, name)}));
        }
    }
    let input_tokens = r.body.len() / 4;
    json_reply(
        200,
        json!({
            "model": "gpt-6-luna-2026-10-01",
            "answers": answers,
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": questions.len(),
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input_tokens + questions.len()
            }
        }),
    )
}

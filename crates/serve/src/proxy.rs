//! `ragsift serve --jev-proxy`: `POST /v1/systemone` and `POST /v1/decisions` for an application that calls a
//! decision model directly (Spring AI 2.1's `DecisionDocumentFilter` and `DecisionDocumentReranker` over System One,
//! Ollama or OpenAI, or the community `JevDocumentFilter`, with its base URL pointed here). A call's wire is told by
//! its body, not its path: `input` with a `questions` array is OpenAI's, `state` with a `questions` object System
//! One's. Each call goes to the upstream byte for byte with the caller's own `Authorization`, and its answer comes
//! back unchanged (status, body, rate-limit headers), errors included, so the application's own fail-open stays in
//! charge. The key is never kept. Calls about one query that arrive close together become one run: its passages in
//! the order they came, the answers the model gave, and the caller's kind of policy. Every other path (Ollama's
//! chat, tags and models) passes through untouched and unrecorded, so the application keeps working.

use crate::guard::{detail, read_body};
use crate::Service;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use ragsift_workbench::ProxiedPassage;
use ragsift_workbench::{Backend, Wire};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Calls about one query less than this apart belong to one run.
pub const GROUP_WINDOW: Duration = Duration::from_millis(1500);

/// Request headers that are the connection's, not the call's: never forwarded.
const HOP: [&str; 6] = [
    "host",
    "content-length",
    "connection",
    "transfer-encoding",
    "keep-alive",
    "upgrade",
];

/// The proxy's state: where Jev is, and the calls waiting to become runs.
pub struct Proxy {
    upstream: String,
    http: reqwest::Client,
    groups: Mutex<HashMap<String, Group>>,
}

/// The calls about one query so far.
struct Group {
    passages: Vec<ProxiedPassage>,
    client: String,
    backend: Backend,
    last: Instant,
}

/// Which wire a call speaks, told by its body: `input` with a `questions` array is OpenAI's Decisions API, `state`
/// with a `questions` object System One's (the same path serves both behind some gateways).
pub fn wire_of(body: &Value) -> Option<Wire> {
    if body.get("input").is_some() && body["questions"].is_array() {
        Some(Wire::OpenAi)
    } else if body.get("state").is_some() && body["questions"].is_object() {
        Some(Wire::SystemOne)
    } else {
        None
    }
}

impl Proxy {
    /// A proxy to the Jev at `upstream` (its base URL, e.g. `https://api.typesafe.ai`).
    pub fn new(upstream: &str) -> Proxy {
        Proxy {
            upstream: upstream.trim_end_matches('/').to_string(),
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap_or_default(),
            groups: Mutex::new(HashMap::new()),
        }
    }

    /// Adds one answered call to its query's group.
    fn add(&self, query: String, passage: ProxiedPassage, backend: Backend, client: &str) {
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let group = groups.entry(query).or_insert_with(|| Group {
            passages: Vec::new(),
            client: client.to_string(),
            backend,
            last: Instant::now(),
        });
        group.last = Instant::now();
        // The filter's call and the reranker's about the same passage are one candidate with both answers.
        match group.passages.iter_mut().find(|p| p.text == passage.text) {
            Some(p) => {
                p.scores.extend(passage.scores);
                p.questions.extend(passage.questions);
                p.input_tokens += passage.input_tokens;
                p.output_tokens += passage.output_tokens;
            }
            None => group.passages.push(passage),
        }
    }

    /// The groups quiet for [`GROUP_WINDOW`] (every group with `all`), taken out.
    fn ripe(&self, all: bool) -> Vec<(String, Group)> {
        let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let keys: Vec<String> = (groups.iter())
            .filter(|(_, g)| all || g.last.elapsed() >= GROUP_WINDOW)
            .map(|(k, _)| k.clone())
            .collect();
        keys.into_iter().filter_map(|k| groups.remove_entry(&k)).collect()
    }
}

/// Refuses an upstream that is this service itself (`bound`, on any of its loopback or wildcard names): the proxy
/// would call itself without end.
pub fn check_upstream(upstream: &str, bound: std::net::SocketAddr) -> ragsift_workbench::Result<()> {
    let url = reqwest::Url::parse(upstream)
        .map_err(|_| ragsift_workbench::Error::Invalid("--jev-upstream (or TYPESAFE_BASE_URL) is not a URL".into()))?;
    let host = url.host_str().unwrap_or("").trim_matches(['[', ']']);
    let local = ["localhost", "127.0.0.1", "::1", "0.0.0.0", "::"].contains(&host)
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip == bound.ip() || ip.is_loopback());
    if local && url.port_or_known_default() == Some(bound.port()) {
        return Err(ragsift_workbench::Error::Invalid(format!(
            "the Jev proxy's upstream {upstream} is this service itself: give --jev-upstream the real Jev"
        )));
    }
    Ok(())
}

/// `POST /v1/systemone` and `POST /v1/decisions`: forwarded to the same path upstream, answered unchanged, and
/// recorded when the model answered.
pub async fn decisions(State(service): State<Arc<Service>>, uri: Uri, headers: HeaderMap, body: Body) -> Response {
    let Some(proxy) = service.proxy.as_ref() else {
        return detail(StatusCode::NOT_FOUND, "Not Found");
    };
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(r) => return *r,
    };
    let (status, answer_headers, answer_body) = match forward(proxy, Method::POST, &uri, &headers, bytes.clone()).await
    {
        Ok(answer) => answer,
        Err(response) => return *response,
    };
    if status == StatusCode::OK && service.options.record {
        if let Some((query, passage, backend)) = judged(&bytes, &answer_body) {
            proxy.add(query, passage, backend, &crate::select::client_of(&headers));
        }
    }
    respond(status, &answer_headers, answer_body)
}

/// Any other call while proxying (Ollama's `/api/chat`, `/api/tags`, `/v1/models`): passed through untouched and
/// unrecorded. Without the proxy, rag-jev's 404.
pub async fn passthrough(State(service): State<Arc<Service>>, request: axum::extract::Request) -> Response {
    let Some(proxy) = service.proxy.as_ref() else {
        return detail(StatusCode::NOT_FOUND, "Not Found");
    };
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(r) => return *r,
    };
    match forward(proxy, parts.method, &parts.uri, &parts.headers, bytes).await {
        Ok((status, headers, body)) => respond(status, &headers, body),
        Err(response) => *response,
    }
}

type Answer = (StatusCode, HeaderMap, axum::body::Bytes);

/// Sends one call to the same path and query upstream with the caller's headers (the connection's own aside).
async fn forward(
    proxy: &Proxy,
    method: Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Vec<u8>,
) -> Result<Answer, Box<Response>> {
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let mut call = proxy
        .http
        .request(method, format!("{}{path}", proxy.upstream))
        .body(body);
    for (name, value) in headers.iter().filter(|(n, _)| !HOP.contains(&n.as_str())) {
        call = call.header(name, value);
    }
    let answer = match call.send().await {
        Ok(a) => a,
        Err(e) => {
            let code = if e.is_timeout() {
                "upstream_timeout"
            } else {
                "upstream_unreachable"
            };
            return Err(Box::new(detail(StatusCode::BAD_GATEWAY, code)));
        }
    };
    let status = answer.status();
    let answer_headers = answer.headers().clone();
    let Ok(answer_body) = answer.bytes().await else {
        return Err(Box::new(detail(StatusCode::BAD_GATEWAY, "upstream_unreachable")));
    };
    Ok((status, answer_headers, answer_body))
}

/// The upstream's answer as it came: status, body and headers (the connection's own aside).
fn respond(status: StatusCode, headers: &HeaderMap, body: axum::body::Bytes) -> Response {
    let mut response = (status, body).into_response();
    for (name, value) in headers {
        if !HOP.contains(&name.as_str()) {
            response.headers_mut().insert(name.clone(), value.clone());
        }
    }
    response
}

/// The query and passage of a state Spring or rag-jev send: `{"query", "passage": "text"}` or
/// `{"query", "passage": {"text"}}`.
fn query_and_passage(state: &Value) -> Option<(String, String)> {
    let query = state["query"].as_str()?.to_string();
    let text = match &state["passage"] {
        Value::String(t) => t.clone(),
        p => p["text"].as_str()?.to_string(),
    };
    Some((query, text))
}

/// An OpenAI `input`'s state: the string (or the user messages' text) read as the JSON state clients send.
fn openai_state(input: &Value) -> Option<Value> {
    let text = match input {
        Value::String(s) => s.clone(),
        Value::Array(messages) => (messages.iter())
            .flat_map(|m| match &m["content"] {
                Value::String(s) => vec![s.clone()],
                Value::Array(parts) => (parts.iter())
                    .filter_map(|p| p["text"].as_str().map(String::from))
                    .collect(),
                _ => Vec::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    serde_json::from_str(&text).ok()
}

/// The query, passage, answers and backend of one answered call, in either wire, with every question asked.
/// System One answers are `noul` probabilities; OpenAI's are `predicate` probabilities, a `refusal` leaving its
/// question unanswered for that passage (a failed classification, not a question the judge never assesses). A
/// System One model named `jev-…` is TypeSafe's Jev, any other a System One server (Ollama, laya-serve).
fn judged(request: &[u8], answer: &[u8]) -> Option<(String, ProxiedPassage, Backend)> {
    let request: Value = serde_json::from_slice(request).ok()?;
    let answer: Value = serde_json::from_slice(answer).ok()?;
    let model = answer["model"].as_str().unwrap_or_default().to_string();
    let in_range = |p: Option<f64>| p.filter(|p| (0.0..=1.0).contains(p));
    let (query, text, answers, questions, backend) = match wire_of(&request)? {
        Wire::SystemOne => {
            let (query, text) = query_and_passage(&request["state"])?;
            let answers: BTreeMap<String, f64> = (answer["answers"].as_object()?.iter())
                .filter_map(|(k, a)| Some((k.clone(), in_range(a["noul"].as_f64())?)))
                .collect();
            let questions: BTreeMap<String, Value> = (request["questions"].as_object().into_iter().flatten())
                .map(|(k, q)| (k.clone(), q.clone()))
                .collect();
            let backend = if model.starts_with("jev") {
                Backend::Jev
            } else {
                Backend::SystemOne
            };
            (query, text, answers, questions, backend)
        }
        Wire::OpenAi => {
            let (query, text) = query_and_passage(&openai_state(&request["input"])?)?;
            let asked = request["questions"].as_array()?;
            let name_of = |i: usize, a: &Value| {
                a["name"]
                    .as_str()
                    .map(String::from)
                    .or_else(|| asked.get(i)?["name"].as_str().map(String::from))
            };
            let answers: BTreeMap<String, f64> = (answer["answers"].as_array()?.iter().enumerate())
                .filter(|(_, a)| a["type"] == "predicate")
                .filter_map(|(i, a)| Some((name_of(i, a)?, in_range(a["probability"].as_f64())?)))
                .collect();
            let questions: BTreeMap<String, Value> = (asked.iter())
                .filter_map(|q| Some((q["name"].as_str()?.to_string(), q.clone())))
                .collect();
            (query, text, answers, questions, Backend::OpenAi)
        }
    };
    let tokens = |k: &str| u32::try_from(answer["usage"][k].as_u64().unwrap_or(0)).unwrap_or(u32::MAX);
    let default_model = backend.default_model();
    Some((
        query,
        ProxiedPassage {
            text,
            scores: answers,
            model,
            model_asked: request["model"].as_str().unwrap_or(default_model).to_string(),
            questions,
            input_tokens: tokens("input_tokens"),
            output_tokens: tokens("output_tokens"),
        },
        backend,
    ))
}

/// Records the groups that have gone quiet, every half second; with `all`, every group at once (shutdown).
pub async fn flush(service: &Arc<Service>, all: bool) {
    let Some(proxy) = service.proxy.as_ref() else { return };
    for (query, group) in proxy.ripe(all) {
        let wb = service.workbench.clone();
        let stored = tokio::task::spawn_blocking(move || {
            wb.record_proxied(&query, &group.passages, group.backend, &group.client)
        })
        .await;
        if let Ok(Err(e)) = stored {
            eprintln!(
                "ragsift serve: proxied calls were answered but not recorded: {}",
                e.code()
            );
        }
    }
}

/// Flushes quiet groups until the service stops.
pub async fn keep_flushing(service: Arc<Service>) {
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        flush(&service, false).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proxy_never_forwards_to_itself() {
        let bound: std::net::SocketAddr = "127.0.0.1:8000".parse().unwrap();
        for me in [
            "http://127.0.0.1:8000",
            "http://localhost:8000/",
            "http://[::1]:8000",
            "http://0.0.0.0:8000",
        ] {
            assert!(check_upstream(me, bound).is_err(), "{me}");
        }
        for other in ["http://127.0.0.1:8001", "https://api.typesafe.ai", "http://localhost"] {
            assert!(check_upstream(other, bound).is_ok(), "{other}");
        }
        assert!(check_upstream("not a url", bound).is_err());
    }
}

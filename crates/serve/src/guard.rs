//! What every request meets before and after its handler, as rag-jev's service does it: the security headers on
//! every response, the refusal of a cross-origin POST, the bounded body read, the constant-time token check, and
//! the error bodies (which never echo the input).

use crate::options::{BODY_READ_TIMEOUT, MAX_BODY_BYTES};
use crate::tokens::{Access, Tokens};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use ragsift_workbench::eval::select::Issue;
use serde_json::{json, Value};

/// A response that ends a request before its handler's work (boxed: a `Response` is large).
pub type Refusal = Box<Response>;

/// A JSON response with `status`.
pub fn reply(status: StatusCode, body: &impl serde::Serialize) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_else(|_| b"{}".to_vec());
    let mut r = (status, bytes).into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// rag-jev's status for a scoring failure: 504 past the deadline, else 502, with the code.
pub(crate) fn failed(code: &str) -> Response {
    let status = if code == "deadline_exceeded" {
        StatusCode::GATEWAY_TIMEOUT
    } else {
        StatusCode::BAD_GATEWAY
    };
    detail(status, code)
}

/// rag-jev's (FastAPI's) `{"detail": code}`.
pub fn detail(status: StatusCode, code: &str) -> Response {
    reply(status, &json!({ "detail": code }))
}

/// rag-jev's 422: `{"error": "invalid_request", "issues": [{loc, type, message}]}`, never the input.
pub fn invalid(issues: Vec<Value>) -> Response {
    reply(
        StatusCode::UNPROCESSABLE_ENTITY,
        &json!({ "error": "invalid_request", "issues": issues }),
    )
}

/// One issue of a 422 body; `loc` starts with `"body"`.
pub fn issue(loc: Vec<Value>, kind: &str, message: &str) -> Value {
    let mut full = vec![Value::from("body")];
    full.extend(loc);
    json!({ "loc": full, "type": kind, "message": message })
}

/// `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` and `Cache-Control: no-store` on every
/// response, errors included.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A POST whose `Origin` is present and is not this service's own (scheme://host[:port] from `Host`, https when
/// a proxy says so) gets 403 `{"error": "cross_origin_request"}`; GETs and POSTs without `Origin` pass.
pub async fn same_origin(request: Request, next: Next) -> Response {
    if request.method() == Method::POST {
        if let Some(origin) = request.headers().get(header::ORIGIN) {
            if Some(origin.as_bytes()) != own_origin(request.headers()).as_deref().map(str::as_bytes) {
                return reply(StatusCode::FORBIDDEN, &json!({ "error": "cross_origin_request" }));
            }
        }
    }
    next.run(request).await
}

fn own_origin(headers: &HeaderMap) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let forwarded = headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok());
    let scheme = if forwarded == Some("https") { "https" } else { "http" };
    Some(format!("{scheme}://{host}"))
}

/// 401 `{"detail": "invalid_service_token"}` (no `WWW-Authenticate`, as rag-jev).
pub fn unauthorized() -> Response {
    detail(StatusCode::UNAUTHORIZED, "invalid_service_token")
}

/// The request body, counted while it is read (a `Content-Length` is not trusted): over [`MAX_BODY_BYTES`] it
/// is 413 `{"error": "request_too_large"}` without reading the rest; a client that has not sent it within
/// [`BODY_READ_TIMEOUT`] is cut off with 408.
pub async fn read_body(body: Body) -> Result<Vec<u8>, Refusal> {
    let read = async {
        let mut body = body;
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|_| Box::new(detail(StatusCode::BAD_REQUEST, "unreadable_body")))?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > MAX_BODY_BYTES {
                    let too_large = json!({ "error": "request_too_large" });
                    return Err(Box::new(reply(StatusCode::PAYLOAD_TOO_LARGE, &too_large)));
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(bytes)
    };
    tokio::time::timeout(BODY_READ_TIMEOUT, read)
        .await
        .unwrap_or_else(|_| Err(Box::new(detail(StatusCode::REQUEST_TIMEOUT, "request_timeout"))))
}

/// A request body as FastAPI reads it for a model parameter.
pub enum Parsed {
    /// JSON, sent with a JSON content type.
    Json(serde_json::Value),
    /// No body at all (or JSON `null`): pydantic's `missing` at `["body"]`.
    Missing,
    /// A body without a JSON content type (or none): never decoded, so not an object to read fields from.
    NotJson,
}

impl Parsed {
    /// The model's issues for a body that is not JSON; otherwise the JSON to check (`None`: missing).
    pub fn value(&self) -> Result<Option<&Value>, Issue> {
        match self {
            Parsed::Json(v) => Ok(Some(v)),
            Parsed::Missing => Ok(None),
            Parsed::NotJson => Err(Issue {
                loc: Vec::new(),
                kind: "model_attributes_type".into(),
                message: "Input should be a valid dictionary or object to extract fields from".into(),
            }),
        }
    }
}

/// The body decoded as rag-jev's service (FastAPI) decodes it, before the token is checked: JSON only under a JSON
/// content type (`application/json`, `…+json`, any case and parameters); a decode error is 422 `json_invalid` at
/// its character offset, and text that is not UTF-8 is 400. Nothing of the body appears in a refusal.
pub fn json_body(headers: &HeaderMap, bytes: &[u8]) -> Result<Parsed, Refusal> {
    if bytes.is_empty() {
        return Ok(Parsed::Missing);
    }
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let essence = content_type
        .map(|ct| ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .unwrap_or_default();
    let json = essence == "application/json" || (essence.starts_with("application/") && essence.ends_with("+json"));
    if !json {
        return Ok(Parsed::NotJson);
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Box::new(detail(
            StatusCode::BAD_REQUEST,
            "There was an error parsing the body",
        )));
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Null) => Ok(Parsed::Missing),
        Ok(v) => Ok(Parsed::Json(v)),
        Err(e) => {
            let offset = if e.classify() == serde_json::error::Category::Eof {
                text.chars().count()
            } else {
                offset_of(text, e.line(), e.column())
            };
            let issue = json!({ "loc": ["body", offset], "type": "json_invalid", "message": "JSON decode error" });
            Err(Box::new(invalid(vec![issue])))
        }
    }
}

/// The body read and decoded and the token checked, in rag-jev's order: the decoded body and the label of the token
/// that let it in, or the response that refuses it.
pub async fn admit(tokens: &Tokens, headers: &HeaderMap, body: Body) -> Result<(Parsed, Option<String>), Response> {
    let bytes = read_body(body).await.map_err(|r| *r)?;
    let parsed = json_body(headers, &bytes).map_err(|r| *r)?;
    match tokens.check(headers) {
        Access::Denied => Err(unauthorized()),
        Access::Granted { label } => Ok((parsed, label)),
    }
}

/// rag-jev's 422 for `issues` (their `loc` inside the body).
pub fn refuse(issues: &[Issue]) -> Response {
    invalid(
        (issues.iter())
            .map(|i| issue(i.loc.clone(), &i.kind, &i.message))
            .collect(),
    )
}

/// The character offset (as Python's `json` counts) of serde's 1-based `line` and byte `column` in `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            let byte = column.saturating_sub(1).min(l.len());
            let byte = (0..=byte).rev().find(|b| l.is_char_boundary(*b)).unwrap_or(0);
            return offset + l[..byte].chars().count();
        }
        offset += l.chars().count() + 1;
    }
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_errors_name_their_offset() {
        assert_eq!(offset_of("{\n  \"a\": x}", 2, 8), 9);
        assert_eq!(offset_of("", 1, 1), 0);
        assert_eq!(offset_of("{\"é\": x}", 1, 8), 6, "characters, not bytes");
    }
}

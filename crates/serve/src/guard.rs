//! What every request meets before and after its handler, as rag-jev's service does it: the security headers on
//! every response, the refusal of a cross-origin POST, the bounded body read, the constant-time token check, and
//! the error bodies (which never echo the input).

use crate::options::{BODY_READ_TIMEOUT, MAX_BODY_BYTES};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
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

/// The body as JSON, or rag-jev's 422: a content type that is not JSON, or a JSON decode error at its offset.
pub fn json_body(headers: &HeaderMap, bytes: &[u8]) -> Result<Value, Refusal> {
    let content_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
    if let Some(ct) = content_type {
        let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if essence != "application/json" && !essence.ends_with("+json") {
            let message = "Content-Type must be application/json";
            return Err(Box::new(invalid(vec![issue(Vec::new(), "content_type", message)])));
        }
    }
    serde_json::from_slice(bytes).map_err(|e| {
        let offset = offset_of(bytes, e.line(), e.column());
        Box::new(invalid(vec![issue(
            vec![offset.into()],
            "json_invalid",
            "JSON decode error",
        )]))
    })
}

/// The byte offset of 1-based `line` and `column` in `bytes`.
fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let start: usize = (bytes.split(|b| *b == b'\n').take(line.saturating_sub(1)))
        .map(|l| l.len() + 1)
        .sum();
    (start + column.saturating_sub(1)).min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_errors_name_their_offset() {
        assert_eq!(offset_of(b"{\n  \"a\": x}", 2, 8), 9);
        assert_eq!(offset_of(b"", 1, 1), 0);
    }
}

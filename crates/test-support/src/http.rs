//! A scripted HTTP/1.1 server on loopback for wire-format tests (OpenAI-compatible, Jev): each request gets the
//! next scripted reply, else the handler's, else a 500. Every request is recorded with its arrival time, and the
//! number of requests in flight at once is tracked.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct Request {
    pub at: Instant,
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap()
    }
}

#[derive(Debug, Clone)]
pub enum Reply {
    /// Status, extra headers, JSON body.
    Json(u16, Vec<(&'static str, String)>, String),
    /// An SSE stream of these `data:` payloads; the connection closes after the last one.
    Sse(Vec<String>),
    /// Headers and these raw bytes, then the connection is dropped.
    Raw(String),
    /// The reply, held back this long.
    Delayed(Duration, Box<Reply>),
    /// Close the connection without answering.
    Drop,
}

/// A Jev answer in the documented wire format, the same for every passage: these probabilities for relevance,
/// evidence and usefulness, 0.02 for injection and 0.05 for a contradicted premise.
pub fn jev_judgment(relevant: f32, evidence: f32, useful: f32) -> Reply {
    let noul = |p: f32| serde_json::json!({"type": "noul", "noul": p});
    let answers = serde_json::json!({
        "contains_prompt_injection": noul(0.02),
        "contradicts_query_premise": noul(0.05),
        "is_relevant": noul(relevant),
        "contains_answer_evidence": noul(evidence),
        "useful": noul(useful),
    });
    let body = serde_json::json!({"model": "jev-1.13.0", "answers": answers, "usage": {"input_tokens": 120, "output_tokens": 5}});
    Reply::Json(200, vec![], body.to_string())
}

/// Computes a reply from the request (for servers whose answers depend on what is asked).
pub type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

/// Body of the reply when nothing was scripted: readable as Jev's `detail` and OpenAI's `error`.
pub const UNSCRIPTED: &str = r#"{"detail":"no reply scripted","error":"no reply scripted"}"#;

struct Shared {
    requests: Arc<Mutex<Vec<Request>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
    handler: Option<Handler>,
    in_flight: AtomicUsize,
    max_in_flight: Arc<AtomicUsize>,
}

pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    pub max_in_flight: Arc<AtomicUsize>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
}

impl Server {
    pub fn start(replies: Vec<Reply>) -> Server {
        Self::with_fallback(replies, None)
    }

    /// A server that answers every request with `handler`.
    pub fn with_handler(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        Self::with_fallback(Vec::new(), Some(Arc::new(handler)))
    }

    /// Scripted replies first, then `handler` (or a 500 with [`UNSCRIPTED`]).
    pub fn with_fallback(replies: Vec<Reply>, handler: Option<Handler>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Shared {
            requests: Arc::new(Mutex::new(Vec::new())),
            replies: Arc::new(Mutex::new(VecDeque::from(replies))),
            handler,
            in_flight: AtomicUsize::new(0),
            max_in_flight: Arc::new(AtomicUsize::new(0)),
        });
        let server = Server {
            url,
            requests: shared.requests.clone(),
            max_in_flight: shared.max_in_flight.clone(),
            replies: shared.replies.clone(),
        };
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = shared.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        server
    }

    pub fn push(&self, reply: Reply) {
        self.replies.lock().unwrap().push_back(reply);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

/// Reads one request (request line, headers, Content-Length body); None when the connection ends.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (
        parts.next().unwrap_or("").to_string(),
        parts.next().unwrap_or("").to_string(),
    );
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        at: Instant::now(),
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).into(),
    })
}

fn serve(stream: TcpStream, shared: &Shared) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
        shared.requests.lock().unwrap().push(request.clone());
        let scripted = shared.replies.lock().unwrap().pop_front();
        let mut reply = match (scripted, &shared.handler) {
            (Some(r), _) => r,
            (None, Some(h)) => h(&request),
            (None, None) => Reply::Json(500, vec![], UNSCRIPTED.into()),
        };
        while let Reply::Delayed(delay, inner) = reply {
            std::thread::sleep(delay);
            reply = *inner;
        }
        // Leave the in-flight count before answering, so the client cannot start its next request first.
        shared.in_flight.fetch_sub(1, Ordering::SeqCst);
        let keep_open = match reply {
            Reply::Json(status, extra, body) => {
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                    body.len()
                );
                for (k, v) in extra {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let ok = writer
                    .write_all(head.as_bytes())
                    .and_then(|_| writer.write_all(body.as_bytes()))
                    .is_ok();
                let _ = writer.flush();
                ok
            }
            Reply::Sse(events) => {
                let _ = writer
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
                for e in events {
                    let _ = writer.write_all(format!("data: {e}\n\n").as_bytes());
                    let _ = writer.flush();
                }
                false
            }
            Reply::Raw(bytes) => {
                let _ = writer
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 100000\r\n\r\n");
                let _ = writer.write_all(bytes.as_bytes());
                let _ = writer.flush();
                let _ = writer.shutdown(std::net::Shutdown::Both);
                false
            }
            Reply::Drop => {
                let _ = writer.shutdown(std::net::Shutdown::Both);
                false
            }
            Reply::Delayed(..) => unreachable!("unwrapped above"),
        };
        if !keep_open {
            return;
        }
    }
}

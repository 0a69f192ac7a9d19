//! A scripted HTTP/1.1 server on loopback for wire-format tests: each connection gets the next scripted
//! reply, and every request (method, path, headers, body) is recorded for assertions.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct Request {
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
}

/// Computes a reply from the request (for servers whose answers depend on what is asked).
pub type Handler = Arc<dyn Fn(&Request) -> Reply + Send + Sync>;

pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    replies: Arc<Mutex<VecDeque<Reply>>>,
}

impl Server {
    pub fn start(replies: Vec<Reply>) -> Server {
        Self::launch(replies, None)
    }

    /// A server that answers every request with `handler`.
    pub fn with_handler(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        Self::launch(Vec::new(), Some(Arc::new(handler)))
    }

    fn launch(replies: Vec<Reply>, handler: Option<Handler>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let (reqs, reps) = (requests.clone(), replies.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (reqs, reps, handler) = (reqs.clone(), reps.clone(), handler.clone());
                std::thread::spawn(move || serve(stream, reqs, reps, handler));
            }
        });
        Server { url, requests, replies }
    }

    pub fn push(&self, reply: Reply) {
        self.replies.lock().unwrap().push_back(reply);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    stream: TcpStream,
    reqs: Arc<Mutex<Vec<Request>>>,
    reps: Arc<Mutex<VecDeque<Reply>>>,
    handler: Option<Handler>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
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
        reader.read_exact(&mut body).unwrap();
        let request = Request {
            method,
            path,
            headers,
            body: String::from_utf8_lossy(&body).into(),
        };
        reqs.lock().unwrap().push(request.clone());
        let scripted = reps.lock().unwrap().pop_front();
        let reply = match (scripted, &handler) {
            (Some(r), _) => r,
            (None, Some(h)) => h(&request),
            (None, None) => Reply::Json(500, vec![], "{\"error\":\"no reply scripted\"}".into()),
        };
        match reply {
            Reply::Json(status, extra, body) => {
                let mut head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                    body.len()
                );
                for (k, v) in extra {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                let _ = writer.write_all(head.as_bytes());
                let _ = writer.write_all(body.as_bytes());
                let _ = writer.flush();
            }
            Reply::Sse(events) => {
                let _ = writer
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
                for e in events {
                    let _ = writer.write_all(format!("data: {e}\n\n").as_bytes());
                    let _ = writer.flush();
                }
                return;
            }
            Reply::Raw(bytes) => {
                let _ = writer
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 100000\r\n\r\n");
                let _ = writer.write_all(bytes.as_bytes());
                let _ = writer.flush();
                let _ = writer.shutdown(std::net::Shutdown::Both);
                return;
            }
        }
    }
}

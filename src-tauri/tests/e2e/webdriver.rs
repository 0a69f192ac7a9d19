//! A minimal W3C WebDriver client over HTTP (what tauri-driver speaks), for the real-window test.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::time::{Duration, Instant};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Session {
    http: reqwest::blocking::Client,
    base: String,
    pub id: String,
    /// The X server's framebuffer dump (Xvfb `-fbdir`): screenshots are read from it when set, since WebKit's
    /// WebDriver screenshot never completes when the webview draws without compositing (as on a machine without
    /// a GPU, see `src-tauri/src/webview_env.rs`).
    pub framebuffer: Option<std::path::PathBuf>,
}

/// How [`Session::start`]'s error begins when the session request got no answer (the connection failed or closed).
pub const DROPPED: &str = "creating the WebDriver session: no answer";

impl Session {
    /// Starts the app through the driver at `driver_url`; gives up after `timeout` (a crashing app makes the
    /// driver hang, so this never waits forever). An error that starts with [`DROPPED`] got no answer at all.
    pub fn start(driver_url: &str, application: &str, timeout: Duration) -> Result<Session, String> {
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| e.to_string())?;
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": application}
        }}});
        let v: Value = http
            .post(format!("{driver_url}/session"))
            .json(&caps)
            .send()
            .map_err(|e| format!("{DROPPED}: {e}"))?
            .json()
            .map_err(|e| format!("the WebDriver session's answer: {e}"))?;
        let id = v["value"]["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no session id in {v}"))?
            .to_string();
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Session {
            http,
            base: format!("{driver_url}/session/{id}"),
            id,
            framebuffer: None,
        })
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let req = match method {
            "GET" => self.http.get(&url),
            "DELETE" => self.http.delete(&url),
            _ => self.http.post(&url).json(&body.unwrap_or(json!({}))),
        };
        let v: Value = req
            .send()
            .and_then(|r| r.json())
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        v["value"].clone()
    }

    /// The first element matching `css`, if any.
    pub fn find(&self, css: &str) -> Option<String> {
        let v = self.call("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        if std::env::var_os("RAGSIFT_E2E_DEBUG").is_some() {
            eprintln!("find {css}: {v}");
        }
        v[ELEMENT].as_str().map(str::to_string)
    }

    pub fn find_all(&self, css: &str) -> Vec<String> {
        let v = self.call(
            "POST",
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits up to `timeout` for `css` to match.
    pub fn wait(&self, css: &str, timeout: Duration) -> String {
        let start = Instant::now();
        loop {
            if let Some(e) = self.find(css) {
                return e;
            }
            if start.elapsed() > timeout {
                let body = self.script(
                    "return document.body ? document.body.innerText.slice(0, 2000) : ''",
                    json!([]),
                );
                panic!("timed out after {timeout:?} waiting for {css}; the page says:\n{body}");
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// Waits up to `timeout` for at least `count` elements to match `css`; returns how many match then (fewer
    /// when it timed out).
    pub fn wait_all(&self, css: &str, count: usize, timeout: Duration) -> usize {
        let start = Instant::now();
        loop {
            let found = self.find_all(css).len();
            if found >= count || start.elapsed() > timeout {
                return found;
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn click(&self, css: &str) {
        let e = self.wait(css, Duration::from_secs(20));
        self.call("POST", &format!("/element/{e}/click"), None);
    }

    pub fn type_into(&self, css: &str, text: &str) {
        let e = self.wait(css, Duration::from_secs(20));
        self.call("POST", &format!("/element/{e}/clear"), None);
        self.call("POST", &format!("/element/{e}/value"), Some(json!({ "text": text })));
    }

    pub fn attribute(&self, element: &str, name: &str) -> Option<String> {
        self.call("GET", &format!("/element/{element}/attribute/{name}"), None)
            .as_str()
            .map(str::to_string)
    }

    /// The element's rendered text.
    pub fn text(&self, element: &str) -> String {
        self.call("GET", &format!("/element/{element}/text"), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    pub fn script(&self, script: &str, args: Value) -> Value {
        self.call("POST", "/execute/sync", Some(json!({"script": script, "args": args})))
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        if let Some(fb) = &self.framebuffer {
            return crate::xwd::png_of(fb).unwrap_or_else(|e| panic!("screenshot: {e}"));
        }
        let b64 = self.call("GET", "/screenshot", None);
        decode_base64(b64.as_str().unwrap_or(""))
    }

    pub fn quit(&self) {
        let _ = self.http.delete(&self.base).send();
    }
}

fn decode_base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | (val(c) as u32) << (18 - 6 * i));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

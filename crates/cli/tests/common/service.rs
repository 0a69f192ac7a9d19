//! `ragsift serve` as the tests run it: a child process on a free loopback port and its own library, killed when
//! dropped, and a client with a user agent.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

/// `ragsift serve` on a free port, killed when dropped.
pub struct Service {
    pub child: Child,
    pub url: String,
    pub home: std::sync::Arc<tempfile::TempDir>,
    /// What the service wrote to stderr so far (its only log).
    log: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Service {
    /// The service's stderr up to now.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `ragsift serve` on the library in `home`, judged by the Jev at `jev_url`.
pub fn serve_in(
    home: std::sync::Arc<tempfile::TempDir>,
    jev_url: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> Service {
    serve_judged(home, "jev", jev_url, env, args)
}

/// `ragsift serve --judge JUDGE` on the library in `home` (Jev, when asked, at `jev_url`).
pub fn serve_judged(
    home: std::sync::Arc<tempfile::TempDir>,
    judge: &str,
    jev_url: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> Service {
    let mut cmd = super::ragsift(home.path());
    cmd.args(["serve", "--port", "0", "--judge", judge])
        .args(args)
        .env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", jev_url)
        .env_remove("RAG_JEV_API_TOKEN")
        .env_remove("RAG_JEV_ON_ERROR")
        .env_remove("RAG_JEV_TIMEOUT_MS")
        .env_remove("PORT")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // The address comes once the judge is loaded; what the service said before it stays in the log.
    let mut before = String::new();
    let url = loop {
        let Some(Ok(line)) = lines.next() else {
            panic!("the service ended before it said its address: {before}")
        };
        before.push_str(&line);
        before.push('\n');
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            break url.to_string();
        }
    };
    // Keep reading stderr, so the service never blocks on a full pipe, and keep it for the log checks.
    let log = std::sync::Arc::new(std::sync::Mutex::new(before));
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            let mut log = kept.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    Service { child, url, home, log }
}

pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .user_agent("serve-test/1.0")
        .build()
        .unwrap()
}

//! How `ragsift serve` runs, read as rag-jev's `serve` reads it: flags over `RAG_JEV_*` environment variables
//! over rag-jev's defaults, each checked at start-up with rag-jev's refusals.

use crate::tokens::Tokens;
use ragsift_workbench::eval::select::OnError;
use ragsift_workbench::{Error, JudgeKind, Result, Retention};
use std::time::Duration;

/// rag-jev's body limit: a request body over this many bytes gets 413, counted while reading.
pub const MAX_BODY_BYTES: usize = 2_000_000;
/// How long a client may take to send its body (a client sending a byte a second is cut off).
pub const BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The service's settings.
#[derive(Debug, Clone)]
pub struct Options {
    pub host: String,
    pub port: u16,
    /// The service tokens: every `/v1/*` request must carry `Authorization: Bearer <token>` with one of them.
    /// None turns auth off, which only a loopback host allows.
    pub tokens: Tokens,
    /// No judge is ever built: live scoring answers 503.
    pub replay_only: bool,
    /// The judge that scores (`auto`: Jev with a key, else the local judge).
    pub judge: JudgeKind,
    /// What a judge failure gives: rag-jev's service default is `passthrough` (200, `bypassed`).
    pub on_error: OnError,
    /// One total deadline per request (`RAG_JEV_TIMEOUT_MS`).
    pub timeout: Duration,
    /// One shared bound on the selections judged at once (`RAG_JEV_MAX_CONCURRENCY`).
    pub max_concurrency: usize,
    /// Every served selection is stored as a run (`--no-record` turns it off).
    pub record: bool,
    /// How many served runs the library keeps (the oldest go first; labelled runs stay).
    pub retention: Retention,
    /// Select with the library's saved default policy instead of the request's options (`--policy saved`).
    pub saved_policy: bool,
    /// With `--jev-proxy`: the Jev base URL that `POST /v1/systemone` forwards to (`--jev-upstream`, else
    /// `TYPESAFE_BASE_URL`, else TypeSafe's API); never this service itself.
    pub jev_proxy: Option<String>,
}

/// Where the recording proxy forwards by default: TypeSafe's API.
pub const JEV_UPSTREAM: &str = "https://api.typesafe.ai";

/// Served runs kept by default: the newest 10,000, of any age.
pub const DEFAULT_RETAIN_RUNS: usize = 10_000;

/// The flags `ragsift serve` takes; `None` falls back to the environment, then to rag-jev's default.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    pub host: Option<String>,
    pub port: Option<u16>,
    pub token_file: Option<std::path::PathBuf>,
    pub replay_only: bool,
    pub judge: Option<JudgeKind>,
    pub on_error: Option<String>,
    pub no_record: bool,
    pub retain_runs: Option<usize>,
    pub retain_days: Option<u32>,
    /// `request` (the default: each request's own options) or `saved` (the library's saved default policy).
    pub policy: Option<String>,
    /// Serve `POST /v1/systemone` as a recording proxy to Jev.
    pub jev_proxy: bool,
    /// The Jev base URL the proxy forwards to (default: `TYPESAFE_BASE_URL`, then TypeSafe's API).
    pub jev_upstream: Option<String>,
}

/// rag-jev's loopback hosts: any other bind needs a service token.
const LOOPBACK: [&str; 3] = ["127.0.0.1", "localhost", "::1"];

impl Options {
    /// The options from `flags` over the environment `env` (a lookup, so tests need not touch the process's).
    pub fn resolve(flags: &Flags, env: impl Fn(&str) -> Option<String>) -> Result<Options> {
        let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let host = (flags.host.clone())
            .or_else(|| set("RAG_JEV_HOST"))
            .unwrap_or_else(|| "127.0.0.1".into());
        let port = match (flags.port, set("PORT")) {
            (Some(p), _) => p,
            (None, Some(p)) => p
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|p| *p >= 1)
                .ok_or_else(|| Error::Invalid(format!("PORT must be in 1..65535, got `{p}`")))?,
            (None, None) => 8000,
        };
        let tokens = match &flags.token_file {
            Some(path) => Tokens::read(path)?,
            None => Tokens::single(set("RAG_JEV_API_TOKEN")),
        };
        if !tokens.is_set() && !LOOPBACK.contains(&host.as_str()) {
            return Err(Error::Invalid(format!(
                "set RAG_JEV_API_TOKEN (or --token-file) before binding outside localhost ({host})"
            )));
        }
        let on_error = match flags.on_error.clone().or_else(|| set("RAG_JEV_ON_ERROR")).as_deref() {
            None | Some("passthrough") => OnError::Passthrough,
            Some("raise") => OnError::Raise,
            Some(other) => {
                return Err(Error::Invalid(format!(
                    "RAG_JEV_ON_ERROR must be passthrough or raise, got `{other}`"
                )))
            }
        };
        let timeout_ms = match set("RAG_JEV_TIMEOUT_MS") {
            None => 5000.0,
            Some(v) => v
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t > 0.0)
                .ok_or_else(|| Error::Invalid(format!("RAG_JEV_TIMEOUT_MS must be a positive number, got `{v}`")))?,
        };
        let max_concurrency = match set("RAG_JEV_MAX_CONCURRENCY") {
            None => 8,
            Some(v) => v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=256).contains(n))
                .ok_or_else(|| Error::Invalid(format!("RAG_JEV_MAX_CONCURRENCY must be in 1..256, got `{v}`")))?,
        };
        let saved_policy = match flags.policy.as_deref() {
            None | Some("request") => false,
            Some("saved") => true,
            Some(other) => {
                return Err(Error::Invalid(format!(
                    "--policy must be request or saved, got `{other}`"
                )))
            }
        };
        Ok(Options {
            host,
            port,
            tokens,
            replay_only: flags.replay_only,
            judge: flags.judge.unwrap_or(JudgeKind::Auto),
            on_error,
            timeout: Duration::from_secs_f64(timeout_ms / 1e3),
            max_concurrency,
            record: !flags.no_record,
            retention: Retention {
                max_runs: Some(flags.retain_runs.unwrap_or(DEFAULT_RETAIN_RUNS)),
                max_days: flags.retain_days,
            },
            saved_policy,
            jev_proxy: flags.jev_proxy.then(|| {
                (flags.jev_upstream.clone())
                    .or_else(|| set("TYPESAFE_BASE_URL"))
                    .unwrap_or_else(|| JEV_UPSTREAM.to_string())
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(flags: Flags, env: &[(&str, &str)]) -> Result<Options> {
        Options::resolve(&flags, |k| {
            env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn rag_jevs_defaults_and_environment() {
        let o = resolve(Flags::default(), &[]).unwrap();
        assert_eq!((o.host.as_str(), o.port, o.tokens.is_set()), ("127.0.0.1", 8000, false));
        assert_eq!(
            (o.on_error, o.timeout, o.max_concurrency),
            (OnError::Passthrough, Duration::from_secs(5), 8)
        );
        assert!(o.record && !o.replay_only);
        let env = [
            ("PORT", "9001"),
            ("RAG_JEV_TIMEOUT_MS", "250"),
            ("RAG_JEV_ON_ERROR", "raise"),
        ];
        let o = resolve(Flags::default(), &env).unwrap();
        assert_eq!(
            (o.port, o.timeout, o.on_error),
            (9001, Duration::from_millis(250), OnError::Raise)
        );
        let flags = Flags {
            port: Some(7000),
            ..Flags::default()
        };
        assert_eq!(
            resolve(flags, &env).unwrap().port,
            7000,
            "a flag wins over the environment"
        );
    }

    #[test]
    fn the_proxy_forwards_to_the_flag_then_the_environment_then_typesafe() {
        let proxy = |upstream: Option<&str>, env: &[(&str, &str)]| {
            let flags = Flags {
                jev_proxy: true,
                jev_upstream: upstream.map(str::to_string),
                ..Flags::default()
            };
            resolve(flags, env).unwrap().jev_proxy.unwrap()
        };
        let env = [("TYPESAFE_BASE_URL", "http://127.0.0.1:9100")];
        assert_eq!(proxy(Some("http://127.0.0.1:9200"), &env), "http://127.0.0.1:9200");
        assert_eq!(proxy(None, &env), "http://127.0.0.1:9100");
        assert_eq!(proxy(None, &[("TYPESAFE_BASE_URL", " ")]), JEV_UPSTREAM);
        assert_eq!(resolve(Flags::default(), &env).unwrap().jev_proxy, None);
    }

    #[test]
    fn start_up_refusals() {
        let outside = Flags {
            host: Some("0.0.0.0".into()),
            ..Flags::default()
        };
        let e = resolve(outside.clone(), &[]).unwrap_err().to_string();
        assert!(e.contains("RAG_JEV_API_TOKEN"), "{e}");
        assert!(resolve(outside, &[("RAG_JEV_API_TOKEN", "t")]).is_ok());
        for (k, v) in [
            ("PORT", "0"),
            ("PORT", "65536"),
            ("RAG_JEV_ON_ERROR", "ignore"),
            ("RAG_JEV_TIMEOUT_MS", "0"),
            ("RAG_JEV_TIMEOUT_MS", "nan"),
            ("RAG_JEV_MAX_CONCURRENCY", "0"),
            ("RAG_JEV_MAX_CONCURRENCY", "257"),
        ] {
            assert!(resolve(Flags::default(), &[(k, v)]).is_err(), "{k}={v}");
        }
        assert_eq!(
            resolve(Flags::default(), &[("RAG_JEV_MAX_CONCURRENCY", "256")])
                .unwrap()
                .max_concurrency,
            256
        );
    }
}

//! The one place a judge is chosen, configured and built: `auto` resolved, a decision model's base URL, model and
//! key (stored per backend, else the named environment variable; none needed on loopback), the judge for answers
//! (`build_judge`), the bounded judge for another retriever's candidates and for `serve` (rag-jev's retry policy,
//! the shared slots), the keys on disk, the app's "Test connection", and the CLI's per-run judge flags.

use crate::served::Bounded;
use crate::settings::{JudgeKind, JudgeSettings};
use crate::{Error, JudgeInfo, Result, Workbench};
use ragsift_eval::select::SelectRequest;
use ragsift_interfaces::embed::Embedder;
use ragsift_judge::jev::{Backend, JevConfig, JudgeQuestion};
use ragsift_judge::{JevJudge, JevRequest, Judge, LocalJudge};
use ragsift_models::llm::LanguageModel;
use ragsift_store::LibraryStore;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The file in the home that holds the key of TypeSafe's Jev and of other System One servers (mode 0600, the name it
/// always had), kept out of `settings.json` and traces.
pub(crate) const JEV_KEY_FILE: &str = "jev-api-key";

fn key_file(backend: Backend) -> &'static str {
    match backend {
        Backend::Jev | Backend::SystemOne => JEV_KEY_FILE,
        Backend::Ollama => "ollama-api-key",
        Backend::OpenAi => "openai-api-key",
    }
}

/// Per-run judge flags (the CLI's `--judge-url`, `--judge-model`, `--judge-key-env`): they apply to whichever
/// decision model the command judges with, over the saved settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JudgeFlags {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub key_env: Option<String>,
}

/// One judge Settings offers, with what it uses when a field is left empty: the one list the UI and the CLI's
/// help share.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeChoice {
    pub kind: JudgeKind,
    /// "Ollama (local decision model)".
    pub label: String,
    /// What it is and what it needs, in one line.
    pub hint: String,
    /// Whether it is a decision model (base URL, model and key apply).
    pub decision: bool,
    pub default_base_url: Option<String>,
    pub default_model: Option<String>,
    pub default_key_env: Option<String>,
}

/// Every judge kind Settings offers, in order.
pub fn judge_choices() -> Vec<JudgeChoice> {
    JudgeKind::ALL
        .into_iter()
        .map(|kind| {
            let (label, hint) = match kind {
                JudgeKind::Auto => ("auto", "Jev when a key is set, else the local judge"),
                JudgeKind::Jev => ("Jev (TypeSafe)", "TypeSafe's System One API; needs a key"),
                JudgeKind::SystemOne => (
                    "System One server",
                    "laya-serve, llmman or a gateway at its base URL; no key needed on this machine",
                ),
                JudgeKind::Ollama => (
                    "Ollama (local decision model)",
                    "Ollama 0.35+ with a decision model, e.g. `ollama pull d1-omni:600m`; no key",
                ),
                JudgeKind::OpenAi => (
                    "OpenAI Decisions API",
                    "gpt-6-luna; key in OPENAI_API_KEY or stored here",
                ),
                JudgeKind::Local => ("local model", "the offline judge: measured signals and a fitted model"),
                JudgeKind::None => ("none (no filtering)", "every retrieved passage goes to the prompt"),
            };
            let backend = kind.backend();
            JudgeChoice {
                kind,
                label: label.into(),
                hint: hint.into(),
                decision: backend.is_some(),
                default_base_url: backend.map(|b| b.default_base_url().to_string()),
                default_model: backend.map(|b| b.default_model().to_string()),
                default_key_env: backend.map(|b| b.default_key_env().to_string()),
            }
        })
        .collect()
}

/// rag-jev's service's retry policy for Jev's calls (`RetryPolicy(max_retries=1, backoff_initial=0.1,
/// backoff_max=0.5)`).
pub const SERVED_RETRIES: u32 = 1;
/// The first and the longest backoff of [`SERVED_RETRIES`].
pub const SERVED_BACKOFF: (std::time::Duration, std::time::Duration) = (
    std::time::Duration::from_millis(100),
    std::time::Duration::from_millis(500),
);

/// What one small call to a decision model answered: shown under Settings' *Test connection*.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeProbe {
    /// `ollama · d1-omni:600m`: the backend and the model that answered.
    pub judge: String,
    /// The endpoint called.
    pub endpoint: String,
    /// The probability it gave that a passage about the question is relevant (a sanity check, near 1).
    pub relevant: Option<f64>,
    pub latency_ms: f64,
}

/// The probe's query and passage: relevant on any sensible model.
const PROBE_QUERY: &str = "What colour is the sky on a clear day?";
const PROBE_PASSAGE: &str = "On a clear day the sky is blue, because air scatters blue light the most.";

impl Workbench {
    /// The judge for answers and evaluation alike: `kind` with `auto` resolved by whether a Jev key is available
    /// (stored in the home, or in `TYPESAFE_API_KEY`); a decision model sends `request` (configured in
    /// [`crate::judges`]).
    pub fn build_judge<'a>(
        &self,
        kind: JudgeKind,
        request: JevRequest,
        embedder: &'a dyn Embedder,
        model: &'a dyn LanguageModel,
        store: &'a dyn LibraryStore,
    ) -> Result<Option<Box<dyn Judge + 'a>>> {
        Ok(match self.resolve_judge(kind)? {
            JudgeKind::Local => Some(Box::new(LocalJudge::new(embedder, Some(model), Some(store)))),
            JudgeKind::Auto | JudgeKind::None => None,
            decision => Some(Box::new(self.decision_judge(decision, request)?)),
        })
    }

    /// Calls `f` with the judge for another retriever's candidates: Jev sending rag-jev's request (independent or
    /// contextual, with the relevance guidance) when `kind` resolves to Jev, else the local judge.
    pub(crate) fn with_candidate_judge<T>(
        &self,
        kind: JudgeKind,
        request: &SelectRequest,
        f: impl FnOnce(&dyn Judge) -> Result<T>,
    ) -> Result<T> {
        self.with_bounded_judge(kind, request, None, f)
    }

    /// [`Workbench::with_candidate_judge`] whose Jev calls hold `bounds`' shared slots, each within its deadline.
    pub(crate) fn with_bounded_judge<T>(
        &self,
        kind: JudgeKind,
        request: &SelectRequest,
        bounds: Option<&Bounded>,
        f: impl FnOnce(&dyn Judge) -> Result<T>,
    ) -> Result<T> {
        match self.resolve_judge(kind)? {
            JudgeKind::Local => {
                let (embedder, model, lib) = (self.embedder()?, self.model(None)?, self.library());
                f(&LocalJudge::new(
                    embedder.as_ref(),
                    Some(model.as_ref()),
                    Some(lib.store()),
                ))
            }
            JudgeKind::Auto | JudgeKind::None => Err(Error::Invalid(
                "judging candidates needs a judge: jev, systemone, ollama, openai or local".into(),
            )),
            decision => {
                let mut config = self.decision_config(decision)?;
                if let Some(bounds) = bounds {
                    // rag-jev's service retries a failed call once, after 0.1 s (0.5 s at most), not the SDK's
                    // twice from 0.5 s: its answer comes back as `provider_error` well within the deadline.
                    config.max_retries = SERVED_RETRIES;
                    (config.backoff_min, config.backoff_max) = SERVED_BACKOFF;
                    // Every passage may go at once, as rag-jev's tasks do: only the shared slots bound them.
                    config.concurrency = bounds.slots.size();
                    config.slots = Some(bounds.slots.clone());
                    let left = bounds.deadline.saturating_duration_since(std::time::Instant::now());
                    config.deadline = left.max(std::time::Duration::from_millis(1));
                }
                let judge = JevJudge::with_request(config, request.scoring_strategy.jev_request())?
                    .with_guidance(request.relevance_guidance.clone());
                f(&judge)
            }
        }
    }

    /// Whether TypeSafe's Jev has a key (stored or in `TYPESAFE_API_KEY`): what `auto` resolves by.
    pub(crate) fn jev_available(&self) -> Result<bool> {
        Ok(self.stored_key(Backend::Jev)?.is_some() || env_key("TYPESAFE_API_KEY").is_some())
    }

    /// `kind` with `auto` resolved: Jev when it has a key, else the local judge.
    pub(crate) fn resolve_judge(&self, kind: JudgeKind) -> Result<JudgeKind> {
        Ok(kind.resolve(self.jev_available()?))
    }

    /// The configuration of the decision model `kind` names (after `auto` is resolved), from the settings (which
    /// belong to the kind they were saved for), the environment and the backend's defaults; an error that says what
    /// is missing when it cannot be used.
    pub(crate) fn decision_config(&self, kind: JudgeKind) -> Result<JevConfig> {
        self.decision_config_with(kind, &self.settings().judge)
    }

    /// [`Workbench::decision_config`] with these judge settings instead of the saved ones.
    fn decision_config_with(&self, kind: JudgeKind, saved: &JudgeSettings) -> Result<JevConfig> {
        let kind = self.resolve_judge(kind)?;
        let backend = kind
            .backend()
            .ok_or_else(|| Error::Invalid(format!("the {} judge is not a decision model", kind.as_str())))?;
        let flags = self.judge_flags.read().unwrap_or_else(|e| e.into_inner()).clone();
        let own = saved.kind == kind || (saved.kind == JudgeKind::Auto && kind == JudgeKind::Jev);
        let setting = |flag: &Option<String>, value: &Option<String>| {
            let non_blank =
                |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(String::from);
            non_blank(flag).or_else(|| own.then(|| non_blank(value)).flatten())
        };
        let typesafe = matches!(backend, Backend::Jev | Backend::SystemOne);
        let env_for = |name: &str| typesafe.then(|| env_key(name)).flatten();
        let key_env = setting(&flags.key_env, &saved.key_env).unwrap_or_else(|| backend.default_key_env().to_string());
        let key = self
            .stored_key(backend)?
            .or_else(|| env_key(&key_env))
            .unwrap_or_default();
        let mut config = JevConfig::for_backend(backend, key);
        if let Some(base) = setting(&flags.base_url, &saved.base_url).or_else(|| env_for("TYPESAFE_BASE_URL")) {
            config.base_url = base;
        }
        if let Some(model) = setting(&flags.model, &saved.model).or_else(|| env_for("TYPESAFE_DEFAULT_MODEL")) {
            config.model = model;
        }
        if config.api_key.is_empty() && !is_loopback_url(&backend.endpoint(&config.base_url)) {
            return Err(Error::Auth(format!(
                "the {} judge needs an API key: add one in Settings or set {key_env} (a server on this machine \
                 needs none)",
                kind.as_str()
            )));
        }
        Ok(config)
    }

    /// The decision-model judge of `kind` sending `request`.
    pub(crate) fn decision_judge(&self, kind: JudgeKind, request: JevRequest) -> Result<JevJudge> {
        JevJudge::with_request(self.decision_config(kind)?, request)
    }

    /// Makes one small call to the decision model `judge` describes (not saved) and says what it answered, or
    /// why it failed, in plain words: Settings' *Test connection*.
    pub fn test_judge(&self, judge: &JudgeSettings) -> Result<JudgeProbe> {
        let mut config = self.decision_config_with(judge.kind, judge)?;
        config.deadline = std::time::Duration::from_secs(20);
        config.max_retries = 0;
        let endpoint = config.backend.endpoint(&config.base_url);
        let backend = config.backend;
        let judge = JevJudge::with_request(config, JevRequest::Spring)?;
        let question = [JudgeQuestion::new(
            ragsift_judge::jev::IS_RELEVANT,
            "Does the `passage` address the subject of the `query`?",
            None,
        )];
        let started = std::time::Instant::now();
        let answer = judge
            .judge_each(PROBE_QUERY, &[PROBE_PASSAGE.to_string()], &question)
            .pop()
            .unwrap_or_else(|| Err(Error::Invalid("the judge gave no answer".into())))?;
        Ok(JudgeProbe {
            judge: format!("{backend} · {}", answer.model),
            endpoint,
            relevant: answer.score(ragsift_judge::jev::IS_RELEVANT),
            latency_ms: started.elapsed().as_secs_f64() * 1000.0,
        })
    }

    /// Uses `judge` instead of the saved judge settings for the rest of this session (not saved): the CLI's
    /// `--judge`, `--judge-url`, `--judge-model` and `--judge-key-env`.
    pub fn use_judge(&self, judge: JudgeSettings) {
        self.settings.write().unwrap_or_else(|e| e.into_inner()).judge = judge;
    }

    /// Uses these flags over the saved judge settings for the rest of this session.
    pub fn use_judge_flags(&self, flags: JudgeFlags) {
        *self.judge_flags.write().unwrap_or_else(|e| e.into_inner()) = flags;
    }

    /// Stores (or with `None`, forgets) the key of the saved judge's backend (Jev's when it is `auto` or not a
    /// decision model), readable only by the user.
    pub fn set_judge_key(&self, key: Option<&str>) -> Result<JudgeInfo> {
        let backend = self.settings().judge.kind.backend().unwrap_or(Backend::Jev);
        let path = self.key_path(backend);
        match key.map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => crate::write_private(&path, k)?,
            None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(Error::io(&path, e)),
                _ => {}
            },
        }
        Ok(self.judge_info())
    }

    /// The key file of `backend`: the library's own, or for a derived library (`compare`) the library it was
    /// derived from: a key is never copied.
    fn key_path(&self, backend: Backend) -> PathBuf {
        self.key_home.join(key_file(backend))
    }

    /// The stored key of `backend`, if any; refused when users other than the owner can read the file.
    fn stored_key(&self, backend: Backend) -> Result<Option<String>> {
        let path = self.key_path(backend);
        if !path.exists() {
            return Ok(None);
        }
        ragsift_core::fsx::check_secret(&path, &format!("the {} API key file", backend.label()))?;
        let text = ragsift_core::read::read_text(&path, ragsift_core::read::SMALL_MAX_MB)?;
        Ok(Some(text.trim().to_string()).filter(|k| !k.is_empty()))
    }

    /// Which judge new answers use, its model, and whether its key is there.
    pub fn judge_info(&self) -> JudgeInfo {
        let kind = self
            .resolve_judge(self.settings().judge.kind)
            .unwrap_or(JudgeKind::Local);
        let config = kind.backend().and_then(|_| self.decision_config(kind).ok());
        let fit = ragsift_judge::local::shipped_fit();
        JudgeInfo {
            kind,
            model: match (kind, &config) {
                (JudgeKind::Local, _) => format!("fitted signals ({}, {})", fit.embedding_model, fit.version),
                (_, Some(c)) => c.model.clone(),
                (_, None) => String::new(),
            },
            calibrated: kind != JudgeKind::None,
            key_set: config.as_ref().is_some_and(|c| !c.api_key.is_empty()),
            defaults: match kind {
                JudgeKind::Local => Some(fit.defaults()),
                k if k.backend().is_some() => Some(ragsift_policy::JudgeDefaults::default()),
                _ => None,
            },
            not_assessed: if kind == JudgeKind::Local {
                fit.not_assessed.clone()
            } else {
                Vec::new()
            },
        }
    }
}

/// A non-blank environment variable.
fn env_key(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Whether `url`'s host is this machine (`localhost`, 127.0.0.0/8, ::1).
fn is_loopback_url(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback_url("http://localhost:11434/v1/systemone"));
        assert!(is_loopback_url("http://127.0.0.1:8080"));
        assert!(is_loopback_url("http://[::1]:11434/v1/decisions"));
        assert!(!is_loopback_url("http://192.168.1.5:11434"));
        assert!(!is_loopback_url("https://api.typesafe.ai/v1/systemone"));
        assert!(!is_loopback_url("http://localhost.example.com/"));
    }

    #[test]
    fn each_backend_keeps_its_own_key_file() {
        assert_eq!(key_file(Backend::Jev), JEV_KEY_FILE);
        assert_eq!(key_file(Backend::SystemOne), JEV_KEY_FILE);
        assert_ne!(key_file(Backend::OpenAi), key_file(Backend::Ollama));
        assert_ne!(key_file(Backend::OpenAi), JEV_KEY_FILE);
    }
}

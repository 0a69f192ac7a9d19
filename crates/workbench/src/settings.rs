//! The settings: the library's tunables, the language model, the judge, the query stages and the saved policy.

use crate::{Error, Result};
use ragsift_core::FieldProblem;
use ragsift_library::retrieve::SearchMode;
use ragsift_library::LibraryConfig;
use ragsift_models::llm::{ChatBackend, ChatSettings};
use ragsift_policy::PolicyOptions;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Every setting, stored as `settings.json` in the library home; every field has a default.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct Settings {
    /// Ingest and retrieval tunables (top-level keys of `settings.json`).
    #[serde(flatten)]
    pub library: LibraryConfig,
    /// The language model for chat, query rewriting and the local judge.
    pub chat: ChatSettings,
    /// Which judge scores retrieved passages.
    pub judge: JudgeSettings,
    /// Query stages the app runs by default.
    pub pipeline: PipelineDefaults,
    /// The selection policy new answers use (the app's "save as default").
    pub policy: PolicyOptions,
    /// Per-million-token prices for cost estimates (judging and generation); unset parts are reported unknown.
    pub rates: ragsift_pipeline::cost::CostRates,
    /// Unload the embedding and language models after this many seconds without use (they reload on the next job,
    /// with progress); 0 keeps them loaded.
    #[serde(default = "default_idle_unload")]
    pub idle_unload_secs: u32,
}

/// Ten minutes.
fn default_idle_unload() -> u32 {
    600
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            library: LibraryConfig::default(),
            chat: ChatSettings::default(),
            judge: JudgeSettings::default(),
            pipeline: PipelineDefaults::default(),
            policy: PolicyOptions::default(),
            rates: ragsift_pipeline::cost::CostRates::default(),
            idle_unload_secs: default_idle_unload(),
        }
    }
}

/// Which judge scores retrieved passages (Spring AI 2.1's `spring.ai.model.decision` values, with `jev`, `local`
/// and `auto`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum JudgeKind {
    /// Jev when a key is stored or in `TYPESAFE_API_KEY`, else the local judge.
    #[default]
    Auto,
    /// TypeSafe's Jev (System One API).
    Jev,
    /// Any System One server (laya-serve, llmman, a gateway) at the configured base URL; the key is optional on
    /// loopback.
    SystemOne,
    /// Ollama 0.35+ with a local decision model (`d1-omni:600m`), on its System One endpoint; no key.
    Ollama,
    /// OpenAI's Decisions API (`gpt-6-luna`), key in `OPENAI_API_KEY`.
    OpenAi,
    /// The offline judge: measured signals and a fitted, calibrated model.
    Local,
    /// No judge: every retrieved passage goes to the prompt.
    None,
}

impl JudgeKind {
    /// Every kind, in the order Settings lists them.
    pub const ALL: [JudgeKind; 7] = [
        JudgeKind::Auto,
        JudgeKind::Jev,
        JudgeKind::SystemOne,
        JudgeKind::Ollama,
        JudgeKind::OpenAi,
        JudgeKind::Local,
        JudgeKind::None,
    ];

    /// The kind new answers use: `Auto` becomes Jev when a key is available, else local.
    pub fn resolve(self, key_available: bool) -> JudgeKind {
        match self {
            JudgeKind::Auto if key_available => JudgeKind::Jev,
            JudgeKind::Auto => JudgeKind::Local,
            other => other,
        }
    }

    /// The decision-model backend this kind judges with; `None` for auto, local and none.
    pub fn backend(self) -> Option<ragsift_judge::jev::Backend> {
        use ragsift_judge::jev::Backend;
        match self {
            JudgeKind::Jev => Some(Backend::Jev),
            JudgeKind::SystemOne => Some(Backend::SystemOne),
            JudgeKind::Ollama => Some(Backend::Ollama),
            JudgeKind::OpenAi => Some(Backend::OpenAi),
            JudgeKind::Auto | JudgeKind::Local | JudgeKind::None => None,
        }
    }

    /// The lowercase name, as settings and the CLI spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            JudgeKind::Auto => "auto",
            JudgeKind::Jev => "jev",
            JudgeKind::SystemOne => "systemone",
            JudgeKind::Ollama => "ollama",
            JudgeKind::OpenAi => "openai",
            JudgeKind::Local => "local",
            JudgeKind::None => "none",
        }
    }
}

impl std::str::FromStr for JudgeKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        JudgeKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            Error::Invalid(format!(
                "unknown judge '{s}' (auto, jev, systemone, ollama, openai, local or none)"
            ))
        })
    }
}

/// The judge: a decision model (TypeSafe's Jev when a key is available under `auto`, another System One server,
/// Ollama or OpenAI), or the offline local judge.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct JudgeSettings {
    /// Which judge; `auto` picks Jev when a key is available, else local.
    pub kind: JudgeKind,
    /// The decision model's base URL, with or without its path (`/v1/systemone`, `/v1/decisions`); default: for
    /// Jev and System One `$TYPESAFE_BASE_URL` or the public API, for Ollama `http://localhost:11434`, for OpenAI
    /// `https://api.openai.com`.
    pub base_url: Option<String>,
    /// The decision model; default: `$TYPESAFE_DEFAULT_MODEL` or `jev-latest`, Ollama's `d1-omni:600m`, OpenAI's
    /// `gpt-6-luna`.
    pub model: Option<String>,
    /// The environment variable holding the key when none is stored; default `TYPESAFE_API_KEY`,
    /// `OLLAMA_API_KEY` or `OPENAI_API_KEY` by backend. A loopback server needs no key.
    pub key_env: Option<String>,
    /// What Jev is asked for new answers: Spring's questions (default), rag-jev's request, or contextual scoring.
    pub request: ragsift_judge::JevRequest,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            kind: JudgeKind::Auto,
            base_url: None,
            model: None,
            key_env: None,
            request: ragsift_judge::JevRequest::Spring,
        }
    }
}

/// Pre-retrieval stages and search mode for new answers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct PipelineDefaults {
    pub rewrite: bool,
    /// Multi-query variants besides the original (0 = none).
    pub variants: u32,
    /// Vector, keyword or hybrid search (`mode` in settings written before the rename).
    #[serde(alias = "mode")]
    pub search_mode: SearchMode,
    /// How answers are produced: auto (extractive for base models, chat otherwise), extractive or generative.
    pub answer_mode: ragsift_pipeline::answer::AnswerMode,
}

impl Default for PipelineDefaults {
    /// Hybrid search (vector and keyword, fused): measured on the labelled set's folds, it finds the evidence
    /// chunk far more often than vector search at the same depth, above all for table cells and option names.
    fn default() -> Self {
        PipelineDefaults {
            rewrite: false,
            variants: 0,
            search_mode: SearchMode::Hybrid,
            answer_mode: Default::default(),
        }
    }
}

impl Settings {
    /// Reads `settings.json` from `home`, or the defaults when it does not exist.
    pub fn load(home: &Path) -> Result<Self> {
        let path = home.join("settings.json");
        if !path.exists() {
            return Ok(Settings::default());
        }
        match ragsift_core::read::read_capped(&path, ragsift_core::read::SMALL_MAX_MB) {
            Ok(bytes) => {
                let mut s: Settings =
                    serde_json::from_slice(&bytes).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
                // Settings saved before thresholds became per-judge defaults wrote Spring's four values out; they
                // were never chosen, so they must not override the local judge's fitted operating points.
                let spring: std::collections::BTreeMap<String, f64> = ragsift_policy::DEFAULT_THRESHOLDS
                    .iter()
                    .map(|&(k, v)| (k.to_string(), v))
                    .collect();
                if s.policy.thresholds == spring {
                    s.policy.thresholds.clear();
                }
                Ok(s)
            }
            Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(e),
        }
    }

    /// The fields of `home`'s `settings.json` that no setting reads (a misspelling, a field of an older or newer
    /// version), as dotted paths (`chat.temprature`): they are ignored, and `doctor`, the app's set-up problems and
    /// the CLI say so. Empty when the file is missing or unreadable (loading reports that).
    pub fn unknown_fields(home: &Path) -> Vec<String> {
        let path = home.join("settings.json");
        let Ok(bytes) = ragsift_core::read::read_capped(&path, ragsift_core::read::SMALL_MAX_MB) else {
            return Vec::new();
        };
        let (Ok(raw), Ok(parsed)) = (
            serde_json::from_slice::<serde_json::Value>(&bytes),
            serde_json::from_slice::<Settings>(&bytes),
        ) else {
            return Vec::new();
        };
        let known = serde_json::to_value(&parsed).unwrap_or_default();
        let mut out = Vec::new();
        unknown_in(&raw, &known, "", &mut out);
        out
    }

    /// Refuses settings the app cannot work with, naming the first bad field.
    pub fn validate(&self) -> Result<()> {
        FieldProblem::first_as_error(&self.problems())
    }

    /// Every problem, by field path: the one set of rules the CLI, the app's form and `save` all use.
    pub fn problems(&self) -> Vec<FieldProblem> {
        let mut p = self.library.problems();
        if self.pipeline.variants > 8 {
            p.push(FieldProblem::new("pipeline.variants", "must be between 0 (none) and 8"));
        }
        p.extend(check_url("judge.base_url", self.judge.base_url.as_deref()));
        if let Some(var) = self.judge.key_env.as_deref().filter(|v| !v.is_empty()) {
            let valid = var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !var.starts_with(|c: char| c.is_ascii_digit());
            if !valid {
                p.push(FieldProblem::new(
                    "judge.key_env",
                    "must be an environment variable's name: letters, digits and _, not starting with a digit",
                ));
            }
        }
        let chat = &self.chat;
        match chat.backend {
            ChatBackend::Embedded => {
                for (field, path) in [
                    ("chat.model_path", &chat.model_path),
                    ("chat.answer_model_path", &chat.answer_model_path),
                ] {
                    let Some(path) = path.as_deref().filter(|p| !p.as_os_str().is_empty()) else {
                        continue;
                    };
                    if !path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")) {
                        p.push(FieldProblem::new(field, "must be a .gguf file"));
                    } else if !path.is_file() {
                        p.push(FieldProblem::new(field, format!("{} is not a file", path.display())));
                    }
                }
                if !(512..=262_144).contains(&chat.context_length) {
                    p.push(FieldProblem::new(
                        "chat.context_length",
                        "must be between 512 and 262144 tokens",
                    ));
                }
                if chat.threads > 256 {
                    p.push(FieldProblem::new(
                        "chat.threads",
                        "must be between 0 (all cores) and 256",
                    ));
                }
            }
            ChatBackend::OpenAi => {
                match chat.endpoint.as_deref().filter(|e| !e.trim().is_empty()) {
                    None => p.push(FieldProblem::new(
                        "chat.endpoint",
                        "enter the server URL, starting with http:// or https://",
                    )),
                    Some(e) => p.extend(check_url("chat.endpoint", Some(e))),
                }
                if chat.model_name.as_deref().unwrap_or("").trim().is_empty() {
                    p.push(FieldProblem::new(
                        "chat.model_name",
                        "enter the model name the server knows (e.g. llama3.2)",
                    ));
                }
            }
        }
        let var = &chat.api_key_env;
        let valid_var = var.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !var.is_empty() && !valid_var {
            p.push(FieldProblem::new(
                "chat.api_key_env",
                "an environment variable name: letters, digits and _ only",
            ));
        }
        if let Err(e) = self.policy.validate() {
            p.push(FieldProblem::new("policy", e));
        }
        if let Err((field, e)) = self.rates.validate() {
            p.push(FieldProblem::new(format!("rates.{field}"), e));
        }
        p
    }

    /// Validates and writes `settings.json` in `home` atomically and durably, one saver at a time across
    /// processes (`settings.json.lock`): a reader sees the old file or the new one, never a torn one.
    pub fn save(&self, home: &Path) -> Result<()> {
        self.validate()?;
        let path = home.join("settings.json");
        let json = serde_json::to_vec_pretty(self).map_err(|e| Error::Invalid(e.to_string()))?;
        ragsift_core::fsx::private_dir(home)?;
        let _lock = ragsift_core::fsx::lock(&home.join("settings.json.lock"))?;
        ragsift_core::fsx::write_atomic(&path, &json, ragsift_core::fsx::Access::Private)
    }
}

fn check_url(field: &str, url: Option<&str>) -> Option<FieldProblem> {
    let u = url?.trim();
    let ok = (u.starts_with("http://") || u.starts_with("https://")) && u.len() >= 10;
    (!ok).then(|| FieldProblem::new(field, format!("must be an http:// or https:// URL, got '{u}'")))
}

/// Collects the keys of `raw` that `known` (the same settings as read and written back) does not hold, recursing
/// into objects both hold. A key set to `null` is the default written out, not unknown.
fn unknown_in(raw: &serde_json::Value, known: &serde_json::Value, at: &str, out: &mut Vec<String>) {
    let (Some(raw), Some(known)) = (raw.as_object(), known.as_object()) else {
        return;
    };
    for (key, value) in raw {
        let path = if at.is_empty() {
            key.clone()
        } else {
            format!("{at}.{key}")
        };
        match known.get(key) {
            Some(k) => unknown_in(value, k, &path, out),
            None if value.is_null() => {}
            None => out.push(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_and_problems_name_their_fields() {
        assert_eq!(Settings::default().problems(), Vec::new());
        let mut s = Settings::default();
        s.library.overlap_tokens = s.library.chunk_tokens;
        s.pipeline.variants = 9;
        s.chat.backend = ChatBackend::OpenAi;
        s.chat.api_key_env = "9 bad".into();
        let fields: Vec<String> = s.problems().into_iter().map(|p| p.field).collect();
        assert_eq!(
            fields,
            [
                "overlap_tokens",
                "pipeline.variants",
                "chat.endpoint",
                "chat.model_name",
                "chat.api_key_env"
            ]
        );
        assert!(s.validate().unwrap_err().to_string().contains("overlap_tokens"));
        // The boundaries: 0 variants ("none") and 8 are allowed; an empty key variable means none.
        let mut s = Settings::default();
        s.pipeline.variants = 8;
        s.chat.api_key_env = String::new();
        assert_eq!(s.problems(), Vec::new());
        // The chat model and the answer model are both checked as GGUF files.
        let mut s = Settings::default();
        s.chat.model_path = Some("/nowhere/model.gguf".into());
        s.chat.answer_model_path = Some("/nowhere/answers.bin".into());
        let problems = s.problems();
        assert_eq!(
            problems.iter().map(|p| p.field.as_str()).collect::<Vec<_>>(),
            ["chat.model_path", "chat.answer_model_path"]
        );
        assert!(problems[1].message.contains(".gguf"), "{:?}", problems[1]);
    }

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        let home = tempfile::tempdir().expect("tempdir");
        let mut raw = serde_json::to_value(Settings::default()).expect("serialises");
        raw["chat"]["temprature"] = serde_json::json!(0.2);
        raw["colour"] = serde_json::json!("blue");
        std::fs::write(home.path().join("settings.json"), raw.to_string()).expect("write");
        assert!(
            Settings::load(home.path()).is_ok(),
            "unknown fields do not stop loading"
        );
        let mut unknown = Settings::unknown_fields(home.path());
        unknown.sort();
        assert_eq!(unknown, ["chat.temprature", "colour"]);
        Settings::default().save(home.path()).expect("save");
        assert!(
            Settings::unknown_fields(home.path()).is_empty(),
            "what we write we know"
        );
    }
}

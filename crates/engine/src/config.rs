//! Where things live (library home, runtime library, models) and the tunable settings, with their defaults.

use crate::policy::PolicyOptions;
use crate::retrieve::SearchMode;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The embedding model ragsift uses when none is configured (installed by `scripts/setup.sh`).
pub const DEFAULT_EMBEDDING_MODEL: &str = "all-minilm-l6-v2-int8";
const SETUP_HINT: &str = "run ./scripts/setup.sh (it installs ONNX Runtime and the default models)";

/// Tunables for ingest and retrieval. Stored as `settings.json` in the library home; every field has a default.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct Settings {
    /// Embedding model id: a folder under the models dir.
    pub embedding_model: String,
    /// Largest chunk, in the embedding model's tokens (special tokens excluded).
    pub chunk_tokens: usize,
    /// Tokens repeated between consecutive chunks.
    pub overlap_tokens: usize,
    /// Files larger than this are refused.
    pub max_file_mb: u64,
    /// Extraction of one file is abandoned after this long.
    pub extract_timeout_secs: u64,
    /// Texts per embedding call.
    pub embed_batch: usize,
    /// Threads for ONNX Runtime (0 = all cores).
    pub embed_threads: usize,
    /// Retrieval defaults (Spring AI's VectorStoreDocumentRetriever: top-k 4, threshold 0.0).
    pub top_k: usize,
    pub similarity_threshold: f32,
    /// HNSW search width; the default of usearch gives poor recall, see BENCHMARKS.md.
    pub expansion_search: usize,
    /// The language model for chat, query rewriting and the local judge.
    pub chat: ChatSettings,
    /// Which judge scores retrieved passages.
    pub judge: JudgeSettings,
    /// Query stages the app runs by default.
    pub pipeline: PipelineDefaults,
    /// The selection policy new answers use (the app's "save as default").
    pub policy: PolicyOptions,
}

/// The judge: TypeSafe's Jev when a key is available (`auto`), or the local model's yes/no readout.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct JudgeSettings {
    /// `auto` (Jev with a key, else local), `jev`, `local` or `none`.
    pub kind: String,
    /// Jev endpoint; default `$TYPESAFE_BASE_URL` or the public API.
    pub base_url: Option<String>,
    /// Jev model; default `$TYPESAFE_DEFAULT_MODEL` or `jev-latest`.
    pub model: Option<String>,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            kind: "auto".into(),
            base_url: None,
            model: None,
        }
    }
}

/// Pre-retrieval stages and search mode for new answers.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct PipelineDefaults {
    pub rewrite: bool,
    /// Multi-query variants besides the original (0 = none).
    pub variants: u32,
    pub mode: SearchMode,
    /// How answers are produced: auto (extractive for base models, chat otherwise), extractive or generative.
    pub answer_mode: crate::pipeline::answer::AnswerMode,
}

/// Which language model answers: an embedded GGUF file, or an OpenAI-compatible server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct ChatSettings {
    /// `embedded` or `openai`.
    pub backend: String,
    /// Embedded: a GGUF file; default: the model set-up installs (Gemma 3 270M Q4_K_M).
    pub model_path: Option<PathBuf>,
    /// OpenAI-compatible: base URL, e.g. `http://localhost:11434` for Ollama.
    pub endpoint: Option<String>,
    /// OpenAI-compatible: the model name the server knows, e.g. `llama3.2`.
    pub model_name: Option<String>,
    /// Name of the environment variable holding the API key, if the server needs one.
    pub api_key_env: String,
    /// Embedded: context window in tokens.
    pub context_length: u32,
    /// Embedded: CPU threads (0 = all cores; model calls never run concurrently).
    pub threads: usize,
}

impl Default for ChatSettings {
    fn default() -> Self {
        ChatSettings {
            backend: "embedded".into(),
            model_path: None,
            endpoint: None,
            model_name: None,
            api_key_env: "RAGSIFT_API_KEY".into(),
            context_length: 4096,
            threads: 0,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            embedding_model: DEFAULT_EMBEDDING_MODEL.into(),
            chunk_tokens: 256,
            overlap_tokens: 32,
            max_file_mb: 200,
            extract_timeout_secs: 120,
            embed_batch: 32,
            embed_threads: 0,
            top_k: 4,
            similarity_threshold: 0.0,
            expansion_search: 128,
            chat: ChatSettings::default(),
            judge: JudgeSettings::default(),
            pipeline: PipelineDefaults::default(),
            policy: PolicyOptions::default(),
        }
    }
}

impl Settings {
    /// Reads `settings.json` from `home`, or the defaults when it does not exist.
    pub fn load(home: &Path) -> Result<Self> {
        let path = home.join("settings.json");
        match std::fs::read(&path) {
            Ok(bytes) => {
                let mut s: Settings =
                    serde_json::from_slice(&bytes).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
                // Settings saved before thresholds became per-judge defaults wrote Spring's four values out; they
                // were never chosen, so they must not override the local judge's fitted operating points.
                let spring: std::collections::BTreeMap<String, f32> = crate::policy::DEFAULT_THRESHOLDS
                    .iter()
                    .map(|&(k, v)| (k.to_string(), v))
                    .collect();
                if s.policy.thresholds == spring {
                    s.policy.thresholds.clear();
                }
                Ok(s)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Settings::default()),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    pub fn validate(&self) -> Result<()> {
        if self.chunk_tokens < 16 {
            return Err(Error::Invalid("chunk_tokens must be at least 16".into()));
        }
        if self.overlap_tokens >= self.chunk_tokens / 2 {
            return Err(Error::Invalid(
                "overlap_tokens must be less than half of chunk_tokens".into(),
            ));
        }
        if self.embed_batch == 0 {
            return Err(Error::Invalid("embed_batch must be at least 1".into()));
        }
        if self.top_k == 0 || self.top_k > 200 {
            return Err(Error::Invalid("top_k must be between 1 and 200".into()));
        }
        if !(0.0..=1.0).contains(&self.similarity_threshold) {
            return Err(Error::Invalid("similarity_threshold must be between 0 and 1".into()));
        }
        if self.pipeline.variants > 8 {
            return Err(Error::Invalid("pipeline.variants must be at most 8".into()));
        }
        if !["auto", "jev", "local", "none"].contains(&self.judge.kind.as_str()) {
            return Err(Error::Invalid(format!(
                "judge.kind '{}' is not one of auto, jev, local, none",
                self.judge.kind
            )));
        }
        check_url("judge.base_url", self.judge.base_url.as_deref())?;
        match self.chat.backend.as_str() {
            "embedded" => {
                if let Some(p) = &self.chat.model_path {
                    if !p.is_file() {
                        return Err(Error::Invalid(format!("chat.model_path {} is not a file", p.display())));
                    }
                }
                if self.chat.context_length < 512 {
                    return Err(Error::Invalid("chat.context_length must be at least 512".into()));
                }
            }
            "openai" => {
                check_url("chat.endpoint", self.chat.endpoint.as_deref())?;
                if self.chat.endpoint.is_none() || self.chat.model_name.as_deref().unwrap_or("").is_empty() {
                    return Err(Error::Invalid(
                        "the openai backend needs chat.endpoint and chat.model_name".into(),
                    ));
                }
            }
            other => {
                return Err(Error::Invalid(format!(
                    "chat.backend '{other}' is not one of embedded, openai"
                )))
            }
        }
        self.policy
            .validate()
            .map_err(|e| Error::Invalid(format!("policy: {e}")))
    }

    /// Validates and writes `settings.json` in `home` atomically (temp file + rename).
    pub fn save(&self, home: &Path) -> Result<()> {
        self.validate()?;
        let path = home.join("settings.json");
        let tmp = home.join(".settings.json.tmp");
        let json = serde_json::to_vec_pretty(self).map_err(|e| Error::Invalid(e.to_string()))?;
        std::fs::create_dir_all(home).map_err(|e| Error::io(home, e))?;
        std::fs::write(&tmp, json).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
    }
}

fn check_url(field: &str, url: Option<&str>) -> Result<()> {
    match url {
        Some(u) if !(u.starts_with("http://") || u.starts_with("https://")) || u.len() < 10 => Err(Error::Invalid(
            format!("{field} must be an http:// or https:// URL, got '{u}'"),
        )),
        _ => Ok(()),
    }
}

/// The per-user data dir: `$RAGSIFT_DATA`, else the platform's data dir (`~/.local/share/ragsift` on Linux).
/// Set-up installs the runtime and models here; it is also the default library home.
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_DATA").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "ragsift")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| Error::Setup("cannot find a home directory for ragsift's data".into()))
}

/// The library home: an explicit dir, else `$RAGSIFT_HOME`, else the data dir.
pub fn resolve_home(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    match std::env::var_os("RAGSIFT_HOME").filter(|v| !v.is_empty()) {
        Some(h) => Ok(PathBuf::from(h)),
        None => data_dir(),
    }
}

/// Where the ONNX Runtime library and the models were found.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RuntimePaths {
    pub onnxruntime: PathBuf,
    pub models_dir: PathBuf,
}

impl RuntimePaths {
    /// Finds the runtime without environment variables after set-up: `<home>/runtime`, then the data dir.
    /// `ORT_DYLIB_PATH` and `RAGSIFT_MODELS` override. The error says what is missing and how to fix it.
    pub fn discover(home: &Path) -> Result<Self> {
        let mut roots = vec![home.to_path_buf()];
        if let Ok(d) = data_dir() {
            if d != home {
                roots.push(d);
            }
        }
        let ort = std::env::var_os("ORT_DYLIB_PATH")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| first_existing(&roots, "runtime/libonnxruntime.so"));
        let models = std::env::var_os("RAGSIFT_MODELS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| first_existing(&roots, "models"));
        let looked = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let onnxruntime = ort.filter(|p| p.is_file()).ok_or_else(|| {
            Error::Setup(format!(
                "ONNX Runtime (runtime/libonnxruntime.so) not found under {looked}: {SETUP_HINT}"
            ))
        })?;
        let models_dir = models
            .filter(|p| p.is_dir())
            .ok_or_else(|| Error::Setup(format!("models dir not found under {looked}: {SETUP_HINT}")))?;
        Ok(RuntimePaths {
            onnxruntime,
            models_dir,
        })
    }

    /// The folder of one model, checked to exist.
    pub fn model_dir(&self, id: &str) -> Result<PathBuf> {
        let dir = self.models_dir.join(id);
        if dir.join("manifest.json").is_file() {
            Ok(dir)
        } else {
            Err(Error::Setup(format!(
                "model '{id}' not found in {}: {SETUP_HINT}",
                self.models_dir.display()
            )))
        }
    }
}

/// The models dir: `$RAGSIFT_MODELS`, else `<home>/models`, else `<data dir>/models`.
pub fn models_dir(home: &Path) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_MODELS").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let mut roots = vec![home.to_path_buf()];
    roots.extend(data_dir().ok().filter(|d| d != home));
    first_existing(&roots, "models").filter(|p| p.is_dir()).ok_or_else(|| {
        let looked = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Error::Setup(format!("models dir not found under {looked}: {SETUP_HINT}"))
    })
}

fn first_existing(roots: &[PathBuf], rel: &str) -> Option<PathBuf> {
    roots.iter().map(|r| r.join(rel)).find(|p| p.exists())
}

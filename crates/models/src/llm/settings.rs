//! Which language model answers, and how it is run: the `chat` part of the settings.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Where the language model runs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum ChatBackend {
    /// A GGUF file run in-process through llama.cpp.
    #[default]
    Embedded,
    /// A server speaking the OpenAI chat API (Ollama, llama.cpp's server, vLLM, …).
    #[serde(rename = "openai")]
    OpenAi,
}

impl std::fmt::Display for ChatBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ChatBackend::Embedded => "embedded",
            ChatBackend::OpenAi => "openai",
        })
    }
}

/// Which language model answers: an embedded GGUF file, or an OpenAI-compatible server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct ChatSettings {
    /// Where the model runs.
    pub backend: ChatBackend,
    /// Embedded: a GGUF file; default: the model set-up installs (Gemma 3 270M Q4_K_M).
    pub model_path: Option<PathBuf>,
    /// Embedded: the instruction model (a GGUF with a chat template) that writes grounded answers when the chat
    /// model is a base model; default: the one set-up installs (Qwen2.5-Coder-0.5B-Instruct Q4_K_M), when present.
    pub answer_model_path: Option<PathBuf>,
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
            backend: ChatBackend::Embedded,
            model_path: None,
            answer_model_path: None,
            endpoint: None,
            model_name: None,
            api_key_env: "RAGSIFT_API_KEY".into(),
            context_length: 4096,
            threads: 0,
        }
    }
}

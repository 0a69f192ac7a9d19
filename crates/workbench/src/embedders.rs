//! The query embedder: the library's local ONNX model, or an OpenAI-compatible embeddings server when the settings
//! name one (a table another pipeline built must be queried with the model that built it). The local judge and the
//! extractive answer keep the local model whatever is chosen here: their fit was measured on it.

use crate::Result;
use ragsift_core::paths::DEFAULT_EMBEDDING_MODEL;
use ragsift_core::RuntimePaths;
use ragsift_library::LibraryConfig;
use ragsift_models::embed_http::OpenAiEmbedder;
use ragsift_models::llm::openai::OpenAiConfig;
use std::path::Path;
use std::time::Duration;

/// Tokens per text the chunker budgets for a remote model (its real limit is the server's).
const REMOTE_MAX_TOKENS: usize = 512;

/// The server embedder the settings name, connected (one probe call), or `None` for the local model.
pub fn open_remote(home: &Path, settings: &LibraryConfig) -> Result<Option<OpenAiEmbedder>> {
    let endpoint = settings.embedding_endpoint.trim();
    if endpoint.is_empty() {
        return Ok(None);
    }
    let mut config = OpenAiConfig::new(endpoint, settings.embedding_server_model.trim());
    config.api_key = std::env::var(settings.embedding_api_key_env.trim())
        .ok()
        .filter(|k| !k.is_empty());
    config.timeout = Duration::from_secs(120);
    let runtime = RuntimePaths::discover(home)?;
    let tokenizer = runtime.model_dir(DEFAULT_EMBEDDING_MODEL)?.join("tokenizer.json");
    Ok(Some(OpenAiEmbedder::connect(config, &tokenizer, REMOTE_MAX_TOKENS)?))
}

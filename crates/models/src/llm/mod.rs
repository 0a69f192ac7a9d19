//! Language models behind [`LanguageModel`] (its trait and types are `ragsift-interfaces`'): embedded GGUF models
//! run through llama.cpp (`embedded`); servers that speak the OpenAI chat API (Ollama, llama.cpp server, LM Studio)
//! through `openai`.

pub mod embedded;
pub mod openai;
pub mod settings;
mod sse;

use crate::{Error, Result};
pub use ragsift_interfaces::llm::*;
pub use settings::{ChatBackend, ChatSettings};
use std::path::Path;

/// Opens the configured language model: the embedded GGUF (loading shows `progress`) or an
/// OpenAI-compatible endpoint. `home` locates the default model installed by set-up.
pub fn open_model(
    chat: &ChatSettings,
    home: &Path,
    progress: Option<embedded::LoadProgress>,
) -> Result<Box<dyn LanguageModel>> {
    match chat.backend {
        ChatBackend::Embedded => {
            let path = match &chat.model_path {
                Some(p) => p.clone(),
                None => embedded::default_model_file(home)?,
            };
            let options = embedded::EmbeddedOptions {
                context_length: chat.context_length,
                threads: chat.threads,
                template: None,
            };
            Ok(Box::new(embedded::EmbeddedModel::load(&path, &options, progress)?))
        }
        ChatBackend::OpenAi => {
            let endpoint = chat
                .endpoint
                .clone()
                .ok_or_else(|| Error::Invalid("the openai backend needs an endpoint URL".into()))?;
            let name = chat
                .model_name
                .clone()
                .ok_or_else(|| Error::Invalid("the openai backend needs a model name".into()))?;
            let mut config = openai::OpenAiConfig::new(endpoint, name);
            config.api_key = std::env::var(&chat.api_key_env).ok().filter(|k| !k.is_empty());
            Ok(Box::new(openai::OpenAiModel::new(config)?))
        }
    }
}

/// Opens the instruction model that writes grounded answers for an embedded base model: the configured answer
/// model, else the one set-up installs. `None` when the chat model runs on a server (it answers itself) or no
/// answer model is installed; a configured file that cannot be loaded is an error.
pub fn open_answer_model(
    chat: &ChatSettings,
    home: &Path,
    progress: Option<embedded::LoadProgress>,
) -> Result<Option<Box<dyn LanguageModel>>> {
    if chat.backend != ChatBackend::Embedded {
        return Ok(None);
    }
    let path = match &chat.answer_model_path {
        Some(p) => p.clone(),
        None => match embedded::default_answer_model_file(home) {
            Ok(p) if p.is_file() => p,
            _ => return Ok(None),
        },
    };
    let options = embedded::EmbeddedOptions {
        context_length: chat.context_length,
        threads: chat.threads,
        template: None,
    };
    let model = embedded::EmbeddedModel::load(&path, &options, progress)?;
    if !model.follows_instructions() {
        return Err(Error::Invalid(format!(
            "the answer model {} has no chat template: grounded answers need an instruction model",
            path.display()
        )));
    }
    Ok(Some(Box::new(model)))
}

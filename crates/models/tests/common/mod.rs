//! Shared test helpers: the default embedding and chat models (installed by scripts/setup.sh), each loaded once per
//! test binary.
#![allow(dead_code)]

use ragsift_core::RuntimePaths;
use ragsift_models::llm::embedded::{default_model_path, EmbeddedModel, EmbeddedOptions};
use ragsift_models::FastEmbedder;
use std::sync::OnceLock;

/// The default embedding model, loaded once per test binary. Tests need the runtime: run ./scripts/setup.sh first.
pub fn embedder() -> &'static FastEmbedder {
    static E: OnceLock<FastEmbedder> = OnceLock::new();
    E.get_or_init(|| {
        let data = ragsift_core::paths::data_dir().unwrap();
        let runtime = RuntimePaths::discover(&data).expect("runtime missing: run ./scripts/setup.sh");
        FastEmbedder::load(&runtime, ragsift_core::paths::DEFAULT_EMBEDDING_MODEL, 2, 32).expect("model loads")
    })
}

/// The default chat model (Gemma 3 270M, a base model), loaded once per test binary.
pub fn gemma() -> &'static EmbeddedModel {
    static M: OnceLock<EmbeddedModel> = OnceLock::new();
    M.get_or_init(|| {
        let home = ragsift_core::paths::data_dir().unwrap();
        let models = ragsift_core::paths::models_dir(&home).expect("run ./scripts/setup.sh");
        EmbeddedModel::load(&default_model_path(&models), &EmbeddedOptions::default(), None).expect("Gemma loads")
    })
}

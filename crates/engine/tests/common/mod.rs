//! Shared test helpers: the real embedding and chat models (installed by scripts/setup.sh), paths.
#![allow(dead_code)]

use ragsift_engine::{FastEmbedder, RuntimePaths};
#[allow(unused_imports)]
pub use ragsift_test_support::files::repo;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The default model, loaded once per test binary. Tests need the runtime: run ./scripts/setup.sh first.
pub fn embedder() -> &'static FastEmbedder {
    static E: OnceLock<FastEmbedder> = OnceLock::new();
    E.get_or_init(|| {
        let data = ragsift_engine::paths::data_dir().unwrap();
        let runtime = RuntimePaths::discover(&data).expect("runtime missing: run ./scripts/setup.sh");
        FastEmbedder::load(&runtime, ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL, 2, 32).expect("model loads")
    })
}

/// Copies files into a fresh temp folder and returns it.
pub fn temp_docs(files: &[PathBuf]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    dir
}

/// The default chat model (Gemma 3 270M, a base model), loaded once per test binary.
pub fn gemma() -> &'static ragsift_engine::llm::embedded::EmbeddedModel {
    use ragsift_engine::llm::embedded::{default_model_path, EmbeddedModel, EmbeddedOptions};
    static M: OnceLock<EmbeddedModel> = OnceLock::new();
    M.get_or_init(|| {
        let home = ragsift_engine::paths::data_dir().unwrap();
        let models = ragsift_engine::paths::models_dir(&home).expect("run ./scripts/setup.sh");
        EmbeddedModel::load(&default_model_path(&models), &EmbeddedOptions::default(), None).expect("Gemma loads")
    })
}

/// The answer model set-up installs (Qwen2.5-Coder-0.5B-Instruct), loaded once.
pub fn answer_model() -> &'static ragsift_engine::llm::embedded::EmbeddedModel {
    use ragsift_engine::llm::embedded::{default_answer_model_file, EmbeddedModel, EmbeddedOptions};
    static M: OnceLock<EmbeddedModel> = OnceLock::new();
    M.get_or_init(|| {
        let home = ragsift_engine::paths::data_dir().unwrap();
        let path = default_answer_model_file(&home).expect("run ./scripts/setup.sh");
        EmbeddedModel::load(&path, &EmbeddedOptions::default(), None).expect("the answer model loads")
    })
}

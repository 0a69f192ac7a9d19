//! Shared test helpers: the fixtures (the multi-column ones with their source text), the default embedding model's
//! tokenizer (installed by scripts/setup.sh), and words for comparing texts.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use ragsift_test_support::files::{fixture, repo, words};
use std::path::PathBuf;

/// Each PDF of `fixtures/multicolumn/` with the source text of its pages, in file-name order.
pub fn multicolumn() -> Vec<(PathBuf, Vec<String>)> {
    let dir = repo().join("fixtures/multicolumn");
    let mut out: Vec<(PathBuf, Vec<String>)> = std::fs::read_dir(dir)
        .expect("fixtures/multicolumn")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .map(|pdf| {
            let truth = std::fs::read_to_string(pdf.with_extension("truth.json")).expect("truth beside the PDF");
            let truth: serde_json::Value = serde_json::from_str(&truth).expect("truth JSON");
            let pages = truth["pages"]
                .as_array()
                .expect("pages")
                .iter()
                .map(|p| p.as_str().expect("page text").to_string())
                .collect();
            (pdf, pages)
        })
        .collect();
    out.sort();
    out
}

/// The default embedding model's `tokenizer.json`.
pub fn tokenizer() -> PathBuf {
    let data = ragsift_core::paths::data_dir().expect("data dir");
    let runtime = ragsift_core::paths::RuntimePaths::discover(&data).expect("runtime missing: run ./scripts/setup.sh");
    runtime
        .model_dir(ragsift_core::paths::DEFAULT_EMBEDDING_MODEL)
        .expect("default model")
        .join("tokenizer.json")
}

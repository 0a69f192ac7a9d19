//! Shared test helpers: the real embedding model (installed by scripts/setup.sh), an embed-call counter, paths.
#![allow(dead_code)]

use ragsift_core::{Result, RuntimePaths};
use ragsift_models::{Embedder, FastEmbedder};
#[allow(unused_imports)]
pub use ragsift_test_support::files::{fixture, repo};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The default model, loaded once per test binary. Tests need the runtime: run ./scripts/setup.sh first.
pub fn embedder() -> &'static FastEmbedder {
    static E: OnceLock<FastEmbedder> = OnceLock::new();
    E.get_or_init(|| {
        let data = ragsift_core::paths::data_dir().unwrap();
        let runtime = RuntimePaths::discover(&data).expect("runtime missing: run ./scripts/setup.sh");
        FastEmbedder::load(&runtime, ragsift_core::paths::DEFAULT_EMBEDDING_MODEL, 2, 32).expect("model loads")
    })
}

/// Wraps an embedder and counts how many texts it was asked to embed.
pub struct Counting<'a> {
    pub inner: &'a dyn Embedder,
    pub texts: AtomicUsize,
}

impl<'a> Counting<'a> {
    pub fn new(inner: &'a dyn Embedder) -> Self {
        Counting {
            inner,
            texts: AtomicUsize::new(0),
        }
    }
    pub fn count(&self) -> usize {
        self.texts.load(Ordering::SeqCst)
    }
}

impl Embedder for Counting<'_> {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
    fn max_tokens(&self) -> usize {
        self.inner.max_tokens()
    }
    fn tokenizer_path(&self) -> &Path {
        self.inner.tokenizer_path()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed(texts)
    }
}

/// Copies files into a fresh temp folder and returns it.
pub fn temp_docs(files: &[PathBuf]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        std::fs::copy(f, dir.path().join(f.file_name().unwrap())).unwrap();
    }
    dir
}

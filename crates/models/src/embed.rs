//! Embedder stage: text → vectors. `FastEmbedder` runs an ONNX model through fastembed with ONNX Runtime
//! loaded dynamically from the path set-up installed; other models implement the same trait.

use crate::{Error, Result};
use ragsift_core::RuntimePaths;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// An embedding model. Vectors are L2-normalised so cosine similarity is a dot product.
pub trait Embedder: Send + Sync {
    /// Stable id of the model (stored with the library: vectors of different models never mix).
    fn id(&self) -> &str;
    fn dimensions(&self) -> usize;
    /// Largest input in tokens, special tokens included.
    fn max_tokens(&self) -> usize;
    /// Path of the model's `tokenizer.json`, so the chunker counts tokens exactly as the model does.
    fn tokenizer_path(&self) -> &Path;
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// What set-up writes beside a model's files.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelManifest {
    pub id: String,
    pub dimensions: usize,
    pub max_tokens: usize,
    #[serde(default = "default_pooling")]
    pub pooling: String,
}

fn default_pooling() -> String {
    "mean".into()
}

impl ModelManifest {
    pub fn load(dir: &Path) -> Result<Self> {
        let path = dir.join("manifest.json");
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        serde_json::from_slice(&bytes).map_err(|e| Error::Model(format!("{}: {e}", path.display())))
    }
}

static ORT: OnceLock<std::result::Result<ort::environment::Environment, String>> = OnceLock::new();

/// Loads ONNX Runtime from `lib` once per process and returns its environment.
pub fn init_onnxruntime(lib: &Path) -> Result<ort::environment::Environment> {
    ORT.get_or_init(|| {
        let builder = ort::init_from(lib).map_err(|e| format!("{}: cannot load ONNX Runtime: {e}", lib.display()))?;
        builder
            .with_name("ragsift")
            .build()
            .map_err(|e| format!("ONNX Runtime environment: {e}"))
    })
    .clone()
    .map_err(Error::Setup)
}

/// An ONNX sentence-embedding model (a folder with `model.onnx`, tokenizer files and `manifest.json`).
pub struct FastEmbedder {
    manifest: ModelManifest,
    tokenizer: PathBuf,
    model: Mutex<fastembed::TextEmbedding>,
    batch: usize,
}

impl FastEmbedder {
    /// Loads the model `id` from the models dir; `threads` 0 means all cores.
    pub fn load(runtime: &RuntimePaths, id: &str, threads: usize, batch: usize) -> Result<Self> {
        let env = init_onnxruntime(&runtime.onnxruntime)?;
        let dir = runtime.model_dir(id)?;
        let manifest = ModelManifest::load(&dir)?;
        let read = |name: &str| -> Result<Vec<u8>> {
            let p = dir.join(name);
            std::fs::read(&p).map_err(|e| Error::Model(format!("{}: {e} (re-run ./scripts/setup.sh)", p.display())))
        };
        let files = fastembed::TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: read("special_tokens_map.json")?,
            tokenizer_config_file: read("tokenizer_config.json")?,
        };
        let pooling = match manifest.pooling.as_str() {
            "cls" => fastembed::Pooling::Cls,
            _ => fastembed::Pooling::Mean,
        };
        let model = fastembed::UserDefinedEmbeddingModel::new(read("model.onnx")?, files).with_pooling(pooling);
        let mut opts = fastembed::InitOptionsUserDefined::new()
            .with_environment(env)
            .with_max_length(manifest.max_tokens);
        if threads > 0 {
            opts = opts.with_intra_threads(threads);
        }
        let model = fastembed::TextEmbedding::try_new_from_user_defined(model, opts).map_err(|e| {
            Error::Model(format!(
                "{}: cannot load the embedding model: {e}",
                dir.join("model.onnx").display()
            ))
        })?;
        Ok(FastEmbedder {
            manifest,
            tokenizer: dir.join("tokenizer.json"),
            model: Mutex::new(model),
            batch,
        })
    }
}

impl Embedder for FastEmbedder {
    fn id(&self) -> &str {
        &self.manifest.id
    }
    fn dimensions(&self) -> usize {
        self.manifest.dimensions
    }
    fn max_tokens(&self) -> usize {
        self.manifest.max_tokens
    }
    fn tokenizer_path(&self) -> &Path {
        &self.tokenizer
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        // One CPU-heavy model at a time: ONNX Runtime and llama.cpp competing for the cores collapse both.
        let _cores = ragsift_core::compute::exclusive();
        let mut model = self
            .model
            .lock()
            .map_err(|_| Error::Model("embedding model poisoned".into()))?;
        let mut out = model
            .embed(texts, Some(self.batch))
            .map_err(|e| Error::Model(format!("embedding failed: {e}")))?;
        for v in &mut out {
            normalize(v);
            if v.len() != self.manifest.dimensions {
                return Err(Error::Model(format!(
                    "model returned {} dimensions, its manifest says {}",
                    v.len(),
                    self.manifest.dimensions
                )));
            }
        }
        Ok(out)
    }
}

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

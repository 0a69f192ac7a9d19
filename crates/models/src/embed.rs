//! Embedder stage: text → vectors. `FastEmbedder` runs an ONNX model through fastembed with ONNX Runtime
//! loaded dynamically from the path set-up installed; other models implement the same trait.

use crate::{Error, Result};
use ragsift_core::RuntimePaths;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

pub use ragsift_interfaces::embed::{length_order, Embedder};

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
        // Idle intra-op threads sleep instead of spinning: a spinning thread holds a core that the process's other
        // threads (and other processes) need. With 8 served clients on a busy 2-core box the spin loop was a quarter
        // of the embedder's CPU time; on an idle box it made no measurable difference (BENCHMARKS.md, issue 54).
        opts = opts.with_session_config("session.intra_op.allow_spinning", "0");
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
        let order = length_order(texts);
        let mut out = vec![Vec::new(); texts.len()];
        for batch in length_batches(texts, &order, self.batch, BATCH_CHARS) {
            let sorted: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let vectors = model
                .embed(&sorted, Some(sorted.len()))
                .map_err(|e| Error::Model(format!("embedding failed: {e}")))?;
            for (v, &i) in vectors.into_iter().zip(batch) {
                out[i] = v;
            }
        }
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

/// Characters per inference batch (about 250 tokens). Batches of long texts outgrow the CPU caches: measured on
/// real 250-token chunks, one chunk per run is faster than 32 and peaks at a fifth of the memory, while short
/// texts (sentences, questions) still run many to a batch.
pub const BATCH_CHARS: usize = 1_000;

/// Splits `order` (indices of `texts`, shortest first) into batches of at most `max_count` texts whose padded size
/// — count × longest member, in characters — stays within `max_chars`; a text longer than that runs alone.
pub fn length_batches<'o>(texts: &[&str], order: &'o [usize], max_count: usize, max_chars: usize) -> Vec<&'o [usize]> {
    let mut batches = Vec::new();
    let mut start = 0;
    for k in 0..order.len() {
        let count = k - start + 1;
        let longest = texts[order[k]].len(); // sorted: the newest member is the longest
        if count > 1 && (count > max_count.max(1) || count * longest > max_chars) {
            batches.push(&order[start..k]);
            start = k;
        }
    }
    if start < order.len() {
        batches.push(&order[start..]);
    }
    batches
}

/// Scales a vector to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_follow_length_and_budget() {
        let texts = [
            "a".repeat(900),
            "b".repeat(10),
            "c".repeat(400),
            "d".repeat(20),
            "e".repeat(5000),
        ];
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let order = length_order(&refs);
        assert_eq!(order, vec![1, 3, 2, 0, 4]);
        // 3 × 400 ≤ 2000 but 4 × 900 > 2000; the 5000-character text runs alone.
        let batches = length_batches(&refs, &order, 32, 2_000);
        assert_eq!(batches, vec![&[1, 3, 2][..], &[0][..], &[4][..]]);
        // The count cap holds too.
        assert_eq!(
            length_batches(&refs, &order, 2, 1_000_000),
            vec![&[1, 3][..], &[2, 0][..], &[4][..]]
        );
        assert!(length_batches(&refs, &[], 8, 100).is_empty());
    }
}

//! The embedder interface: text → unit vectors (cosine similarity is then a dot product). The ONNX implementation
//! lives in `ragsift-models`.

use ragsift_core::Result;
use std::path::Path;
use std::time::Instant;

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
    /// Embeds `groups` of texts in order until `deadline`: the vectors of the groups finished by then, a prefix of
    /// `groups` (every group without a deadline). By default each group is one [`Embedder::embed`] call and none
    /// starts after the deadline; a queue shared by concurrent callers runs their groups batched together.
    fn embed_until(&self, groups: &[Vec<&str>], deadline: Option<Instant>) -> Result<Vec<Vec<Vec<f32>>>> {
        let mut done = Vec::with_capacity(groups.len());
        for group in groups {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            done.push(self.embed(group)?);
        }
        Ok(done)
    }
}

/// The indices of `texts` from shortest to longest (by characters, a proxy for tokens), so that each batch is
/// padded only to a length close to its own members' and not to the longest text of the call.
pub fn length_order(texts: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    order
}

//! An OpenAI-compatible embeddings server (`POST /v1/embeddings`) as an [`Embedder`]: for querying an index another
//! pipeline built with a model ragsift does not ship (a Spring AI table embedded by the team's server). The
//! dimension is the server's, read from one probe on connect; chunk sizes are counted with a local tokenizer, an
//! estimate for another model's tokenizer, as Spring's own splitter does.

use crate::embed::{normalize, Embedder};
use crate::llm::openai::{OpenAiConfig, OpenAiModel};
use crate::{Error, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Texts per request.
const BATCH: usize = 64;

/// A remote embedding model.
pub struct OpenAiEmbedder {
    api: OpenAiModel,
    id: String,
    dimensions: usize,
    max_tokens: usize,
    tokenizer: PathBuf,
}

impl OpenAiEmbedder {
    /// Connects to the server in `config` and asks it for one vector, to learn the dimension (a dead server or an
    /// unknown model fails here, clearly). `tokenizer` counts tokens for chunking.
    pub fn connect(config: OpenAiConfig, tokenizer: &Path, max_tokens: usize) -> Result<Self> {
        let mut embedder = OpenAiEmbedder {
            id: format!("openai:{}", config.model),
            api: OpenAiModel::new(config)?,
            dimensions: 0,
            max_tokens,
            tokenizer: tokenizer.to_path_buf(),
        };
        embedder.dimensions = embedder.embed(&["dimension probe"])?.first().map(Vec::len).unwrap_or(0);
        if embedder.dimensions == 0 {
            return Err(Error::Protocol(format!(
                "{} returned an empty embedding",
                embedder.api.config().base_url
            )));
        }
        Ok(embedder)
    }
}

/// The vectors of an OpenAI `embeddings` answer, in input order (by each item's `index`).
fn parse(answer: &Value, expected: usize, server: &str) -> Result<Vec<Vec<f32>>> {
    let bad = |why: &str| Error::Protocol(format!("{server}: embeddings answer {why}"));
    let data = answer["data"].as_array().ok_or_else(|| bad("has no data array"))?;
    if data.len() != expected {
        return Err(bad(&format!("has {} vectors for {expected} texts", data.len())));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (i, item) in data.iter().enumerate() {
        let at = item["index"].as_u64().map_or(i, |x| x as usize);
        let vector: Vec<f32> = item["embedding"]
            .as_array()
            .ok_or_else(|| bad("has an item without an embedding array (base64 is not asked for)"))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("has a non-numeric component"))?;
        *out.get_mut(at).ok_or_else(|| bad("has an index out of range"))? = Some(vector);
    }
    let out: Vec<Vec<f32>> = out
        .into_iter()
        .collect::<Option<_>>()
        .ok_or_else(|| bad("repeats an index"))?;
    if out.windows(2).any(|w| w[0].len() != w[1].len()) {
        return Err(bad("mixes dimensions"));
    }
    Ok(out)
}

impl Embedder for OpenAiEmbedder {
    fn id(&self) -> &str {
        &self.id
    }
    fn dimensions(&self) -> usize {
        self.dimensions
    }
    fn max_tokens(&self) -> usize {
        self.max_tokens
    }
    fn tokenizer_path(&self) -> &Path {
        &self.tokenizer
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let server = self.api.config().base_url.clone();
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let body = json!({"model": self.api.config().model, "input": batch, "encoding_format": "float"});
            let answer = self.api.post_json("embeddings", &body)?;
            for mut v in parse(&answer, batch.len(), &server)? {
                if self.dimensions > 0 && v.len() != self.dimensions {
                    return Err(Error::Protocol(format!(
                        "{server} returned {} dimensions, earlier {}",
                        v.len(),
                        self.dimensions
                    )));
                }
                normalize(&mut v);
                out.push(v);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_put_back_in_input_order_and_checked() {
        let answer = json!({"data": [
            {"index": 1, "embedding": [0.0, 2.0]},
            {"index": 0, "embedding": [1.0, 0.0]},
        ]});
        assert_eq!(parse(&answer, 2, "s").unwrap(), vec![vec![1.0, 0.0], vec![0.0, 2.0]]);
        assert!(parse(&answer, 3, "s").is_err());
        let mixed = json!({"data": [{"embedding": [1.0]}, {"embedding": [1.0, 2.0]}]});
        assert!(parse(&mixed, 2, "s").unwrap_err().to_string().contains("mixes"));
        let base64 = json!({"data": [{"embedding": "AAAA"}]});
        assert!(parse(&base64, 1, "s").is_err());
    }
}

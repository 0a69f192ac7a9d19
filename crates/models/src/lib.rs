//! ragsift's models: the local ONNX embedder (`embed`, shared by concurrent callers through `embed_queue`) and
//! the language models (`llm`: an embedded GGUF through llama.cpp, or an OpenAI-compatible server).

pub mod embed;
pub mod embed_http;
pub mod embed_queue;
pub mod llm;

pub use embed::{Embedder, FastEmbedder};
pub use llm::{ChatMessage, GenerateOptions, LanguageModel};
pub use ragsift_core::{Error, Result};

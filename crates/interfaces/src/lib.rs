//! ragsift's interfaces: the stage traits that the heavy implementations provide, and the plain types they
//! exchange. Nothing here builds C or C++, so the crates above it (the judge, the pipeline, the evaluation) build
//! and test without llama.cpp, ONNX Runtime, usearch or SQLite; the workbench assembles the real implementations.
//!
//! - [`embed::Embedder`]: text → vectors (ONNX through fastembed in `ragsift-models`).
//! - [`llm::LanguageModel`]: chat, plain completion, yes/no probabilities (llama.cpp or an OpenAI-compatible
//!   server in `ragsift-models`).
//! - [`store::LibraryStore`] and [`store::VectorIndex`]: documents, chunks, runs, the judgment cache, labels and
//!   vectors (SQLite with usearch, or PostgreSQL with pgvector, in `ragsift-store`).
//! - [`retrieve::Retriever`]: a search over a library (`ragsift-store`).
//! - [`store::TermStats`]: document frequencies, for the local judge's IDF weights.

pub mod embed;
pub mod llm;
pub mod retrieve;
pub mod store;

pub use embed::Embedder;
pub use llm::{CancelToken, ChatMessage, Completion, GenerateOptions, LanguageModel};
pub use retrieve::{Hit, Retriever, SearchMode, SearchRequest};
pub use store::{LibraryStore, TermStats, VectorIndex};

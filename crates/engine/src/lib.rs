//! ragsift's engine: PDFs and text in, token chunks embedded with a local ONNX model, stored in SQLite and a
//! usearch index, and retrieved by vector, keyword or hybrid search. No GUI dependency; the CLI and the
//! desktop shell are thin layers over it. See ARCHITECTURE.md for the stages and the data on disk.

pub mod chunk;
pub mod compute;
pub mod config;
pub mod embed;
pub mod error;
pub mod eval;
pub mod extract;
pub mod ids;
pub mod index;
pub mod judge;
pub mod library;
pub mod llm;
pub mod pipeline;
pub mod policy;
pub mod progress;
pub mod retrieve;
pub mod store;
pub mod workbench;

pub use config::{RuntimePaths, Settings};
pub use embed::{Embedder, FastEmbedder};
pub use error::{Error, Result};
pub use library::{FileReport, IngestReport, Library};
pub use llm::{CancelToken, ChatMessage, GenerateOptions, LanguageModel};
pub use retrieve::{Hit, LibraryRetriever, Retriever, SearchMode, SearchRequest};

//! ragsift's store: the SQLite database (`sqlite`), the usearch vector index (`index`), the library that keeps
//! both consistent through ingest and crashes (`library`), and vector, keyword and hybrid retrieval (`retrieve`).

pub mod backend;
pub mod config;
pub mod index;
mod journal;
pub mod library;
pub mod location;
pub mod pg;
pub mod retrieve;
mod sql;
pub mod sqlite;
pub mod writer;

pub use backend::{DocumentStore, JudgmentStore, LibraryStore, RunStore, StoreInfo, StoreKind};
pub use config::{LibraryConfig, OcrSetup};
pub use library::{FileReport, IngestOptions, IngestReport, Library};
pub use ragsift_core::{Error, Result};
pub use retrieve::{Hit, LibraryRetriever, Retriever, SearchMode, SearchRequest};

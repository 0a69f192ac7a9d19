//! ragsift's library: ingest that keeps the database and the vector index consistent through crashes
//! (`library`), vector, keyword and hybrid retrieval (`retrieve`, focused on named parts by `focus`), where a library lives (`location`), its config
//! (`config`) and the cross-process writer lock (`writer`), over the storage of `ragsift-store`.

pub mod config;
pub mod focus;
pub mod library;
pub mod location;
pub mod retrieve;
pub mod writer;

pub use config::{LibraryConfig, OcrSetup};
pub use library::{FileReport, IngestOptions, IngestReport, Library};
pub use ragsift_core::{Error, Result};
pub use retrieve::{Hit, LibraryRetriever, Retriever, SearchMode, SearchRequest};

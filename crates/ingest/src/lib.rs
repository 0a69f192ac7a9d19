//! ragsift's ingest: files in, page texts in reading order out (`extract`), then token-aware chunks (`chunk`).

pub mod chunk;
pub mod extract;

pub use ragsift_core::{Error, Result};

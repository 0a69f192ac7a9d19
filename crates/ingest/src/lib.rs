//! ragsift's ingest: files in, page texts in reading order out (`extract`, which also names the document in
//! `extract/title.rs`), then token-aware chunks (`chunk`); `worker` runs extraction in a child process with limits,
//! and `progress` tells which page it is on. Behind the `test-support` feature, for tests and benchmarks only:
//! `quality` measures extracted text against a reference, `fuzz` mutates real files, `synth` and `corpus` write PDFs.

pub mod chunk;
#[cfg(any(test, feature = "test-support"))]
pub mod corpus;
pub mod extract;
#[cfg(any(test, feature = "test-support"))]
pub mod fuzz;
pub mod progress;
#[cfg(any(test, feature = "test-support"))]
pub mod quality;
pub mod structure;
#[doc(hidden)]
#[cfg(any(test, feature = "test-support"))]
pub mod synth;
pub use extract::title;
pub mod worker;

pub use ragsift_core::{Error, Result};

/// The version of what ingest makes of a file: raised with every change to extraction or chunking that changes the
/// text, the tables or the chunks of some file. A library's chunk ids carry it (`LibraryConfig::chunk_version`), so
/// after an upgrade the next ingest reads each file again instead of keeping what an older extractor made of it.
/// 2: a table is read past its section titles, and labels set in the middle of their rows reach each row.
/// 3: one row under a "Table N" caption is a table.
pub const EXTRACTION_VERSION: u32 = 3;

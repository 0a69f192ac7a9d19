//! ragsift's ingest: files in, page texts in reading order out (`extract`), then token-aware chunks (`chunk`);
//! `quality` measures extracted text against a reference; `fuzz` mutates real files to check that every input ends in text or a typed error;
//! `title` names a document; `worker` runs extraction in a child process with limits; `synth` writes large PDFs
//! for tests and benchmarks.

pub mod chunk;
pub mod corpus;
pub mod extract;
pub mod fuzz;
pub mod progress;
pub mod quality;
pub mod structure;
#[doc(hidden)]
pub mod synth;
pub use extract::title;
pub mod worker;

pub use ragsift_core::{Error, Result};

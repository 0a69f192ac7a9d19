//! ragsift's core, which every other crate builds on: the one error enum, content ids, cancel tokens, progress
//! events, the one deterministic generator, the lock that keeps CPU-heavy models from running at once, and where
//! the runtime and models live.
#![deny(missing_docs)]

pub mod bounded;
pub mod cancel;
pub mod compute;
pub mod document_kind;
pub mod error;
pub mod fsx;
pub mod ids;
pub mod lru;
pub mod paths;
pub mod place;
pub mod progress;
pub mod read;
pub mod rng;
pub mod secret;

pub use cancel::CancelToken;
pub use document_kind::DocumentKind;
pub use error::{DbError, Error, FieldProblem, JudgeCode, NoTextOcr, Result};
pub use paths::RuntimePaths;
pub use place::{page_range, ChunkPlace, PageBox};

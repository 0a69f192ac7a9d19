//! ragsift's storage: the SQLite database (`sqlite`), the usearch vector index with its journal (`index`),
//! PostgreSQL + pgvector and read-only Spring AI tables (`pg`), behind `interfaces`' store traits (`backend`).
//! The library that keeps them consistent through ingest is `ragsift-library`.

pub mod backend;
pub mod index;
mod journal;
pub mod pg;
mod sql;
pub mod sqlite;

pub use backend::{DocumentStore, JudgmentStore, LibraryStore, RunStore, StoreInfo, StoreKind};
pub use ragsift_core::{Error, Result};

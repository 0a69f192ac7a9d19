//! Progress events of long work (ingest, embedding), for a CLI progress bar or the app's channel.

use serde::Serialize;

/// One step of an ingest. Files are numbered from 1.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum IngestEvent {
    /// The inputs were expanded into this many files.
    Scanned {
        files: usize,
    },
    FileStarted {
        file: usize,
        total: usize,
        path: String,
    },
    Extracted {
        file: usize,
        pages: usize,
        chunks: usize,
    },
    /// Chunks of the current file embedded so far.
    Embedding {
        file: usize,
        done: usize,
        total: usize,
    },
    FileFinished {
        file: usize,
        total: usize,
        path: String,
        status: String,
    },
    /// The vector index is being written to disk.
    Saving,
}

/// Receives progress; `&|_| {}` ignores it.
pub type Progress<'a> = &'a (dyn Fn(&IngestEvent) + Sync);

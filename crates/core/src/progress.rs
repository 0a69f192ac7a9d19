//! Progress events of long work (ingest, embedding), for a CLI progress bar or the app's channel.

use serde::{Deserialize, Serialize};

/// How one file of an ingest ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum IngestStatus {
    /// Extracted, chunked, embedded and stored.
    Ingested,
    /// Same bytes as stored: nothing was redone.
    Unchanged,
    /// Refused or failed; the error says why, and nothing of it was stored.
    Failed,
    /// The ingest was cancelled before this file was done.
    Cancelled,
}

impl IngestStatus {
    /// The status as the CLI and the JSON write it.
    pub fn as_str(self) -> &'static str {
        match self {
            IngestStatus::Ingested => "ingested",
            IngestStatus::Unchanged => "unchanged",
            IngestStatus::Failed => "failed",
            IngestStatus::Cancelled => "cancelled",
        }
    }
}

impl std::fmt::Display for IngestStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step of an ingest. Files are numbered from 1.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum IngestEvent {
    /// The inputs were expanded into this many files.
    Scanned {
        /// Files found.
        files: usize,
    },
    /// A file's turn came.
    FileStarted {
        /// Its number.
        file: usize,
        /// Files in the batch.
        total: usize,
        /// Its path.
        path: String,
    },
    /// A file's text was extracted and chunked.
    Extracted {
        /// Its number.
        file: usize,
        /// Pages with text.
        pages: usize,
        /// Chunks made.
        chunks: usize,
    },
    /// Chunks of the current file embedded so far.
    Embedding {
        /// Its number.
        file: usize,
        /// Chunks embedded.
        done: usize,
        /// Chunks to embed.
        total: usize,
    },
    /// A file is done, one way or another.
    FileFinished {
        /// Its number.
        file: usize,
        /// Files in the batch.
        total: usize,
        /// Its path.
        path: String,
        /// How it ended.
        status: IngestStatus,
    },
    /// The vector index is being written to disk.
    Saving,
    /// OCR is reading a page without text (a scanned page) of the current file.
    Ocr {
        /// The file's number.
        file: usize,
        /// Which of the file's pages to read, from 1.
        page: usize,
        /// Pages to read by OCR in this file.
        pages: usize,
    },
    /// Another process is writing to the library; this one waits for it to finish.
    WaitingForWriter {
        /// Seconds waited so far.
        seconds: u64,
    },
}

/// Receives progress; `&|_| {}` ignores it.
pub type Progress<'a> = &'a (dyn Fn(&IngestEvent) + Sync);

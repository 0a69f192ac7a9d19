//! The engine's one error type: every failure a caller can branch on, with a message a person understands.

use std::path::PathBuf;

/// Result alias used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine.
///
/// Per-file ingest failures (`Encrypted`, `Corrupt`, `NoText`, `TooLarge`, `Unsupported`) carry the file so a
/// batch can report them and go on; the others are about the library, the runtime or the models.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: the PDF is encrypted and needs a password (the empty password did not open it)")]
    Encrypted { path: PathBuf },
    #[error("{path}: the file is damaged or not a valid {kind} ({detail})")]
    Corrupt {
        path: PathBuf,
        kind: &'static str,
        detail: String,
    },
    #[error("{path}: no extractable text on pages {pages} (scanned or image-only; OCR is not supported)")]
    NoText { path: PathBuf, pages: String },
    #[error("{path}: the file is {size_mb:.1} MB, over the {limit_mb} MB limit")]
    TooLarge { path: PathBuf, size_mb: f64, limit_mb: u64 },
    #[error("{path}: unsupported file type (ragsift reads .pdf, .txt and .md)")]
    Unsupported { path: PathBuf },
    #[error("{path}: text extraction took longer than {seconds} s and was abandoned")]
    Timeout { path: PathBuf, seconds: u64 },
    #[error("{0}")]
    Setup(String),
    #[error("model error: {0}")]
    Model(String),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("database error: {0}")]
    Db(#[from] rusqlite::Error),
    #[error("vector index error: {0}")]
    Index(String),
    #[error("{0}")]
    Auth(String),
    #[error("{0}")]
    ModelNotFound(String),
    #[error("{0}")]
    RateLimited(String),
    #[error("{0}")]
    Unreachable(String),
    #[error("{0}")]
    Protocol(String),
    #[error("the prompt is {prompt} tokens and {reserve} more are reserved for the answer, over the model's context of {context} tokens")]
    ContextOverflow {
        prompt: usize,
        reserve: usize,
        context: usize,
    },
    #[error("judge failed ({code}): {message}")]
    Judge { code: &'static str, message: String },
    #[error("not found: {0}")]
    NotFound(String),
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A stored run can no longer be replayed (its inputs changed, or the judge's questions did).
    #[error("{0}")]
    Stale(String),
    #[error("cancelled")]
    Cancelled,
    /// The component cannot do this (e.g. an HTTP model asked for token log-probabilities of given text).
    #[error("not supported: {0}")]
    NotSupported(String),
}

impl Error {
    /// A short stable code for machines (CLI JSON; the app maps it to its few IPC codes).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Encrypted { .. } => "encrypted",
            Error::Corrupt { .. } => "corrupt",
            Error::NoText { .. } => "no_text",
            Error::TooLarge { .. } => "too_large",
            Error::Unsupported { .. } => "unsupported",
            Error::Timeout { .. } => "timeout",
            Error::Setup(_) => "setup",
            Error::Model(_) => "model",
            Error::Io { .. } => "io",
            Error::Db(_) => "database",
            Error::Index(_) => "index",
            Error::Auth(_) => "auth",
            Error::ModelNotFound(_) => "model_not_found",
            Error::RateLimited(_) => "rate_limited",
            Error::Unreachable(_) => "unreachable",
            Error::Protocol(_) => "protocol",
            Error::ContextOverflow { .. } => "context_overflow",
            Error::Judge { .. } => "judge",
            Error::NotFound(_) => "not_found",
            Error::Invalid(_) => "invalid",
            Error::Stale(_) => "stale",
            Error::Cancelled => "cancelled",
            Error::NotSupported(_) => "not_supported",
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

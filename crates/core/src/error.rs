//! The engine's one error type: every failure a caller can branch on, with a message a person understands.

use std::fmt;
use std::path::PathBuf;

/// Result alias used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine.
///
/// Per-file ingest failures (`Encrypted`, `Corrupt`, `NoText`, `TooLarge`, `Unsupported`) carry the file so a
/// batch can report them and go on; the others are about the library, the runtime or the models.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The PDF needs a password.
    #[error("{path}: the PDF is encrypted and needs a password (the empty password did not open it)")]
    Encrypted {
        /// The file.
        path: PathBuf,
    },
    /// The file cannot be parsed.
    #[error("{path}: the file is damaged or not a valid {kind} ({detail})")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What it should have been (`PDF`, `UTF-8 text`).
        kind: &'static str,
        /// The parser's complaint.
        detail: String,
    },
    /// No page has text: a scan that OCR did not read, or images only (a photo, a chart) where OCR found none.
    #[error("{path}: {}", no_text_message(.pages, *.ocr))]
    NoText {
        /// The file.
        path: PathBuf,
        /// The pages, as a range list.
        pages: String,
        /// Whether OCR read the pages too, and if not, why not.
        ocr: NoTextOcr,
    },
    /// Over the configured size limit.
    #[error("{path}: the file is {size_mb:.1} MB, over the {limit_mb} MB limit")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size_mb: f64,
        /// The limit (`max_file_mb`).
        limit_mb: u64,
    },
    /// Not a file type any loader reads.
    #[error("{path}: unsupported file type (ragsift reads .pdf, .txt and .md)")]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
    /// Extraction ran past its deadline and was abandoned.
    #[error("{path}: text extraction took longer than {seconds} s and was abandoned")]
    Timeout {
        /// The file.
        path: PathBuf,
        /// The deadline.
        seconds: u64,
    },
    /// The file's extraction worker died, overran its processor time or ran out of memory: only this file failed.
    #[error("{path}: {reason}; only this file failed")]
    Hostile {
        /// The file.
        path: PathBuf,
        /// What the worker ran into, and where ("the PDF exhausted the 2048 MiB memory limit while decoding
        /// page 3").
        reason: String,
    },
    /// Something set-up installs is missing (runtime, model files).
    #[error("{0}")]
    Setup(String),
    /// A model failed to load or run.
    #[error("model error: {0}")]
    Model(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The disk (or the user's quota) is full: nothing was half-written, the old file is kept.
    #[error("{}", disk_full_message(.path, *.needed, *.free))]
    DiskFull {
        /// The file being written.
        path: PathBuf,
        /// Bytes the write needed, when known.
        needed: Option<u64>,
        /// Bytes free on its file system, when known.
        free: Option<u64>,
    },
    /// SQLite failed (the store turns its engine's error into this plain one, so that core needs no database).
    #[error("database error: {0}")]
    Db(DbError),
    /// The library's database server (PostgreSQL) refused a statement.
    #[error("database server error: {0}")]
    Server(String),
    /// The usearch index failed.
    #[error("vector index error: {0}")]
    Index(String),
    /// A server refused the credentials.
    #[error("{0}")]
    Auth(String),
    /// A server does not know the model asked for.
    #[error("{0}")]
    ModelNotFound(String),
    /// A server kept answering 429 after the retries.
    #[error("{0}")]
    RateLimited(String),
    /// A server or database could not be reached.
    #[error("{0}")]
    Unreachable(String),
    /// A server answered something its wire format does not allow.
    #[error("{0}")]
    Protocol(String),
    /// The prompt does not fit the model's context.
    #[error("the prompt is {prompt} tokens and {reserve} more are reserved for the answer, over the model's context of {context} tokens")]
    ContextOverflow {
        /// Tokens in the prompt.
        prompt: usize,
        /// Tokens kept for the answer.
        reserve: usize,
        /// The model's context window.
        context: usize,
    },
    /// The judge failed; the pipeline fails open and records the code.
    #[error("judge failed ({code}): {message}")]
    Judge {
        /// The judge's own code (its wire text is rag-jev's `error_code`).
        code: JudgeCode,
        /// What went wrong.
        message: String,
    },
    /// A document, run, page or file does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// The caller's input is not acceptable (the message names the field).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// A stored run can no longer be replayed (its inputs changed, or the judge's questions did).
    #[error("{0}")]
    Stale(String),
    /// The user cancelled the work.
    #[error("cancelled")]
    Cancelled,
    /// Another process held the library's writer lock for longer than this one would wait.
    #[error("{0}")]
    Busy(String),
    /// The component cannot do this (e.g. an HTTP model asked for token log-probabilities of given text).
    #[error("not supported: {0}")]
    NotSupported(String),
}

/// Whether OCR was tried on the pages of a [`Error::NoText`] file, and if not, why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoTextOcr {
    /// OCR read the pages and found no text either.
    Read,
    /// OCR is turned off in the settings (`ocr = false`).
    Off,
    /// OCR was not run: Tesseract (or its languages, or poppler's `pdftoppm`) is not installed.
    Missing,
}

fn disk_full_message(path: &std::path::Path, needed: Option<u64>, free: Option<u64>) -> String {
    let mb = |b: u64| format!("{:.1} MB", b as f64 / 1_048_576.0);
    let mut m = format!("{}: the disk is full", path.display());
    match (needed, free) {
        (Some(n), Some(f)) => m += &format!(" (the write needs about {}, {} is free)", mb(n), mb(f)),
        (Some(n), None) => m += &format!(" (the write needs about {})", mb(n)),
        (None, Some(f)) => m += &format!(" ({} is free)", mb(f)),
        (None, None) => {}
    }
    m + "; nothing was half-written: free some space and try again"
}

fn no_text_message(pages: &str, ocr: NoTextOcr) -> String {
    match ocr {
        NoTextOcr::Read => format!("no text found on pages {pages}, also not by OCR"),
        NoTextOcr::Off => {
            format!("no extractable text on pages {pages} (scanned or image-only; OCR is turned off in the settings)")
        }
        NoTextOcr::Missing => {
            format!("no extractable text on pages {pages} (scanned or image-only; install tesseract-ocr for OCR)")
        }
    }
}

impl Error {
    /// The same error, a [`Error::NoText`] saying what OCR did (`ocr`); any other error unchanged.
    pub fn with_ocr(self, ocr: NoTextOcr) -> Self {
        match self {
            Error::NoText { path, pages, .. } => Error::NoText { path, pages, ocr },
            e => e,
        }
    }

    /// Whether the failure follows from the file's bytes alone (and the OCR set-up), so that reading the unchanged
    /// file again fails the same way: encrypted, damaged, no text. Not a size limit, timeout or I/O error.
    pub fn is_lasting(&self) -> bool {
        matches!(
            self,
            Error::Encrypted { .. } | Error::Corrupt { .. } | Error::NoText { .. } | Error::Hostile { .. }
        )
    }

    /// A short stable code for machines (CLI JSON; the app maps it to its few IPC codes).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Encrypted { .. } => "encrypted",
            Error::Corrupt { .. } => "corrupt",
            Error::NoText { .. } => "no_text",
            Error::TooLarge { .. } => "too_large",
            Error::Unsupported { .. } => "unsupported",
            Error::Timeout { .. } => "timeout",
            Error::Hostile { .. } => "extraction_stopped",
            Error::Setup(_) => "setup",
            Error::Model(_) => "model",
            Error::Io { .. } => "io",
            Error::DiskFull { .. } => "disk_full",
            Error::Db(_) if self.is_disk_full() => "disk_full",
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
            Error::Busy(_) => "busy",
            Error::Server(_) => "server",
        }
    }

    /// An [`Error::Io`] for `path`, or [`Error::DiskFull`] when the OS says the disk is full.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        if crate::fsx::is_disk_full(&source) {
            let free = crate::fsx::free_bytes(&path);
            return Error::DiskFull {
                path,
                needed: None,
                free,
            };
        }
        Error::Io { path, source }
    }

    /// Whether this is the disk being full, also as SQLite or the vector index say it.
    pub fn is_disk_full(&self) -> bool {
        match self {
            Error::DiskFull { .. } => true,
            Error::Db(e) => e.disk_full,
            _ => false,
        }
    }
}

/// Why a judge failed, as rag-jev names it in `error_code` (the provider's failures), or the engine's own code
/// when the engine failed under a judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeCode {
    /// The provider refused the key.
    ProviderAuth,
    /// The provider does not know the model.
    ProviderBadModel,
    /// The provider rejected the request's fields.
    ProviderValidation,
    /// The provider's rate limit.
    ProviderRateLimit,
    /// The provider is overloaded.
    ProviderOverloaded,
    /// The provider failed otherwise (a 5xx, an unexpected status, a broken connection).
    ProviderError,
    /// One call timed out.
    ProviderTimeout,
    /// The request's total deadline passed.
    DeadlineExceeded,
    /// The provider could not be reached.
    ProviderUnreachable,
    /// The provider's answer could not be read, or lacked answers.
    InvalidProviderResponse,
    /// The provider's answer lacked its usage.
    MissingProviderUsage,
    /// Too many passages for one contextual request.
    ContextualCandidateLimit,
    /// Too many tokens for one contextual request.
    ContextualTokenLimit,
    /// The judge's configuration is unusable (no key, a bad URL).
    ProviderConfig,
    /// The request itself is invalid.
    InvalidRequest,
    /// The local judge has no fitted model for a question.
    NotFitted,
    /// The engine failed under the judge: [`Error::code`] of that failure.
    Engine(&'static str),
}

impl JudgeCode {
    /// The code as rag-jev writes it in `error_code`.
    pub fn as_str(self) -> &'static str {
        match self {
            JudgeCode::ProviderAuth => "provider_auth",
            JudgeCode::ProviderBadModel => "provider_bad_model",
            JudgeCode::ProviderValidation => "provider_validation",
            JudgeCode::ProviderRateLimit => "provider_rate_limit",
            JudgeCode::ProviderOverloaded => "provider_overloaded",
            JudgeCode::ProviderError => "provider_error",
            JudgeCode::ProviderTimeout => "provider_timeout",
            JudgeCode::DeadlineExceeded => "deadline_exceeded",
            JudgeCode::ProviderUnreachable => "provider_unreachable",
            JudgeCode::InvalidProviderResponse => "invalid_provider_response",
            JudgeCode::MissingProviderUsage => "missing_provider_usage",
            JudgeCode::ContextualCandidateLimit => "contextual_candidate_limit",
            JudgeCode::ContextualTokenLimit => "contextual_token_limit",
            JudgeCode::ProviderConfig => "provider_config",
            JudgeCode::InvalidRequest => "invalid_request",
            JudgeCode::NotFitted => "not_fitted",
            JudgeCode::Engine(code) => code,
        }
    }
}

impl JudgeCode {
    /// The code in rag-jev's own vocabulary (what its service and CLI answer): the refinements it does not name (a
    /// bad model, a rejected request, overload, one call's timeout, an unreachable host) are its `provider_error`.
    pub fn rag_jev(self) -> &'static str {
        match self {
            JudgeCode::ProviderBadModel
            | JudgeCode::ProviderValidation
            | JudgeCode::ProviderOverloaded
            | JudgeCode::ProviderTimeout
            | JudgeCode::ProviderUnreachable => "provider_error",
            other => other.as_str(),
        }
    }
}

impl fmt::Display for JudgeCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A database engine's error as text, and whether the engine said its disk is full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    /// The engine's message.
    pub message: String,
    /// True when the engine reported a full disk (SQLite's `SQLITE_FULL`).
    pub disk_full: bool,
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One problem with one setting, keyed by its path (`chunk_tokens`, `chat.endpoint`), so a form can show it next
/// to the field. The rules live in Rust only; the app asks for them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FieldProblem {
    /// The setting's path.
    pub field: String,
    /// What is wrong and what is allowed, in plain words.
    pub message: String,
}

impl FieldProblem {
    /// A problem with `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldProblem {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The first of `problems` as an [`Error::Invalid`] naming the field, or `Ok` when there are none.
    pub fn first_as_error(problems: &[FieldProblem]) -> Result<()> {
        match problems.first() {
            Some(p) => Err(Error::Invalid(format!("{}: {}", p.field, p.message))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// rag-jev's service names only its own codes: the refinements become its `provider_error`.
    #[test]
    fn judge_codes_in_rag_jevs_vocabulary() {
        for refined in [
            JudgeCode::ProviderBadModel,
            JudgeCode::ProviderValidation,
            JudgeCode::ProviderOverloaded,
            JudgeCode::ProviderTimeout,
            JudgeCode::ProviderUnreachable,
        ] {
            assert_eq!(refined.rag_jev(), "provider_error", "{refined}");
        }
        for own in [
            JudgeCode::ProviderAuth,
            JudgeCode::ProviderRateLimit,
            JudgeCode::DeadlineExceeded,
            JudgeCode::InvalidProviderResponse,
            JudgeCode::ContextualTokenLimit,
        ] {
            assert_eq!(own.rag_jev(), own.as_str());
        }
    }

    /// A file without text says what OCR did, or why it did not run; never that OCR is not supported.
    #[test]
    fn no_text_says_what_ocr_did() {
        let err = |ocr| {
            Error::NoText {
                path: "scan.pdf".into(),
                pages: "1–3".into(),
                ocr,
            }
            .to_string()
        };
        assert_eq!(
            err(NoTextOcr::Read),
            "scan.pdf: no text found on pages 1–3, also not by OCR"
        );
        assert_eq!(
            err(NoTextOcr::Missing),
            "scan.pdf: no extractable text on pages 1–3 (scanned or image-only; install tesseract-ocr for OCR)"
        );
        assert!(err(NoTextOcr::Off).contains("OCR is turned off in the settings"));
        let read = Error::NoText {
            path: "scan.pdf".into(),
            pages: "2".into(),
            ocr: NoTextOcr::Missing,
        }
        .with_ocr(NoTextOcr::Read);
        assert!(matches!(
            read,
            Error::NoText {
                ocr: NoTextOcr::Read,
                ..
            }
        ));
        assert!(read.is_lasting() && !Error::Cancelled.is_lasting());
    }
}

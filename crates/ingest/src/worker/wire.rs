//! What passes between a worker and its parent: one JSON line per request and per reply, with the extracted pages
//! whole (boxes and headings included) and the typed per-file error rebuilt on the parent's side.

use crate::extract::{Decoding, Extracted, Limits, OcrOptions, OcrStop, PageText, Table};
use crate::structure::{Heading, TextLine};
use ragsift_core::{Error, NoTextOcr};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One file to extract.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request {
    pub path: PathBuf,
    pub max_file_mb: u64,
    pub timeout_ms: u64,
    /// OCR's options, when pages are to be read by OCR.
    pub ocr: Option<WireOcr>,
}

/// [`OcrOptions`] across the pipe.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireOcr {
    languages: String,
    dpi: u32,
    page_ms: u64,
    max_pages: u32,
    total_ms: u64,
}

impl Request {
    pub fn new(path: &Path, limits: Limits, ocr: Option<&OcrOptions>) -> Self {
        Request {
            path: path.to_path_buf(),
            max_file_mb: limits.max_file_mb,
            timeout_ms: limits.timeout.as_millis() as u64,
            ocr: ocr.map(|o| WireOcr {
                languages: o.languages.clone(),
                dpi: o.dpi,
                page_ms: o.timeout.as_millis() as u64,
                max_pages: o.max_pages,
                total_ms: o.total_timeout.as_millis() as u64,
            }),
        }
    }

    pub fn limits(&self) -> Limits {
        Limits {
            max_file_mb: self.max_file_mb,
            timeout: Duration::from_millis(self.timeout_ms),
        }
    }

    pub fn ocr(&self) -> Option<OcrOptions> {
        self.ocr.as_ref().map(|o| OcrOptions {
            languages: o.languages.clone(),
            dpi: o.dpi,
            timeout: Duration::from_millis(o.page_ms),
            max_pages: o.max_pages,
            total_timeout: Duration::from_millis(o.total_ms),
        })
    }
}

/// A worker's line: progress, then the result.
#[derive(Debug, Serialize, Deserialize)]
pub enum Reply {
    /// Decoding this page now (0: opening the file).
    Page(u32),
    /// OCR is reading the k-th of n pages.
    Ocr(usize, usize),
    /// The file's pages, or why it has none.
    Done(Box<Result<WireExtracted, WireError>>),
}

/// A page with everything the chunker and the Page view use.
#[derive(Debug, Serialize, Deserialize)]
pub struct WirePage {
    number: u32,
    text: String,
    failed: bool,
    ocr: bool,
    decoding: Decoding,
    lines: Vec<TextLine>,
    headings: Vec<Heading>,
    #[serde(default)]
    tables: Vec<Table>,
    #[serde(default)]
    hidden_kept: u32,
    #[serde(default)]
    furniture: Vec<String>,
    #[serde(default)]
    nesting_cut: bool,
}

/// [`Extracted`] across the pipe.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireExtracted {
    kind: ragsift_core::DocumentKind,
    pages: Vec<WirePage>,
    empty_pages: Vec<u32>,
    failed_pages: Vec<u32>,
    ocr_pages: Vec<u32>,
    reread_pages: Vec<u32>,
    garbled_pages: Vec<u32>,
    #[serde(default)]
    hidden_pages: Vec<u32>,
    #[serde(default)]
    cut_pages: Vec<u32>,
    #[serde(default)]
    ocr_stop: Option<OcrStop>,
    ocr: Option<u8>,
    #[serde(default)]
    title: String,
}

impl From<Extracted> for WireExtracted {
    fn from(ex: Extracted) -> Self {
        WireExtracted {
            kind: ex.kind,
            pages: (ex.pages.into_iter())
                .map(|p| WirePage {
                    number: p.number,
                    text: p.text,
                    failed: p.failed,
                    ocr: p.ocr,
                    decoding: p.decoding,
                    lines: p.lines,
                    headings: p.headings,
                    tables: p.tables,
                    hidden_kept: p.hidden_kept,
                    furniture: p.furniture,
                    nesting_cut: p.nesting_cut,
                })
                .collect(),
            empty_pages: ex.empty_pages,
            failed_pages: ex.failed_pages,
            ocr_pages: ex.ocr_pages,
            reread_pages: ex.reread_pages,
            garbled_pages: ex.garbled_pages,
            hidden_pages: ex.hidden_pages,
            cut_pages: ex.cut_pages,
            ocr_stop: ex.ocr_stop,
            ocr: ex.ocr.map(ocr_code),
            title: ex.title,
        }
    }
}

impl From<WireExtracted> for Extracted {
    fn from(w: WireExtracted) -> Self {
        Extracted {
            kind: w.kind,
            pages: (w.pages.into_iter())
                .map(|p| PageText {
                    number: p.number,
                    text: p.text,
                    failed: p.failed,
                    ocr: p.ocr,
                    decoding: p.decoding,
                    lines: p.lines,
                    headings: p.headings,
                    tables: p.tables,
                    hidden_kept: p.hidden_kept,
                    furniture: p.furniture,
                    nesting_cut: p.nesting_cut,
                })
                .collect(),
            empty_pages: w.empty_pages,
            failed_pages: w.failed_pages,
            ocr_pages: w.ocr_pages,
            reread_pages: w.reread_pages,
            garbled_pages: w.garbled_pages,
            hidden_pages: w.hidden_pages,
            cut_pages: w.cut_pages,
            ocr_stop: w.ocr_stop,
            ocr: w.ocr.map(ocr_of),
            title: w.title,
        }
    }
}

fn ocr_code(o: NoTextOcr) -> u8 {
    match o {
        NoTextOcr::Read => 0,
        NoTextOcr::Off => 1,
        NoTextOcr::Missing => 2,
    }
}

fn ocr_of(c: u8) -> NoTextOcr {
    match c {
        0 => NoTextOcr::Read,
        1 => NoTextOcr::Off,
        _ => NoTextOcr::Missing,
    }
}

/// A per-file error across the pipe (the path is the request's).
#[derive(Debug, Serialize, Deserialize)]
pub enum WireError {
    Encrypted,
    Corrupt { kind: String, detail: String },
    NoText { pages: String, ocr: u8 },
    TooLarge { size_mb: f64, limit_mb: u64 },
    Unsupported,
    Timeout { seconds: u64 },
    DiskFull,
    Other { message: String },
}

impl WireError {
    pub fn of(e: &Error) -> Self {
        match e {
            Error::Encrypted { .. } => WireError::Encrypted,
            Error::Corrupt { kind, detail, .. } => WireError::Corrupt {
                kind: (*kind).to_string(),
                detail: detail.clone(),
            },
            Error::NoText { pages, ocr, .. } => WireError::NoText {
                pages: pages.clone(),
                ocr: ocr_code(*ocr),
            },
            Error::TooLarge { size_mb, limit_mb, .. } => WireError::TooLarge {
                size_mb: *size_mb,
                limit_mb: *limit_mb,
            },
            Error::Unsupported { .. } => WireError::Unsupported,
            Error::Timeout { seconds, .. } => WireError::Timeout { seconds: *seconds },
            Error::DiskFull { .. } => WireError::DiskFull,
            other => WireError::Other {
                message: other.to_string(),
            },
        }
    }

    pub fn into_error(self, path: &Path) -> Error {
        let path = path.to_path_buf();
        match self {
            WireError::Encrypted => Error::Encrypted { path },
            WireError::Corrupt { kind, detail } => Error::Corrupt {
                path,
                kind: match kind.as_str() {
                    "PDF" => "PDF",
                    "UTF-8 text" => "UTF-8 text",
                    _ => "document",
                },
                detail,
            },
            WireError::NoText { pages, ocr } => Error::NoText {
                path,
                pages,
                ocr: ocr_of(ocr),
            },
            WireError::TooLarge { size_mb, limit_mb } => Error::TooLarge {
                path,
                size_mb,
                limit_mb,
            },
            WireError::Unsupported => Error::Unsupported { path },
            WireError::Timeout { seconds } => Error::Timeout { path, seconds },
            WireError::DiskFull => Error::DiskFull {
                free: ragsift_core::fsx::free_bytes(&path),
                path,
                needed: None,
            },
            // The worker's message already names the path.
            WireError::Other { message } => Error::Io {
                path,
                source: std::io::Error::other(message),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{OcrLimit, OcrStop};

    /// OCR's budgets reach the worker, and the pages it left come back with the rest.
    #[test]
    fn ocr_budgets_and_their_stop_cross_the_pipe() {
        let options = OcrOptions {
            max_pages: 7,
            total_timeout: Duration::from_secs(42),
            ..OcrOptions::default()
        };
        let limits = Limits {
            max_file_mb: 10,
            timeout: Duration::from_secs(3),
        };
        let line = serde_json::to_string(&Request::new(Path::new("a.pdf"), limits, Some(&options))).unwrap();
        let back: Request = serde_json::from_str(&line).unwrap();
        assert_eq!(back.ocr(), Some(options));
        let stop = OcrStop {
            done: 7,
            wanted: 9,
            left: vec![8, 9],
            why: OcrLimit::Pages(7),
        };
        let ex = Extracted {
            kind: ragsift_core::DocumentKind::Text,
            pages: vec![PageText {
                number: 1,
                text: "x".into(),
                ..PageText::default()
            }],
            empty_pages: vec![],
            failed_pages: vec![],
            ocr_pages: vec![],
            reread_pages: vec![],
            garbled_pages: vec![],
            hidden_pages: vec![],
            cut_pages: vec![],
            ocr_stop: Some(stop.clone()),
            ocr: None,
            title: String::new(),
        };
        let line = serde_json::to_string(&WireExtracted::from(ex)).unwrap();
        let back = Extracted::from(serde_json::from_str::<WireExtracted>(&line).unwrap());
        assert_eq!(back.ocr_stop, Some(stop));
        assert_eq!(back.kind, ragsift_core::DocumentKind::Text);
    }
}

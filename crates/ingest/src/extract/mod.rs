//! Loaders: turn a file into page texts in reading order. PDFs through lopdf + pdf-extract + our layout,
//! `.txt` and `.md` as one page. Bad files become typed errors; a hang or a parser panic never takes the batch down.

mod fonts;
mod forms;
mod furniture;
mod garble;
mod guard;
mod hidden;
mod inflate;
mod layout;
pub mod lexicon;
pub mod normalize;
mod ocr;
mod one_page;
mod outline;
mod pdf;
mod place;
mod poppler;
mod repair;
pub mod title;
mod type1;

pub use garble::looks_garbled;
pub use ocr::{available as ocr_available, read_page as ocr_page, OcrLimit, OcrOptions, OcrStop};
pub use poppler::available as poppler_available;
pub use ragsift_core::read::read_capped;

/// A positioned glyph, for laying out glyphs given directly in the layout fuzz tests (`tests/fuzz_layout.rs`).
#[doc(hidden)]
pub use layout::{Glyph, Table, TableRow};

/// The text the reading-order layout makes of `glyphs`, for the layout fuzz tests.
#[doc(hidden)]
pub fn layout_text(glyphs: &[Glyph]) -> String {
    layout::page_text(glyphs)
}

/// The text the layout makes of one page's `glyphs`, its furniture (text set at another angle) apart: for tests on
/// glyphs taken from real pages (`ragsift-bench glyphs`).
#[doc(hidden)]
pub fn layout_page(glyphs: &[Glyph]) -> (String, Vec<String>) {
    let laid = layout::page_layout(glyphs);
    (laid.text, laid.aside)
}

/// The tables the layout finds in one page's `glyphs`: for tests on glyphs taken from real pages.
#[doc(hidden)]
pub fn layout_tables(glyphs: &[Glyph]) -> Vec<Table> {
    layout::page_layout(glyphs).tables
}

/// The visible glyphs of page `number` (1-based) of a PDF, as the layout gets them: for `ragsift-bench glyphs`.
#[doc(hidden)]
pub fn page_glyphs(path: &Path, number: u32) -> Result<Vec<Glyph>> {
    let bytes = read_capped(path, 200)?;
    pdf::page_glyphs(path, &bytes, number)
}

use crate::structure::{Heading, TextLine};
use crate::{Error, Result};
use ragsift_core::DocumentKind;
use serde::Serialize;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

const EXTRACT_THREAD: &str = "ragsift-extract";

/// The extraction thread's stack: pdf-extract recurses per nested form and per page-tree level (both bounded by
/// the guard), far past the 2 MiB a spawned thread gets by default.
const EXTRACT_STACK_BYTES: usize = 64 << 20;

/// The text of one page; `failed` marks a page whose content could not be fully decoded.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PageText {
    pub number: u32,
    pub text: String,
    #[serde(skip)]
    pub failed: bool,
    /// The text was read from the page's image by OCR (the page has no text layer).
    #[serde(default)]
    pub ocr: bool,
    /// How the page's glyphs were decoded.
    #[serde(skip)]
    pub decoding: Decoding,
    /// Where each laid-out line of `text` lies on the page (empty for plain text and OCR pages).
    #[serde(skip)]
    pub lines: Vec<TextLine>,
    /// The headings found on the page, in the order of `text`.
    #[serde(skip)]
    pub headings: Vec<Heading>,
    /// The tables found on the page, each body row rendered with its header (see [`Table`]).
    #[serde(skip)]
    pub tables: Vec<Table>,
    /// Characters drawn invisibly (render mode 3 or 7, no opacity) beside the page's visible text, kept because
    /// they overlap nothing: a reader of the page does not see them (see [`Extracted::hidden_pages`]).
    #[serde(skip)]
    pub hidden_kept: u32,
    /// Text on the page that is not its body: running headers and footers and page numbers (found across the
    /// document's pages), stamps up the margin and watermarks (set at another angle than the body). Kept for the
    /// page view, left out of chunks.
    #[serde(default)]
    pub furniture: Vec<String>,
    /// Forms drawn on the page were nested too deep or drawn too often, and were cut: some text may be missing.
    #[serde(skip)]
    pub nesting_cut: bool,
}

/// How a page's glyphs became text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum Decoding {
    /// By its fonts' own maps (pdf-extract), the usual way.
    #[default]
    Fonts,
    /// Read again by poppler, because the usual way failed part way or came out garbled.
    Poppler,
    /// Still garbled after every way was tried (or poppler is not installed): a warning names the page.
    Garbled,
    /// Read by OCR from the page's image, because every decoding of its glyphs came out garbled.
    Ocr,
}

/// A file's pages, plus the pages that yielded no text (scanned or image-only pages).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Extracted {
    /// What kind of file it was read from (the loader's).
    pub kind: DocumentKind,
    pub pages: Vec<PageText>,
    pub empty_pages: Vec<u32>,
    pub failed_pages: Vec<u32>,
    /// Pages whose text OCR read.
    pub ocr_pages: Vec<u32>,
    /// Pages read again by poppler after the usual decoding failed or came out garbled.
    pub reread_pages: Vec<u32>,
    /// Pages whose text still looks garbled.
    pub garbled_pages: Vec<u32>,
    /// Pages holding text that is drawn but not seen (render mode 3 or 7, no opacity) beside their visible text.
    #[serde(default)]
    pub hidden_pages: Vec<u32>,
    /// Pages whose nested forms were cut at the guard's bounds (some of their text may be missing).
    #[serde(default)]
    pub cut_pages: Vec<u32>,
    /// OCR ran out of its page or time budget: the pages it did not read (see [`OcrOptions`]).
    #[serde(default)]
    pub ocr_stop: Option<OcrStop>,
    /// Whether OCR ran (`Read`), and if not, why not; `None` when the caller did not say (see [`Extracted::with_ocr`]).
    #[serde(skip)]
    pub ocr: Option<ragsift_core::NoTextOcr>,
    /// The document's title (see [`crate::extract::title::document_title`]).
    pub title: String,
}

impl Extracted {
    /// The same pages, saying whether OCR ran and if not why (turned off, or Tesseract missing), as
    /// [`Error::with_ocr`] does for a file without text: the warning then says how to read garbled pages.
    #[must_use]
    pub fn with_ocr(mut self, ocr: ragsift_core::NoTextOcr) -> Self {
        self.ocr = Some(ocr);
        self
    }

    /// A warning for a person when some pages were skipped, e.g. "no extractable text on pages 2, 5".
    pub fn warning(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.empty_pages.is_empty() {
            parts.push(format!("no extractable text on pages {}", page_list(&self.empty_pages)));
        }
        // Pages OCR read because they had no text, and those it read instead of garbage.
        let (replaced, scanned): (Vec<&PageText>, Vec<&PageText>) = self
            .pages
            .iter()
            .filter(|p| p.ocr)
            .partition(|p| p.decoding == Decoding::Ocr);
        let numbers = |pages: Vec<&PageText>| pages.iter().map(|p| p.number).collect::<Vec<u32>>();
        let (replaced, scanned) = (numbers(replaced), numbers(scanned));
        if !scanned.is_empty() {
            parts.push(format!("pages {} read by OCR", page_list(&scanned)));
        }
        if !replaced.is_empty() {
            parts.push(format!(
                "pages {} decoded as garbage; read by OCR instead",
                page_list(&replaced)
            ));
        }
        if let Some(stop) = &self.ocr_stop {
            parts.push(stop.warning());
        }
        if !self.reread_pages.is_empty() {
            parts.push(format!(
                "pages {} decoded again by poppler (their fonts' own maps failed or gave garbage)",
                page_list(&self.reread_pages)
            ));
        }
        if !self.garbled_pages.is_empty() {
            parts.push(format!(
                "pages {} look garbled (fonts without a usable text map); {}",
                page_list(&self.garbled_pages),
                garble::advice(self.ocr, poppler::available())
            ));
        }
        if !self.cut_pages.is_empty() {
            parts.push(format!(
                "pages {} draw forms nested deeper than {} or more than {} times: the rest was not read, so some \
                 text may be missing",
                page_list(&self.cut_pages),
                guard::MAX_FORM_DEPTH,
                guard::MAX_FORM_CALLS_PER_PAGE
            ));
        }
        if !self.hidden_pages.is_empty() {
            parts.push(format!(
                "text drawn invisibly (render mode 3 or fully transparent) beside visible text on pages {}: kept, \
                 so check it for planted instructions",
                page_list(&self.hidden_pages)
            ));
        }
        if !self.failed_pages.is_empty() {
            parts.push(format!(
                "pages {} could not be fully decoded",
                page_list(&self.failed_pages)
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A loader: a named stage that reads one kind of file into pages.
pub trait Loader: Send + Sync {
    fn name(&self) -> &'static str;
    /// The kind of file it reads (what the library stores of a document it read).
    fn kind(&self) -> DocumentKind;
    fn accepts(&self, path: &Path) -> bool;
    fn load(&self, path: &Path, bytes: &[u8]) -> Result<Vec<PageText>>;
    /// [`Loader::load`], with the title the file's metadata gives, if any.
    fn load_titled(&self, path: &Path, bytes: &[u8]) -> Result<(Vec<PageText>, Option<String>)> {
        Ok((self.load(path, bytes)?, None))
    }
}

/// PDFs, page by page.
pub struct PdfLoader;

impl Loader for PdfLoader {
    fn name(&self) -> &'static str {
        "pdf"
    }
    fn kind(&self) -> DocumentKind {
        DocumentKind::Pdf
    }
    fn accepts(&self, path: &Path) -> bool {
        has_ext(path, &["pdf"])
    }
    fn load(&self, path: &Path, bytes: &[u8]) -> Result<Vec<PageText>> {
        pdf::extract_pdf(path, bytes).map(|(pages, _)| pages)
    }
    fn load_titled(&self, path: &Path, bytes: &[u8]) -> Result<(Vec<PageText>, Option<String>)> {
        pdf::extract_pdf(path, bytes)
    }
}

/// Plain text and Markdown, as one page. Text is decoded as UTF-8, falling back to Latin-1.
pub struct TextLoader;

impl Loader for TextLoader {
    fn name(&self) -> &'static str {
        "text"
    }
    fn kind(&self) -> DocumentKind {
        DocumentKind::Text
    }
    fn accepts(&self, path: &Path) -> bool {
        has_ext(path, &["txt", "md", "markdown", "text"])
    }
    fn load(&self, path: &Path, bytes: &[u8]) -> Result<Vec<PageText>> {
        let raw = match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            Err(_) if bytes.contains(&0) => {
                return Err(Error::Corrupt {
                    path: path.into(),
                    kind: "text file",
                    detail: "binary content".into(),
                })
            }
            Err(_) => bytes.iter().map(|&b| b as char).collect(),
        };
        let text = if has_ext(path, &["md", "markdown"]) {
            normalize::normalize_markdown(&raw)
        } else {
            normalize::normalize_text(&raw)
        };
        Ok(vec![PageText {
            number: 1,
            text,
            failed: false,
            ocr: false,
            decoding: Decoding::Fonts,
            ..PageText::default()
        }])
    }
}

/// The loaders ragsift knows, in the order they are asked.
pub fn default_loaders() -> Vec<Box<dyn Loader>> {
    vec![Box::new(PdfLoader), Box::new(TextLoader)]
}

/// True when some loader reads this file (used to pick files out of a folder).
pub fn is_supported(path: &Path) -> bool {
    default_loaders().iter().any(|l| l.accepts(path))
}

/// Limits applied to every file.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_file_mb: u64,
    pub timeout: Duration,
}

/// Reads and extracts one file: a regular file within the size limit only (checked before it is opened, and the
/// read capped), then the loader on its own thread with a deadline, so a panic or a pathological file costs one
/// error, not the process. Fails with `NoText` when no page has text.
pub fn extract_file(path: &Path, limits: Limits) -> Result<Extracted> {
    if !is_supported(path) {
        return Err(Error::Unsupported { path: path.into() });
    }
    let bytes = read_capped(path, limits.max_file_mb)?;
    extract_bytes(path, bytes, limits)
}

/// [`extract_file`], reading by OCR when `ocr` is given (PDFs only) the pages that have no text and those whose
/// glyphs still decode as garbage after poppler's reading (`Decoding::Garbled`: OCR's text replaces theirs when it
/// reads as words, then `Decoding::Ocr`); `on_ocr(k, n)` reports the k-th of n pages being read. A page OCR cannot
/// read stays empty (or garbled) and is reported as such; when no page has text, `NoText` says whether OCR read
/// them (without `ocr`, it says OCR is missing: callers that know it is turned off say so with
/// [`Error::with_ocr`], and with [`Extracted::with_ocr`] for the warning about garbled pages).
pub fn extract_file_with_ocr(
    path: &Path,
    limits: Limits,
    ocr: Option<&OcrOptions>,
    on_ocr: &dyn Fn(usize, usize),
) -> Result<Extracted> {
    let Some(options) = ocr.filter(|_| PdfLoader.accepts(path)) else {
        return extract_file(path, limits);
    };
    if !is_supported(path) {
        return Err(Error::Unsupported { path: path.into() });
    }
    let bytes = read_capped(path, limits.max_file_mb)?;
    let (kind, (mut pages, title)) = load_pages(path, bytes, limits)?;
    let stop = ocr::read_pages(path, &mut pages, options, on_ocr);
    finish(path, kind, pages, title)
        .map(|ex| Extracted { ocr_stop: stop, ..ex }.with_ocr(ragsift_core::NoTextOcr::Read))
        .map_err(|e| e.with_ocr(ragsift_core::NoTextOcr::Read))
}

/// The detail of the error for a loader that panicked past its own guards.
pub const PARSER_CRASHED: &str = "the parser crashed";

/// [`extract_file`] on bytes already read (`path` picks the loader and names the file in errors); the size limit is
/// the caller's.
pub fn extract_bytes(path: &Path, bytes: Vec<u8>, limits: Limits) -> Result<Extracted> {
    let (kind, (pages, title)) = load_pages(path, bytes, limits)?;
    finish(path, kind, pages, title)
}

/// The loader on its own thread with the deadline: its kind, the pages and the metadata's title.
type Loaded = (DocumentKind, (Vec<PageText>, Option<String>));
fn load_pages(path: &Path, bytes: Vec<u8>, limits: Limits) -> Result<Loaded> {
    let loader = default_loaders()
        .into_iter()
        .find(|l| l.accepts(path))
        .ok_or_else(|| Error::Unsupported { path: path.into() })?;
    let kind = loader.kind();
    let (tx, rx) = mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::Builder::new()
        .name(EXTRACT_THREAD.into())
        .stack_size(EXTRACT_STACK_BYTES)
        .spawn(move || {
            let _ = tx.send(loader.load_titled(&owned, &bytes));
        })
        .map_err(|e| Error::io(path, e))?;
    let pages = match rx.recv_timeout(limits.timeout) {
        Ok(result) => result?,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            return Err(Error::Timeout {
                path: path.into(),
                seconds: limits.timeout.as_secs(),
            })
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            return Err(Error::Corrupt {
                path: path.into(),
                kind: "document",
                detail: PARSER_CRASHED.into(),
            })
        }
    };
    Ok((kind, pages))
}

/// Which pages are empty, failed or read by OCR, and the title; `NoText` when no page has text.
fn finish(path: &Path, kind: DocumentKind, pages: Vec<PageText>, metadata_title: Option<String>) -> Result<Extracted> {
    let ocr_pages: Vec<u32> = pages.iter().filter(|p| p.ocr).map(|p| p.number).collect();
    let empty_pages: Vec<u32> = pages
        .iter()
        .filter(|p| p.text.trim().is_empty())
        .map(|p| p.number)
        .collect();
    let failed_pages: Vec<u32> = pages.iter().filter(|p| p.failed).map(|p| p.number).collect();
    let decoded = |how: Decoding| -> Vec<u32> {
        pages
            .iter()
            .filter(|p| p.decoding == how && !p.ocr)
            .map(|p| p.number)
            .collect()
    };
    let (reread_pages, garbled_pages) = (decoded(Decoding::Poppler), decoded(Decoding::Garbled));
    let hidden_pages: Vec<u32> = pages.iter().filter(|p| p.hidden_kept > 0).map(|p| p.number).collect();
    let cut_pages: Vec<u32> = pages.iter().filter(|p| p.nesting_cut).map(|p| p.number).collect();
    if empty_pages.len() == pages.len() {
        return Err(Error::NoText {
            path: path.into(),
            pages: page_list(&empty_pages),
            ocr: ragsift_core::NoTextOcr::Missing,
        });
    }
    Ok(Extracted {
        kind,
        title: crate::extract::title::document_title(path, metadata_title.as_deref(), &pages),
        pages,
        empty_pages,
        failed_pages,
        ocr_pages,
        reread_pages,
        garbled_pages,
        hidden_pages,
        cut_pages,
        ocr_stop: None,
        ocr: None,
    })
}

/// Keeps panic messages of extraction threads off the terminal (their failure is reported as an error instead).
pub fn install_quiet_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(EXTRACT_THREAD) {
            previous(info);
        }
    }));
}

fn has_ext(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// "1–3, 7" style list of page numbers.
pub fn page_list(pages: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pages.len() {
        let mut j = i;
        while j + 1 < pages.len() && pages[j + 1] == pages[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}–{}", pages[i], pages[j])
        } else {
            pages[i].to_string()
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_lists_are_compact() {
        assert_eq!(page_list(&[1, 2, 3, 7, 9, 10]), "1–3, 7, 9–10");
        assert_eq!(page_list(&[4]), "4");
    }
}

//! OCR of image-only PDF pages, and of pages whose glyphs decode as garbage, with Tesseract: poppler's `pdftoppm`
//! renders the page to a grayscale image, the `tesseract` command reads it. Both are external programs that setup
//! installs (Debian's `tesseract-ocr` and `poppler-utils`); without them OCR is simply unavailable and scanned
//! pages stay "no extractable text".

use super::{Decoding, PageText};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest one page may take by default, rendering and reading together (a dense A4 page at 300 dpi takes
/// some 3 s on two cores).
pub const PAGE_TIMEOUT: Duration = Duration::from_secs(60);
/// At most this many pages of a file are read by OCR by default.
pub const MAX_PAGES: u32 = 300;
/// The longest OCR of one file may take by default, all its pages together (about 200 dense pages on two cores).
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(540);

/// How pages are read, and how much of a file OCR may take: pages done within the budget keep their text, and
/// [`OcrStop`] names the pages left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrOptions {
    /// Tesseract's language codes joined by `+`, e.g. `eng` or `eng+deu`.
    pub languages: String,
    /// Rendering resolution (Tesseract reads best around 300 dpi).
    pub dpi: u32,
    /// Longest a page may take, rendering and reading together ([`PAGE_TIMEOUT`]); a page past it stays unread.
    pub timeout: Duration,
    /// The most pages of one file OCR reads ([`MAX_PAGES`]).
    pub max_pages: u32,
    /// Longest OCR may take for one file, all pages together ([`TOTAL_TIMEOUT`]). An extraction worker's deadline
    /// leaves room for it, so OCR stops and returns the pages done instead of being killed.
    pub total_timeout: Duration,
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            languages: "eng".into(),
            dpi: 300,
            timeout: PAGE_TIMEOUT,
            max_pages: MAX_PAGES,
            total_timeout: TOTAL_TIMEOUT,
        }
    }
}

/// OCR stopped before it read every page that wanted it: the pages done keep their text, these did not get any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct OcrStop {
    /// Pages OCR went through (read, or given up on singly past the per-page timeout).
    pub done: u32,
    /// Pages that wanted OCR (no text, or garbled).
    pub wanted: u32,
    /// The pages not read, in order.
    pub left: Vec<u32>,
    /// Which budget ran out.
    pub why: OcrLimit,
}

/// The budget OCR ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum OcrLimit {
    /// The page budget ([`OcrOptions::max_pages`]).
    Pages(u32),
    /// The time budget for the file, in seconds ([`OcrOptions::total_timeout`]).
    Seconds(u64),
}

impl OcrStop {
    /// "OCR stopped after 180 of 200 pages (its budget of 180 pages); pages 181–200 have no text from OCR".
    pub fn warning(&self) -> String {
        let why = match self.why {
            OcrLimit::Pages(n) => format!("its budget of {n} pages"),
            OcrLimit::Seconds(s) => format!("its time budget of {s} s"),
        };
        format!(
            "OCR stopped after {} of {} pages ({why}); pages {} have no text from OCR",
            self.done,
            self.wanted,
            super::page_list(&self.left)
        )
    }
}

/// Whether `tesseract` and `pdftoppm` can run here, and every language in `languages` is installed.
pub fn available(languages: &str) -> bool {
    let runs = |program: &str, arg: &str| {
        Command::new(program)
            .arg(arg)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .ok()
    };
    if runs("pdftoppm", "-v").is_none() {
        return false;
    }
    let Some(out) = runs("tesseract", "--list-langs") else {
        return false;
    };
    let listed = String::from_utf8_lossy(&out.stdout).to_string();
    let installed: Vec<&str> = listed.lines().skip(1).map(str::trim).collect();
    languages.split('+').all(|l| installed.contains(&l.trim()))
}

/// Runs `command` to completion within `deadline`, killing it past it; returns its stdout.
fn run(mut command: Command, deadline: Instant, path: &Path, what: &str) -> Result<Vec<u8>> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::io(path, e))?;
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = std::io::Read::read_to_end(out, &mut buf);
        }
        buf
    });
    loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::io(path, e))? {
            let out = reader.join().unwrap_or_default();
            return if status.success() {
                Ok(out)
            } else {
                Err(Error::Corrupt {
                    path: path.into(),
                    kind: "scanned page",
                    detail: format!("{what} failed ({status})"),
                })
            };
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Timeout {
                path: path.into(),
                seconds: 0,
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The text Tesseract reads on page `page` (1-based) of the PDF at `pdf`, paragraphs separated by blank lines.
pub fn read_page(pdf: &Path, page: u32, options: &OcrOptions) -> Result<String> {
    read_page_by(pdf, page, options, Instant::now() + options.timeout)
}

/// [`read_page`], given up at `deadline`.
fn read_page_by(pdf: &Path, page: u32, options: &OcrOptions, deadline: Instant) -> Result<String> {
    let dir = tempfile::tempdir().map_err(|e| Error::io(pdf, e))?;
    let image = dir.path().join("page.png");
    let mut render = Command::new("pdftoppm");
    render
        .args(["-r", &options.dpi.to_string(), "-gray", "-png", "-singlefile"])
        .args(["-f", &page.to_string(), "-l", &page.to_string()])
        .arg(pdf)
        .arg(dir.path().join("page"));
    run(render, deadline, pdf, "rendering the page")?;
    let mut read = Command::new("tesseract");
    read.arg(&image).arg("stdout").args(["-l", &options.languages]);
    let text = run(read, deadline, pdf, "tesseract")?;
    Ok(tidy(&String::from_utf8_lossy(&text)))
}

/// Reads by OCR the pages that have no text and, when `garbled` is set, the pages whose glyphs decoded as garbage
/// (`Decoding::Garbled`), calling `on_ocr(k, n)` before the k-th of n. An empty page takes any text OCR finds; a
/// garbled page takes it only when it is readable (some words, not garbled itself), then `Decoding::Ocr`.
///
/// OCR reads at most [`OcrOptions::max_pages`] pages, each within [`OcrOptions::timeout`], all within
/// [`OcrOptions::total_timeout`]: when a budget runs out, the pages read keep their text and the [`OcrStop`]
/// returned names the pages left.
pub(super) fn read_pages(
    path: &Path,
    pages: &mut [PageText],
    options: &OcrOptions,
    on_ocr: &dyn Fn(usize, usize),
) -> Option<OcrStop> {
    let wanted: Vec<usize> = (0..pages.len())
        .filter(|&i| pages[i].text.trim().is_empty() || pages[i].decoding == Decoding::Garbled)
        .collect();
    let all_by = Instant::now() + options.total_timeout;
    for (k, &i) in wanted.iter().enumerate() {
        let why = if k >= options.max_pages as usize {
            Some(OcrLimit::Pages(options.max_pages))
        } else if Instant::now() >= all_by {
            Some(OcrLimit::Seconds(options.total_timeout.as_secs()))
        } else {
            None
        };
        if let Some(why) = why {
            return Some(stop(pages, &wanted, k, why));
        }
        on_ocr(k + 1, wanted.len());
        crate::progress::at_page(pages[i].number);
        let page_by = (Instant::now() + options.timeout).min(all_by);
        let read = read_page_by(path, pages[i].number, options, page_by);
        if read.is_err() && Instant::now() >= all_by {
            // Cut by the file's budget, not by its own timeout: this page is left with the rest.
            return Some(stop(
                pages,
                &wanted,
                k,
                OcrLimit::Seconds(options.total_timeout.as_secs()),
            ));
        }
        let Ok(text) = read else {
            continue;
        };
        let page = &mut pages[i];
        if page.text.trim().is_empty() && !text.trim().is_empty() {
            page.text = text;
            page.ocr = true;
            page.failed = false;
        } else if page.decoding == Decoding::Garbled && readable(&text) {
            // The laid-out lines and headings were the garbage's: the page is OCR's text alone now.
            *page = PageText {
                number: page.number,
                text,
                ocr: true,
                decoding: Decoding::Ocr,
                ..PageText::default()
            };
        }
    }
    None
}

/// The stop after `done` of the `wanted` pages (indices into `pages`).
fn stop(pages: &[PageText], wanted: &[usize], done: usize, why: OcrLimit) -> OcrStop {
    OcrStop {
        done: done as u32,
        wanted: wanted.len() as u32,
        left: wanted[done..].iter().map(|&i| pages[i].number).collect(),
        why,
    }
}

/// At least this many words of two letters or more make OCR's reading of a garbled page worth keeping.
const MIN_WORDS: usize = 3;

/// Whether OCR's text reads as words: enough of them, and not garbled itself.
fn readable(text: &str) -> bool {
    let words = text
        .split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    words >= MIN_WORDS && !super::garble::looks_garbled(text)
}

/// Tesseract's output as ragsift's page text: lines of a paragraph joined (hyphenated line ends re-joined),
/// paragraphs separated by one blank line, form feeds dropped.
fn tidy(raw: &str) -> String {
    raw.replace('\u{c}', "")
        .split("\n\n")
        .map(|p| {
            let lines: Vec<String> = p
                .lines()
                .map(super::normalize::clean_line)
                .filter(|l| !l.is_empty())
                .collect();
            super::normalize::join_lines(&lines)
        })
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::{readable, tidy};

    #[test]
    fn ocr_text_is_kept_for_a_garbled_page_only_when_it_reads_as_words() {
        assert!(readable("The battery keeps its charge for two full days."));
        assert!(!readable("~ | 4 ."));
        assert!(!readable(&"\u{E041}\u{E042} ".repeat(40)));
    }

    #[test]
    fn tesseract_output_becomes_paragraphs() {
        let raw = "Orion-7 Battery\n\nThe battery is cov-\nered by a warranty.\n\n\n\u{c}";
        assert_eq!(tidy(raw), "Orion-7 Battery\n\nThe battery is covered by a warranty.");
    }
}

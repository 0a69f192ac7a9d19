//! OCR of image-only PDF pages, and of pages whose glyphs decode as garbage, with Tesseract: poppler's `pdftoppm`
//! renders the page to a grayscale image, the `tesseract` command reads it. Both are external programs that setup
//! installs (Debian's `tesseract-ocr` and `poppler-utils`); without them OCR is simply unavailable and scanned
//! pages stay "no extractable text".

use super::{Decoding, PageText};
use crate::{Error, Result};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How pages are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrOptions {
    /// Tesseract's language codes joined by `+`, e.g. `eng` or `eng+deu`.
    pub languages: String,
    /// Rendering resolution (Tesseract reads best around 300 dpi).
    pub dpi: u32,
    /// Longest a page may take, rendering and reading together.
    pub timeout: Duration,
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            languages: "eng".into(),
            dpi: 300,
            timeout: Duration::from_secs(120),
        }
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
    let deadline = Instant::now() + options.timeout;
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
pub(super) fn read_pages(path: &Path, pages: &mut [PageText], options: &OcrOptions, on_ocr: &dyn Fn(usize, usize)) {
    let wanted: Vec<usize> = (0..pages.len())
        .filter(|&i| pages[i].text.trim().is_empty() || pages[i].decoding == Decoding::Garbled)
        .collect();
    for (k, &i) in wanted.iter().enumerate() {
        on_ocr(k + 1, wanted.len());
        crate::worker::at_page(pages[i].number);
        let Ok(text) = read_page(path, pages[i].number, options) else {
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

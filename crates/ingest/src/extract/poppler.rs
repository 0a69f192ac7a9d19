//! A second reading of one page through poppler's `pdftotext -bbox` (poppler-utils, already used for page
//! images), for the pages pdf-extract could not decode: a page it failed on part way, or one whose text came out
//! garbled. Poppler resolves fonts by their objects and skips a glyph it cannot map; its words, with their boxes,
//! go through the same layout as any page, so the reading order is ours.

use super::layout::Glyph;
use super::place::Frame;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The most output one page may produce (a page of text is a few hundred KB of boxes at most).
const MAX_OUTPUT: u64 = 64 << 20;

/// True when `pdftotext` can be run.
pub fn available() -> bool {
    Command::new("pdftotext")
        .arg("-v")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// One page as poppler reads it: its words as glyphs in the crop box's space (y up, origin at its bottom-left),
/// and that box.
#[derive(Debug, Default)]
pub struct PageWords {
    pub glyphs: Vec<Glyph>,
    pub frame: Option<Frame>,
}

/// The words of pages `first..=last` (1-based) of the PDF in `bytes`, one entry per page, from one run of poppler;
/// `None` when poppler is missing, fails or runs out of time.
pub fn pages_words(bytes: &[u8], first: u32, last: u32, timeout: Duration) -> Option<Vec<PageWords>> {
    let (first, last) = (first.to_string(), last.to_string());
    let mut child = Command::new("pdftotext")
        .args(["-q", "-bbox", "-enc", "UTF-8", "-f", &first, "-l", &last, "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(MAX_OUTPUT).read_to_end(&mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = writer.join();
    let out = reader.join().ok()?;
    status.filter(|s| s.success())?;
    Some(parse(&String::from_utf8_lossy(&out)))
}

/// Reads `<page height="…">` and `<word xMin="…" yMin="…" xMax="…" yMax="…">text</word>` lines, page by page.
fn parse(xhtml: &str) -> Vec<PageWords> {
    let mut height = 0.0;
    let mut pages: Vec<PageWords> = Vec::new();
    for line in xhtml.lines() {
        let line = line.trim();
        if line.starts_with("<page ") {
            height = attr(line, "height").unwrap_or(0.0);
            let width = attr(line, "width").unwrap_or(0.0);
            pages.push(PageWords {
                glyphs: Vec::new(),
                frame: Frame::new(0.0, 0.0, width, height),
            });
        } else if let (Some(rest), Some(page)) = (line.strip_prefix("<word "), pages.last_mut()) {
            let out = &mut page.glyphs;
            let (Some(x0), Some(y0), Some(x1), Some(y1)) = (
                attr(line, "xMin"),
                attr(line, "yMin"),
                attr(line, "xMax"),
                attr(line, "yMax"),
            ) else {
                continue;
            };
            let Some(text) = rest.split_once('>').and_then(|(_, t)| t.strip_suffix("</word>")) else {
                continue;
            };
            // The box runs from the font's ascent to its descent: about 1.2 font sizes, the baseline a fifth of
            // a size above its bottom.
            let size = (y1 - y0) / 1.2;
            if !(size.is_finite() && size > 0.0 && x1 >= x0) {
                continue;
            }
            out.push(Glyph {
                x: x0,
                y: height - (y1 - 0.2 * size),
                size,
                width: x1 - x0,
                text: unescape(text),
                turn: 0,
            });
        }
    }
    pages
}

fn attr(line: &str, name: &str) -> Option<f64> {
    let key = format!("{name}=\"");
    let start = line.find(&key)? + key.len();
    let end = start + line[start..].find('"')?;
    line[start..end].parse().ok()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn words_and_boxes_are_read() {
        let xhtml = r#"<page width="612.000000" height="792.000000">
    <word xMin="72.000000" yMin="60.000000" xMax="100.000000" yMax="72.000000">Fish &amp; chips</word>
    <word xMin="104.000000" yMin="60.000000" xMax="120.000000" yMax="72.000000">&lt;ok&gt;</word>
</page>"#;
        let pages = parse(xhtml);
        assert_eq!(pages.len(), 1);
        let words = &pages[0].glyphs;
        assert_eq!(words.len(), 2);
        assert_eq!(words[0].text, "Fish & chips");
        assert_eq!(words[1].text, "<ok>");
        assert!((words[0].size - 10.0).abs() < 1e-9);
        assert!((words[0].y - (792.0 - 70.0)).abs() < 1e-9);
    }
}

//! A document's title: the PDF's metadata title when it looks like one and page 1 shows it, else the largest type
//! on the first page with text, else its first short line, else the file name.

use crate::extract::{Decoding, PageText};
use std::path::Path;
use unicode_normalization::UnicodeNormalization;

/// The longest title kept, in characters.
const MAX_CHARS: usize = 200;
/// The longest first line taken as a title (the last resort before the file name).
const FIRST_LINE_MAX: usize = 120;
/// A title line is set at least this many times the page's body size.
const TITLE_OVER_BODY: f32 = 1.15;
/// Lines within this fraction of the title's size are set in the same size.
const SAME_SIZE: f32 = 0.03;
/// A title wraps over at most this many lines.
const MAX_TITLE_LINES: usize = 3;

/// The title of a document with these pages and, for a PDF, this metadata title (`/Title` of the Info
/// dictionary, decoded).
pub fn document_title(path: &Path, metadata: Option<&str>, pages: &[PageText]) -> String {
    let first = pages.iter().find(|p| !p.text.trim().is_empty());
    metadata
        .map(squash)
        .filter(|t| looks_like_title(t, path) && shown_on(t, first))
        .or_else(|| first.and_then(largest_type))
        .or_else(|| first_short_line(pages))
        .unwrap_or_else(|| file_name(path))
}

/// A PDF text string as text: UTF-16BE or UTF-8 after their byte-order mark, else PDFDocEncoding.
pub fn decode_pdf_string(bytes: &[u8]) -> String {
    match bytes {
        [0xFE, 0xFF, rest @ ..] => {
            let units: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
            String::from_utf16_lossy(&units)
        }
        [0xEF, 0xBB, 0xBF, rest @ ..] => String::from_utf8_lossy(rest).into_owned(),
        _ => bytes.iter().map(|&b| pdf_doc_char(b)).collect(),
    }
}

/// One byte of PDFDocEncoding (PDF 32000-1, annex D): Latin-1 but for 0x18–0x1F and 0x80–0xA0.
fn pdf_doc_char(b: u8) -> char {
    const LOW: [char; 8] = ['˘', 'ˇ', 'ˆ', '˙', '˝', '˛', '˚', '˜'];
    const HIGH: [char; 33] = [
        '•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘', '’', '‚', '™', 'ﬁ', 'ﬂ', 'Ł',
        'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž', '\u{FFFD}', '€',
    ];
    match b {
        0x18..=0x1F => LOW[usize::from(b - 0x18)],
        0x80..=0xA0 => HIGH[usize::from(b - 0x80)],
        0xAD => '\u{FFFD}',
        _ => char::from(b),
    }
}

/// Whitespace collapsed to single spaces, control characters dropped, trimmed.
fn squash(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a metadata title reads as a title: a sensible length, mostly letters, and not a file name, a path or a
/// template's placeholder ("untitled", "Microsoft Word - x.docx", "paper.dvi", "Paper Title (use style: …)").
pub fn looks_like_title(t: &str, path: &Path) -> bool {
    let lower = t.to_lowercase();
    let file = path.file_name().map(|f| f.to_string_lossy().to_lowercase());
    let stem = path.file_stem().map(|f| f.to_string_lossy().to_lowercase());
    const PLACEHOLDERS: [&str; 10] = [
        "untitled",
        "title",
        "no title",
        "paper title",
        "document",
        "slide 1",
        "powerpoint presentation",
        "presentation",
        "abstract",
        "microsoft word",
    ];
    const MAKERS: [&str; 6] = [
        "microsoft word",
        "microsoft powerpoint",
        "microsoft excel",
        "untitled",
        "document1",
        "doc1",
    ];
    const PARTS: [&str; 3] = ["use style", "insert title", "type title"];
    const FILE_EXTENSIONS: [&str; 22] = [
        "dvi", "doc", "docx", "dot", "dotx", "pdf", "tex", "ps", "eps", "html", "htm", "txt", "rtf", "odt", "indd",
        "qxd", "ppt", "pptx", "xls", "xlsx", "md", "fm",
    ];
    let file_like = lower
        .rsplit_once('.')
        .is_some_and(|(name, ext)| !name.is_empty() && !name.ends_with(' ') && FILE_EXTENSIONS.contains(&ext));
    let path_like = lower.contains(":\\") || lower.starts_with('/') || lower.contains('\\');
    let count = t.chars().count();
    (4..=MAX_CHARS).contains(&count)
        && mostly_letters(t)
        && !file_like
        && !path_like
        && !PLACEHOLDERS.contains(&lower.as_str())
        && !MAKERS.iter().any(|m| lower.starts_with(m))
        && !PARTS.iter().any(|p| lower.contains(p))
        && Some(&lower) != file.as_ref()
        && Some(&lower) != stem.as_ref()
}

/// At least three letters, and letters make up at least 60% of the characters other than spaces.
fn mostly_letters(t: &str) -> bool {
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let visible = t.chars().filter(|c| !c.is_whitespace()).count();
    letters >= 3 && letters * 5 >= visible * 3
}

/// Whether the page shows the metadata title as one run of words (case, accents' composition, punctuation and line
/// breaks aside): metadata often names the template, the HTML page or a working title instead. A page whose text
/// cannot be trusted (OCR, garbled) does not contradict it.
fn shown_on(title: &str, page: Option<&PageText>) -> bool {
    let Some(page) = page else {
        return true;
    };
    if page.ocr || matches!(page.decoding, Decoding::Garbled | Decoding::Ocr) {
        return true;
    }
    let words = |s: &str| -> String {
        let folded: String = s.nfkc().flat_map(char::to_lowercase).collect();
        folded
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (title, text) = (words(title), words(&page.text));
    !title.is_empty() && format!(" {text} ").contains(&format!(" {title} "))
}

/// The largest type on the page, where it reads as a title: its first line set in that size joined with the lines
/// that follow it in the same size (a wrapped title). Running headers, stamps set sideways (one glyph per line),
/// page numbers and lines no larger than the body text are passed over.
fn largest_type(page: &PageText) -> Option<String> {
    let text_of = |i: usize| {
        page.text
            .get(page.lines[i].start..page.lines[i].end)
            .map(squash)
            .unwrap_or_default()
    };
    let body = body_size(page)?;
    let fits = |i: usize| {
        let line = &page.lines[i];
        let t = text_of(i);
        line.size >= TITLE_OVER_BODY * body && mostly_letters(&t) && !is_stamp(&t)
    };
    let candidates: Vec<usize> = (0..page.lines.len()).filter(|&i| fits(i)).collect();
    let top = candidates.iter().map(|&i| page.lines[i].size).fold(0.0f32, f32::max);
    let same = |i: usize| (page.lines[i].size - top).abs() <= SAME_SIZE * top;
    let first = candidates.into_iter().find(|&i| same(i))?;
    let mut parts = vec![text_of(first)];
    let mut last = first;
    for next in first + 1..page.lines.len().min(first + MAX_TITLE_LINES) {
        let (a, b) = (&page.lines[last].bbox, &page.lines[next].bbox);
        let height = a.y1 - a.y0;
        let below = b.y0 >= a.y0 && b.y0 - a.y1 <= height;
        if !(fits(next) && same(next) && below) {
            break;
        }
        parts.push(text_of(next));
        last = next;
    }
    let mut title = String::new();
    for part in parts {
        if !title.is_empty() && !title.ends_with('-') {
            title.push(' ');
        }
        title.push_str(&part);
    }
    let title = strip_marks(&title);
    (title.chars().count() <= MAX_CHARS && mostly_letters(&title)).then_some(title)
}

/// The font size of most of the page's lines, weighted by their length.
fn body_size(page: &PageText) -> Option<f32> {
    let sizes = (page.lines.iter())
        .filter(|l| l.size > 0.0)
        .map(|l| (f64::from(l.size), l.end.saturating_sub(l.start)));
    crate::extract::layout::weighted_median(sizes).map(|s| s as f32)
}

/// An arXiv identifier stamp ("arXiv:1706.03762v7 [cs.CL] 2 Aug 2023").
fn is_stamp(t: &str) -> bool {
    t.to_lowercase().starts_with("arxiv:")
}

/// A title without the footnote marks set after it: "∗", "†", "‡", or a digit glued to a word of four letters or
/// more ("… for UNIX1").
fn strip_marks(t: &str) -> String {
    let t = t.trim_end_matches(['*', '∗', '†', '‡', '§', '¶', ' ']);
    // The first footnote's marker, which the layout sets apart from its word ("… for UNIX 1"); a title that numbers
    // its part keeps the number.
    const NUMBERED: [&str; 12] = [
        "part", "volume", "vol", "chapter", "book", "release", "version", "phase", "level", "step", "lesson", "issue",
    ];
    let t = match t.rsplit_once(' ') {
        Some((head, "1"))
            if head.rsplit(' ').next().is_some_and(|w| {
                w.chars().count() >= 4
                    && w.chars().all(char::is_alphabetic)
                    && !NUMBERED.contains(&w.to_lowercase().as_str())
            }) =>
        {
            head
        }
        _ => t,
    };
    let last = t.rsplit(' ').next().unwrap_or("");
    let mut chars = last.chars().rev();
    let glued = chars.next().is_some_and(|c| c.is_ascii_digit()) && {
        let rest: Vec<char> = chars.collect();
        rest.len() >= 4 && rest.iter().all(|c| c.is_alphabetic())
    };
    if glued {
        t[..t.len() - 1].to_string()
    } else {
        t.to_string()
    }
}

/// The first non-empty line of the text (a Markdown heading without its `#`), when it is short: on a laid-out page
/// its first line as set, in plain text its first line.
fn first_short_line(pages: &[PageText]) -> Option<String> {
    let page = pages.iter().find(|p| !p.text.trim().is_empty())?;
    let laid = (page.lines.iter())
        .filter_map(|l| page.text.get(l.start..l.end))
        .map(squash)
        .find(|l| !l.is_empty());
    let first = laid.or_else(|| {
        (page.text.lines())
            .map(|l| l.trim_start_matches('#').trim())
            .find(|l| !l.is_empty())
            .map(str::to_string)
    })?;
    (first.chars().count() <= FIRST_LINE_MAX).then_some(first)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_titles_are_decoded() {
        assert_eq!(decode_pdf_string(b"\xFE\xFF\x00A\x00\xe9"), "Aé");
        assert_eq!(decode_pdf_string(b"Caf\xe9 \x93le \x84 x"), "Café ﬁle — x");
        assert_eq!(decode_pdf_string(b"\xEF\xBB\xBFna\xc3\xafve"), "naïve");
    }

    #[test]
    fn file_names_and_placeholders_are_not_titles() {
        let path = Path::new("/tmp/paper.pdf");
        for bad in [
            "paper.dvi",
            "Microsoft Word - x.docx",
            "untitled",
            "Untitled-1",
            "1234 5678",
            "—— ??",
            "paper",
            "Paper Title (use style: paper title)",
            "C:\\Users\\me\\draft",
            "ab",
        ] {
            assert!(!looks_like_title(bad, path), "{bad}");
        }
        for good in [
            "Attention Is All You Need",
            "CVS II: Parallelizing Software Development",
            "Orion-7 Battery",
        ] {
            assert!(looks_like_title(good, path), "{good}");
        }
    }

    #[test]
    fn footnote_marks_are_stripped() {
        assert_eq!(
            strip_marks("A New Hashing Package for UNIX1"),
            "A New Hashing Package for UNIX"
        );
        assert_eq!(strip_marks("Attention Is All You Need∗"), "Attention Is All You Need");
        assert_eq!(strip_marks("Playing MP3"), "Playing MP3");
        assert_eq!(strip_marks("Orion-7"), "Orion-7");
        assert_eq!(strip_marks("Transactions for UNIX 1"), "Transactions for UNIX");
        assert_eq!(strip_marks("Python 3"), "Python 3");
        assert_eq!(strip_marks("Networking, Part 1"), "Networking, Part 1");
    }

    /// A page of laid-out lines `(text, size, top)`, one under the other.
    fn laid_page(lines: &[(&str, f32, f32)]) -> PageText {
        let mut page = PageText {
            number: 1,
            ..PageText::default()
        };
        for &(text, size, top) in lines {
            let start = page.text.len();
            page.text.push_str(text);
            page.lines.push(crate::structure::TextLine {
                start,
                end: page.text.len(),
                bbox: crate::structure::PageBox {
                    page: 1,
                    x0: 0.1,
                    y0: top,
                    x1: 0.9,
                    y1: top + size / 800.0,
                },
                size,
            });
            page.text.push('\n');
        }
        page
    }

    #[test]
    fn the_largest_type_is_the_title() {
        // An arXiv stamp set sideways (a glyph per line, in 20 pt), a title wrapped over two lines, authors with
        // footnote marks, then the body.
        let mut lines: Vec<(&str, f32, f32)> = ["a", "r", "X", "i", "v"].iter().map(|g| (*g, 20.0, 0.3)).collect();
        lines.extend([
            ("Attention Is All", 17.0, 0.10),
            ("You Need", 17.0, 0.125),
            ("Ashish Vaswani∗ Google Brain", 10.0, 0.2),
            ("arXiv:1706.03762v7 [cs.CL] 2 Aug 2023", 20.0, 0.5),
            (
                "The dominant sequence transduction models are based on complex recurrent networks.",
                10.0,
                0.3,
            ),
            (
                "We propose a new simple network architecture, the Transformer, based solely on attention.",
                10.0,
                0.32,
            ),
        ]);
        let page = laid_page(&lines);
        assert_eq!(
            document_title(Path::new("1706.03762.pdf"), None, &[page]),
            "Attention Is All You Need"
        );
    }

    #[test]
    fn metadata_the_page_does_not_show_gives_way() {
        let page = laid_page(&[("Reading Order", 18.0, 0.1), ("Body text of the page.", 10.0, 0.2)]);
        let path = Path::new("x.pdf");
        let title = |meta| document_title(path, Some(meta), std::slice::from_ref(&page));
        assert_eq!(title("Reading order"), "Reading order");
        assert_eq!(title("ragsift fixture: CSS columns"), "Reading Order");
        assert_eq!(title("x.dvi"), "Reading Order");
    }

    #[test]
    fn text_files_keep_their_first_line() {
        let page = PageText {
            number: 1,
            text: "# A heading\n\nBody text.".into(),
            ..PageText::default()
        };
        assert_eq!(document_title(Path::new("notes.md"), None, &[page]), "A heading");
        let long = PageText {
            number: 1,
            text: "x".repeat(200),
            ..PageText::default()
        };
        assert_eq!(document_title(Path::new("notes.txt"), None, &[long]), "notes.txt");
    }
}

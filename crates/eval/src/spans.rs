//! Evidence spans: a quoted phrase located in a page's text as a character range, and the overlap test that turns
//! spans into chunk labels. Labels kept as spans survive re-chunking: a chunk holds the evidence when it covers
//! most of the span, whatever the chunk size.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// A located piece of evidence: a character range `[start, end)` of one page's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Span {
    pub page: u32,
    pub start: u32,
    pub end: u32,
}

pub use ragsift_core::ChunkPlace;

/// Share of a span's characters a chunk must cover to count as holding it.
pub const MIN_COVER: f64 = 0.6;

/// A chunk's place measured against evidence spans.
pub trait Covers {
    /// The characters of `span` the chunk covers.
    fn covered_span(&self, span: &Span) -> u32;
    /// Whether the chunk covers at least [`MIN_COVER`] of `span`.
    fn holds(&self, span: &Span) -> bool;
}

impl Covers for ChunkPlace {
    fn covered_span(&self, span: &Span) -> u32 {
        self.covered(span.page, span.start, span.end)
    }

    fn holds(&self, span: &Span) -> bool {
        let len = span.end.saturating_sub(span.start).max(1);
        f64::from(self.covered_span(span)) >= MIN_COVER * f64::from(len)
    }
}

/// Text folded for matching: NFKC, lower case, ligatures split, hyphenation at line ends joined, every run of
/// whitespace one space, quotes and dashes made plain. Each folded character remembers the character index in
/// the original it came from.
fn fold(text: &str) -> (Vec<char>, Vec<u32>) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut map = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // "hyph-\nenation" → "hyphenation"
        if (c == '-' || c == '\u{00AD}') && i > 0 && chars[i - 1].is_alphabetic() {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if j > i + 1 && chars[i + 1..j].contains(&'\n') && j < chars.len() && chars[j].is_lowercase() {
                i = j;
                continue;
            }
        }
        if c == '\u{00AD}' || matches!(c, '\u{200B}'..='\u{200D}' | '\u{FEFF}') {
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            if out.last() != Some(&' ') && !out.is_empty() {
                out.push(' ');
                map.push(i as u32);
            }
            i += 1;
            continue;
        }
        let plain = match c {
            '‘' | '’' | '′' | '`' => '\'',
            '“' | '”' | '″' => '"',
            '–' | '—' | '−' | '‐' | '‑' => '-',
            other => other,
        };
        for n in plain.to_string().nfkc().flat_map(char::to_lowercase) {
            out.push(n);
            map.push(i as u32);
        }
        i += 1;
    }
    while out.last() == Some(&' ') {
        out.pop();
        map.pop();
    }
    (out, map)
}

/// Finds `quote` in `page_text`, tolerant of case, whitespace, ligatures, hyphenation and typographic quotes;
/// returns the character range in `page_text`.
pub fn locate(page_text: &str, quote: &str) -> Option<(u32, u32)> {
    let (hay, map) = fold(page_text);
    let (needle, _) = fold(quote);
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    let at = hay.windows(needle.len()).position(|w| w == needle.as_slice())?;
    let start = map[at];
    let end = map[at + needle.len() - 1] + 1;
    Some((start, end))
}

/// Whether `phrase` occurs in `text` (folded as [`locate`] does).
pub fn contains(text: &str, phrase: &str) -> bool {
    locate(text, phrase).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_across_line_breaks_ligatures_and_hyphens() {
        let page = "The ﬁle is pro-\ncessed using a sliding\nwindow of size 5.";
        let (s, e) = locate(page, "file is processed using a sliding window").unwrap();
        let chars: Vec<char> = page.chars().collect();
        let found: String = chars[s as usize..e as usize].iter().collect();
        assert!(found.starts_with("ﬁle") && found.ends_with("window"), "{found}");
        assert!(locate(page, "window of size 7").is_none());
        assert!(contains("It said “two years”.", "\"two years\""));
    }

    #[test]
    fn chunks_hold_spans_they_mostly_cover() {
        let span = Span {
            page: 3,
            start: 100,
            end: 200,
        };
        let whole = ChunkPlace {
            page_start: 2,
            page_end: 3,
            char_start: 500,
            char_end: 400,
        };
        assert!(whole.holds(&span));
        let edge = ChunkPlace {
            page_start: 3,
            page_end: 3,
            char_start: 150,
            char_end: 900,
        };
        assert_eq!(edge.covered_span(&span), 50);
        assert!(!edge.holds(&span));
        let other_page = ChunkPlace {
            page_start: 4,
            page_end: 5,
            char_start: 0,
            char_end: 10,
        };
        assert!(!other_page.holds(&span) && !other_page.on_page(3));
    }
}

//! Where a piece of text lies: a chunk's place in its document's pages, a box on a rendered page, and its pages
//! in words.

use serde::{Deserialize, Serialize};

/// A rectangle on one page, in fractions of the page's width and height measured from its top-left corner
/// (0 ≤ x0 ≤ x1 ≤ 1, 0 ≤ y0 ≤ y1 ≤ 1), so it lays over a rendering of the page at any resolution.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PageBox {
    /// The page number, from 1.
    pub page: u32,
    /// Left edge, a fraction of the width.
    pub x0: f32,
    /// Top edge, a fraction of the height.
    pub y0: f32,
    /// Right edge.
    pub x1: f32,
    /// Bottom edge.
    pub y1: f32,
}

/// A chunk's pages in words, the one format every text uses (prompts, citations, the CLI): "p. 3", or
/// "pp. 3-4" for a stretch (with a hyphen, as the prompts have always had it).
pub fn page_range(start: u32, end: u32) -> String {
    if start == end {
        format!("p. {start}")
    } else {
        format!("pp. {start}-{end}")
    }
}

/// Where a chunk sits in its document: from character `char_start` of page `page_start` to character `char_end`
/// (exclusive) of page `page_end`, pages numbered from 1 and characters counted in each page's extracted text.
/// The one chunk shape every layer shares: the chunker's drafts, the store's rows, the pipeline's candidates and
/// the evaluation's span labels all give their place as this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChunkPlace {
    /// The first page the chunk touches, from 1.
    pub page_start: u32,
    /// The last page the chunk touches (equal to `page_start` for a chunk on one page).
    pub page_end: u32,
    /// Its first character, counted in `page_start`'s text.
    pub char_start: u32,
    /// One past its last character, counted in `page_end`'s text.
    pub char_end: u32,
}

impl ChunkPlace {
    /// Its pages in words ("p. 3", "pp. 3-4"), as [`page_range`].
    pub fn pages(&self) -> String {
        page_range(self.page_start, self.page_end)
    }

    /// Whether the chunk touches `page`.
    pub fn on_page(&self, page: u32) -> bool {
        (self.page_start..=self.page_end).contains(&page)
    }

    /// How many characters of the range `[start, end)` of page `page` the chunk covers.
    pub fn covered(&self, page: u32, start: u32, end: u32) -> u32 {
        if !self.on_page(page) {
            return 0;
        }
        let lo = if page == self.page_start { self.char_start } else { 0 };
        let hi = if page == self.page_end { self.char_end } else { u32::MAX };
        end.min(hi).saturating_sub(start.max(lo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_covers_only_its_own_characters_of_its_own_pages() {
        let one = ChunkPlace {
            page_start: 2,
            page_end: 2,
            char_start: 100,
            char_end: 200,
        };
        assert_eq!(one.covered(2, 150, 250), 50);
        assert_eq!(one.covered(2, 0, 100), 0, "the end is exclusive");
        assert_eq!(one.covered(2, 199, 201), 1);
        assert_eq!(one.covered(1, 150, 250), 0, "another page");
        assert_eq!(one.pages(), "p. 2");
        let across = ChunkPlace {
            page_start: 3,
            page_end: 5,
            char_start: 900,
            char_end: 40,
        };
        assert_eq!(across.covered(3, 950, 1200), 250, "to the end of its first page");
        assert_eq!(across.covered(4, 0, 5000), 5000, "a middle page is whole");
        assert_eq!(across.covered(5, 30, 60), 10);
        assert!(across.on_page(4) && !across.on_page(6) && !across.on_page(2));
        assert_eq!(across.pages(), "pp. 3-5");
    }
}

//! Where a piece of text lies: a box on a rendered page, and its pages in words.

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

//! Where text lies on a page and which section it belongs to: line boxes and headings found by the layout, and
//! the boxes and heading path a chunk carries so that the app can show it on the rendered page.

use serde::{Deserialize, Serialize};

pub use ragsift_core::PageBox;

/// One laid-out line of a page's text: its byte range `[start, end)` in `PageText::text`, its box and its font
/// size in points (the largest on the line; 0 when unknown).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TextLine {
    pub start: usize,
    pub end: usize,
    pub bbox: PageBox,
    #[serde(default)]
    pub size: f32,
}

/// A heading found on a page: where it starts in the page's text (a byte offset), its level (1 = top, set over
/// the whole document by [`assign_levels`]), title, font size and numbering depth ("2.3 …" → 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heading {
    pub start: usize,
    pub level: u8,
    pub title: String,
    pub size: f32,
    pub depth: Option<u8>,
}

/// Sets every heading's level over the whole document. A numbered heading's level is its numbering depth. An
/// unnumbered one takes the level of the numbered headings set in the nearest font size (within 10%: "References"
/// beside "7 Conclusion"); without such, its rank among the document's heading sizes, largest first (within 5%
/// counts as the same size).
pub fn assign_levels(headings: &mut [&mut Heading]) {
    let all = || headings.iter().map(|h| &**h);
    // The size of each numbered depth: the median over its headings.
    let mut by_depth: Vec<(u8, f32)> = Vec::new();
    for depth in 1..=4u8 {
        let mut sizes: Vec<f32> = all().filter(|h| h.depth == Some(depth)).map(|h| h.size).collect();
        if !sizes.is_empty() {
            sizes.sort_by(f32::total_cmp);
            by_depth.push((depth, sizes[sizes.len() / 2]));
        }
    }
    let mut ranks: Vec<f32> = Vec::new();
    let mut sizes: Vec<f32> = all().filter(|h| h.depth.is_none()).map(|h| h.size).collect();
    sizes.sort_by(|a, b| b.total_cmp(a));
    for s in sizes {
        if ranks.last().is_none_or(|&r| s < 0.95 * r) {
            ranks.push(s);
        }
    }
    for h in headings.iter_mut() {
        h.level = match h.depth {
            Some(depth) => depth,
            None => by_depth
                .iter()
                .filter(|(_, size)| (h.size - size).abs() <= 0.1 * size)
                .min_by(|a, b| (h.size - a.1).abs().total_cmp(&(h.size - b.1).abs()))
                .map(|&(depth, _)| depth)
                .unwrap_or_else(|| {
                    let rank = ranks.iter().position(|&r| h.size >= 0.95 * r).unwrap_or(ranks.len());
                    u8::try_from(rank + 1).unwrap_or(u8::MAX)
                }),
        };
    }
}

/// The heading path in force at each heading, in document order: a heading of level L closes every open heading
/// of level L or deeper.
pub struct SectionPath {
    open: Vec<(u8, String)>,
}

impl SectionPath {
    pub fn new() -> Self {
        SectionPath { open: Vec::new() }
    }

    /// Enters a heading.
    pub fn enter(&mut self, heading: &Heading) {
        while self.open.last().is_some_and(|(level, _)| *level >= heading.level) {
            self.open.pop();
        }
        self.open.push((heading.level, heading.title.clone()));
    }

    /// The titles of the open headings, outermost first.
    pub fn titles(&self) -> Vec<String> {
        self.open.iter().map(|(_, t)| t.clone()).collect()
    }
}

impl Default for SectionPath {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{assign_levels, Heading, SectionPath};

    fn heading(title: &str, size: f32, depth: Option<u8>) -> Heading {
        Heading {
            start: 0,
            level: 0,
            title: title.into(),
            size,
            depth,
        }
    }

    #[test]
    fn levels_follow_numbering_then_size() {
        let mut headings = [
            heading("A Title", 20.0, None),
            heading("1 Intro", 14.0, Some(1)),
            heading("1.1 Scope", 12.0, Some(2)),
            heading("References", 14.2, None),
            heading("Small note", 11.9, None),
        ];
        assign_levels(&mut headings.iter_mut().collect::<Vec<_>>());
        let levels: Vec<u8> = headings.iter().map(|h| h.level).collect();
        assert_eq!(levels, vec![1, 1, 2, 1, 2]);
        let mut path = SectionPath::new();
        for h in &headings[..3] {
            path.enter(h);
        }
        assert_eq!(path.titles(), vec!["1 Intro", "1.1 Scope"]);
    }
}

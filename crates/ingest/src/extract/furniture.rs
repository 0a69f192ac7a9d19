//! Page furniture: running headers and footers, page numbers and the like, found across the pages of a document as
//! the same text (numbers aside) at the same height near the top or the bottom of most pages. They are set apart
//! from the page's body before it is laid out, so they reach neither chunks nor a table's column names, and are
//! kept as the page's furniture for the page view.

/// Text this near the top or the bottom of a page (a fraction of its height) may be furniture.
pub(crate) const BAND: f64 = 0.12;
/// The same text at heights this close (a fraction of the page height) is at the same place.
const SAME_PLACE: f64 = 0.015;
/// Furniture repeats on at least this many pages…
const MIN_PAGES: usize = 3;
/// …and on at least this share of the pages with text (a header that alternates between odd and even pages
/// is on half of them).
const MIN_SHARE: f64 = 0.2;

/// A piece of text near the top or the bottom of one page: its key (see [`key`]) and its height, as a fraction of
/// the page height from the top.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mark {
    pub key: String,
    pub at: f64,
}

/// What running text a document has: each key with the heights at which it was seen, one entry per page.
#[derive(Debug, Default)]
pub(crate) struct Furniture {
    seen: std::collections::HashMap<String, Vec<f64>>,
    needed: usize,
    /// The running text found: each key and a height at which it is seen on enough pages.
    running: Vec<(String, f64)>,
}

impl Furniture {
    /// Learns the running text of a document from the marks of each of its pages (`pages`: one list per page with
    /// text).
    pub(crate) fn learn(pages: &[Vec<Mark>]) -> Self {
        let mut seen: std::collections::HashMap<String, Vec<f64>> = std::collections::HashMap::new();
        for marks in pages {
            let mut once: Vec<(&str, f64)> = Vec::new();
            for m in marks {
                // One sighting per page and place: a page number set twice on one page counts once.
                if !once
                    .iter()
                    .any(|&(k, at)| k == m.key && (at - m.at).abs() <= SAME_PLACE)
                {
                    once.push((&m.key, m.at));
                    seen.entry(m.key.clone()).or_default().push(m.at);
                }
            }
        }
        let needed = MIN_PAGES.max((MIN_SHARE * pages.len() as f64).ceil() as usize);
        let mut running = Vec::new();
        for (key, ats) in &seen {
            for &at in ats {
                let here = ats.iter().filter(|&&a| (a - at).abs() <= SAME_PLACE).count();
                if here >= needed
                    && !running
                        .iter()
                        .any(|(k, a): &(String, f64)| k == key && (a - at).abs() <= SAME_PLACE)
                {
                    running.push((key.clone(), at));
                }
            }
        }
        Furniture { seen, needed, running }
    }

    /// Whether text with this key at this height is running text: seen at about this height on enough pages; or
    /// seen there on [`MIN_PAGES`] pages where other running text also stands (a chapter's title in the running
    /// header's place, beside the page number: each chapter's title is on too few pages to count alone).
    pub(crate) fn holds(&self, key: &str, at: f64) -> bool {
        let here = |ats: &Vec<f64>| ats.iter().filter(|&&a| (a - at).abs() <= SAME_PLACE).count();
        self.seen.get(key).is_some_and(|ats| {
            let n = here(ats);
            n >= self.needed || n >= MIN_PAGES && self.running_place(key, at)
        })
    }

    /// Whether another key is running text at this height (seen there on enough pages).
    fn running_place(&self, key: &str, at: f64) -> bool {
        (self.running.iter()).any(|(k, a)| k != key && (a - at).abs() <= SAME_PLACE)
    }

    /// Whether any running text was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.seen.values().all(|ats| ats.len() < self.needed)
    }
}

/// The key of a piece of text: lower-cased words with every run of digits as `#` (so "Page 3 of 39" and "Page 4 of
/// 39" are the same), or `None` for text with nothing to compare (no letter or digit).
pub(crate) fn key(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !digits {
                out.push('#');
            }
            digits = true;
            continue;
        }
        digits = false;
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if c.is_whitespace() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    let out = out.trim_end().to_string();
    out.chars().any(|c| c.is_alphanumeric() || c == '#').then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(text: &str, at: f64) -> Mark {
        Mark {
            key: key(text).unwrap(),
            at,
        }
    }

    /// What `n` pages teach, each page's marks made by `marks`.
    fn learn(n: usize, marks: impl Fn(usize) -> Vec<Mark>) -> Furniture {
        Furniture::learn(&(0..n).map(marks).collect::<Vec<_>>())
    }

    #[test]
    fn keys_ignore_numbers_case_and_spacing() {
        assert_eq!(key("Page 3 of 39"), key("page  4 of 40"));
        assert_eq!(key("SLUSA75B – JULY 2010"), Some("slusa#b – july #".into()));
        assert_eq!(key("12"), Some("#".into()));
        assert_eq!(key(" — "), None);
    }

    #[test]
    fn text_at_one_place_on_most_pages_is_furniture_and_body_text_is_not() {
        // Ten pages: a header at 4% on nine, a page number at 96% on all, a body line that happens to repeat on two.
        let f = learn(10, |p| {
            let mut marks = vec![mark(&format!("{}", p + 1), 0.96 + 0.001 * p as f64)];
            if p != 3 {
                marks.push(mark("SLUSA75B – REVISED JANUARY 2020", 0.04));
            }
            if p < 2 {
                marks.push(mark("Table 3. Absolute Maximum Ratings", 0.1));
            }
            marks
        });
        assert!(f.holds(&key("SLUSA75B – REVISED JANUARY 2020").unwrap(), 0.045));
        assert!(f.holds("#", 0.963));
        // The same words elsewhere on the page are not the header.
        assert!(!f.holds(&key("SLUSA75B – REVISED JANUARY 2020").unwrap(), 0.5));
        assert!(!f.holds(&key("Table 3. Absolute Maximum Ratings").unwrap(), 0.1));
        assert!(!f.is_empty());
    }

    #[test]
    fn a_chapter_title_in_the_running_header_place_is_furniture_on_its_few_pages() {
        // Twenty pages: a page number at the top corner of each; each chapter's title beside it on its 4 pages
        // (too few to count alone); a slide-like title repeated on 3 pages where no running text stands.
        let f = learn(20, |p| {
            let title = ["Intro", "Setup", "Use", "Files", "Index"][p / 4];
            let mut marks = vec![
                mark(&format!("{}", p + 1), 0.04),
                mark(&format!("Chapter {}: {title}", p / 4 + 1), 0.041),
            ];
            if p < 3 {
                marks.push(mark("Results so far", 0.09));
            }
            marks
        });
        assert!(f.holds(&key("Chapter 2: Setup").unwrap(), 0.041));
        assert!(
            !f.holds(&key("Results so far").unwrap(), 0.09),
            "no running text stands there"
        );
        assert!(
            !f.holds(&key("Chapter 2: Setup").unwrap(), 0.5),
            "elsewhere on the page it is body text"
        );
    }

    #[test]
    fn two_pages_teach_nothing() {
        let pages = vec![vec![mark("Header", 0.03)], vec![mark("Header", 0.03)]];
        let f = Furniture::learn(&pages);
        assert!(!f.holds("header", 0.03));
        assert!(f.is_empty());
    }
}

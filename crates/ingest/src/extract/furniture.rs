//! Page furniture: running headers and footers, page numbers and the like, found across the pages of a document as
//! the same text (numbers aside) at the same height near the top or the bottom of most pages. They are set apart
//! from the page's body before it is laid out, so they reach neither chunks nor a table's column names, and are
//! kept as the page's furniture for the page view.

/// Text this near the top or the bottom of a page (a fraction of its height) may be furniture.
pub(crate) const BAND: f64 = 0.14;
/// The same text at heights this close (a fraction of the page height) is at the same place.
const SAME_PLACE: f64 = 0.015;
/// Furniture repeats on at least this many pages…
const MIN_PAGES: usize = 3;
/// …and on at least this share of the pages with text (a header that alternates between odd and even pages
/// is on half of them).
const MIN_SHARE: f64 = 0.2;
/// Text level with other running text (within [`LEVEL`]) is running text from this many pages on (a chapter's title
/// in the header of a two-page chapter; an article's title on its odd pages).
const BESIDE_PAGES: usize = 2;
/// Heights this close (a fraction of the page height, some 3 points on a letter page) are level.
const LEVEL: f64 = 0.004;
/// Font sizes this close (a fraction) are the same.
const SAME_SIZE: f64 = 0.12;

/// A piece of text near the top or the bottom of one page: its key (see [`key`]), its height, as a fraction of
/// the page height from the top, and its font size.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mark {
    pub key: String,
    pub at: f64,
    pub size: f64,
}

/// Where a key was seen: the page (its index), the height and the font size.
type Sightings = Vec<(usize, f64, f64)>;

/// What running text a document has: each key with the pages and heights at which it was seen.
#[derive(Debug, Default)]
pub(crate) struct Furniture {
    seen: std::collections::HashMap<String, Sightings>,
    needed: usize,
    /// The running text found: each key, a height at which it is seen on enough pages, and its font size there.
    running: Vec<(String, f64, f64)>,
}

/// On how many pages a key was seen at heights within `near` of `at`.
fn pages_at(sightings: &Sightings, at: f64, near: f64) -> usize {
    let mut pages: Vec<usize> = (sightings.iter())
        .filter(|&&(_, a, _)| (a - at).abs() <= near)
        .map(|&(p, _, _)| p)
        .collect();
    pages.dedup();
    pages.len()
}

impl Furniture {
    /// Learns the running text of a document from the marks of each of its pages (`pages`: one list per page with
    /// text).
    pub(crate) fn learn(pages: &[Vec<Mark>]) -> Self {
        let mut seen: std::collections::HashMap<String, Sightings> = std::collections::HashMap::new();
        for (page, marks) in pages.iter().enumerate() {
            for m in marks {
                seen.entry(m.key.clone()).or_default().push((page, m.at, m.size));
            }
        }
        let needed = MIN_PAGES.max((MIN_SHARE * pages.len() as f64).ceil() as usize);
        let mut running: Vec<(String, f64, f64)> = Vec::new();
        for (key, sightings) in &seen {
            for &(_, at, size) in sightings {
                if pages_at(sightings, at, SAME_PLACE) >= needed
                    && !(running.iter()).any(|(k, a, _)| k == key && (a - at).abs() <= SAME_PLACE)
                {
                    running.push((key.clone(), at, size));
                }
            }
        }
        Furniture { seen, needed, running }
    }

    /// Whether text with this key at this height (and in this font size) is running text:
    /// - seen at about this height on enough pages;
    /// - or level with other running text on [`BESIDE_PAGES`] (a chapter's title in the running header's place,
    ///   beside the page number: each chapter's title is on too few pages to count alone);
    /// - or running text elsewhere on the same edge of the page, in the same size (see [`Furniture::moved`]).
    pub(crate) fn holds(&self, key: &str, at: f64, size: f64) -> bool {
        self.seen.get(key).is_some_and(|sightings| {
            pages_at(sightings, at, SAME_PLACE) >= self.needed
                || pages_at(sightings, at, LEVEL) >= BESIDE_PAGES && self.running_place(key, at)
                || self.moved(key, at, size)
        })
    }

    /// Whether text with this key is running text at another place on the same edge of the page, in the same
    /// size (a first page sets its header lower, under a logo or a banner); a title in the running header's
    /// words is larger. Only text with words: figures in tables repeat by chance.
    fn moved(&self, key: &str, at: f64, size: f64) -> bool {
        key.chars().filter(|c| c.is_alphabetic()).count() >= 2
            && (self.running.iter())
                .any(|(k, a, z)| k == key && (*a < 0.5) == (at < 0.5) && (size - z).abs() <= SAME_SIZE * z)
    }

    /// Whether another key is running text level with this height (seen there on enough pages). A bare number
    /// counts only as a page number (by its [`page_number_key`]): code listings put line numbers at every height.
    fn running_place(&self, key: &str, at: f64) -> bool {
        (self.running.iter()).any(|(k, a, _)| k != key && k != "#" && (a - at).abs() <= LEVEL)
    }

    /// Whether any running text was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.running.is_empty()
    }
}

/// The page-number key of a bare number on a page (1-based): how far it stands from the page's number ("#+0" for
/// page 12's "12", "#-2" for its "10"). Page numbers keep one distance over many pages, a code listing's line
/// numbers do not; so only text level with these marks a running header's place (see [`Furniture::holds`]).
pub(crate) fn page_number_key(text: &str, page: u32) -> Option<String> {
    let t = text.trim();
    let n: i64 = t
        .parse()
        .ok()
        .filter(|_| t.len() <= 6 && t.chars().all(|c| c.is_ascii_digit()))
        .or_else(|| roman(t))?;
    Some(format!("#{:+}", n - i64::from(page)))
}

/// The value of a lower-case Roman numeral as front matter numbers its pages ("xvii"), written the standard way,
/// up to 100.
fn roman(word: &str) -> Option<i64> {
    if word.is_empty() || word.len() > 12 {
        return None;
    }
    let value = |c: char| match c {
        'i' => Some(1),
        'v' => Some(5),
        'x' => Some(10),
        'l' => Some(50),
        'c' => Some(100),
        _ => None,
    };
    let digits: Vec<i64> = word.chars().map(value).collect::<Option<_>>()?;
    let n: i64 = (0..digits.len())
        .map(|k| match digits.get(k + 1) {
            Some(&next) if next > digits[k] => -digits[k],
            _ => digits[k],
        })
        .sum();
    // Only the standard spelling of its value ("iiii" and "ic" are words or noise, not numbers), and only as far as
    // front matter runs: "mix" and "di" are words.
    (n > 0 && n <= 100 && to_roman(n) == word).then_some(n)
}

/// A number up to 100 in lower-case Roman numerals, the standard way.
fn to_roman(mut n: i64) -> String {
    const PARTS: [(i64, &str); 9] = [
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut out = String::new();
    for (v, s) in PARTS {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}

/// The key of a piece of text: lower-cased words with every run of digits as `#` (so "Page 3 of 39" and "Page 4 of
/// 39" are the same), or `None` for text with nothing to compare (no letter or digit).
pub(crate) fn key(text: &str) -> Option<String> {
    // A front-matter page number ("xvii Résumé") is a number like any other: written in lower case, of two letters
    // or more ("TABLE III" is a caption's own number; a lone "i" is as often a variable).
    let text: String = (text.split_whitespace())
        .map(|w| if w.len() >= 2 && roman(w).is_some() { "0" } else { w })
        .collect::<Vec<_>>()
        .join(" ");
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
            size: 9.0,
            key: key(text).unwrap(),
            at,
        }
    }

    /// What `n` pages teach, each page's marks made by `marks`.
    fn learn(n: usize, marks: impl Fn(usize) -> Vec<Mark>) -> Furniture {
        Furniture::learn(&(0..n).map(marks).collect::<Vec<_>>())
    }

    #[test]
    fn a_bare_number_is_keyed_by_its_distance_from_the_page_number() {
        assert_eq!(page_number_key("12", 12), Some("#+0".into()));
        assert_eq!(page_number_key(" 10 ", 12), Some("#-2".into()));
        assert_eq!(page_number_key("Page 3 of 39", 3), None);
        assert_eq!(page_number_key("00018", 40), Some("#-22".into()));
    }

    #[test]
    fn text_level_with_page_numbers_is_running_and_level_with_line_numbers_is_not() {
        // Ten pages: the page number at the foot; a code listing's line numbers level with the header's place,
        // each page's own; a chapter title there on two pages.
        let pages: Vec<Vec<Mark>> = (1..=10u32)
            .map(|p| {
                let line = format!("{:05}", p * 37);
                let mut marks = vec![
                    mark(&p.to_string(), 0.95),
                    Mark {
                        key: page_number_key(&p.to_string(), p).unwrap(),
                        at: 0.95,
                        size: 9.0,
                    },
                    mark(&line, 0.06),
                    Mark {
                        key: page_number_key(&line, p).unwrap(),
                        at: 0.06,
                        size: 9.0,
                    },
                ];
                if p <= 2 {
                    marks.push(mark("4.2.3.1 angle", 0.06));
                    marks.push(mark("4.2 Chapter", 0.95));
                }
                marks
            })
            .collect();
        let f = Furniture::learn(&pages);
        assert!(f.holds("#", 0.95, 9.0));
        assert!(
            !f.holds(&key("4.2.3.1 angle").unwrap(), 0.06, 9.0),
            "only line numbers stand level with it"
        );
        assert!(
            f.holds(&key("4.2 Chapter").unwrap(), 0.95, 9.0),
            "level with the page number"
        );
    }

    #[test]
    fn roman_page_numbers_are_numbers() {
        assert_eq!(key("xvii Résumé"), key("xviii Résumé"));
        assert_eq!(key("xvii Résumé"), Some("# résumé".into()));
        assert_eq!(page_number_key("xiv", 20), Some("#-6".into()));
        // Words made of the same letters stay words.
        assert_eq!(key("mix civil vim"), Some("mix civil vim".into()));
        assert_eq!(key("TABLE III"), Some("table iii".into()));
        assert_eq!(roman("iiii"), None);
        assert_eq!(roman("xcix"), Some(99));
        assert_eq!(roman("di"), None);
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
        assert!(f.holds(&key("SLUSA75B – REVISED JANUARY 2020").unwrap(), 0.045, 9.0));
        assert!(f.holds("#", 0.963, 9.0));
        // The same words elsewhere on the page are not the header.
        assert!(!f.holds(&key("SLUSA75B – REVISED JANUARY 2020").unwrap(), 0.5, 9.0));
        assert!(!f.holds(&key("Table 3. Absolute Maximum Ratings").unwrap(), 0.1, 9.0));
        assert!(!f.is_empty());
    }

    #[test]
    fn a_chapter_title_in_the_running_header_place_is_furniture_on_its_few_pages() {
        // Thirty pages: a page number at the top corner of each; each chapter's title level with it on its 3 pages
        // (too few to count alone); a slide-like title repeated on 3 pages where no running text stands.
        let titles = [
            "Intro", "Setup", "Use", "Files", "Index", "Keys", "Maps", "Sets", "Tips", "Notes",
        ];
        let f = learn(30, |p| {
            let number = (p + 1).to_string();
            let mut marks = vec![
                mark(&number, 0.04),
                Mark {
                    key: page_number_key(&number, p as u32 + 1).unwrap(),
                    at: 0.04,
                    size: 9.0,
                },
                mark(&format!("Chapter {}: {}", p / 3 + 1, titles[p / 3]), 0.041),
            ];
            if p < 3 {
                marks.push(mark("Results so far", 0.09));
            }
            marks
        });
        assert!(f.holds(&key("Chapter 2: Setup").unwrap(), 0.041, 9.0));
        assert!(
            !f.holds(&key("Results so far").unwrap(), 0.09, 9.0),
            "no running text stands there"
        );
        assert!(
            !f.holds(&key("Chapter 2: Setup").unwrap(), 0.5, 9.0),
            "elsewhere on the page it is body text"
        );
    }

    #[test]
    fn a_page_counts_once_however_many_times_a_key_stands_on_it() {
        // Figures of a table ("12.5", "0.88") at the top of two pages, several rows each: two pages, not five.
        let f = learn(8, |p| match p {
            1 => vec![mark("12.5", 0.103), mark("0.88", 0.118)],
            2 => vec![mark("1.10", 0.110), mark("0.91", 0.125), mark("3.3", 0.110)],
            _ => vec![mark("Running Title", 0.05)],
        });
        assert!(!f.holds("#.#", 0.110, 9.0));
        assert!(f.holds("running title", 0.05, 9.0));
    }

    #[test]
    fn running_text_set_elsewhere_on_its_edge_in_its_size_is_furniture() {
        // A datasheet: the document number at 6% on pages 2–10; on page 1, under a banner, at 8%.
        let f = learn(10, |p| {
            vec![mark("SLUSA75B – JULY 2010", if p == 0 { 0.08 } else { 0.06 })]
        });
        let k = key("SLUSA75B – JULY 2010").unwrap();
        assert!(f.holds(&k, 0.08, 9.5), "moved, in the same size");
        assert!(!f.holds(&k, 0.08, 20.0), "a title in the same words is larger");
        assert!(!f.holds(&k, 0.93, 9.0), "at the other edge it is not the header");
        // Figures only: never moved.
        let g = learn(10, |_| vec![mark("2010", 0.06)]);
        assert!(g.holds("#", 0.06, 9.0));
        assert!(!g.holds("#", 0.09, 9.0));
    }

    #[test]
    fn two_pages_teach_nothing() {
        let pages = vec![vec![mark("Header", 0.03)], vec![mark("Header", 0.03)]];
        let f = Furniture::learn(&pages);
        assert!(!f.holds("header", 0.03, 9.0));
        assert!(f.is_empty());
    }
}

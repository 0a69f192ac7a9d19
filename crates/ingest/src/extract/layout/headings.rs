//! Headings on a laid-out page: a short paragraph set larger than the body text, or a short numbered line
//! ("2.3 Transfer Learning", "IV. RESULTS", "A.1 Proofs") alone or opening its paragraph. Captions, table rows
//! and sentences are not headings. Levels are assigned later, over the whole document (`structure::levels`).

use super::paragraphs::Paragraph;
use super::Segment;

/// A heading found on one page: its byte offset in the page text, title, font size and numbering depth.
#[derive(Debug, Clone, PartialEq)]
pub struct LaidHeading {
    pub start: usize,
    pub title: String,
    pub size: f64,
    /// `Some(2)` for "2.3 …", `Some(1)` for "4 …", "IV. …"; `None` for an unnumbered heading.
    pub depth: Option<u8>,
}

/// Font sizes at least this much larger than the body text mark a heading.
const LARGER: f64 = 1.12;
/// A heading has at most this many words.
const MAX_WORDS: usize = 14;

/// The headings among a page's paragraphs; `offsets[i]` is where paragraph `i` starts in the page text and `body`
/// the page's body font size.
pub(super) fn find(paragraphs: &[Paragraph], offsets: &[usize], lines: &[Segment], body: f64) -> Vec<LaidHeading> {
    let mut out = Vec::new();
    for (p, &offset) in paragraphs.iter().zip(offsets) {
        let size = p.lines.iter().map(|&(_, i)| lines[i].size).fold(0.0, f64::max);
        let depth = numbering(&p.text);
        let whole = p.lines.len() <= 2 && heading_like(&p.text);
        if whole && (size >= LARGER * body || (depth.is_some() && size >= 0.9 * body && words(&p.text) <= 10)) {
            out.push(LaidHeading {
                start: offset,
                title: p.text.clone(),
                size,
                depth,
            });
            continue;
        }
        // A numbered heading run into the first line of its paragraph (no extra space below it).
        if p.lines.len() >= 2 {
            let (first_end, first_line) = (p.lines[1].0, p.lines[0].1);
            let first = p.text[..first_end].trim();
            let (next_line, width) = (p.lines[1].1, column_width(p, lines));
            let short = lines[first_line].x1 - lines[first_line].x0 < 0.7 * width;
            let next_upper = lines[next_line].text.trim_start().starts_with(char::is_uppercase);
            if let Some(depth) = numbering(first).filter(|_| short && next_upper && heading_like(first)) {
                if words(first) <= 10 && lines[first_line].size >= 0.9 * body {
                    out.push(LaidHeading {
                        start: offset,
                        title: first.to_string(),
                        size: lines[first_line].size,
                        depth: Some(depth),
                    });
                }
            }
        }
    }
    out
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// The widest line of a paragraph: its column's width.
fn column_width(p: &Paragraph, lines: &[Segment]) -> f64 {
    p.lines
        .iter()
        .map(|&(_, i)| lines[i].x1 - lines[i].x0)
        .fold(0.0, f64::max)
}

/// Short, starting with a capital or a number, not ending as a sentence or a list item does, holding a real word,
/// and not a caption.
fn heading_like(text: &str) -> bool {
    let text = text.trim();
    let n = words(text);
    if n == 0 || n > MAX_WORDS || text.len() > 120 {
        return false;
    }
    if !text
        .chars()
        .next()
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    {
        return false;
    }
    if text.ends_with(['.', ',', ';', ':', '-']) {
        return false;
    }
    // Mathematics is not a heading ("Here g = ω b A (δr) is the …").
    if text.contains(['=', '<', '>', '≤', '≥', '∑', '∫']) {
        return false;
    }
    const CAPTIONS: [&str; 6] = ["Figure", "Fig.", "Table", "Algorithm", "Listing", "Equation"];
    if CAPTIONS.iter().any(|c| text.starts_with(c)) {
        return false;
    }
    let letters = |w: &&str| w.chars().filter(|c| c.is_alphabetic()).count();
    let wordy = text.split_whitespace().filter(|w| letters(w) >= 3).count();
    let numeric = text
        .split_whitespace()
        .skip(1)
        .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
        .count();
    // A running header with its page number: "2 READING ORDER 3".
    let last_number = text
        .rsplit(' ')
        .next()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
    wordy >= 1 && numeric * 3 <= n && !(n > 1 && last_number)
}

/// The depth of a heading's leading number ("3" → 1, "3.2" → 2, "A.1" → 2, "IV." → 1) when the word after it
/// starts with a capital; `None` when the text does not open with a section number.
pub(super) fn numbering(text: &str) -> Option<u8> {
    let mut it = text.split_whitespace();
    let label = it.next()?;
    let next = it.next()?;
    if !next.starts_with(|c: char| c.is_uppercase()) {
        return None;
    }
    let label = label.strip_suffix('.').unwrap_or(label);
    let parts: Vec<&str> = label.split('.').collect();
    if parts.len() > 4 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let number = |p: &str| p.len() <= 2 && p.chars().all(|c| c.is_ascii_digit()) && p != "0";
    let roman = |p: &str| p.len() <= 4 && p.chars().all(|c| matches!(c, 'I' | 'V' | 'X'));
    let letter = |p: &str| p.len() == 1 && p.chars().all(|c| c.is_ascii_uppercase());
    let ok = match parts.as_slice() {
        [one] => number(one) || (roman(one) && text.split_whitespace().next()?.ends_with('.')),
        [first, rest @ ..] => (number(first) || letter(first)) && rest.iter().all(|p| number(p)),
        [] => false,
    };
    ok.then_some(parts.len() as u8)
}

#[cfg(test)]
mod tests {
    use super::{heading_like, numbering};

    #[test]
    fn section_numbers_are_read() {
        assert_eq!(numbering("2.3 Transfer Learning from Supervised Data"), Some(2));
        assert_eq!(numbering("4 Experiments"), Some(1));
        assert_eq!(numbering("IV. RESULTS"), Some(1));
        assert_eq!(numbering("A.1 Proofs"), Some(2));
        assert_eq!(numbering("3. Method"), Some(1));
        assert_eq!(numbering("2 apples and 3 pears"), None);
        assert_eq!(numbering("12.5 Hz sampling"), Some(2));
        assert_eq!(numbering("In 2019 We"), None);
        assert_eq!(numbering("I think so"), None);
        assert_eq!(numbering("0 Intro"), None);
    }

    #[test]
    fn sentences_and_captions_are_not_headings() {
        assert!(heading_like("3.2 Training"));
        assert!(heading_like("Related Work"));
        assert!(!heading_like("Figure 2: The model."));
        assert!(!heading_like("Table 1 Results"));
        assert!(!heading_like("This is a sentence that ends."));
        assert!(!heading_like("lower case start"));
        assert!(!heading_like("12 34 56 78"));
        assert!(!heading_like("2 READING ORDER 3"));
        assert!(!heading_like("Here g = ω b A (δr) is the nearest"));
    }
}

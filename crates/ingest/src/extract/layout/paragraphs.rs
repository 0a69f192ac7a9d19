//! Ordered lines → paragraphs: split at wide gaps, font-size changes, bullets and column jumps; joined with
//! hyphenation repaired; each paragraph remembers where each of its lines starts, so a line's box can be found
//! from a position in the text.

use super::{median, Segment};
use crate::extract::lexicon;
use crate::extract::normalize::{clean_line, join_lines_tracked};
use std::collections::HashSet;

/// One paragraph's text and, for each line that went into it, its byte offset in `text` and its index in the
/// ordered lines.
pub(super) struct Paragraph {
    pub text: String,
    pub lines: Vec<(usize, usize)>,
}

/// Splits ordered lines into paragraphs at wide vertical gaps, font-size changes and column jumps; a sentence (or
/// a hyphenated word) that runs on from the foot of one column to the head of the next stays one paragraph.
pub(super) fn paragraphs(lines: &[Segment]) -> Vec<Paragraph> {
    // Line spacing is the smallest plausible gap (at least ~one font size); paragraph gaps are wider.
    let size = median(lines.iter().map(|l| l.size).collect());
    let typical = lines
        .windows(2)
        .map(|w| w[0].y - w[1].y)
        .filter(|g| *g >= 0.9 * size)
        .fold(f64::INFINITY, f64::min);
    let typical = if typical.is_finite() { typical } else { 0.0 };
    let compounds = compounds(lines);
    let mut out = Vec::new();
    let mut current: Vec<(String, usize)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(prev) = i.checked_sub(1).map(|j| &lines[j]) {
            let gap = prev.y - line.y;
            // A line set larger than the body (a heading over two lines) has its own, wider spacing.
            let own = 1.45 * prev.size.max(line.size);
            let limit = if typical > 0.0 {
                (1.4 * typical).max(own)
            } else {
                1.6 * prev.size
            };
            let size_change = (prev.size - line.size).abs() > 0.15 * prev.size.max(line.size);
            let bullet = line.text.trim_start().starts_with(['•', '◦', '▪', '‣', '●', '■', '–']);
            let jump = gap < -0.5 * line.size && !runs_on(current.last().map(|l| &l.0), &line.text);
            if gap > limit || jump || size_change || bullet {
                flush(&mut current, &mut out, &compounds);
            }
        }
        let text = clean_line(&line.text);
        if !text.is_empty() {
            current.push((text, i));
        }
    }
    flush(&mut current, &mut out, &compounds);
    out
}

/// True when the next line continues the sentence of the line before it: that line ends without a full stop (or
/// with a hyphenated word) and the next begins in lower case.
fn runs_on(last: Option<&String>, next: &str) -> bool {
    let Some(last) = last.map(|l| l.trim_end()) else {
        return false;
    };
    let open = last
        .chars()
        .last()
        .is_some_and(|c| c.is_alphabetic() || c == ',' || c == '-');
    open && next.trim_start().chars().next().is_some_and(char::is_lowercase)
}

/// The hyphenated compounds the page writes whole inside a line ("retrieval-augmented"), lower-cased: a line
/// that ends in "retrieval-" before "augmented" keeps its hyphen (as it does when the two halves are words and
/// the two as one are not: [`lexicon::compound`]).
fn compounds(lines: &[Segment]) -> HashSet<String> {
    let mut out = HashSet::new();
    for line in lines {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        for w in words.iter().take(words.len().saturating_sub(1)) {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            if let Some((a, b)) = w.split_once('-') {
                if !a.is_empty() && !b.is_empty() && a.chars().chain(b.chars()).all(char::is_alphabetic) {
                    out.insert(w.to_lowercase());
                }
            }
        }
    }
    out
}

fn flush(current: &mut Vec<(String, usize)>, out: &mut Vec<Paragraph>, compounds: &HashSet<String>) {
    if current.is_empty() {
        return;
    }
    let compound = |a: &str, b: &str| {
        let b = b.trim_end_matches(|c: char| !c.is_alphanumeric());
        compounds.contains(&format!("{a}-{b}").to_lowercase()) || lexicon::compound(a, b)
    };
    let texts: Vec<&str> = current.iter().map(|(t, _)| t.as_str()).collect();
    let (text, starts) = join_lines_tracked(&texts, &compound);
    let lines = starts.into_iter().zip(current.iter().map(|(_, i)| *i)).collect();
    out.push(Paragraph { text, lines });
    current.clear();
}

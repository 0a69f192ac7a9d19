//! What `ragsift-bench real` counts in a page's text against its truth: glyph-merged tokens and words run together,
//! furniture strings, and table cells kept whole with their row label and unit.

use ragsift_engine::quality::words;
use serde_json::Value;
use std::collections::HashSet;

/// A token this long (letters only) that the truth does not hold is a glyph-merge candidate.
const MERGE_LEN: usize = 10;

/// Tokens of `MERGE_LEN`+ letters in `text` that the page does not hold (neither a word of its truth or furniture
/// nor two neighbouring truth words joined), split in two kinds: glyph-merged tokens (letters of two lines
/// interleaved: "ttuoncerdeawteithstajtues") and words run together with their spaces lost (a token that splits
/// whole into three or more of the page's words: "responsibilityisassumedby…").
pub(super) fn merged_tokens(text: &str, truth: &[String], furniture: &[String]) -> (Vec<String>, Vec<String>) {
    let mut set: HashSet<&str> = truth.iter().map(String::as_str).collect();
    set.extend(furniture.iter().map(String::as_str));
    let mut pairs: HashSet<String> = HashSet::new();
    for w in truth.windows(2) {
        pairs.insert(format!("{}{}", w[0], w[1]));
    }
    let (mut merged, mut spaceless) = (Vec::new(), Vec::new());
    for t in words(text) {
        if t.chars().count() < MERGE_LEN || !t.chars().all(char::is_alphabetic) || set.contains(t.as_str()) {
            continue;
        }
        if pairs.contains(&t) || merged.contains(&t) || spaceless.contains(&t) {
            continue;
        }
        match pieces(&t, &set) {
            Some(2) => {}
            Some(_) => spaceless.push(t),
            None => merged.push(t),
        }
    }
    (merged, spaceless)
}

/// The fewest words of `set` that `t` splits into whole (at least two), or `None`.
fn pieces(t: &str, set: &HashSet<&str>) -> Option<usize> {
    let idx: Vec<usize> = t
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(t.len()))
        .collect();
    let mut best: Vec<Option<usize>> = vec![None; idx.len()];
    best[0] = Some(0);
    for e in 1..idx.len() {
        for s in 0..e {
            if let Some(b) = best[s] {
                if set.contains(&t[idx[s]..idx[e]]) && best[e].is_none_or(|x| x > b + 1) {
                    best[e] = Some(b + 1);
                }
            }
        }
    }
    best[idx.len() - 1].filter(|&n| n >= 2)
}

/// A furniture string is counted when it is specific enough not to match by chance: two words or more, or one of
/// six characters or more (a lone page number is not counted).
pub(super) fn counts_as_furniture(s: &str) -> bool {
    let w = words(s);
    w.len() >= 2 || w.first().is_some_and(|x| x.chars().count() >= 6)
}

/// Whether one unit of an extractor's text (a paragraph, a table row, a line) holds a truth table cell whole: every
/// word of its row label (a symbol and a parameter may sit in two columns), its value, and its unit as printed. A
/// cell whose label sits in one paragraph and its figures in another (a table read column by column) is not kept.
pub(super) fn cell_found(unit: &str, cell: &Value) -> bool {
    let field = |k: &str| cell[k].as_str().unwrap_or_default().trim();
    let (row, value, measure) = (field("row"), field("value"), field("unit"));
    !value.is_empty()
        && (row.is_empty() || holds_words(unit, row))
        && contains_words(unit, value)
        && (measure.is_empty() || squash(unit).contains(&squash(measure)))
}

/// Whether every word of `needle` is among the words of `hay`.
fn holds_words(hay: &str, needle: &str) -> bool {
    let h: HashSet<String> = words(hay).into_iter().collect();
    let n = words(needle);
    !n.is_empty() && n.iter().all(|w| h.contains(w))
}

/// Text without white space, for comparing units ("° C" and "°C", "mA" in "50mA", "µA" and "μA").
fn squash(text: &str) -> String {
    // The micro sign and the Greek mu are one letter after NFKC, as the truth is written.
    (text.chars().filter(|c| !c.is_whitespace()))
        .map(|c| if c == '\u{b5}' { '\u{3bc}' } else { c })
        .collect()
}

/// Whether the words of `needle` occur consecutively in `hay`.
pub(super) fn contains_words(hay: &str, needle: &str) -> bool {
    count_words(hay, needle) > 0
}

/// How many times `needle`'s words stand in a row in `hay`.
pub(super) fn count_words(hay: &str, needle: &str) -> usize {
    let (h, n) = (words(hay), words(needle));
    if n.is_empty() {
        return 0;
    }
    h.windows(n.len()).filter(|w| *w == n.as_slice()).count()
}

/// Whether an extractor's page text still holds a furniture string: it stands there more often than in the page's
/// body (a part number in a running header is also in the sentences that name the part; only the extra one is the
/// header's).
pub(super) fn furniture_left(text: &str, body: &str, furniture: &str) -> bool {
    count_words(text, furniture) > count_words(body, furniture)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_kept_only_with_its_row_label_and_unit() {
        let cell =
            serde_json::json!({"row": "Junction temperature, TJ", "column": "MAX", "value": "125", "unit": "°C"});
        assert!(cell_found("Junction temperature, TJ –40 125 °C", &cell));
        assert!(cell_found(
            "Parameter: Junction temperature, TJ; MIN: –40; MAX: 125; UNIT: ° C",
            &cell
        ));
        // Read column by column: the label in one paragraph, the figures in another.
        assert!(!cell_found("Junction temperature, TJ", &cell));
        assert!(!cell_found("–40 125 °C", &cell));
        assert!(
            !cell_found("Junction temperature, TJ –40 125", &cell),
            "the unit is part of the cell"
        );
    }

    #[test]
    fn merged_tokens_leave_truth_words_and_joined_pairs() {
        let truth = words("the transformer architecture uses multi head attention");
        let (merged, spaceless) = merged_tokens(
            "the transformerarchitecture tprearfifiecncseigrne attention transformerarchitectureuses",
            &truth,
            &[],
        );
        assert_eq!(merged, vec!["tprearfifiecncseigrne".to_string()]);
        assert_eq!(spaceless, vec!["transformerarchitectureuses".to_string()]);
    }

    #[test]
    fn furniture_is_left_only_beyond_what_the_body_says() {
        let body = "The BQ24650 charges a battery.";
        assert!(!furniture_left("The BQ24650 charges a battery.", body, "BQ24650"));
        assert!(furniture_left(
            "BQ24650\n\nThe BQ24650 charges a battery.",
            body,
            "BQ24650"
        ));
        assert!(furniture_left(
            "SLUSA75B JULY 2010\n\nText",
            "Text",
            "SLUSA75B – JULY 2010"
        ));
    }

    #[test]
    fn furniture_needs_two_words_or_a_long_one() {
        assert!(!counts_as_furniture("12"));
        assert!(counts_as_furniture("SLUSA75B - JULY 2010"));
        assert!(contains_words("a b\nSLUSA75B – JULY 2010 c", "SLUSA75B -JULY 2010"));
    }
}

//! English words (SCOWL's American list and the embedding model's whole words, `data/words.txt`), to tell a word hyphenated at a
//! line end from a hyphenated compound: "architec-" + "ture" is joined, "retrieval-" + "augmented" keeps its
//! hyphen.

use std::collections::HashSet;
use std::sync::LazyLock;

static WORDS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| include_str!("../../data/words.txt").lines().collect());

/// Endings that make a word of a word ("transformer", "columns", "internationalization"), with what the stem
/// ends in when listed: tried when the word itself is not listed.
const INFLECTIONS: [(&str, &str); 21] = [
    ("s", ""),
    ("es", ""),
    ("ed", ""),
    ("ed", "e"),
    ("d", ""),
    ("ing", ""),
    ("ing", "e"),
    ("er", ""),
    ("er", "e"),
    ("ers", ""),
    ("ly", ""),
    ("ization", "ize"),
    ("isation", "ise"),
    ("ation", "ate"),
    ("ation", "e"),
    ("ations", "ate"),
    ("ment", ""),
    ("ments", ""),
    ("ness", ""),
    ("ity", ""),
    ("ity", "e"),
];

/// Endings a typesetter splits off that happen to be listed as words of their own ("ing"): never the second
/// half of a compound.
const SUFFIXES: [&str; 14] = [
    "ing", "ed", "er", "ers", "es", "ly", "al", "ally", "ment", "ments", "ness", "tion", "able", "ity",
];

/// True when `w` (lower case) is an English word, or one made of one with a common ending.
pub fn is_word(w: &str) -> bool {
    WORDS.contains(w)
        || INFLECTIONS.iter().any(|(end, base)| {
            w.strip_suffix(end)
                .is_some_and(|stem| stem.len() >= 3 && WORDS.contains(format!("{stem}{base}").as_str()))
        })
}

/// True when "first-" at a line end and "second" at the next line's start are a hyphenated compound, so the
/// hyphen stays: the two written as one are not a word, and each half is ("per-page", "multi-column"). A word
/// the typesetter divided ("architec-ture", "hyphen-ation") is joined, and so is anything not made of letters.
pub fn compound(first: &str, second: &str) -> bool {
    let trim = |s: &str| s.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let (a, b) = (trim(first), trim(second));
    let letters = |s: &str| s.len() >= 2 && s.chars().all(|c| c.is_ascii_alphabetic());
    if !letters(&a) || !letters(&b) || SUFFIXES.contains(&b.as_str()) {
        return false;
    }
    !is_word(&format!("{a}{b}")) && is_word(&a) && is_word(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divided_words_join_and_compounds_keep_their_hyphen() {
        for (a, b) in [
            ("architec", "ture"),
            ("hyphen", "ation"),
            ("inter", "nationalization"),
            ("tun", "ing"),
            ("gut", "ter"),
            ("work", "bench"),
            ("ex", "tractor"),
        ] {
            assert!(!compound(a, b), "{a}-{b} is one word");
        }
        for (a, b) in [
            ("retrieval", "augmented"),
            ("per", "page"),
            ("multi", "column"),
            ("sentence", "transformer"),
        ] {
            assert!(compound(a, b), "{a}-{b} is a compound");
        }
        assert!(!compound("(retrieval", "2.0"), "not letters");
        assert!(compound("(retrieval", "augmented)"), "punctuation around the halves");
    }
}

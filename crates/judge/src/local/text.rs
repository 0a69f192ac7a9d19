//! Text analysis for the local judge and the extractive answerer: sentences with their offsets, content-word
//! stems, numbers, and what kind of answer a question expects.

use super::units::{asked_dimension, states, Dimension};
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// A sentence of a passage: its text and its byte range in the passage.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

/// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "et al", "etc", "fig", "figs", "sec", "eq", "eqs", "ref", "refs", "vs", "cf", "no", "nos", "vol",
    "pp", "p", "dr", "mr", "mrs", "ms", "prof", "inc", "ltd", "co", "approx", "resp", "al", "ch", "tab",
];

/// Splits a passage into sentences: at `.`, `!` or `?` followed by a space and a capital, digit, quote or
/// bracket, and at blank lines. Fragments shorter than four words are merged into their neighbour, so a
/// heading or a figure label does not stand alone. Offsets are byte offsets into `text`.
pub fn sentences(text: &str) -> Vec<Sentence> {
    let mut cuts = vec![0usize];
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|x| x.1);
        let after = chars.get(k + 2).map(|x| x.1);
        let boundary = match c {
            '.' | '!' | '?' => {
                next.is_some_and(char::is_whitespace)
                    && after.is_some_and(|a| a.is_uppercase() || a.is_ascii_digit() || "\"'([“‘".contains(a))
                    && !(c == '.' && ends_with_abbreviation(&text[..i]))
            }
            '\n' => next == Some('\n') || (next.is_some_and(|n| n == '\r') && after == Some('\n')),
            _ => false,
        };
        if boundary {
            cuts.push(i + c.len_utf8());
        }
    }
    cuts.push(text.len());
    let mut out: Vec<Sentence> = Vec::new();
    for w in cuts.windows(2) {
        let raw = &text[w[0]..w[1]];
        let lead = raw.len() - raw.trim_start().len();
        let body = raw.trim();
        if body.is_empty() {
            continue;
        }
        let start = w[0] + lead;
        let s = Sentence {
            text: body.to_string(),
            start,
            end: start + body.len(),
        };
        match out.last_mut() {
            Some(prev) if word_count(&prev.text) < 4 || word_count(&s.text) < 4 => {
                prev.end = s.end;
                prev.text = text[prev.start..prev.end].to_string();
            }
            _ => out.push(s),
        }
    }
    out
}

fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

fn ends_with_abbreviation(before: &str) -> bool {
    let word: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '.')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let w = word.to_lowercase();
    // A single capital initial ("J. Smith") or a known abbreviation; a number ("3.5") never reaches here.
    (w.len() == 1 && before.ends_with(|c: char| c.is_uppercase())) || ABBREVIATIONS.contains(&w.as_str())
}

/// Words that carry no content for matching a question to a passage.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "either",
    "else",
    "ever",
    "few",
    "for",
    "from",
    "further",
    "get",
    "gets",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "kind",
    "let",
    "like",
    "made",
    "make",
    "makes",
    "many",
    "may",
    "me",
    "might",
    "more",
    "most",
    "much",
    "must",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "paper",
    "per",
    "please",
    "rather",
    "same",
    "say",
    "says",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "thus",
    "to",
    "too",
    "under",
    "until",
    "up",
    "upon",
    "us",
    "use",
    "used",
    "uses",
    "using",
    "very",
    "was",
    "way",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "would",
    "you",
    "your",
    "yours",
    "authors",
    "author",
    "describe",
    "described",
    "mention",
    "mentioned",
    "according",
    "tell",
    "explain",
    "give",
    "given",
    "name",
    "called",
    "exactly",
    "really",
    "actually",
    "instead",
    "still",
    "ones",
    "thing",
    "things",
];

fn stopwords() -> &'static BTreeSet<&'static str> {
    static SET: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOPWORDS.iter().copied().collect())
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Lower-cased words (letters and digits; inner hyphens and apostrophes split).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The stems of the content words of `text`, in order, repeats kept.
pub fn content_stems(text: &str) -> Vec<String> {
    words(text)
        .filter(|w| !stopwords().contains(w.as_str()) && (w.len() > 1 || w.chars().all(|c| c.is_ascii_digit())))
        .map(|w| stemmer().stem(&w).into_owned())
        .collect()
}

/// Number words a passage may use instead of digits.
const NUMBER_WORDS: &[&str] = &[
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million", "billion", "half", "twice", "double",
    "triple", "dozen", "percent",
];

/// Whether `text` states a quantity: a digit, or a number word.
pub fn has_number(text: &str) -> bool {
    text.chars().any(|c| c.is_ascii_digit()) || words(text).any(|w| NUMBER_WORDS.contains(&w.as_str()))
}

/// What kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerKind {
    /// How many / much / long / large, what percentage, which year, when.
    Quantity,
    /// Why: a reason.
    Reason,
    /// Who: a person or organisation.
    Person,
    /// Yes or no (is, does, can ...).
    YesNo,
    /// A physical quantity, stated as a figure in one of its units (what is the supply voltage ...).
    Measure(Dimension),
    /// Anything else (what, which, how does ...).
    Other,
}

/// The kind of answer `question` expects, from its wording.
pub fn answer_kind(question: &str) -> AnswerKind {
    let q = question.trim().to_lowercase();
    let first = q.split_whitespace().next().unwrap_or("");
    let quantity_cues = [
        "how many",
        "how much",
        "how long",
        "how large",
        "how big",
        "how small",
        "how fast",
        "how slow",
        "how often",
        "how far",
        "how old",
        "how high",
        "how wide",
        "how deep",
        "what percentage",
        "what fraction",
        "what proportion",
        "what year",
        "which year",
        "in what year",
        "what size",
        "what number",
        "by how",
        "what is the size",
        "what is the number",
        "what ratio",
        "how much faster",
        "how much slower",
    ];
    let quantity = quantity_cues.iter().any(|c| q.contains(c)) || first == "when";
    let measure = (quantity || ["what", "which"].contains(&first))
        .then(|| asked_dimension(&q))
        .flatten();
    if let Some(d) = measure {
        AnswerKind::Measure(d)
    } else if quantity {
        AnswerKind::Quantity
    } else if first == "why" || q.contains("what is the reason") || q.contains("for what reason") {
        AnswerKind::Reason
    } else if first == "who" || q.starts_with("by whom") {
        AnswerKind::Person
    } else if [
        "is", "are", "does", "do", "did", "can", "could", "was", "were", "has", "have", "will", "should",
    ]
    .contains(&first)
    {
        AnswerKind::YesNo
    } else {
        AnswerKind::Other
    }
}

/// Words that mark a stated reason.
const REASON_CUES: &[&str] = &[
    "because",
    "since",
    "so that",
    "in order to",
    "due to",
    "therefore",
    "thus",
    "reason",
    "allows",
    "avoid",
    "to ensure",
    "which means",
    "as a result",
    "consequently",
    "hence",
];

/// Whether `sentence` has the shape of an answer of `kind`: a quantity, a reason cue, a capitalised name.
pub fn fits_kind(sentence: &str, kind: AnswerKind) -> bool {
    match kind {
        AnswerKind::Quantity => has_number(sentence),
        AnswerKind::Measure(d) => states(sentence, d),
        AnswerKind::Reason => {
            let s = sentence.to_lowercase();
            REASON_CUES.iter().any(|c| s.contains(c))
        }
        AnswerKind::Person => sentence
            .split_whitespace()
            .skip(1)
            .any(|w| w.chars().next().is_some_and(char::is_uppercase)),
        AnswerKind::YesNo | AnswerKind::Other => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_keep_offsets_and_skip_abbreviations() {
        let text =
            "TLSH uses a window of size 5, e.g. for bytes. It then counts buckets (Fig. 2). Short.\n\nA new paragraph \
                    starts here and goes on.";
        let s = sentences(text);
        assert_eq!(s.len(), 3, "{s:?}");
        assert!(s[0].text.starts_with("TLSH") && s[0].text.ends_with("bytes."));
        assert!(
            s[1].text.ends_with("Short."),
            "short fragments merge into their neighbour: {s:?}"
        );
        for x in &s {
            assert_eq!(&text[x.start..x.end], x.text);
        }
    }

    #[test]
    fn stems_drop_stopwords() {
        assert_eq!(
            content_stems("What are the hashing schemes used?"),
            vec!["hash", "scheme"]
        );
        assert_eq!(
            content_stems("Released in 1991 by Seltzer"),
            vec!["releas", "1991", "seltzer"]
        );
    }

    #[test]
    fn answer_kinds() {
        assert_eq!(answer_kind("How many buckets does it use?"), AnswerKind::Quantity);
        assert_eq!(answer_kind("When was CVS released?"), AnswerKind::Quantity);
        assert_eq!(answer_kind("Why does it use quartiles?"), AnswerKind::Reason);
        assert_eq!(answer_kind("Does it support locking?"), AnswerKind::YesNo);
        assert_eq!(answer_kind("What is a device tree?"), AnswerKind::Other);
        assert!(fits_kind("It took three seconds.", AnswerKind::Quantity));
        assert!(!fits_kind("It was fast.", AnswerKind::Quantity));
        assert!(fits_kind("This is done because disks are slow.", AnswerKind::Reason));
        let supply = answer_kind("What is the highest supply voltage the part can withstand?");
        assert_eq!(supply, AnswerKind::Measure(Dimension::Voltage));
        assert!(fits_kind("VDD: 4.25 V absolute maximum.", supply));
        assert!(
            !fits_kind("Supply current: 2.7 µA.", supply),
            "a figure in another unit"
        );
        assert_eq!(
            answer_kind("How much current does it draw?"),
            AnswerKind::Measure(Dimension::Current)
        );
        assert_eq!(answer_kind("Is the supply voltage 3.3 V?"), AnswerKind::YesNo);
    }
}

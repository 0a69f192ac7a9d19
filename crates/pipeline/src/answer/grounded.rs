//! The grounded answer: an instruction model answers from the kept passages' best sentences, numbered, and each
//! claim it makes is held to the sentence it cites.
//!
//! - The prompt carries only the question and the best [`GROUNDED_SENTENCES`] sentences of the kept passages (as
//!   the sentence ranker orders them), numbered `[1]`, `[2]`, …, so it stays short on a small CPU.
//! - Each claim (a sentence of the model's reply) must cite a sentence, and the cited sentence must support it:
//!   the claim's content words beyond the question's are mostly in that sentence ([`supports`]), and every number
//!   in the claim is in it. A claim without a citation is held to the sentence that supports it best. A claim that
//!   no sentence supports is dropped, never shown.
//! - The answer is the surviving claim with its source's `[n]`, and the cited sentence quoted beneath it. With no
//!   surviving claim the caller falls back to the extractive quotes; when the model says the sentences do not
//!   answer the question, the caller says the documents do not say, and why.

use super::ScoredSentence;
use crate::augment::Source;
use ragsift_interfaces::llm::ChatMessage;
use ragsift_judge::local::text::content_stems;
use std::collections::BTreeSet;

/// Sentences the model reads at most.
pub const GROUNDED_SENTENCES: usize = 8;
/// Claims kept at most.
const MAX_CLAIMS: usize = 2;
/// The share of a claim's new content words (those not in the question) that its sentence must hold.
pub const SUPPORT_OVERLAP: f64 = 0.5;
/// Tokens the model may write at most (one short sentence and its citation).
pub const MAX_TOKENS: u32 = 96;
/// The line in the stored prompt above the model's reply as it wrote it (before the check).
pub const REPLY_HEADING: &str = "--- the model's reply, before the check ---";
/// The line between the streamed draft and the checked answer.
pub const CHECKED_HEADING: &str = "Checked against the sources:";

/// The answer when the model finds no answer among the kept passages' best sentences.
pub fn not_found_answer(kept: usize, sentences: usize) -> String {
    let passages = if kept == 1 {
        "1 passage was".to_string()
    } else {
        format!("{kept} passages were")
    };
    format!(
        "The documents do not say: {passages} kept, but none of their {sentences} best sentences answers this \
         question (the answer model found no answer in them)."
    )
}

/// What the model replies when no sentence answers the question.
pub const NOT_FOUND: &str = "NOT FOUND";

/// The grounded prompt's instructions (also checked for echoes).
pub const GROUNDED_INSTRUCTION: &str = "Answer the question using only the numbered sentences below. Reply with one \
short sentence that gives the answer, and end it with the number of the sentence that states it, in brackets, \
like [2]. If none of the sentences answers the question, reply exactly: NOT FOUND";

/// The sentences the model reads: the first `GROUNDED_SENTENCES` distinct ones of `ranked` (best first), as
/// indices into `ranked`.
pub fn prompt_sentences(ranked: &[(ScoredSentence, Vec<f64>)]) -> Vec<usize> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, (c, _)) in ranked.iter().enumerate() {
        if out.len() == GROUNDED_SENTENCES {
            break;
        }
        let key = c.text.trim().to_lowercase();
        if c.text.split_whitespace().count() >= 2 && seen.insert(key) {
            out.push(i);
        }
    }
    out
}

/// The chat messages: the instructions, then the numbered sentences and the question.
pub fn grounded_messages(query: &str, ranked: &[(ScoredSentence, Vec<f64>)], shown: &[usize]) -> Vec<ChatMessage> {
    let mut user = String::from("Sentences:\n");
    for (n, &i) in shown.iter().enumerate() {
        user.push_str(&format!("[{}] {}\n", n + 1, ranked[i].0.text.trim()));
    }
    user.push_str(&format!("\nQuestion: {}", query.trim()));
    vec![ChatMessage::system(GROUNDED_INSTRUCTION), ChatMessage::user(user)]
}

/// One claim of the model's reply that its sentence supports.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The claim without its citations.
    pub text: String,
    /// The supporting sentence, as an index into `ranked`.
    pub sentence: usize,
    /// Whether the model cited that sentence itself (else it was found by [`supports`]).
    pub cited: bool,
    /// The share of the claim's new content words the sentence holds.
    pub overlap: f64,
}

/// What the model's reply comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// Claims that their sentences support (at least one).
    Claims(Vec<Claim>),
    /// The reply only names a sentence (`[2]`, or `2`): that sentence is the answer, as an index into `ranked`.
    Chosen(usize),
    /// The model said no sentence answers the question.
    NotFound,
    /// Nothing the model said is supported (or it said nothing usable): `dropped` claims were unsupported.
    Unsupported { dropped: usize },
}

/// How well `sentence` supports `claim` for `query`: the share of the claim's content words that are not the
/// question's which the sentence holds (all the claim's words when it only restates the question), and 0 when a
/// number in the claim is not in the sentence (a number is what a small model invents most).
pub fn supports(claim: &str, sentence: &str, query: &str) -> f64 {
    let q: BTreeSet<String> = content_stems(query).into_iter().collect();
    let s: BTreeSet<String> = content_stems(sentence).into_iter().collect();
    let c: Vec<String> = content_stems(claim);
    let novel: Vec<&String> = c.iter().filter(|w| !q.contains(*w)).collect();
    let words: Vec<&String> = if novel.is_empty() { c.iter().collect() } else { novel };
    if words.is_empty() {
        return 0.0;
    }
    let digits = |t: &str| -> Vec<String> {
        t.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == ','))
            .map(|w| w.trim_matches(['.', ',']).replace(',', ""))
            .filter(|w| w.chars().any(|ch| ch.is_ascii_digit()))
            .collect()
    };
    let in_sentence: BTreeSet<String> = digits(sentence).into_iter().collect();
    if digits(claim).iter().any(|d| !in_sentence.contains(d)) {
        return 0.0;
    }
    words.iter().filter(|w| s.contains(**w)).count() as f64 / words.len() as f64
}

/// The model's reply checked against the sentences it read (`shown`, indices into `ranked`, numbered from 1).
pub fn check(reply: &str, query: &str, ranked: &[(ScoredSentence, Vec<f64>)], shown: &[usize]) -> Checked {
    let reply = reply.trim();
    // A reply that is only a sentence's number: the model chose that sentence.
    let (words, cites) = strip_citations(reply);
    let bare = words.trim_matches(|c: char| !c.is_alphanumeric());
    let named = match bare.parse::<usize>() {
        Ok(n) if cites.is_empty() => Some(n),
        _ if bare.is_empty() => cites.first().copied(),
        _ => None,
    };
    if let Some(n) = named.filter(|n| (1..=shown.len()).contains(n)) {
        return Checked::Chosen(shown[n - 1]);
    }
    let mut claims: Vec<Claim> = Vec::new();
    let mut dropped = 0;
    for part in claims_of(reply) {
        let (text, cites) = strip_citations(&part);
        let text = text.trim().trim_start_matches(['-', '*', ':']).trim().to_string();
        if text.is_empty() || text.to_uppercase().contains(NOT_FOUND) || text.split_whitespace().count() < 1 {
            continue;
        }
        let cited: Vec<usize> = cites
            .into_iter()
            .filter(|n| (1..=shown.len()).contains(n))
            .map(|n| shown[n - 1])
            .collect();
        let best = |pool: &mut dyn Iterator<Item = usize>| {
            pool.map(|i| (i, supports(&text, &ranked[i].0.text, query)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
        };
        let found = if cited.is_empty() {
            best(&mut shown.iter().copied()).map(|(i, o)| (i, o, false))
        } else {
            best(&mut cited.iter().copied()).map(|(i, o)| (i, o, true))
        };
        match found {
            Some((sentence, overlap, cited)) if overlap >= SUPPORT_OVERLAP => {
                if !claims.iter().any(|c| c.text == text) {
                    claims.push(Claim {
                        text,
                        sentence,
                        cited,
                        overlap,
                    });
                }
            }
            _ => dropped += 1,
        }
        if claims.len() == MAX_CLAIMS {
            break;
        }
    }
    if !claims.is_empty() {
        Checked::Claims(claims)
    } else if dropped == 0 && reply.to_uppercase().contains(NOT_FOUND) {
        Checked::NotFound
    } else {
        Checked::Unsupported { dropped }
    }
}

/// The answer from the supported claims: each claim with its source's `[n]`, then the sentences it cites quoted
/// with their source number and page, then the extractive answer's other quotes up to its layout's count (so a
/// claim the model got right puts its sentence first, and one it got wrong still leaves the best quotes beneath).
pub fn compose(claims: &[Claim], ranked: &[(ScoredSentence, Vec<f64>)], sources: &[Source]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for c in claims.iter().filter(|c| !c.text.is_empty()) {
        let source = &sources[ranked[c.sentence].0.source];
        let text = c.text.trim_end_matches(['.', ' ']);
        lines.push(format!("{text} [{}].", source.number));
    }
    let layout = super::QUOTE_LAYOUT;
    let mut quoted: Vec<usize> = Vec::new();
    for c in claims {
        if !quoted.contains(&c.sentence) {
            quoted.push(c.sentence);
        }
    }
    let best = ranked.first().map_or(0.0, |(c, _)| c.score);
    for (i, (c, _)) in ranked.iter().enumerate() {
        if quoted.len() >= layout.quotes || c.score < layout.runner_up * best {
            break;
        }
        if !quoted.iter().any(|&q| ranked[q].0.text == c.text) {
            quoted.push(i);
        }
    }
    for i in quoted {
        let (cand, _) = &ranked[i];
        let s = &sources[cand.source];
        lines.push(format!("“{}” [{}] ({})", cand.text.trim(), s.number, s.pages()));
    }
    lines.join("\n")
}

/// The answer when the model chose sentence `chosen` (an index into `ranked`): that sentence quoted first, then
/// the extractive answer's other quotes.
pub fn compose_chosen(chosen: usize, ranked: &[(ScoredSentence, Vec<f64>)], sources: &[Source]) -> String {
    let claim = Claim {
        text: String::new(),
        sentence: chosen,
        cited: true,
        overlap: 1.0,
    };
    compose(std::slice::from_ref(&claim), ranked, sources)
}

/// The reply split into claims: its sentences (a citation right after a full stop stays with its sentence).
fn claims_of(reply: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = reply.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        cur.push(ch);
        let ends = ch == '\n' || (matches!(ch, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()));
        if ends {
            // Keep a following " [3]" with this claim.
            let mut j = i + 1;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            if chars.get(j) == Some(&'[') {
                if let Some(close) = chars[j..].iter().position(|&c| c == ']') {
                    cur.extend(&chars[i + 1..=j + close]);
                    i = j + close;
                }
            }
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        }
        i += 1;
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The text without its `[n]` / `[n, m]` citations, and the numbers cited.
fn strip_citations(text: &str) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut nums = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close)
                if !after[..close].is_empty()
                    && after[..close]
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == ',' || c == ' ') =>
            {
                nums.extend(after[..close].split(',').filter_map(|n| n.trim().parse::<usize>().ok()));
                rest = &after[close + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    (out.replace(" .", ".").replace(" ,", ","), nums)
}

/// Passes the model's tokens on without its `[n]` citations (they number the prompt's sentences, not the
/// sources the answer cites): text inside brackets is held until the bracket closes, and dropped when it was a
/// citation.
#[derive(Default)]
pub struct CitationFilter {
    held: String,
}

impl CitationFilter {
    /// The part of `token` that can be shown now.
    pub fn push(&mut self, token: &str) -> String {
        let mut out = String::new();
        for ch in token.chars() {
            if self.held.is_empty() {
                if ch == '[' {
                    self.held.push(ch);
                } else {
                    out.push(ch);
                }
                continue;
            }
            self.held.push(ch);
            if ch == ']' {
                let inner = &self.held[1..self.held.len() - 1];
                if inner.is_empty() || !inner.chars().all(|c| c.is_ascii_digit() || c == ',' || c == ' ') {
                    out.push_str(&self.held);
                }
                self.held.clear();
            } else if !(ch.is_ascii_digit() || ch == ',' || ch == ' ') {
                out.push_str(&self.held);
                self.held.clear();
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranked(texts: &[&str]) -> Vec<(ScoredSentence, Vec<f64>)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (
                    ScoredSentence {
                        source: i % 2,
                        text: t.to_string(),
                        score: 1.0 - i as f64 / 10.0,
                    },
                    vec![],
                )
            })
            .collect()
    }

    fn source(n: usize, page: u32) -> Source {
        Source {
            number: n,
            chunk_id: format!("c{n}"),
            document: "/d.pdf".into(),
            title: "Manual".into(),
            page_start: page,
            page_end: page,
            text: String::new(),
        }
    }

    const SENTENCES: &[&str] = &[
        "The sonar head operates at a frequency of 675 kHz.",
        "The warranty covers defects in materials for one year.",
        "Range bins can be set to 500 per ping.",
    ];

    #[test]
    fn a_supported_claim_keeps_its_citation_and_quote() {
        let r = ranked(SENTENCES);
        let shown = prompt_sentences(&r);
        let q = "What frequency does the sonar head operate at?";
        let Checked::Claims(claims) = check("The sonar head operates at 675 kHz [1].", q, &r, &shown) else {
            panic!("supported")
        };
        assert_eq!((claims[0].sentence, claims[0].cited), (0, true));
        let text = compose(&claims, &r, &[source(1, 3), source(2, 7)]);
        assert_eq!(
            text.lines().take(2).collect::<Vec<_>>(),
            [
                "The sonar head operates at 675 kHz [1].",
                "“The sonar head operates at a frequency of 675 kHz.” [1] (p. 3)"
            ]
        );
        // The other quotes follow, as the extractive answer would give them.
        assert_eq!(text.lines().count(), 4, "{text}");
        // A claim about the third sentence puts that sentence first.
        let third = Claim {
            text: "Range bins can be 500".into(),
            sentence: 2,
            cited: true,
            overlap: 1.0,
        };
        let text = compose(&[third], &r, &[source(1, 3), source(2, 7)]);
        assert!(text.lines().nth(1).unwrap().starts_with("“Range bins"), "{text}");
        assert_eq!(text.matches("Range bins can be set").count(), 1, "quoted once: {text}");
    }

    #[test]
    fn an_invented_claim_is_dropped() {
        let r = ranked(SENTENCES);
        let shown = prompt_sentences(&r);
        let q = "How long is the warranty?";
        // The cited sentence says one year, not ten: the number is not in it.
        assert_eq!(
            check("The warranty period is 10 years [2].", q, &r, &shown),
            Checked::Unsupported { dropped: 1 }
        );
        // A claim citing the wrong sentence is held to that sentence only.
        assert_eq!(
            check("The warranty covers defects in materials [1].", q, &r, &shown),
            Checked::Unsupported { dropped: 1 }
        );
        // Without a citation it is held to the sentence that supports it best.
        let Checked::Claims(c) = check("It covers defects in materials for one year.", q, &r, &shown) else {
            panic!("supported by [2]")
        };
        assert_eq!((c[0].sentence, c[0].cited), (1, false));
    }

    #[test]
    fn not_found_is_told_from_an_unsupported_answer() {
        let r = ranked(SENTENCES);
        let shown = prompt_sentences(&r);
        assert_eq!(check("NOT FOUND", "Who wrote it?", &r, &shown), Checked::NotFound);
        // Only a number: the model chose that sentence (out of range: nothing).
        assert_eq!(check("[3]", "Who wrote it?", &r, &shown), Checked::Chosen(2));
        assert_eq!(check(" 2.", "Who wrote it?", &r, &shown), Checked::Chosen(1));
        assert_eq!(
            check("[9]", "Who wrote it?", &r, &shown),
            Checked::Unsupported { dropped: 0 }
        );
        let text = compose_chosen(2, &r, &[source(1, 3), source(2, 7)]);
        assert!(
            text.starts_with("“Range bins can be set to 500 per ping.” [1] (p. 3)"),
            "{text}"
        );
        assert_eq!(
            check("Alice wrote it [3].", "Who wrote it?", &r, &shown),
            Checked::Unsupported { dropped: 1 }
        );
    }

    #[test]
    fn numbers_must_appear_in_the_sentence() {
        let q = "How many range bins?";
        assert!(supports("500 range bins", SENTENCES[2], q) >= SUPPORT_OVERLAP);
        assert_eq!(supports("5000 range bins", SENTENCES[2], q), 0.0);
        assert_eq!(supports("", SENTENCES[2], q), 0.0);
    }

    #[test]
    fn citations_are_split_and_stripped() {
        assert_eq!(
            claims_of("It is 675 kHz. [1] The range is 500 bins [3]."),
            vec!["It is 675 kHz. [1]", "The range is 500 bins [3]."]
        );
        assert_eq!(
            strip_citations("It is 675 kHz [1, 2]."),
            ("It is 675 kHz.".into(), vec![1, 2])
        );
        assert_eq!(strip_citations("see [a] note").0, "see [a] note");
    }

    #[test]
    fn the_stream_hides_sentence_numbers() {
        let mut f = CitationFilter::default();
        let shown: String = ["It is 6", "75 kHz [", "1", "]. See [a]", " too"]
            .iter()
            .map(|t| f.push(t))
            .collect();
        assert_eq!(shown, "It is 675 kHz . See [a] too");
    }

    #[test]
    fn the_prompt_numbers_distinct_sentences_and_asks_for_citations() {
        let r = ranked(&["A b c.", "A b c.", "Word", "D e f."]);
        let shown = prompt_sentences(&r);
        assert_eq!(shown, vec![0, 3]);
        let m = grounded_messages("Why?", &r, &shown);
        assert!(m[1].content.contains("[1] A b c.\n[2] D e f.\n\nQuestion: Why?"));
        assert!(super::super::echoes_prompt(GROUNDED_INSTRUCTION));
    }
}

//! The extractive answer's text: the best sentences quoted with their source number and page, laid out by a
//! [`QuoteLayout`] (how long a quote may be, how many, in which order).

use super::ScoredSentence;
use crate::augment::Source;

/// How the extractive answer lays out its quotes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuoteLayout {
    /// Longest quoted sentence, in characters (cut at a word, with "…").
    pub quote_chars: usize,
    /// Sentences quoted at most.
    pub quotes: usize,
    /// Runner-up sentences are quoted when they score at least this share of the best one.
    pub runner_up: f64,
    /// The order of the quotes.
    pub order: QuoteOrder,
}

/// The order of an extractive answer's quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteOrder {
    /// Best score first.
    Score,
    /// The chosen quotes by score per character, so that a short sentence nearly as likely to hold the answer
    /// comes before a long one (what maximises the chance that the answer is in the first lines, when the
    /// scores are probabilities). The best sentence is always quoted.
    ScorePerChar,
}

/// Today's layout (measured: the best three hold the answer phrase far more often than the best one).
pub const QUOTE_LAYOUT: QuoteLayout = QuoteLayout {
    quote_chars: 280,
    quotes: 3,
    runner_up: 0.3,
    order: QuoteOrder::Score,
};

/// The extractive answer when the kept passages hold no sentence (passages were kept, so it never says that none
/// holds evidence).
pub const NOTHING_TO_QUOTE: &str = "The documents do not say: the kept passages hold no sentence that can be quoted.";

/// The extractive answer: up to three sentences, each quoted with its source number and page, the runners-up
/// only when they score at least 30% of the best.
pub fn extractive(ranked: &[(ScoredSentence, Vec<f64>)], sources: &[Source]) -> String {
    extractive_with(ranked, sources, &QUOTE_LAYOUT)
}

/// [`extractive`] with a given layout (`ranked` best first).
pub fn extractive_with(ranked: &[(ScoredSentence, Vec<f64>)], sources: &[Source], layout: &QuoteLayout) -> String {
    let Some((best, _)) = ranked.first() else {
        return NOTHING_TO_QUOTE.to_string();
    };
    let mut chosen = vec![(best, quote(best, sources, layout.quote_chars))];
    for (c, _) in ranked.iter().skip(1) {
        if chosen.len() == layout.quotes || c.score < layout.runner_up * best.score {
            break;
        }
        if !chosen.iter().any(|(x, _)| x.text == c.text) {
            chosen.push((c, quote(c, sources, layout.quote_chars)));
        }
    }
    if layout.order == QuoteOrder::ScorePerChar {
        let per_char = |(c, q): &(&ScoredSentence, String)| c.score / q.chars().count().max(1) as f64;
        chosen.sort_by(|a, b| per_char(b).total_cmp(&per_char(a)));
    }
    chosen.into_iter().map(|(_, q)| q).collect::<Vec<_>>().join("\n")
}

fn quote(c: &ScoredSentence, sources: &[Source], max_chars: usize) -> String {
    let s = &sources[c.source];
    let text = match c.text.char_indices().nth(max_chars) {
        Some((cut, _)) => {
            let head = &c.text[..cut];
            format!("{}…", head.rsplit_once(' ').map_or(head, |(h, _)| h))
        }
        None => c.text.clone(),
    };
    format!("“{}” [{}] ({})", text, s.number, s.pages())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize, text: &str) -> Source {
        Source {
            number: n,
            chunk_id: format!("c{n}"),
            document: "/d.pdf".into(),
            title: "Paper".into(),
            page_start: 2,
            page_end: 2,
            text: text.into(),
        }
    }

    #[test]
    fn extractive_quotes_with_number_and_page() {
        let sources = vec![source(1, "a"), source(2, "b")];
        let ranked = vec![
            (
                ScoredSentence {
                    source: 1,
                    text: "The window is five bytes wide.".into(),
                    score: 0.9,
                },
                vec![],
            ),
            (
                ScoredSentence {
                    source: 0,
                    text: "Unrelated.".into(),
                    score: 0.2,
                },
                vec![],
            ),
        ];
        assert_eq!(
            extractive(&ranked, &sources),
            "“The window is five bytes wide.” [2] (p. 2)"
        );
        assert_eq!(extractive(&[], &sources), NOTHING_TO_QUOTE);
    }

    #[test]
    fn layouts_cut_limit_and_order_the_quotes() {
        let sources = vec![source(1, "a"), source(2, "b")];
        let long = "The long sentence goes on about the window and its many fields for quite a while.";
        let row = |source, text: &str, score| {
            let c = ScoredSentence {
                source,
                text: text.into(),
                score,
            };
            (c, vec![])
        };
        let ranked = vec![
            row(0, long, 0.6),
            row(1, "Port: 8080.", 0.5),
            row(1, "Port: 8080.", 0.45),
            row(0, "Weak.", 0.1),
        ];
        let by_score = QuoteLayout {
            quote_chars: 30,
            ..QUOTE_LAYOUT
        };
        assert_eq!(
            extractive_with(&ranked, &sources, &by_score),
            "“The long sentence goes on…” [1] (p. 2)\n“Port: 8080.” [2] (p. 2)",
            "cut at a word, a repeated sentence quoted once, a runner-up below 30% of the best left out"
        );
        let per_char = QuoteLayout {
            order: QuoteOrder::ScorePerChar,
            ..QUOTE_LAYOUT
        };
        let answer = extractive_with(&ranked, &sources, &per_char);
        assert!(answer.starts_with("“Port: 8080.” [2]"), "{answer}");
        assert!(answer.ends_with(&format!("“{long}” [1] (p. 2)")), "{answer}");
        let one = QuoteLayout { quotes: 1, ..per_char };
        assert_eq!(extractive_with(&ranked, &sources, &one), format!("“{long}” [1] (p. 2)"));
    }
}

//! Where the extractive answer puts the answer phrase: for each quote layout (how long a quote may be, how many,
//! in which order), the share of answerable questions whose composed answer holds the reference phrase in its
//! first 300 characters and anywhere, the sentences ranked by the held-out sentence model over every candidate.

use ragsift_engine::eval::spans::contains;
use ragsift_engine::pipeline::answer::{extractive_with, QuoteLayout, QuoteOrder, ScoredSentence, QUOTE_LAYOUT};
use ragsift_engine::pipeline::augment::Source;

/// One answerable question: its candidates as sources, its sentences (source index, text, held-out score) and
/// its reference phrases.
pub struct Question {
    pub sources: Vec<Source>,
    pub sentences: Vec<(usize, String, f64)>,
    pub phrases: Vec<String>,
}

/// The layouts compared, today's first.
fn layouts() -> Vec<(&'static str, QuoteLayout)> {
    let per_char = QuoteLayout {
        order: QuoteOrder::ScorePerChar,
        ..QUOTE_LAYOUT
    };
    vec![
        ("best first, quotes up to 280 characters (today)", QUOTE_LAYOUT),
        ("by score per character, up to 280", per_char),
        (
            "best first, quotes up to 200",
            QuoteLayout {
                quote_chars: 200,
                ..QUOTE_LAYOUT
            },
        ),
        (
            "by score per character, up to 200",
            QuoteLayout {
                quote_chars: 200,
                ..per_char
            },
        ),
        (
            "best first, quotes up to 140",
            QuoteLayout {
                quote_chars: 140,
                ..QUOTE_LAYOUT
            },
        ),
        (
            "by score per character, runners-up from 10% of the best",
            QuoteLayout {
                runner_up: 0.1,
                ..per_char
            },
        ),
    ]
}

/// Prints the layout table.
pub fn report(questions: &[Question]) {
    println!(
        "\n### The extractive answer's quote layout ({} answerable questions; sentences of all candidates ranked by the held-out sentence model)\n",
        questions.len()
    );
    println!("| layout | phrase in the first 300 characters | phrase anywhere | mean answer length |\n| --- | ---: | ---: | ---: |");
    for (name, layout) in layouts() {
        let (mut head, mut any, mut chars) = (0usize, 0usize, 0usize);
        for q in questions {
            let mut ranked: Vec<(ScoredSentence, Vec<f64>)> = q
                .sentences
                .iter()
                .map(|(source, text, score)| {
                    let c = ScoredSentence {
                        source: *source,
                        text: text.clone(),
                        score: *score,
                    };
                    (c, Vec::new())
                })
                .collect();
            ranked.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
            let answer = extractive_with(&ranked, &q.sources, &layout);
            let first: String = answer.chars().take(300).collect();
            head += usize::from(q.phrases.iter().any(|p| contains(&first, p)));
            any += usize::from(q.phrases.iter().any(|p| contains(&answer, p)));
            chars += answer.chars().count();
        }
        let n = questions.len().max(1);
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        println!("| {name} | {:.0}% | {:.0}% | {} |", pct(head), pct(any), chars / n);
    }
}

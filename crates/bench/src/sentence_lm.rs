//! Does the bundled language model reorder the extractive answer's best sentences better? A second stage over
//! each question's top [`RERANK_DEPTH`] sentences (by the held-out sentence model): the question's likelihood after
//! each sentence against after no passage (query likelihood, as in the judge's passage signals), and the model's
//! yes/no readout, combined with the first stage's score by a ranking fit held out by document. Reported beside
//! the first stage on the same questions; `ragsift-bench judge … --sentence-lm`.

use ragsift_engine::judge::local::model::{self, Logistic};
use ragsift_engine::judge::local::signals::LM_FRAME;
use ragsift_engine::llm::ScoreItem;
use ragsift_engine::{LanguageModel, Result};
use std::collections::BTreeMap;
use std::time::Instant;

/// Sentences per question the language model reads (the best three are what the answer quotes).
pub const RERANK_DEPTH: usize = 6;
/// Longest sentence text given to the model, in characters.
const SENTENCE_CHARS: usize = 400;
/// The readout after the question (as the judge's frame asks it).
const PROBE: &str = "\nAnswered by the passage:";
/// The second stage's signals, in order.
const FEATURES: [&str; 6] = [
    "first_stage",
    "first_stage_gap",
    "lm_gain",
    "lm_gain_gap",
    "lm_yes",
    "lm_yes_gap",
];

/// One sentence of the first stage's ranking.
pub struct Sentence<'a> {
    pub question: usize,
    pub fold: usize,
    pub query: &'a str,
    pub text: &'a str,
    /// The first stage's held-out score.
    pub score: f64,
    /// Holds the answer phrase.
    pub holds: bool,
    pub answerable: bool,
}

/// Prints the rerank's rows (best one, two and three sentences holding the answer phrase, answerable questions)
/// beside the first stage restricted to the same depth, and the model's cost per question.
pub fn report(sentences: &[Sentence<'_>], lm: &dyn LanguageModel) -> Result<()> {
    let mut by_question: BTreeMap<usize, Vec<&Sentence<'_>>> = BTreeMap::new();
    for s in sentences.iter().filter(|s| s.answerable) {
        by_question.entry(s.question).or_default().push(s);
    }
    let started = Instant::now();
    let (mut x, mut y, mut groups, mut folds) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut tokens = 0u64;
    for (q, list) in &mut by_question {
        list.sort_by(|a, b| b.score.total_cmp(&a.score));
        list.truncate(RERANK_DEPTH);
        let query = format!(" {}", list[0].query.trim());
        let mut items: Vec<ScoreItem> = list
            .iter()
            .map(|s| ScoreItem {
                context: format!("Passage: {}\nQuestion:", cut(s.text)),
                target: query.clone(),
                probe: PROBE.into(),
            })
            .collect();
        items.push(ScoreItem {
            context: "Passage: (none)\nQuestion:".into(),
            target: query.clone(),
            probe: PROBE.into(),
        });
        let scores = lm.score_text(LM_FRAME, &items)?;
        tokens += scores.iter().map(|s| u64::from(s.tokens)).sum::<u64>();
        let null = f64::from(scores[list.len()].mean_logprob());
        let gain: Vec<f64> = scores[..list.len()]
            .iter()
            .map(|s| f64::from(s.mean_logprob()) - null)
            .collect();
        let yes: Vec<f64> = scores[..list.len()]
            .iter()
            .map(|s| {
                let p = f64::from(s.p_yes).clamp(1e-4, 1.0 - 1e-4);
                (p / (1.0 - p)).ln()
            })
            .collect();
        let first: Vec<f64> = list.iter().map(|s| logit(s.score)).collect();
        let top = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (tf, tg, ty) = (top(&first), top(&gain), top(&yes));
        for (k, s) in list.iter().enumerate() {
            x.push(vec![
                first[k],
                first[k] - tf,
                gain[k],
                gain[k] - tg,
                yes[k],
                yes[k] - ty,
            ]);
            y.push(s.holds);
            groups.push(*q);
            folds.push(s.fold);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let n = by_question.len().max(1);
    let names: Vec<String> = FEATURES.iter().map(|s| s.to_string()).collect();
    let stage2 = model::cross_validate_ranking(&names, &x, &y, (&groups, &folds), crate::judge_rows::L2);
    let hits = |score: &dyn Fn(usize) -> f64, k: usize| {
        let mut per: BTreeMap<usize, Vec<(f64, bool)>> = BTreeMap::new();
        for i in 0..x.len() {
            per.entry(groups[i]).or_default().push((score(i), y[i]));
        }
        let found = per
            .values_mut()
            .filter_map(|v| {
                v.sort_by(|a, b| b.0.total_cmp(&a.0));
                v.iter().take(k).any(|r| r.1).then_some(())
            })
            .count();
        100.0 * found as f64 / n as f64
    };
    let row = |name: &str, score: &dyn Fn(usize) -> f64| {
        let [a, b, c] = [1, 2, 3].map(|k| hits(score, k));
        println!("| {name} | {a:.0}% | {b:.0}% | {c:.0}% |");
    };
    println!(
        "\n### The language model reranks the best {RERANK_DEPTH} sentences ({} answerable questions, held out by document)\n",
        by_question.len()
    );
    println!(
        "| ranking of the top {RERANK_DEPTH} | best sentence | best two | best three |\n| --- | ---: | ---: | ---: |"
    );
    row("first stage: the sentence model (baseline)", &|i| x[i][0]);
    row("language model: query-likelihood gain alone", &|i| x[i][2]);
    row("language model: yes/no readout alone", &|i| x[i][4]);
    row("first stage + language model (ranking fit)", &|i| stage2[i]);
    println!(
        "| any of the top {RERANK_DEPTH} (ceiling) | {:.0}% | |",
        hits(&|_| 0.0, RERANK_DEPTH)
    );
    let fitted = Logistic::fit_ranking(&names, &x, &y, &groups, crate::judge_rows::L2);
    println!(
        "\nLanguage model {}: {:.0} ms and {} tokens per question (this build). Weights of the full fit: {}.",
        lm.id(),
        1000.0 * seconds / n as f64,
        tokens / n as u64,
        names
            .iter()
            .zip(&fitted.weights)
            .map(|(f, w)| format!("{f} {w:+.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

fn cut(text: &str) -> &str {
    match text.char_indices().nth(SENTENCE_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

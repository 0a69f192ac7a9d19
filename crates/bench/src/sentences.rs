//! The extractive answer's sentence model on the labelled set: which sentence holds the answer phrase, ranked by
//! cosine, by the fitted sentence model on its first and on all signals, and by a ranking fit, every figure held
//! out by document; then the quote layout's table and, on request, the language model as a second stage.

use crate::judge_rows::{depth, Row};
use crate::qaset::QaSet;
use ragsift_engine::eval::spans::contains;
use ragsift_engine::judge::local::model::{self, Logistic};
use ragsift_engine::pipeline::answer::{rank_sentences_with, SENTENCE_FEATURES};
use ragsift_engine::pipeline::augment::Source;
use ragsift_engine::{Embedder, LanguageModel, Result};
use std::collections::BTreeMap;

/// The extractive answer's sentence model: fitted on the sentences of the top candidates of answerable
/// questions (a sentence is positive when it contains the labelled answer phrase), reported out of fold.
pub fn sentence_model(
    set: &QaSet,
    rows: &[Row],
    p_evi: &[f64],
    embedder: &dyn Embedder,
    rerank: Option<&dyn LanguageModel>,
) -> Result<Logistic> {
    let mut x = Vec::new();
    let mut texts = Vec::new();
    let mut places = Vec::new();
    let mut case_sources = BTreeMap::new();
    let mut y = Vec::new();
    let mut groups = Vec::new();
    let mut question_of = Vec::new();
    for (ci, case) in set.cases.iter().enumerate() {
        let idx: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].case == ci && rows[i].rank < depth())
            .collect();
        let sources: Vec<Source> = idx
            .iter()
            .enumerate()
            .map(|(n, &i)| {
                let h = &case.candidates[rows[i].rank].hit;
                Source {
                    number: n + 1,
                    chunk_id: h.chunk.id.clone(),
                    document: h.chunk.document_path.clone(),
                    title: h.chunk.document_title.clone(),
                    page_start: h.chunk.page_start,
                    page_end: h.chunk.page_end,
                    text: h.chunk.text.clone(),
                }
            })
            .collect();
        let evidence: Vec<Option<f64>> = idx.iter().map(|&i| Some(p_evi[i])).collect();
        let phrases = case.question.answer_phrases();
        let ranked = rank_sentences_with(
            &case.question.query,
            &sources,
            &evidence,
            Some(embedder),
            Some(set.library.store()),
            None,
        )?;
        case_sources.insert(ci, sources);
        if std::env::var_os("RAGSIFT_BENCH_VERBOSE").is_some() && case.answerable() {
            let good = ranked
                .iter()
                .position(|(c, _)| phrases.iter().any(|p| contains(&c.text, p)));
            eprintln!(
                "Q {} | {} | phrase {:?} | first hit at {:?}",
                case.question.id, case.question.query, phrases, good
            );
            for (c, _) in ranked.iter().take(2) {
                eprintln!("    - {}", c.text.chars().take(160).collect::<String>());
            }
        }
        for (cand, features) in ranked {
            y.push(phrases.iter().any(|p| contains(&cand.text, p)));
            texts.push(cand.text);
            places.push(cand.source);
            x.push(features);
            groups.push(case.fold);
            question_of.push(ci);
        }
    }
    let names: Vec<String> = SENTENCE_FEATURES.iter().map(|s| s.to_string()).collect();
    let l2 = crate::judge_rows::L2;
    // Three fits, each held out by document: the twelve signals the model had before the gaps, context and
    // place were added (pointwise), all signals pointwise, and all signals ranked within each question.
    let first: Vec<Vec<f64>> = x.iter().map(|r| r[..SHIPPED_BEFORE].to_vec()).collect();
    let candidates = [
        (
            "fitted sentence model, 12 signals (before)",
            model::cross_validate(&names[..SHIPPED_BEFORE], &first, &y, &groups, l2),
        ),
        (
            "fitted sentence model, all signals",
            model::cross_validate(&names, &x, &y, &groups, l2),
        ),
        (
            "ranking fit within each question, all signals",
            model::cross_validate_ranking(&names, &x, &y, (&question_of, &groups), l2),
        ),
    ];
    let answerable: Vec<usize> = (0..x.len())
        .filter(|&i| set.cases[question_of[i]].answerable())
        .collect();
    // Per answerable question: do the best n sentences by `score` hold the answer phrase?
    let hit = |score: &dyn Fn(usize) -> f64, n: usize| {
        let mut questions: BTreeMap<usize, Vec<(f64, bool)>> = BTreeMap::new();
        for &i in &answerable {
            questions.entry(question_of[i]).or_default().push((score(i), y[i]));
        }
        let found = (questions.values_mut())
            .filter_map(|s| {
                s.sort_by(|a, b| b.0.total_cmp(&a.0));
                s.iter().take(n).any(|x| x.1).then_some(())
            })
            .count();
        found as f64 / questions.len().max(1) as f64
    };
    let d = depth();
    println!("\n### Extractive answer: the sentence that holds the answer phrase (held out, top {d} candidates)\n");
    println!("| ranking | best sentence | best two | best three |\n| --- | ---: | ---: | ---: |");
    let row = |name: &str, score: &dyn Fn(usize) -> f64| {
        let [a, b, c] = [1, 2, 3].map(|n| 100.0 * hit(score, n));
        println!("| {name} | {a:.0}% | {b:.0}% | {c:.0}% |");
    };
    row("cosine to the question (baseline)", &|i| x[i][0]);
    for (name, scored) in &candidates {
        row(name, &|i| scored[i]);
    }
    let mut questions: BTreeMap<usize, bool> = BTreeMap::new();
    for &i in &answerable {
        *questions.entry(question_of[i]).or_default() |= y[i];
    }
    println!(
        "| any sentence of the candidates (ceiling) | {:.0}% | |",
        100.0 * questions.values().filter(|&&v| v).count() as f64 / questions.len().max(1) as f64
    );
    // The shipped model: the all-signal fit that puts the answer phrase first most often held out (the ranking
    // fit on a tie, as it orders what the answer quotes).
    let top1 = |k: usize| hit(&|i| candidates[k].1[i], 1);
    let ranking = top1(2) >= top1(1);
    let scored = &candidates[if ranking { 2 } else { 1 }].1;
    let mut quoted: BTreeMap<usize, crate::quotes::Question> = BTreeMap::new();
    for &i in &answerable {
        let ci = question_of[i];
        let q = quoted.entry(ci).or_insert_with(|| crate::quotes::Question {
            sources: case_sources.remove(&ci).unwrap_or_default(),
            sentences: Vec::new(),
            phrases: set.cases[ci].question.answer_phrases(),
        });
        q.sentences.push((places[i], texts[i].clone(), scored[i]));
    }
    crate::quotes::report(&quoted.into_values().collect::<Vec<_>>());
    if let Some(lm) = rerank {
        let sentences: Vec<crate::sentence_lm::Sentence<'_>> = (0..x.len())
            .map(|i| {
                let case = &set.cases[question_of[i]];
                crate::sentence_lm::Sentence {
                    question: question_of[i],
                    fold: groups[i],
                    query: &case.question.query,
                    text: &texts[i],
                    score: scored[i],
                    holds: y[i],
                    answerable: case.answerable(),
                }
            })
            .collect();
        crate::sentence_lm::report(&sentences, lm)?;
    }
    println!(
        "\nShipped: the {} (best sentence {:.0}% held out, against {:.0}% before).",
        if ranking {
            "ranking fit"
        } else {
            "pointwise fit of all signals"
        },
        100.0 * top1(if ranking { 2 } else { 1 }),
        100.0 * top1(0)
    );
    // Answerability from the best sentence's held-out score.
    let mut best: BTreeMap<usize, f64> = BTreeMap::new();
    for i in 0..x.len() {
        let b = best.entry(question_of[i]).or_insert(0.0);
        *b = b.max(scored[i]);
    }
    let (scores, labels): (Vec<f64>, Vec<bool>) = best.iter().map(|(&c, &s)| (s, set.cases[c].answerable())).unzip();
    println!(
        "\nAnswerability (is the question answered by the documents) from the best sentence's held-out score: AUC {:.3} over {} questions.",
        model::auc(&scores, &labels).unwrap_or(f64::NAN),
        scores.len()
    );
    Ok(if ranking {
        Logistic::fit_ranking(&names, &x, &y, &question_of, l2)
    } else {
        Logistic::fit(&names, &x, &y, l2)
    })
}

/// How many of [`SENTENCE_FEATURES`] the sentence model had before the gaps, context and place were added.
const SHIPPED_BEFORE: usize = 12;

//! `ragsift-bench judge`: the local judge measured on the labelled set. Every signal's ROC AUC against the chunk
//! labels, the fitted combinations' out-of-fold AUC, Brier score and reliability, beside the retrieval score's
//! AUC (the baseline) and the old yes/no readout; `--refit` writes the fitted models the engine ships.

use crate::judge_rows::{depth, injection_heldout, injection_rows, injection_set, Row};
use crate::qaset::{self, QaSet};
use ragsift_engine::judge::local::signals::{compute, SignalSources, FEATURES};
use ragsift_engine::judge::local::{injection, model};
use ragsift_engine::llm::embedded::{default_model_path, EmbeddedModel, EmbeddedOptions};
use ragsift_engine::{LanguageModel, Result};
use serde_json::json;
use std::path::Path;
use std::time::Instant;

pub struct Options {
    pub top_k: usize,
    pub dump: Option<std::path::PathBuf>,
    /// Also measure the language-model signals (query likelihood, yes/no readout).
    pub lm: bool,
    /// The model `lm` reads (default: the embedded base model).
    pub lm_model: Option<std::path::PathBuf>,
    /// Write the fitted judge to the engine's `fit.json`.
    pub refit: bool,
    /// Replace only the sentence model in the shipped `fit.json`.
    pub refit_sentence: bool,
    /// Also measure the embedded model reranking the extractive answer's best sentences.
    pub sentence_lm: bool,
    /// Also measure the embedded model's readout for the contradicted premise.
    pub premise: bool,
    /// Time both judges on this many questions (0 = skip).
    pub speed: usize,
    /// How the candidates are retrieved.
    pub mode: ragsift_engine::retrieve::SearchMode,
    /// The depth of the operating points (the pipeline's top k); [`DEFAULT_TOP_K`] when `None`.
    pub depth: Option<usize>,
}

pub fn run(o: &Options) -> Result<()> {
    let embedder = crate::embedder(0)?;
    if let Some(d) = o.depth {
        let _ = crate::judge_rows::DEPTH.set(d.min(o.top_k));
    }
    println!(
        "Candidates: top {} by {:?} search; operating points at depth {}.",
        o.top_k,
        o.mode,
        depth()
    );
    let set = qaset::load_with(&embedder, o.top_k, o.mode)?;
    let model = if o.lm || o.sentence_lm {
        Some(match &o.lm_model {
            Some(path) => EmbeddedModel::load(path, &EmbeddedOptions::default(), None)?,
            None => load_model()?,
        })
    } else {
        None
    };
    let passage_lm = model.as_ref().filter(|_| o.lm).map(|m| m as &dyn LanguageModel);
    let signals = signal_rows(&set, &embedder, passage_lm)?;
    if let Some(path) = &o.dump {
        write_dump(path, &set, &signals)?;
    }
    let rows = rows(&set, &signals);
    let fit = crate::judge_fit::report_and_fit(
        &set,
        &rows,
        &embedder,
        passage_lm.map(|m| m.id().to_string()),
        signals.seconds_per_chunk,
        model
            .as_ref()
            .filter(|_| o.sentence_lm)
            .map(|m| m as &dyn LanguageModel),
    )?;
    injection_report(
        &set,
        &embedder,
        &fit.without_model[ragsift_engine::policy::CONTAINS_PROMPT_INJECTION],
    )?;
    if o.premise {
        premise_report(&set, depth())?;
        injection_readout_report()?;
    }
    if o.speed > 0 {
        speed_report(&set, &embedder, o.speed)?;
    }
    if o.refit || o.refit_sentence {
        let fit = if o.refit {
            fit
        } else {
            crate::judge_fit::with_sentence(ragsift_engine::judge::local::shipped_fit(), fit.sentence)
        };
        let path = crate::repo_root().join("crates/judge/src/local/fit.json");
        let json = serde_json::to_string_pretty(&fit).unwrap_or_default();
        std::fs::write(&path, json + "\n")
            .map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))?;
        println!("\nwrote {}", path.display());
    }
    Ok(())
}

pub fn load_model() -> Result<EmbeddedModel> {
    let home = ragsift_engine::paths::data_dir()?;
    let path = default_model_path(&ragsift_engine::paths::models_dir(&home)?);
    EmbeddedModel::load(&path, &EmbeddedOptions::default(), None)
}

/// Signals per case and candidate, with the seconds spent per chunk.
pub struct SignalRows {
    pub values: Vec<Vec<Vec<f32>>>,
    pub seconds_per_chunk: f64,
}

pub fn signal_rows(
    set: &QaSet,
    embedder: &dyn ragsift_engine::Embedder,
    model: Option<&dyn LanguageModel>,
) -> Result<SignalRows> {
    let sources = SignalSources {
        embedder,
        model,
        stats: Some(set.library.store()),
    };
    let t = Instant::now();
    let mut chunks = 0usize;
    let mut values = Vec::with_capacity(set.cases.len());
    for (i, case) in set.cases.iter().enumerate() {
        let passages = case.passages();
        chunks += passages.len();
        let s = compute(&case.question.query, &passages, &sources)?;
        values.push(s.into_iter().map(|x| x.values).collect());
        if (i + 1) % 10 == 0 {
            eprintln!("  signals: {}/{} questions", i + 1, set.cases.len());
        }
    }
    Ok(SignalRows {
        values,
        seconds_per_chunk: t.elapsed().as_secs_f64() / chunks.max(1) as f64,
    })
}

fn write_dump(path: &Path, set: &QaSet, rows: &SignalRows) -> Result<()> {
    let mut out = Vec::new();
    for (case, vals) in set.cases.iter().zip(&rows.values) {
        for (rank, (c, v)) in case.candidates.iter().zip(vals).enumerate() {
            let mut row = json!({
                "qid": case.question.id, "kind": case.question.kind, "fold": case.fold, "rank": rank,
                "chunk": c.hit.chunk.id, "document": c.hit.chunk.document_path, "page_start": c.hit.chunk.page_start,
                "evidence": c.evidence, "answer_page": c.answer_page, "similarity": c.hit.score,
                "query": case.question.query, "text": c.hit.chunk.text,
            });
            for (name, x) in FEATURES.iter().zip(v) {
                row[*name] = if x.is_finite() { json!(x) } else { json!(null) };
            }
            let inj = injection::scan(&c.hit.chunk.text).values();
            for (name, x) in injection::FEATURES.iter().zip(inj) {
                row[*name] = json!(x);
            }
            out.push(row);
        }
    }
    let doc = json!({"seconds_per_chunk": rows.seconds_per_chunk, "rows": out});
    std::fs::write(path, serde_json::to_vec_pretty(&doc).unwrap_or_default())
        .map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))?;
    eprintln!("wrote {} rows to {}", out.len(), path.display());
    Ok(())
}

pub fn rows(set: &QaSet, signals: &SignalRows) -> Vec<Row> {
    let mut out = Vec::new();
    for (ci, (case, vals)) in set.cases.iter().zip(&signals.values).enumerate() {
        for (rank, (c, v)) in case.candidates.iter().zip(vals).enumerate() {
            let mut values: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
            values.extend(injection::scan(&c.hit.chunk.text).values());
            out.push(Row {
                case: ci,
                rank,
                fold: case.fold,
                values,
                evidence: c.evidence,
                answer_page: c.answer_page,
                similarity: f64::from(c.hit.score),
                characters: c.hit.chunk.text.chars().count(),
                doc_kind: case.question.doc_kind,
            });
        }
    }
    out
}

/// Recall of the injection probability on planted injections by style, and its false-positive rate on the benign
/// look-alikes and on every chunk of the labelled papers — on the development set and on the held-out set.
pub fn injection_report(set: &QaSet, embedder: &dyn ragsift_engine::Embedder, model: &model::Logistic) -> Result<()> {
    let mut texts: Vec<String> = Vec::new();
    for d in set.library.documents()? {
        texts.extend(set.library.store().chunks_of(&d.id)?.into_iter().map(|c| c.text));
    }
    let dev = injection_set()?;
    let held = injection_heldout()?;
    for s in [&dev, &held] {
        texts.extend(s.injected.iter().chain(&s.benign).map(|x| x.text.clone()));
    }
    let rows = injection_rows(embedder, &texts)?;
    let probs: std::collections::HashMap<&str, f64> = texts
        .iter()
        .map(String::as_str)
        .zip(rows.iter().map(|r| model.predict(r)))
        .collect();
    let p = |t: &str| probs.get(t).copied().unwrap_or(0.0);
    let flagged = |t: &str| p(t) > 0.5;
    let chunks = texts.len()
        - [&dev, &held]
            .iter()
            .map(|s| s.injected.len() + s.benign.len())
            .sum::<usize>();
    let fp_chunks = texts[..chunks].iter().filter(|t| flagged(t)).count();
    for (title, planted) in [("development set", dev), ("held-out set", held)] {
        let mut by_style: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
        for x in &planted.injected {
            let style = x.style.split(':').next().unwrap_or("?").to_string();
            let e = by_style.entry(style).or_default();
            e.1 += 1;
            e.0 += usize::from(flagged(&x.text));
        }
        println!("\n### Prompt injection offline, {title} (probability > 0.5)\n");
        println!("| style | planted | flagged | recall |\n| --- | ---: | ---: | ---: |");
        let (mut hit, mut all) = (0, 0);
        for (style, (h, n)) in &by_style {
            println!(
                "| {style} ({}) | {n} | {h} | {:.2} |",
                style_name(style),
                *h as f64 / *n as f64
            );
            hit += h;
            all += n;
        }
        println!(
            "| **all** | {all} | {hit} | **{:.2}** |",
            hit as f64 / all.max(1) as f64
        );
        let fp = planted.benign.iter().filter(|x| flagged(&x.text)).count();
        let (scores, labels): (Vec<f64>, Vec<bool>) = planted
            .injected
            .iter()
            .map(|x| (p(&x.text), true))
            .chain(planted.benign.iter().map(|x| (p(&x.text), false)))
            .unzip();
        println!(
            "\nFalse positives: {fp} of {} benign look-alikes ({:.2}); AUC planted vs look-alikes {:.3}.",
            planted.benign.len(),
            fp as f64 / planted.benign.len().max(1) as f64,
            model::auc(&scores, &labels).unwrap_or(f64::NAN)
        );
        if std::env::var_os("RAGSIFT_BENCH_VERBOSE").is_some() {
            for x in planted.injected.iter().filter(|x| !flagged(&x.text)) {
                eprintln!("  missed {} ({})", x.id, x.style);
            }
            for x in planted.benign.iter().filter(|x| flagged(&x.text)) {
                eprintln!("  false positive {} ({})", x.id, x.style);
            }
        }
    }
    println!(
        "\nOn the labelled papers: {fp_chunks} of {chunks} chunks flagged ({:.3}).",
        fp_chunks as f64 / chunks.max(1) as f64
    );
    Ok(())
}

fn style_name(letter: &str) -> &'static str {
    match letter {
        "a" => "override",
        "b" => "chat-format tags",
        "c" => "answer manipulation",
        "d" => "persona switch",
        "e" => "hidden text",
        "f" => "note to AI readers",
        "g" => "other languages",
        "h" => "subtle steering",
        _ => "other",
    }
}

/// The contradicted premise offline: the yes/no readout of the embedded model (the only offline candidate) on the
/// top candidates of the false-premise questions and of as many answerable ones. Positives are the chunks that
/// hold the evidence correcting a false premise. Reported so that "not assessed" rests on a measurement.
pub fn premise_report(set: &QaSet, top_k: usize) -> Result<f64> {
    use ragsift_engine::eval::qa::QuestionKind;
    use ragsift_engine::judge::{default_questions, Judge, ReadoutJudge};
    let model = load_model()?;
    let judge = ReadoutJudge { model: &model };
    let question: Vec<_> = default_questions()
        .into_iter()
        .filter(|q| q.key == ragsift_engine::policy::CONTRADICTS_QUERY_PREMISE)
        .collect();
    let false_premise: Vec<&qaset::Case> = set
        .cases
        .iter()
        .filter(|c| c.question.kind == QuestionKind::FalsePremise)
        .collect();
    let answerable: Vec<&qaset::Case> = set
        .cases
        .iter()
        .filter(|c| c.question.kind == QuestionKind::Answerable)
        .step_by(6)
        .take(false_premise.len())
        .collect();
    let (mut scores, mut labels) = (Vec::new(), Vec::new());
    for case in false_premise.iter().chain(&answerable) {
        let passages: Vec<String> = case.passages().into_iter().take(top_k).collect();
        let judged = judge.judge(&case.question.query, &passages, &question)?;
        for (j, c) in judged.iter().zip(&case.candidates) {
            scores.push(j.scores[&question[0].key]);
            labels.push(case.question.kind == QuestionKind::FalsePremise && c.evidence);
        }
    }
    let auc = model::auc(&scores, &labels).unwrap_or(f64::NAN);
    println!(
        "\n### Contradicted premise\n\nThe embedded model's yes/no readout for `contradicts_query_premise` on the top {top_k} candidates of \
         {} false-premise and {} answerable questions ({} chunks, {} of them hold the evidence that corrects a false \
         premise): AUC {auc:.3}. No offline signal tells these apart measurably better than chance, so the local \
         judge reports the question as not assessed and the policy skips its rule.",
        false_premise.len(),
        answerable.len(),
        scores.len(),
        labels.iter().filter(|&&l| l).count()
    );
    Ok(auc)
}

/// Seconds per chunk of the local judge (every question it answers) against the yes/no readout judge it replaces
/// (the five questions through the embedded model, shared passage prefix), on the same real chunks.
pub fn speed_report(set: &QaSet, embedder: &dyn ragsift_engine::Embedder, questions: usize) -> Result<()> {
    use ragsift_engine::judge::{default_questions, Judge, LocalJudge, ReadoutJudge};
    let model = load_model()?;
    let cases: Vec<&qaset::Case> = set
        .cases
        .iter()
        .step_by((set.cases.len() / questions.max(1)).max(1))
        .take(questions)
        .collect();
    let local = LocalJudge::new(embedder, Some(&model), Some(set.library.store()));
    let readout = ReadoutJudge { model: &model };
    let qs = default_questions();
    let mut per_chunk = Vec::new();
    for judge in [&local as &dyn Judge, &readout] {
        let t = Instant::now();
        let mut chunks = 0;
        for case in &cases {
            let passages: Vec<String> = case.passages().into_iter().take(depth()).collect();
            chunks += passages.len();
            judge.judge(&case.question.query, &passages, &qs)?;
        }
        per_chunk.push((
            judge.name(),
            judge.model(),
            t.elapsed().as_secs_f64() / chunks.max(1) as f64,
            chunks,
        ));
    }
    let d = depth();
    println!(
        "\n### Judge speed ({} questions, top {d} real chunks each)\n",
        cases.len()
    );
    println!("| judge | model | ms per chunk | chunks |\n| --- | --- | ---: | ---: |");
    for (name, model, s, n) in &per_chunk {
        let name = if *name == "readout" {
            "yes/no readout (baseline: the local judge before)"
        } else {
            "local (fitted signals)"
        };
        println!("| {name} | {model} | {:.0} | {n} |", s * 1e3);
    }
    Ok(())
}

/// The embedded model's yes/no readout for the injection question on the planted sets (planted vs look-alikes).
pub fn injection_readout_report() -> Result<()> {
    use ragsift_engine::judge::{default_questions, Judge, ReadoutJudge};
    let model = load_model()?;
    let judge = ReadoutJudge { model: &model };
    let question: Vec<_> = default_questions()
        .into_iter()
        .filter(|q| q.key == ragsift_engine::policy::CONTAINS_PROMPT_INJECTION)
        .collect();
    for (title, set) in [("development", injection_set()?), ("held-out", injection_heldout()?)] {
        let texts: Vec<String> = set.injected.iter().chain(&set.benign).map(|x| x.text.clone()).collect();
        let labels: Vec<bool> = set
            .injected
            .iter()
            .map(|_| true)
            .chain(set.benign.iter().map(|_| false))
            .collect();
        let judged = judge.judge("", &texts, &question)?;
        let scores: Vec<f64> = judged.iter().map(|j| j.scores[&question[0].key]).collect();
        println!(
            "\nThe embedded model's yes/no readout for `contains_prompt_injection`, {title} set: AUC {:.3} (planted vs look-alikes).",
            model::auc(&scores, &labels).unwrap_or(f64::NAN)
        );
    }
    Ok(())
}

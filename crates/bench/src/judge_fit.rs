//! The local judge's fit and its report: every figure out of fold (folds = documents), every table beside its
//! baseline (the retrieval similarity), then the models refitted on all rows as the shipped `JudgeFit`.

use crate::judge_rows::{columns, depth, fit_all, oof, signal_auc, Label, Row, LM_SIGNALS, SIGNALS};
use crate::qaset::QaSet;
use ragsift_engine::eval::qa::QuestionKind;
use ragsift_engine::judge::local::model::{self, Logistic};
use ragsift_engine::judge::local::signals::FEATURES;
use ragsift_engine::judge::local::JudgeFit;
use ragsift_engine::policy::{CONTAINS_ANSWER_EVIDENCE, CONTRADICTS_QUERY_PREMISE, IS_RELEVANT, USEFUL};
use ragsift_engine::{Embedder, LanguageModel, Result};
use std::collections::BTreeMap;

/// Share of answerable questions whose retrieved evidence the default thresholds must keep (held out).
const TARGET_RECALL: f64 = 0.95;
/// Most answerable questions the answer threshold may turn into "the documents do not say".
const MAX_FALSE_ABSTAIN: f64 = 0.10;

pub fn report_and_fit(
    set: &QaSet,
    rows: &[Row],
    embedder: &dyn Embedder,
    lm: Option<String>,
    seconds_per_chunk: f64,
    rerank: Option<&dyn LanguageModel>,
) -> Result<JudgeFit> {
    let top = |r: &&Row| r.rank < depth();
    println!(
        "\n## Local judge on the labelled set\n\n{} questions ({} answerable, {} false premise, {} unanswerable) on {} documents; \
         {} candidates (top {} retrieved), {} hold a quoted answer span, {} lie on an answer page. \
         Every figure below is out of fold: each document's questions are scored by models fitted on the other documents.\n",
        set.cases.len(),
        count(set, QuestionKind::Answerable),
        count(set, QuestionKind::FalsePremise),
        count(set, QuestionKind::Unanswerable),
        set.folds.len(),
        rows.len(),
        set.cases.first().map_or(0, |c| c.candidates.len()),
        rows.iter().filter(|r| r.evidence).count(),
        rows.iter().filter(|r| r.answer_page).count(),
    );
    signal_table(rows);

    // The combined models, with and without the language model's signals.
    let with_lm = rows.iter().any(|r| r.values[col("lm_ql")].is_finite());
    let lm_set: Vec<&str> = SIGNALS.iter().chain(LM_SIGNALS).copied().collect();
    let p_evi = oof(rows, SIGNALS, Label::Evidence);
    let p_rel = oof(rows, SIGNALS, Label::AnswerPage);
    println!("\n### Combined (logistic regression, out of fold)\n");
    let d = depth();
    println!("| model | label | AUC | AUC, top {d} | Brier | Brier of the base rate |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    combined_row(
        "similarity alone (baseline)",
        rows,
        &oof(rows, &["rank_recip"], Label::Evidence),
        Label::Evidence,
        Some("similarity"),
    );
    combined_row("evidence: embedding + lexical", rows, &p_evi, Label::Evidence, None);
    combined_row("relevance: embedding + lexical", rows, &p_rel, Label::AnswerPage, None);
    combined_row(
        "relevance model, scored against evidence",
        rows,
        &p_rel,
        Label::Evidence,
        None,
    );
    let mut lm_gain = 0.0;
    if with_lm {
        let p = oof(rows, &lm_set, Label::Evidence);
        combined_row("evidence: + language model", rows, &p, Label::Evidence, None);
        combined_row(
            "evidence: language model alone",
            rows,
            &oof(rows, LM_SIGNALS, Label::Evidence),
            Label::Evidence,
            None,
        );
        lm_gain = auc_of(rows, &p, Label::Evidence) - auc_of(rows, &p_evi, Label::Evidence);
    }
    let use_lm = with_lm && lm_gain >= 0.01;
    println!(
        "\nLanguage-model signals {}.",
        if !with_lm {
            "not measured in this run (`--lm` measures them)".to_string()
        } else if use_lm {
            format!("used: they raise the held-out evidence AUC by {lm_gain:.3}")
        } else {
            format!("left out: they change the held-out evidence AUC by {lm_gain:+.3}, so the judge does not need the chat model")
        }
    );
    reliability_table("evidence", rows, &p_evi, Label::Evidence, &top);
    reliability_table("relevance", rows, &p_rel, Label::AnswerPage, &top);

    // Operating points, chosen on the held-out probabilities at the default depth.
    let (t_rel, t_evi) = operating_points(set, rows, &p_rel, &p_evi);
    let t_ans = answer_threshold(set, rows, &p_evi, t_rel, t_evi);
    crate::kinds::report(set, rows, (&p_rel, &p_evi), (t_rel, t_evi));
    crate::answerability::report(set, rows, &p_evi);
    let sentence = crate::sentences::sentence_model(set, rows, &p_evi, embedder, rerank)?;

    let features: Vec<&str> = if use_lm { lm_set.clone() } else { SIGNALS.to_vec() };
    let mut fitted = BTreeMap::new();
    fitted.insert(
        CONTAINS_ANSWER_EVIDENCE.to_string(),
        fit_all(rows, &features, Label::Evidence),
    );
    fitted.insert(USEFUL.to_string(), fit_all(rows, &features, Label::Evidence));
    fitted.insert(IS_RELEVANT.to_string(), fit_all(rows, &features, Label::AnswerPage));
    fitted.insert(
        ragsift_engine::policy::CONTAINS_PROMPT_INJECTION.to_string(),
        crate::judge_rows::injection_model()?,
    );
    let mut without = fitted.clone();
    if use_lm {
        without.insert(
            CONTAINS_ANSWER_EVIDENCE.to_string(),
            fit_all(rows, SIGNALS, Label::Evidence),
        );
        without.insert(USEFUL.to_string(), fit_all(rows, SIGNALS, Label::Evidence));
        without.insert(IS_RELEVANT.to_string(), fit_all(rows, SIGNALS, Label::AnswerPage));
    }
    println!(
        "\nSpeed: {:.0} ms per chunk for the signals of this run ({}).",
        seconds_per_chunk * 1e3,
        if with_lm {
            "language-model signals included"
        } else {
            "embedding and lexical signals"
        }
    );
    Ok(JudgeFit {
        version: format!("local-signals-{}", fit_hash(&fitted, &sentence)),
        embedding_model: embedder.id().to_string(),
        language_model: if use_lm { lm } else { None },
        with_model: if use_lm { fitted } else { BTreeMap::new() },
        without_model: without,
        not_assessed: vec![CONTRADICTS_QUERY_PREMISE.to_string()],
        thresholds: BTreeMap::from([
            (IS_RELEVANT.to_string(), round3(t_rel)),
            (CONTAINS_ANSWER_EVIDENCE.to_string(), round3(t_evi)),
            (ragsift_engine::policy::CONTAINS_PROMPT_INJECTION.to_string(), 0.5),
        ]),
        min_relevance: round3(t_evi),
        answer_threshold: round3(t_ans),
        fitted_on: format!(
            "fixtures/qa: {} questions on {} documents, top {} candidates; out-of-fold evidence AUC {:.3}",
            set.cases.len(),
            set.folds.len(),
            set.cases.first().map_or(0, |c| c.candidates.len()),
            auc_of(rows, &p_evi, Label::Evidence)
        ),
        sentence: Some(sentence),
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn count(set: &QaSet, kind: QuestionKind) -> usize {
    set.cases.iter().filter(|c| c.question.kind == kind).count()
}

fn col(name: &str) -> usize {
    columns().iter().position(|c| c == name).expect("known column")
}

fn auc_of(rows: &[Row], p: &[f64], label: Label) -> f64 {
    let y: Vec<bool> = rows.iter().map(|r| label.of(r)).collect();
    model::auc(p, &y).unwrap_or(f64::NAN)
}

fn signal_table(rows: &[Row]) {
    let top: Vec<&Row> = rows.iter().filter(|r| r.rank < depth()).collect();
    let top_rows: Vec<Row> = top.iter().map(|r| (*r).clone()).collect();
    println!("### Each signal alone (ROC AUC)\n");
    let d = depth();
    println!("| signal | holds evidence | holds evidence, top {d} | on an answer page |");
    println!("| --- | ---: | ---: | ---: |");
    let names: Vec<String> = std::iter::once("similarity".to_string())
        .chain(FEATURES.iter().map(|s| s.to_string()))
        .collect();
    for name in names {
        let a = signal_auc(rows, &name, Label::Evidence);
        let Some(a) = a.filter(|_| {
            rows.iter()
                .any(|r| name == "similarity" || r.values[col(&name)].is_finite())
        }) else {
            continue;
        };
        let b = signal_auc(&top_rows, &name, Label::Evidence).unwrap_or(f64::NAN);
        let c = signal_auc(rows, &name, Label::AnswerPage).unwrap_or(f64::NAN);
        let label = if name == "similarity" {
            "retrieval similarity (baseline)".to_string()
        } else {
            format!("`{name}`")
        };
        println!("| {label} | {a:.3} | {b:.3} | {c:.3} |");
    }
}

fn combined_row(name: &str, rows: &[Row], p: &[f64], label: Label, raw: Option<&str>) {
    let y: Vec<bool> = rows.iter().map(|r| label.of(r)).collect();
    let scores: Vec<f64> = match raw {
        Some(_) => rows.iter().map(|r| r.similarity).collect(),
        None => p.to_vec(),
    };
    let top: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].rank < depth()).collect();
    let auc = model::auc(&scores, &y).unwrap_or(f64::NAN);
    let auc_top = model::auc(
        &top.iter().map(|&i| scores[i]).collect::<Vec<_>>(),
        &top.iter().map(|&i| y[i]).collect::<Vec<_>>(),
    )
    .unwrap_or(f64::NAN);
    let base = y.iter().filter(|&&v| v).count() as f64 / y.len().max(1) as f64;
    println!(
        "| {name} | {} | {auc:.3} | {auc_top:.3} | {:.4} | {:.4} |",
        label.name(),
        model::brier(p, &y),
        model::brier(&vec![base; y.len()], &y)
    );
}

fn reliability_table(name: &str, rows: &[Row], p: &[f64], label: Label, keep: &dyn Fn(&&Row) -> bool) {
    let idx: Vec<usize> = (0..rows.len()).filter(|&i| keep(&&rows[i])).collect();
    let probs: Vec<f64> = idx.iter().map(|&i| p[i]).collect();
    let y: Vec<bool> = idx.iter().map(|&i| label.of(&rows[i])).collect();
    let d = depth();
    println!(
        "\nReliability of `{name}` at top {d} (held out; {} chunks, Brier {:.4}):\n",
        idx.len(),
        model::brier(&probs, &y)
    );
    println!("| predicted | mean predicted | observed | chunks |\n| --- | ---: | ---: | ---: |");
    for b in model::reliability(&probs, &y, 10) {
        println!(
            "| {:.1}–{:.1} | {:.3} | {:.3} | {} |",
            b.lo, b.hi, b.p_mean, b.frac_positive, b.n
        );
    }
}

/// One question's candidates at the default depth: (p_rel, p_evi, row).
type Candidates<'r> = Vec<(f64, f64, &'r Row)>;

/// Per question at the default depth: the candidates' (p_rel, p_evi, evidence, characters).
fn per_question<'r>(set: &QaSet, rows: &'r [Row], p_rel: &[f64], p_evi: &[f64]) -> Vec<(usize, Candidates<'r>)> {
    let mut out: Vec<(usize, Candidates<'r>)> = (0..set.cases.len()).map(|c| (c, Vec::new())).collect();
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.rank < depth()) {
        out[r.case].1.push((p_rel[i], p_evi[i], r));
    }
    out
}

/// Thresholds (relevance, evidence): the evidence threshold is the largest that keeps the evidence of at least
/// [`TARGET_RECALL`] of the answerable questions whose evidence was retrieved; relevance the largest that costs
/// none of it on top.
fn operating_points(set: &QaSet, rows: &[Row], p_rel: &[f64], p_evi: &[f64]) -> (f64, f64) {
    let qs = per_question(set, rows, p_rel, p_evi);
    let with_evidence: Vec<&Vec<(f64, f64, &Row)>> = qs
        .iter()
        .filter(|(c, cands)| set.cases[*c].answerable() && cands.iter().any(|x| x.2.evidence))
        .map(|(_, c)| c)
        .collect();
    let recall = |tr: f64, te: f64| {
        with_evidence
            .iter()
            .filter(|c| c.iter().any(|(r, e, row)| row.evidence && *r >= tr && *e > te))
            .count() as f64
            / with_evidence.len().max(1) as f64
    };
    let cut = |tr: f64, te: f64| {
        let all: usize = qs.iter().flat_map(|(_, c)| c.iter().map(|x| x.2.characters)).sum();
        let kept: usize = qs
            .iter()
            .flat_map(|(_, c)| c.iter().filter(|(r, e, _)| *r >= tr && *e > te).map(|x| x.2.characters))
            .sum();
        1.0 - kept as f64 / all.max(1) as f64
    };
    let grid: Vec<f64> = (0..100).map(|i| i as f64 / 200.0).collect();
    let t_evi = grid
        .iter()
        .copied()
        .filter(|&t| recall(0.0, t) >= TARGET_RECALL)
        .fold(0.0, f64::max);
    let t_rel = grid
        .iter()
        .copied()
        .filter(|&t| recall(t, t_evi) >= recall(0.0, t_evi))
        .fold(0.0, f64::max);
    let d = depth();
    println!("\n### Default thresholds (held out, top {d})\n");
    println!("| thresholds | questions whose evidence is kept | retrieved characters cut |\n| --- | ---: | ---: |");
    for (name, tr, te) in [
        ("keep everything (no judge)", 0.0, -1.0),
        ("Spring's 0.45 / 0.55 on these probabilities", 0.45, 0.55),
        ("fitted: relevance ≥ {tr}, evidence > {te}", t_rel, t_evi),
    ] {
        let name = name
            .replace("{tr}", &format!("{t_rel:.3}"))
            .replace("{te}", &format!("{t_evi:.3}"));
        println!(
            "| {name} | {:.0}% of {} | {:.0}% |",
            100.0 * recall(tr, te),
            with_evidence.len(),
            100.0 * cut(tr, te)
        );
    }
    (t_rel, t_evi)
}

/// The answer threshold: the evidence probability below which answering stops, chosen to separate unanswerable
/// from answerable questions best (Youden's J) while wrongful abstention stays at most [`MAX_FALSE_ABSTAIN`].
fn answer_threshold(set: &QaSet, rows: &[Row], p_evi: &[f64], t_rel: f64, t_evi: f64) -> f64 {
    let p_rel = vec![1.0; rows.len()];
    let qs = per_question(set, rows, &p_rel, p_evi);
    let best: Vec<(bool, f64)> = qs
        .iter()
        .map(|(c, cands)| {
            let kept_max = cands
                .iter()
                .filter(|(_, e, _)| *e > t_evi)
                .map(|x| x.1)
                .fold(0.0, f64::max);
            (set.cases[*c].answerable(), kept_max)
        })
        .collect();
    let _ = t_rel;
    let rate = |t: f64, answerable: bool| {
        let group: Vec<&(bool, f64)> = best.iter().filter(|b| b.0 == answerable).collect();
        group.iter().filter(|b| b.1 < t).count() as f64 / group.len().max(1) as f64
    };
    let grid: Vec<f64> = (0..100).map(|i| i as f64 / 100.0).collect();
    let t = grid
        .iter()
        .copied()
        .filter(|&t| rate(t, true) <= MAX_FALSE_ABSTAIN)
        .map(|t| (rate(t, false) - rate(t, true), t))
        .fold((f64::NEG_INFINITY, 0.0), |a, b| if b.0 > a.0 { b } else { a })
        .1;
    println!("\n### Answer threshold (held out)\n");
    println!(
        "| evidence needed to answer | abstains on unanswerable | abstains on answerable |\n| ---: | ---: | ---: |"
    );
    for x in [0.0, 0.1, 0.2, 0.3, t, 0.4, 0.5] {
        println!(
            "| {x:.2}{} | {:.0}% | {:.0}% |",
            if x == t { " (chosen)" } else { "" },
            100.0 * rate(x, false),
            100.0 * rate(x, true)
        );
    }
    t
}

/// The shipped fit with another sentence model, its version naming both.
pub fn with_sentence(shipped: &JudgeFit, sentence: Option<Logistic>) -> JudgeFit {
    let mut fit = shipped.clone();
    let models = if fit.with_model.is_empty() {
        &fit.without_model
    } else {
        &fit.with_model
    };
    if let Some(s) = &sentence {
        fit.version = format!("local-signals-{}", fit_hash(models, s));
    }
    fit.sentence = sentence;
    fit
}

fn fit_hash(models: &BTreeMap<String, Logistic>, sentence: &Logistic) -> String {
    let json = serde_json::to_string(&(models, sentence)).unwrap_or_default();
    let h = json.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{:08x}", h >> 32)
}

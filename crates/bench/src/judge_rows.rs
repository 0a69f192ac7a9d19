//! What every judge command of the bench shares: the labelled rows (one retrieved candidate's signals and labels),
//! the signal lists, the operating depth, out-of-fold and full fits, and the planted injection sets with the
//! injection model fitted on them.

use crate::qaset;
use ragsift_engine::judge::local::signals::FEATURES;
use ragsift_engine::judge::local::{injection, model};
use ragsift_engine::Result;

/// The signals the shipped fit combines (chosen by held-out AUC; the others are measured and reported).
pub const SIGNALS: &[&str] = &[
    "cos_sent",
    "cos_sent_gap",
    "coverage_window",
    "bm25",
    "bm25_gap",
    "rank_recip",
];
/// The language-model signals a refit adds when they raise held-out AUC by at least 0.01.
pub const LM_SIGNALS: &[&str] = &["lm_ql", "lm_ql_gain", "lm_ql_gap", "lm_yes"];
/// Candidates per question of the default pipeline: operating points are chosen at this depth.
pub const DEFAULT_TOP_K: usize = 4;

pub(crate) static DEPTH: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The depth at which operating points, reliability and per-kind figures are taken: the pipeline's top k
/// ([`DEFAULT_TOP_K`] unless `--depth` says otherwise).
pub fn depth() -> usize {
    *DEPTH.get().unwrap_or(&DEFAULT_TOP_K)
}

/// A labelled row for fitting: one candidate's signals (plus injection counts) and its labels.
#[derive(Clone)]
pub struct Row {
    pub case: usize,
    /// Position in the question's retrieved list.
    pub rank: usize,
    pub fold: usize,
    pub values: Vec<f64>,
    pub evidence: bool,
    pub answer_page: bool,
    pub similarity: f64,
    pub characters: usize,
    /// The kind of document asked about (`None` when the question does not say).
    pub doc_kind: Option<ragsift_engine::eval::qa::DocKind>,
}

/// Column names of [`Row::values`]: the signals, then the injection pattern counts.
pub fn columns() -> Vec<String> {
    FEATURES
        .iter()
        .chain(injection::FEATURES.iter())
        .map(|s| s.to_string())
        .collect()
}

/// The planted prompt-injection set: passages with an injection somewhere inside, and benign look-alikes.
#[derive(serde::Deserialize)]
pub struct InjectionSet {
    pub injected: Vec<Planted>,
    pub benign: Vec<Planted>,
}

#[derive(serde::Deserialize)]
pub struct Planted {
    pub id: String,
    pub style: String,
    pub text: String,
}

pub fn injection_set() -> Result<InjectionSet> {
    injection_file("injections.json")
}

/// The held-out planted set, written after the patterns by someone who saw neither them nor the development set.
pub fn injection_heldout() -> Result<InjectionSet> {
    injection_file("injections-heldout.json")
}

fn injection_file(name: &str) -> Result<InjectionSet> {
    let path = crate::repo_root().join("fixtures/qa").join(name);
    let bytes = std::fs::read(&path).map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))?;
    serde_json::from_slice(&bytes).map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", path.display())))
}

/// What a question's model is fitted to predict.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Label {
    /// The chunk holds a quoted answer span.
    Evidence,
    /// The chunk lies on a page that states the answer.
    AnswerPage,
}

impl Label {
    pub fn of(self, r: &Row) -> bool {
        match self {
            Label::Evidence => r.evidence,
            Label::AnswerPage => r.answer_page,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Label::Evidence => "holds the quoted evidence",
            Label::AnswerPage => "on an answer page",
        }
    }
}

/// L2 penalty of every fit (on standardised signals).
pub const L2: f64 = 1.0;

/// Out-of-fold probabilities of a logistic model over `features`, folds by document.
pub fn oof(rows: &[Row], features: &[&str], label: Label) -> Vec<f64> {
    oof_by(rows, features, label, |r| r.fold)
}

/// Out-of-fold probabilities with folds given by `group` (a document, a kind of document).
pub fn oof_by(rows: &[Row], features: &[&str], label: Label, group: impl Fn(&Row) -> usize) -> Vec<f64> {
    let (names, x) = matrix(rows, features);
    let y: Vec<bool> = rows.iter().map(|r| label.of(r)).collect();
    let groups: Vec<usize> = rows.iter().map(group).collect();
    model::cross_validate(&names, &x, &y, &groups, L2)
}

/// The fitted model over all rows.
pub fn fit_all(rows: &[Row], features: &[&str], label: Label) -> model::Logistic {
    let (names, x) = matrix(rows, features);
    let y: Vec<bool> = rows.iter().map(|r| label.of(r)).collect();
    model::Logistic::fit(&names, &x, &y, L2)
}

fn matrix(rows: &[Row], features: &[&str]) -> (Vec<String>, Vec<Vec<f64>>) {
    let cols = columns();
    let idx: Vec<usize> = features
        .iter()
        .map(|f| {
            cols.iter()
                .position(|c| c == f)
                .unwrap_or_else(|| panic!("unknown signal {f}"))
        })
        .collect();
    let x = rows
        .iter()
        .map(|r| {
            idx.iter()
                .map(|&i| if r.values[i].is_finite() { r.values[i] } else { 0.0 })
                .collect()
        })
        .collect();
    (features.iter().map(|s| s.to_string()).collect(), x)
}

/// AUC of one column (or of the retrieval similarity) against a label.
pub fn signal_auc(rows: &[Row], column: &str, label: Label) -> Option<f64> {
    let y: Vec<bool> = rows.iter().map(|r| label.of(r)).collect();
    let s: Vec<f64> = if column == "similarity" {
        rows.iter().map(|r| r.similarity).collect()
    } else {
        let i = columns().iter().position(|c| c == column)?;
        rows.iter().map(|r| r.values[i]).collect()
    };
    model::auc(&s, &y)
}

/// The injection model's signals: the pattern counts, then the closest prototype sentence.
pub const INJECTION_SIGNALS: &[&str] = &["inj_strong", "inj_weak", "inj_hidden", "inj_proto"];

/// The injection signals of whole texts.
pub fn injection_rows(embedder: &dyn ragsift_engine::Embedder, texts: &[String]) -> Result<Vec<Vec<f64>>> {
    let proto = injection::prototype_similarities(embedder, texts)?;
    Ok(texts
        .iter()
        .zip(proto)
        .map(|(t, p)| {
            let mut v = injection::scan(t).values().to_vec();
            v.push(f64::from(p));
            v
        })
        .collect())
}

/// The injection model: a logistic over the injection signals, fitted on the planted injections of the
/// development set (positives) and its benign look-alikes plus every chunk of the labelled papers (negatives);
/// reported over 5 interleaved folds of that set (the held-out set is reported by [`injection_report`]).
pub fn injection_model() -> Result<model::Logistic> {
    let planted = injection_set()?;
    let embedder = crate::embedder(0)?;
    let library = qaset::library(&embedder)?;
    let mut texts: Vec<(String, bool)> = planted.injected.iter().map(|p| (p.text.clone(), true)).collect();
    texts.extend(planted.benign.iter().map(|p| (p.text.clone(), false)));
    for d in library.documents()? {
        texts.extend(library.store().chunks_of(&d.id)?.into_iter().map(|c| (c.text, false)));
    }
    let names: Vec<String> = INJECTION_SIGNALS.iter().map(|s| s.to_string()).collect();
    let x = injection_rows(&embedder, &texts.iter().map(|t| t.0.clone()).collect::<Vec<_>>())?;
    let y: Vec<bool> = texts.iter().map(|(_, l)| *l).collect();
    let groups: Vec<usize> = (0..x.len()).map(|i| i % 5).collect();
    let p = model::cross_validate(&names, &x, &y, &groups, L2);
    let recall =
        (0..y.len()).filter(|&i| y[i] && p[i] > 0.5).count() as f64 / y.iter().filter(|&&v| v).count().max(1) as f64;
    let fpr =
        (0..y.len()).filter(|&i| !y[i] && p[i] > 0.5).count() as f64 / y.iter().filter(|&&v| !v).count().max(1) as f64;
    let proto_auc = model::auc(&x.iter().map(|r| r[3]).collect::<Vec<_>>(), &y).unwrap_or(f64::NAN);
    println!(
        "\nInjection probability (logistic over patterns and prototype similarity; development set, 5 folds): recall {recall:.2} and \
         false-positive rate {fpr:.3} at 0.5; AUC {:.3} (prototype similarity alone {proto_auc:.3}).",
        model::auc(&p, &y).unwrap_or(f64::NAN)
    );
    Ok(model::Logistic::fit(&names, &x, &y, L2))
}

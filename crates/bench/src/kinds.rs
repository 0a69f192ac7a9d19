//! The labelled set by kind of document: how the judge does on a kind it never saw (folds that leave one kind
//! out, beside folds that leave one document out), retrieval and selection per kind, and the questions a table
//! cell answers reported apart.

use crate::judge_rows::{depth, oof_by, Label, Row, SIGNALS};
use crate::qaset::QaSet;
use ragsift_engine::eval::qa::DocKind;
use ragsift_engine::judge::local::model;

/// Which questions a line of the table covers.
#[derive(Clone, Copy)]
enum Group {
    Kind(DocKind),
    Table,
    All,
}

impl Group {
    fn name(self) -> String {
        match self {
            Group::Kind(k) => k.label().to_string(),
            Group::Table => "questions a table cell answers".to_string(),
            Group::All => "all".to_string(),
        }
    }

    fn holds(self, set: &QaSet, case: usize) -> bool {
        let q = &set.cases[case].question;
        match self {
            Group::Kind(k) => q.doc_kind == Some(k),
            Group::Table => q.table,
            Group::All => true,
        }
    }
}

/// Prints the per-kind table. `doc` holds the leave-one-document-out probabilities (relevance, evidence) and
/// `thresholds` the default operating point chosen on them; the leave-one-kind-out probabilities are fitted here.
pub fn report(set: &QaSet, rows: &[Row], doc: (&[f64], &[f64]), thresholds: (f64, f64)) {
    let kind_of = |r: &Row| r.doc_kind.map_or(DocKind::ALL.len(), |k| k as usize);
    let kinds_present = DocKind::ALL
        .iter()
        .filter(|k| rows.iter().any(|r| r.doc_kind == Some(**k)))
        .count();
    if kinds_present < 2 {
        return;
    }
    let k_rel = oof_by(rows, SIGNALS, Label::AnswerPage, kind_of);
    let k_evi = oof_by(rows, SIGNALS, Label::Evidence, kind_of);
    let (t_rel, t_evi) = thresholds;
    let d = depth();
    println!(
        "\n### By kind of document (top {d}; evidence AUC out of fold, leaving out one document, and \
         leaving out the whole kind)\n"
    );
    let d = depth();
    println!(
        "| questions | answerable | evidence in the top {d} | similarity AUC | evidence AUC, document out | \
         evidence AUC, kind out | evidence kept (kind out) | text cut (kind out) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let groups = DocKind::ALL
        .iter()
        .map(|k| Group::Kind(*k))
        .chain([Group::Table, Group::All]);
    for g in groups {
        let idx: Vec<usize> = (0..rows.len())
            .filter(|&i| rows[i].rank < depth() && g.holds(set, rows[i].case))
            .collect();
        if idx.is_empty() {
            continue;
        }
        let y: Vec<bool> = idx.iter().map(|&i| rows[i].evidence).collect();
        let auc = |p: &dyn Fn(usize) -> f64| {
            model::auc(&idx.iter().map(|&i| p(i)).collect::<Vec<_>>(), &y).map_or("—".into(), |a| format!("{a:.3}"))
        };
        let cases: Vec<usize> = (0..set.cases.len()).filter(|&c| g.holds(set, c)).collect();
        let answerable: Vec<usize> = cases.iter().copied().filter(|&c| set.cases[c].answerable()).collect();
        let retrieved: Vec<usize> = answerable
            .iter()
            .copied()
            .filter(|&c| idx.iter().any(|&i| rows[i].case == c && rows[i].evidence))
            .collect();
        let kept = retrieved
            .iter()
            .filter(|&&c| {
                idx.iter()
                    .any(|&i| rows[i].case == c && rows[i].evidence && k_rel[i] >= t_rel && k_evi[i] > t_evi)
            })
            .count();
        let all: usize = idx.iter().map(|&i| rows[i].characters).sum();
        let kept_chars: usize = idx
            .iter()
            .filter(|&&i| k_rel[i] >= t_rel && k_evi[i] > t_evi)
            .map(|&i| rows[i].characters)
            .sum();
        println!(
            "| {} ({}) | {} | {:.0}% | {} | {} | {} | {:.0}% of {} | {:.0}% |",
            g.name(),
            cases.len(),
            answerable.len(),
            100.0 * retrieved.len() as f64 / answerable.len().max(1) as f64,
            auc(&|i| rows[i].similarity),
            auc(&|i| doc.1[i]),
            auc(&|i| k_evi[i]),
            100.0 * kept as f64 / retrieved.len().max(1) as f64,
            retrieved.len(),
            100.0 * (1.0 - kept_chars as f64 / all.max(1) as f64),
        );
    }
    let _ = doc.0;
    println!(
        "\nThresholds: relevance ≥ {t_rel:.3}, evidence > {t_evi:.3} (chosen on the document-out probabilities of all \
         kinds). \"Evidence kept\" counts the answerable questions whose evidence was retrieved."
    );
}

//! Whether anything the local judge can compute offline tells an unanswerable question from an answerable one:
//! each signal's best value over a question's top candidates, and the held-out evidence probability, scored by
//! ROC AUC (answerable and false-premise questions against unanswerable ones). The answer threshold that turns an
//! answer into "the documents do not say" can only be as good as the best of these.

use crate::judge_rows::{columns, depth, Row};
use crate::qaset::QaSet;
use ragsift_engine::eval::qa::QuestionKind;
use ragsift_engine::judge::local::model;

/// Prints the table; returns the best AUC.
pub fn report(set: &QaSet, rows: &[Row], p_evi: &[f64]) -> f64 {
    let unanswerable = |c: usize| set.cases[c].question.kind == QuestionKind::Unanswerable;
    let labels: Vec<bool> = (0..set.cases.len()).map(|c| !unanswerable(c)).collect();
    let best_of = |value: &dyn Fn(usize) -> f64| -> Vec<f64> {
        let mut best = vec![f64::NEG_INFINITY; set.cases.len()];
        for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.rank < depth()) {
            let v = value(i);
            if v.is_finite() {
                best[r.case] = best[r.case].max(v);
            }
        }
        best
    };
    let mut table: Vec<(String, f64)> = Vec::new();
    let mut add = |name: &str, scores: Vec<f64>| {
        let (s, y): (Vec<f64>, Vec<bool>) = scores
            .iter()
            .zip(&labels)
            .filter(|(s, _)| s.is_finite())
            .map(|(s, y)| (*s, *y))
            .unzip();
        if let Some(auc) = model::auc(&s, &y) {
            table.push((name.to_string(), auc));
        }
    };
    add("evidence probability (held out)", best_of(&|i| p_evi[i]));
    add("similarity", best_of(&|i| rows[i].similarity));
    for (k, name) in columns().iter().enumerate().filter(|(_, n)| !n.starts_with("inj_")) {
        add(name, best_of(&|i| rows[i].values[k]));
    }
    table.sort_by(|a, b| b.1.total_cmp(&a.1));
    let count = |kind| set.cases.iter().filter(|c| c.question.kind == kind).count();
    let d = depth();
    println!(
        "\n### Answerability (question level)\n\nEach signal's best value over a question's top {d} \
         candidates, as a score that the question is answerable: ROC AUC of {} answerable and {} false-premise \
         questions against {} unanswerable ones (0.5 = chance).\n",
        count(QuestionKind::Answerable),
        count(QuestionKind::FalsePremise),
        count(QuestionKind::Unanswerable)
    );
    let d = depth();
    println!("| signal (best of top {d}) | AUC |\n| --- | ---: |");
    for (name, auc) in &table {
        println!("| {name} | {auc:.2} |");
    }
    table.first().map_or(f64::NAN, |b| b.1)
}

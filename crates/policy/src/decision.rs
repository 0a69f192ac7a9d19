//! Spring's document post-processors beyond the classify rules: what a failed classification becomes (Spring AI
//! 2.1's `DecisionDocumentFilter.failClosed`), and the reranker that the community `JevDocumentReranker` and
//! 2.1's `DecisionDocumentReranker` share.
//!
//! The reranker, as the community's code does it and 2.1 publishes it: scored chunks by score descending, ties in
//! input order; then the unscored ones in arrival order. `minimum_score` drops a scored chunk below it
//! (inclusive: equal is kept) and never an unscored one. `rerank_top_k` cuts the sorted list, unscored chunks counted.
//! 2.1 publishes no default for either; the community's are used (no minimum, all kept).

use crate::{ChunkJudgment, Mode, PolicyOptions, Reason};

/// What a chunk whose classification failed (no judgment, or a missing score it needs) becomes in `options`'
/// mode: `classify` keeps it in its place (the community filter alone, as before); the community filter in a
/// chain keeps it; Spring AI 2.1's filter keeps it unless `fail_closed`.
pub(crate) fn failed_classification(options: &PolicyOptions) -> Reason {
    match options.mode {
        Mode::Classify => Reason::Unscored,
        _ if options.mode.reads_fail_closed() && options.fail_closed => Reason::FailedDropped,
        _ => Reason::FailedKept,
    }
}

/// Applies the Spring reranker to `verdicts` (one per row, in input order), in place: the chunks it sees (every
/// chunk, or in a chain what the filter kept) get their reranker score, and `BelowMinimumScore` or `BeyondTopK`
/// when it drops them; kept ones keep their filter reason (`Retained` when there is no filter), except that a
/// chunk without a score becomes `UnscoredLast` (unless its classification failed: it stays `FailedKept`).
pub(crate) fn rerank(
    rows: &[&ChunkJudgment],
    verdicts: &mut [(Reason, Option<f64>)],
    options: &PolicyOptions,
    score_key: &str,
) {
    let chained = options.mode.classifies();
    let minimum = options.minimum_score.unwrap_or(0.0);
    let mut kept: Vec<(usize, Option<f64>)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let (reason, _) = verdicts[i];
        if chained && !reason.is_kept() {
            continue; // the filter dropped it: the reranker never sees it
        }
        let score = row.scores.get(score_key).copied().filter(|s| s.is_finite());
        verdicts[i] = match score {
            Some(s) if s < minimum => (Reason::BelowMinimumScore, Some(s)),
            Some(s) if chained => (reason, Some(s)),
            Some(s) => (Reason::Retained, Some(s)),
            None if reason == Reason::FailedKept => (reason, None),
            None => (Reason::UnscoredLast, None),
        };
        if verdicts[i].0.is_kept() {
            kept.push((i, score));
        }
    }
    // Scored first by score descending, then the unscored; a stable sort keeps input order within ties.
    kept.sort_by(|a, b| match (a.1, b.1) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (x, y) => y.is_some().cmp(&x.is_some()),
    });
    if let Some(k) = options.rerank_top_k {
        for &(i, _) in kept.iter().skip(k) {
            verdicts[i].0 = Reason::BeyondTopK;
        }
    }
}

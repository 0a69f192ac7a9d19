//! A synthetic judged run of any size — what `ragsift-bench replay` and the tests of thousands of candidates replay:
//! another retriever's candidates judged by Jev as an imported run would hold them (the four Spring questions and
//! usefulness per passage, deterministic pseudo-random scores, 64-hex chunk ids over three documents), and a small
//! one whose candidates carry heading paths, for grouping by section.

use crate::join::{Candidate, Provenance};
use crate::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use crate::labels::RunLabels;
use crate::trace::{Trace, VariantHit, VariantHits};
use crate::Result;
use ragsift_core::ids::sha256_hex;
use ragsift_policy::{
    PolicyOptions, CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE, IS_RELEVANT, USEFUL,
};
use std::collections::BTreeMap;

/// What to vary in a [`judged_run`].
#[derive(Debug, Clone, Default)]
pub struct SyntheticRun {
    /// Candidates labelled relevant, by position.
    pub relevant: Vec<usize>,
    /// A candidate the judge left without scores (the rag-jev modes then bypass).
    pub unscored: Option<usize>,
    /// The prompt version the judgments claim (empty: none).
    pub prompt_version: String,
    /// Query variants the candidates were retrieved by, each its share in turn (0 counts as 1): issue 15's
    /// 2,000 candidates are 10 variants' top 200.
    pub variants: usize,
}

/// The pseudo-random numbers in [0, 1) the run's scores come from (the core generator, a fixed seed).
fn numbers() -> impl FnMut() -> f64 {
    let mut rng = ragsift_core::rng::SplitMix64::new(0x5eed_1234);
    move || rng.uniform()
}

/// Candidate `i` of a synthetic run, the `rank`-th hit of `variant`.
fn candidate(i: usize, variant: usize, rank: usize) -> Candidate {
    let docs = ["solar-maintenance.pdf", "warranty-terms.pdf", "field-notes.pdf"];
    let doc = docs[i % 3];
    let text = format!(
        "Passage {i}: the inverter's fault code E{} means the DC isolation check failed; reset it after cooling \
         for {} minutes, and call support if it repeats three times within a day.",
        100 + i,
        5 + i % 10
    );
    Candidate {
        chunk_id: sha256_hex(format!("big-run chunk {i}").as_bytes()),
        document_id: doc.into(),
        document: format!("/library/{doc}"),
        title: doc.trim_end_matches(".pdf").replace('-', " "),
        page_start: 1 + (i as u32 * 7) % 40,
        page_end: 1 + (i as u32 * 7) % 40,
        char_start: 0,
        char_end: text.chars().count() as u32,
        tokens: 120 + (i as u32 * 37) % 140,
        text,
        score: (0.9 - i as f32 * 0.0004).max(0.0),
        found_by: vec![Provenance {
            variant,
            rank,
            score: 0.5,
        }],
        metadata: None,
        group_id: None,
        pinned: false,
        section: Vec::new(),
    }
}

/// A run of `n` candidates judged by "jev", selected with the default options.
pub fn judged_run(n: usize, spec: &SyntheticRun) -> Result<Trace> {
    let mut rand = numbers();
    let variants = spec.variants.max(1);
    let per = n.div_ceil(variants).max(1);
    let candidates: Vec<Candidate> = (0..n).map(|i| candidate(i, i / per, i % per + 1)).collect();
    let judgments = (candidates.iter().enumerate())
        .map(|(i, c)| {
            let rel = rand().powf(0.8);
            let evidence = (rel * (0.5 + rand() * 0.7)).min(1.0);
            let answers = if spec.unscored == Some(i) {
                BTreeMap::new()
            } else {
                BTreeMap::from([
                    (
                        CONTAINS_PROMPT_INJECTION.to_string(),
                        if rand() < 0.03 { 0.9 } else { rand() * 0.2 },
                    ),
                    (
                        CONTRADICTS_QUERY_PREMISE.to_string(),
                        if rand() < 0.06 { 0.8 } else { rand() * 0.3 },
                    ),
                    (IS_RELEVANT.to_string(), rel),
                    (CONTAINS_ANSWER_EVIDENCE.to_string(), evidence),
                    (USEFUL.to_string(), ((rel + evidence) / 2.0).min(1.0)),
                ])
            };
            CandidateJudgment {
                chunk_id: c.chunk_id.clone(),
                scores: answers,
                model: "jev-1.13.0".into(),
                cached: false,
                input_tokens: 310,
                output_tokens: 5,
                latency_ms: 12.5,
            }
        })
        .collect();
    let judge = JudgeOutcome {
        judge: "jev".into(),
        model: "jev-1.13.0".into(),
        prompt_version: spec.prompt_version.clone(),
        calibrated: true,
        status: JudgeStatus::Judged,
        error_code: None,
        error: None,
        judgments,
        fresh_passages: n,
        cached_passages: 0,
        unscreened_passages: 0,
        input_tokens: 310 * n as u32,
        output_tokens: 5 * n as u32,
        latency_ms: 0.0,
        not_assessed: Vec::new(),
        defaults: Default::default(),
    };
    let hits = |v: usize| VariantHits {
        query: format!("What does fault code E1xx mean? (variant {v})"),
        hits: (candidates.iter().filter(|c| c.found_by[0].variant == v))
            .map(|c| VariantHit {
                chunk_id: c.chunk_id.clone(),
                rank: c.found_by[0].rank,
                score: c.score,
                similarity: None,
                bm25: None,
            })
            .collect(),
    };
    let relevant: Option<Vec<String>> =
        (!spec.relevant.is_empty()).then(|| spec.relevant.iter().map(|&i| candidates[i].chunk_id.clone()).collect());
    let labels = RunLabels {
        relevant_ids: relevant,
        ..RunLabels::default()
    };
    let query = "What does fault code E1xx mean and how do I reset the inverter?";
    let mut all: Vec<VariantHits> = (0..variants).map(hits).collect();
    let first = all.remove(0); // variants ≥ 1
    let mut trace = Trace::imported(query, first, candidates, judge, &PolicyOptions::default(), labels)?;
    trace.variants.extend(all);
    Ok(trace)
}

/// Sets candidate `i`'s scores: relevant, with evidence and useful at `p`, flagged as an injection or not, and not
/// contradicting the question.
pub fn set_scores(trace: &mut Trace, i: usize, p: f64, injection: bool) {
    trace.judge.judgments[i].scores = BTreeMap::from([
        (
            CONTAINS_PROMPT_INJECTION.to_string(),
            if injection { 0.95 } else { 0.01 },
        ),
        (CONTRADICTS_QUERY_PREMISE.to_string(), 0.01),
        (IS_RELEVANT.to_string(), p),
        (CONTAINS_ANSWER_EVIDENCE.to_string(), p),
        (USEFUL.to_string(), p),
    ]);
}

/// The shared heading path of [`sectioned_run`]'s candidates 0 and 3.
pub const SHARED_SECTION: [&str; 2] = ["4 Faults", "4.2 Isolation"];

/// A judged run of 9 whose candidates carry heading paths: 0 and 3 (one document) under [`SHARED_SECTION`], 0
/// relevant (0.9) and 3 not (0.1); every other candidate under a heading of its own.
pub fn sectioned_run() -> Result<Trace> {
    let mut trace = judged_run(9, &SyntheticRun::default())?;
    for (i, c) in trace.candidates.iter_mut().enumerate() {
        c.section = if i == 0 || i == 3 {
            SHARED_SECTION.map(str::to_string).to_vec()
        } else {
            vec![format!("{i} Other")]
        };
    }
    set_scores(&mut trace, 0, 0.9, false);
    set_scores(&mut trace, 3, 0.1, false);
    Ok(trace)
}

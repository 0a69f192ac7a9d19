//! A run of thousands of candidates for the window tests, as another retriever's candidates judged by Jev would
//! make it (the four Spring questions and usefulness per passage, deterministic pseudo-random scores, 64-hex chunk
//! ids), written as a portable run file the Import view reads.
#![allow(dead_code)]

use ragsift_engine::ids::sha256_hex;
use ragsift_engine::judge::jev::PROMPT_VERSION;
use ragsift_engine::pipeline::join::{Candidate, Provenance};
use ragsift_engine::pipeline::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use ragsift_engine::pipeline::labels::RunLabels;
use ragsift_engine::pipeline::portable;
use ragsift_engine::pipeline::replay_delta::ReplayDelta;
use ragsift_engine::pipeline::trace::{Trace, VariantHit, VariantHits};
use ragsift_engine::policy::{
    PolicyOptions, CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE, IS_RELEVANT, USEFUL,
};
use std::collections::BTreeMap;
use std::path::Path;

/// An imported run of `n` candidates judged by "jev", with three of them labelled relevant.
pub fn trace(n: usize) -> Trace {
    let mut seed: u64 = 0x5eed_1234;
    let mut rand = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as f64) / f64::from(1u32 << 31)
    };
    let docs = ["solar-maintenance.pdf", "warranty-terms.pdf", "field-notes.pdf"];
    let candidates: Vec<Candidate> = (0..n)
        .map(|i| {
            let text = format!(
                "Passage {i}: the inverter's fault code E{} means the DC isolation check failed; reset it after \
                 cooling for {} minutes, and call support if it repeats three times within a day.",
                100 + i,
                5 + i % 10
            );
            Candidate {
                chunk_id: sha256_hex(format!("big-run chunk {i}").as_bytes()),
                document_id: docs[i % 3].into(),
                document: format!("/library/{}", docs[i % 3]),
                title: docs[i % 3].trim_end_matches(".pdf").replace('-', " "),
                page_start: 1 + (i as u32 * 7) % 40,
                page_end: 1 + (i as u32 * 7) % 40,
                char_start: 0,
                char_end: text.chars().count() as u32,
                tokens: 120 + (i as u32 * 37) % 140,
                text,
                score: (0.9 - i as f32 * 0.0004).max(0.0),
                found_by: vec![Provenance {
                    variant: 0,
                    rank: i + 1,
                    score: 0.5,
                }],
                metadata: None,
                group_id: None,
                pinned: false,
            }
        })
        .collect();
    let judgments = (candidates.iter())
        .map(|c| {
            let rel = rand().powf(0.8);
            let evidence = (rel * (0.5 + rand() * 0.7)).min(1.0);
            CandidateJudgment {
                chunk_id: c.chunk_id.clone(),
                answers: BTreeMap::from([
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
                ]),
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
        prompt_version: PROMPT_VERSION.into(),
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
    let variant = VariantHits {
        query: "What does fault code E1xx mean?".into(),
        hits: (candidates.iter().enumerate())
            .map(|(i, c)| VariantHit {
                chunk_id: c.chunk_id.clone(),
                rank: i + 1,
                score: c.score,
                similarity: None,
                bm25: None,
            })
            .collect(),
    };
    let labels = RunLabels {
        relevant_ids: Some([1, 4, 9].iter().map(|&i| candidates[i].chunk_id.clone()).collect()),
        ..RunLabels::default()
    };
    let query = "What does fault code E1xx mean and how do I reset the inverter?";
    Trace::imported(query, variant, candidates, judge, &PolicyOptions::default(), labels).unwrap()
}

/// Writes `trace` to `path` as a run file (what `ragsift runs export` writes).
pub fn write(trace: &Trace, path: &Path) {
    std::fs::write(path, portable::export(trace).unwrap()).unwrap();
}

/// JSON bytes of one replay of `trace`, sent whole (the `Replay` the app sent before) and as the `ReplayDelta` it
/// sends now, near the run's thresholds and at the far end of the window test's drag.
pub fn ipc_bytes(trace: &Trace) -> serde_json::Value {
    let sizes: Vec<serde_json::Value> = [(0.50, 0.55), (0.70, 0.40)]
        .iter()
        .map(|&(relevant, evidence)| {
            let options = PolicyOptions {
                thresholds: BTreeMap::from([
                    (IS_RELEVANT.to_string(), relevant),
                    (CONTAINS_ANSWER_EVIDENCE.to_string(), evidence),
                ]),
                ..PolicyOptions::default()
            };
            let replay = trace.replay(&options, None).unwrap();
            let full = serde_json::to_string(&replay).unwrap().len();
            let changes = replay.changes.len();
            let delta = serde_json::to_string(&ReplayDelta::new(trace, replay)).unwrap().len();
            serde_json::json!({"is_relevant": relevant, "contains_answer_evidence": evidence, "changes": changes,
                "full_bytes": full, "delta_bytes": delta})
        })
        .collect();
    serde_json::Value::Array(sizes)
}

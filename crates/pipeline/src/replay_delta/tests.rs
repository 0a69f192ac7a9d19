//! The delta laid over the run's stored selection is the full replay's selection, whatever the options; and it is
//! small when little changed.

use super::*;
use crate::join::{Candidate, Provenance};
use crate::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use crate::labels::RunLabels;
use crate::trace::{Trace, VariantHits};
use ragsift_policy::{
    GroupBy, Mode, CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE, IS_RELEVANT, USEFUL,
};

/// A run over `n` candidates with deterministic pseudo-random scores over three documents; candidate `unscored`
/// (if any) has no scores, so the rag-jev modes bypass.
fn run(n: usize, unscored: Option<usize>, labelled: bool) -> Trace {
    let mut seed: u64 = 0x5eed_1234;
    let mut rand = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as f64) / f64::from(1u32 << 31)
    };
    let candidates: Vec<Candidate> = (0..n)
        .map(|i| Candidate {
            chunk_id: format!("chunk-{i:04}"),
            document_id: format!("doc-{}", i % 3),
            document: format!("doc-{}.pdf", i % 3),
            title: format!("Document {}", i % 3),
            page_start: 1 + (i as u32 % 11),
            page_end: 1 + (i as u32 % 11),
            char_start: 0,
            char_end: 80,
            tokens: 100 + (i as u32 * 37) % 160,
            text: format!(
                "Passage {i}: the inverter's fault code E{} means the DC isolation check failed.",
                100 + i
            ),
            score: 0.5,
            found_by: vec![Provenance {
                variant: 0,
                rank: i + 1,
                score: 0.5,
            }],
            metadata: None,
            group_id: None,
            pinned: false,
        })
        .collect();
    let judgments = (candidates.iter().enumerate())
        .map(|(i, c)| {
            let rel = rand();
            let answers = if Some(i) == unscored {
                BTreeMap::new()
            } else {
                BTreeMap::from([
                    (
                        CONTAINS_PROMPT_INJECTION.to_string(),
                        if rand() < 0.03 { 0.9 } else { 0.05 },
                    ),
                    (
                        CONTRADICTS_QUERY_PREMISE.to_string(),
                        if rand() < 0.05 { 0.8 } else { 0.1 },
                    ),
                    (IS_RELEVANT.to_string(), rel),
                    (
                        CONTAINS_ANSWER_EVIDENCE.to_string(),
                        (rel * (0.5 + rand() * 0.7)).min(1.0),
                    ),
                    (USEFUL.to_string(), (rel + rand() * 0.2).min(1.0)),
                ])
            };
            CandidateJudgment {
                chunk_id: c.chunk_id.clone(),
                answers,
                model: "m".into(),
                cached: false,
                input_tokens: 100,
                output_tokens: 1,
                latency_ms: 1.0,
            }
        })
        .collect();
    let judge = JudgeOutcome {
        judge: "test".into(),
        model: "m".into(),
        prompt_version: "v".into(),
        calibrated: true,
        status: JudgeStatus::Judged,
        error_code: None,
        error: None,
        judgments,
        fresh_passages: n,
        cached_passages: 0,
        unscreened_passages: 0,
        input_tokens: 0,
        output_tokens: 0,
        latency_ms: 0.0,
        not_assessed: Vec::new(),
        defaults: Default::default(),
    };
    let variant = VariantHits {
        query: "q".into(),
        hits: Vec::new(),
    };
    let labels = RunLabels {
        relevant_ids: labelled.then(|| vec!["chunk-0001".to_string(), "chunk-0004".to_string()]),
        ..RunLabels::default()
    };
    Trace::imported("q", variant, candidates, judge, &PolicyOptions::default(), labels).unwrap()
}

fn options(mode: Mode) -> PolicyOptions {
    PolicyOptions {
        mode,
        min_relevance: matches!(mode, Mode::Filter | Mode::FilterAndRerank).then_some(0.5),
        ..PolicyOptions::default()
    }
}

/// Option settings over every mode: thresholds, limits, pins, grouping, shadow.
fn settings() -> Vec<(&'static str, PolicyOptions)> {
    let relevance = |p: f64| PolicyOptions {
        thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), p)]),
        ..PolicyOptions::default()
    };
    vec![
        ("the run's own", PolicyOptions::default()),
        ("relevance 0.3", relevance(0.3)),
        ("relevance 0.9", relevance(0.9)),
        (
            "shadow",
            PolicyOptions {
                shadow: true,
                ..relevance(0.6)
            },
        ),
        (
            "top 5",
            PolicyOptions {
                top_n: Some(5),
                ..PolicyOptions::default()
            },
        ),
        (
            "budget",
            PolicyOptions {
                max_context_tokens: Some(1500),
                ..PolicyOptions::default()
            },
        ),
        (
            "pinned",
            PolicyOptions {
                pinned: vec!["chunk-0002".into(), "chunk-0007".into()],
                ..relevance(0.95)
            },
        ),
        (
            "by document",
            PolicyOptions {
                group_by: GroupBy::Document,
                top_n: Some(3),
                ..PolicyOptions::default()
            },
        ),
        ("filter", options(Mode::Filter)),
        ("rerank", options(Mode::Rerank)),
        (
            "rerank, top 4",
            PolicyOptions {
                top_n: Some(4),
                ..options(Mode::Rerank)
            },
        ),
        ("filter and rerank", options(Mode::FilterAndRerank)),
        (
            "filter and rerank, shadow",
            PolicyOptions {
                shadow: true,
                ..options(Mode::FilterAndRerank)
            },
        ),
        ("fusion", options(Mode::Fusion)),
        (
            "fusion, budget",
            PolicyOptions {
                max_context_tokens: Some(900),
                ..options(Mode::Fusion)
            },
        ),
    ]
}

fn assert_round_trip(trace: &Trace, name: &str, o: &PolicyOptions) -> ReplayDelta {
    let replay = trace.replay(o, None).unwrap();
    let delta = ReplayDelta::new(trace, replay.clone());
    // Through JSON, as it crosses IPC.
    let delta: ReplayDelta = serde_json::from_str(&serde_json::to_string(&delta).unwrap()).unwrap();
    assert_eq!(delta.apply(trace).as_ref(), Some(&replay), "{name}");
    assert!(
        delta.selection.order.is_none(),
        "{name}: a stored run's order is the replay's"
    );
    let reranks = matches!(o.mode, Mode::Rerank | Mode::FilterAndRerank | Mode::Fusion);
    if !reranks {
        assert!(
            delta.selection.selected_order.is_none(),
            "{name}: classify and filter keep the input order"
        );
    }
    delta
}

#[test]
fn the_delta_over_the_stored_selection_is_the_full_replay() {
    let trace = run(60, None, true);
    for (name, o) in settings() {
        let delta = assert_round_trip(&trace, name, &o);
        for d in &delta.selection.decisions {
            let stored = trace.selection.decisions.iter().find(|s| s.chunk_id == d.chunk_id);
            assert!(
                stored.is_none_or(|s| !same_but_derived(s, d)),
                "{name}: an unchanged decision was sent"
            );
        }
    }
    let same = assert_round_trip(&trace, "unchanged", &PolicyOptions::default());
    assert!(
        same.selection.decisions.is_empty(),
        "replaying the run's own policy sends no decision"
    );
}

#[test]
fn bypass_round_trips() {
    // One unscored passage: the rag-jev modes bypass (selected null, no ids), classify screens the rest.
    let trace = run(40, Some(3), false);
    for (name, o) in settings() {
        let delta = assert_round_trip(&trace, name, &o);
        if o.mode.is_rag_jev() {
            assert_eq!(delta.selection.status, Status::Bypassed, "{name}");
            let full = delta.apply(&trace).unwrap().selection;
            assert_eq!(full.selected_ids, None, "{name}");
            assert_eq!(full.returned_ids.len(), 40, "{name}");
        }
    }
}

#[test]
fn another_order_or_other_chunks_are_sent_in_full_order() {
    let trace = run(12, None, false);
    let replay = trace.replay(&options(Mode::Rerank), None).unwrap();
    // A stored selection with the decisions reversed and one missing.
    let mut stored = trace.selection.clone();
    stored.decisions.reverse();
    stored.decisions.pop();
    let delta = SelectionDelta::new(&stored, replay.selection.clone());
    assert_eq!(delta.order.as_ref().map(Vec::len), Some(12));
    assert_eq!(delta.apply(&stored), Some(replay.selection));
    // Laid over a selection that lacks a chunk the order names, it is refused rather than guessed.
    let unchanged = SelectionDelta::new(
        &stored,
        trace.replay(&PolicyOptions::default(), None).unwrap().selection,
    );
    let mut other = stored.clone();
    other.decisions.remove(0);
    assert!(unchanged.order.is_some());
    assert_eq!(unchanged.apply(&other), None);
}

#[test]
fn two_thousand_candidates_cross_as_a_small_delta() {
    let trace = run(2000, None, true);
    let mut sizes = Vec::new();
    for (name, o) in [
        (
            "relevance 0.50 (near the run's 0.45)",
            PolicyOptions {
                thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), 0.50)]),
                ..PolicyOptions::default()
            },
        ),
        (
            "relevance 0.90",
            PolicyOptions {
                thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), 0.90)]),
                ..PolicyOptions::default()
            },
        ),
        ("rerank (every decision differs)", options(Mode::Rerank)),
    ] {
        let replay = trace.replay(&o, None).unwrap();
        let full = serde_json::to_string(&replay).unwrap().len();
        let delta = assert_round_trip(&trace, name, &o);
        let sent = serde_json::to_string(&delta).unwrap().len();
        sizes.push(
            serde_json::json!({"setting": name, "full_bytes": full, "delta_bytes": sent,
            "decisions_sent": delta.selection.decisions.len(), "changes": delta.changes.len()}),
        );
        assert!(
            sent <= full,
            "{name}: the delta ({sent} B) is larger than the replay ({full} B)"
        );
    }
    println!("{}", serde_json::json!({"replay_ipc_bytes_2000_candidates": sizes}));
    let near = &sizes[0];
    assert!(
        near["delta_bytes"].as_u64().unwrap() * 4 < near["full_bytes"].as_u64().unwrap(),
        "a small move sends a small delta: {near}"
    );
}

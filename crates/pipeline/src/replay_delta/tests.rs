//! The delta laid over the run's stored selection is the full replay's selection, whatever the options; and it is
//! small when little changed.

use super::*;
use crate::synthetic::{judged_run, SyntheticRun};
use crate::trace::Trace;
use ragsift_policy::{GroupBy, Mode, IS_RELEVANT};

/// A synthetic run over `n` candidates (three documents); candidate `unscored` (if any) has no scores, so the
/// rag-jev modes bypass; `labelled`: candidates 1 and 4 are labelled relevant.
fn run(n: usize, unscored: Option<usize>, labelled: bool) -> Trace {
    let spec = SyntheticRun {
        relevant: if labelled { vec![1, 4] } else { Vec::new() },
        unscored,
        ..SyntheticRun::default()
    };
    judged_run(n, &spec).unwrap()
}

fn options(mode: Mode) -> PolicyOptions {
    PolicyOptions {
        mode,
        min_relevance: matches!(mode, Mode::Filter | Mode::FilterAndRerank).then_some(0.5),
        ..PolicyOptions::default()
    }
}

/// The default policy with the relevance threshold at `p`.
fn relevance(p: f64) -> PolicyOptions {
    PolicyOptions {
        thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), p)]),
        ..PolicyOptions::default()
    }
}

/// Option settings over every mode: thresholds, limits, pins (of `trace`'s candidates), grouping, shadow.
fn settings(trace: &Trace) -> Vec<(&'static str, PolicyOptions)> {
    let id = |i: usize| trace.candidates[i].chunk_id.clone();
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
                pinned: vec![id(2), id(7)],
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
    let delta = ReplayDelta::new(trace, replay.clone()).unwrap();
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
    for (name, o) in settings(&trace) {
        let delta = assert_round_trip(&trace, name, &o);
        let replayed = delta.apply(&trace).unwrap().selection;
        for &i in &delta.selection.decisions.at {
            assert!(
                !same_but_derived(&trace.selection.decisions[i], &replayed.decisions[i]),
                "{name}: an unchanged decision was sent"
            );
        }
    }
    let same = assert_round_trip(&trace, "unchanged", &PolicyOptions::default());
    assert!(
        same.selection.decisions.at.is_empty() && same.changes == ChangePositions::default(),
        "replaying the run's own policy sends no decision"
    );
}

#[test]
fn bypass_round_trips() {
    // One unscored passage: the rag-jev modes bypass (selected null, no ids), classify screens the rest.
    let trace = run(40, Some(3), false);
    for (name, o) in settings(&trace) {
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
    let delta = SelectionDelta::new(&stored, &replay.selection);
    assert_eq!(delta.order.as_ref().map(Vec::len), Some(12));
    assert_eq!(delta.apply(&stored), Some(replay.selection));
    // Laid over a selection that lacks a chunk the order names, it is refused rather than guessed.
    let unchanged = SelectionDelta::new(
        &stored,
        &trace.replay(&PolicyOptions::default(), None).unwrap().selection,
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
        ("relevance 0.50 (near the run's 0.45)", relevance(0.50)),
        ("relevance 0.90", relevance(0.90)),
        ("rerank (every decision differs)", options(Mode::Rerank)),
    ] {
        let replay = trace.replay(&o, None).unwrap();
        let full = serde_json::to_string(&replay).unwrap().len();
        let delta = assert_round_trip(&trace, name, &o);
        let sent = serde_json::to_string(&delta).unwrap().len();
        sizes.push(
            serde_json::json!({"setting": name, "full_bytes": full, "delta_bytes": sent,
            "decisions_sent": delta.selection.decisions.at.len(), "changes": delta.changes.now.len()}),
        );
        assert!(
            sent <= full,
            "{name}: the delta ({sent} B) is larger than the replay ({full} B)"
        );
    }
    println!("{}", serde_json::json!({"replay_ipc_bytes_2000_candidates": sizes}));
    for moved in &sizes[..2] {
        assert!(
            moved["delta_bytes"].as_u64().unwrap() * 10 < moved["full_bytes"].as_u64().unwrap(),
            "a threshold move sends a tenth of the replay at most: {moved}"
        );
    }
}

#[test]
fn a_threshold_move_sends_three_columns_and_no_chunk_id() {
    let trace = run(300, None, true);
    let o = relevance(0.8);
    let delta = assert_round_trip(&trace, "relevance 0.8", &o);
    let c = &delta.selection.decisions;
    assert!(!c.at.is_empty() && c.at.windows(2).all(|w| w[0] < w[1]), "{:?}", c.at);
    assert!(c.selected.is_some() && c.reason.is_some());
    let home = [
        c.input_index.is_none(),
        c.jev_rank.is_none(),
        c.fusion_score.is_none(),
        c.conflicting.is_none(),
        c.skipped_rules.is_none(),
    ];
    assert_eq!(home, [true; 5], "columns a relevance threshold cannot change were sent");
    // (The label report names the labelled passages it dropped; the selection and its changes name none.)
    let json = serde_json::to_string(&(&delta.selection, &delta.changes)).unwrap();
    assert!(
        !trace.candidates.iter().any(|k| json.contains(&k.chunk_id)),
        "a chunk id crossed"
    );
    assert_eq!(delta.changes.now.len(), delta.apply(&trace).unwrap().changes.len());
}

#[test]
fn a_delta_that_does_not_fit_is_refused() {
    let trace = run(50, None, false);
    let o = relevance(0.8);
    let replay = trace.replay(&o, None).unwrap();
    let delta = ReplayDelta::new(&trace, replay.clone()).unwrap();
    // Over a shorter run: positions past its end.
    assert_eq!(delta.apply(&run(10, None, false)), None);
    // A position out of order, a column short of its positions.
    let mut bad = delta.clone();
    bad.selection.decisions.at.reverse();
    assert_eq!(bad.apply(&trace), None);
    let mut short = delta.clone();
    short.selection.decisions.reason.as_mut().unwrap().pop();
    assert_eq!(short.apply(&trace), None);
    // A change list that is not this run's.
    let mut replay = replay;
    replay.changes.reverse();
    assert!(replay.changes.len() > 1);
    assert!(matches!(ReplayDelta::new(&trace, replay), Err(Error::Invalid(_))));
}

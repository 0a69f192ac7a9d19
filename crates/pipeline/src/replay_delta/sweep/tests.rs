//! A sweep walked to any value is the replay at that value, whatever the other options; it is small; and it
//! refuses replays that do not fit.

use super::*;
use crate::synthetic::{judged_run, SyntheticRun};
use ragsift_policy::{Mode, CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT};

fn run(n: usize, relevant: Vec<usize>, unscored: Option<usize>) -> Trace {
    let spec = SyntheticRun {
        relevant,
        unscored,
        ..SyntheticRun::default()
    };
    judged_run(n, &spec).unwrap()
}

/// A slider's values: 0, 0.01, …, 1 (as the UI parses them).
fn grid() -> Vec<f64> {
    (0..=100).map(|i| f64::from(i) / 100.0).collect()
}

fn with(base: &PolicyOptions, key: &str, v: f64) -> PolicyOptions {
    let mut o = base.clone();
    o.thresholds.insert(key.to_string(), v);
    o
}

/// The sweep of `key` over the grid from `start`, made from the trace's own replays.
fn sweep(trace: &Trace, base: &PolicyOptions, key: &str, start: usize) -> ReplaySweep {
    let values = grid();
    let replays = (values.iter())
        .map(|&v| trace.replay(&with(base, key, v), None).unwrap())
        .collect();
    ReplaySweep::new(trace, key, values, start, replays).unwrap()
}

#[test]
fn every_value_walks_to_the_replay_at_that_value() {
    let labelled = run(300, vec![1, 4, 9], None);
    let bypassing = run(120, Vec::new(), Some(7));
    let id = |i: usize| labelled.candidates[i].chunk_id.clone();
    let cases: Vec<(&str, &Trace, PolicyOptions)> = vec![
        ("classify", &labelled, PolicyOptions::default()),
        (
            "filter, min relevance 0.4",
            &labelled,
            PolicyOptions {
                mode: Mode::Filter,
                min_relevance: Some(0.4),
                ..PolicyOptions::default()
            },
        ),
        (
            "filter and rerank, top 20, a pin",
            &labelled,
            PolicyOptions {
                mode: Mode::FilterAndRerank,
                min_relevance: Some(0.3),
                top_n: Some(20),
                pinned: vec![id(250)],
                ..PolicyOptions::default()
            },
        ),
        (
            "shadow, budget",
            &labelled,
            PolicyOptions {
                shadow: true,
                max_context_tokens: Some(2000),
                ..PolicyOptions::default()
            },
        ),
        ("a run that bypasses", &bypassing, PolicyOptions::default()),
    ];
    for (k, (name, trace, base)) in cases.into_iter().enumerate() {
        for key in [IS_RELEVANT, CONTAINS_ANSWER_EVIDENCE] {
            // From either end and from within (every start for the first case, one for the rest: a walk is
            // quadratic in the values).
            let starts: &[usize] = if k == 0 { &[0, 37, 100] } else { &[63] };
            for &start in starts {
                let s = sweep(trace, &base, key, start);
                for (i, &v) in s.values.iter().enumerate() {
                    let want = trace.replay(&with(&base, key, v), None).unwrap();
                    assert_eq!(
                        s.at(trace, i).as_ref(),
                        Some(&want),
                        "{name}, {key} from {start}, at {v}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_sweep_crosses_as_a_fraction_of_its_replays() {
    let trace = run(2000, vec![1, 4, 9], None);
    let base = PolicyOptions::default();
    let s = sweep(&trace, &base, IS_RELEVANT, 50);
    let bytes = serde_json::to_vec(&s).unwrap().len();
    let deltas: usize = (s.values.iter())
        .map(|&v| {
            let replay = trace.replay(&with(&base, IS_RELEVANT, v), None).unwrap();
            serde_json::to_vec(&ReplayDelta::new(&trace, replay).unwrap())
                .unwrap()
                .len()
        })
        .sum();
    assert!(
        bytes * 10 < deltas,
        "the sweep is {bytes} bytes, its 101 deltas {deltas}"
    );
}

#[test]
fn replays_that_do_not_fit_are_refused_and_a_walk_off_the_values_is_none() {
    let trace = run(60, Vec::new(), None);
    let base = PolicyOptions::default();
    let values = vec![0.2, 0.5];
    let replay = |v: f64| trace.replay(&with(&base, IS_RELEVANT, v), None).unwrap();
    let fits =
        |replays: Vec<Replay>, start: usize| ReplaySweep::new(&trace, IS_RELEVANT, values.clone(), start, replays);
    assert!(fits(vec![replay(0.2)], 0).is_err(), "one replay for two values");
    assert!(
        fits(vec![replay(0.2), replay(0.6)], 0).is_err(),
        "a replay at another value"
    );
    assert!(
        fits(vec![replay(0.2), replay(0.5)], 2).is_err(),
        "the asked value past the values"
    );
    let s = fits(vec![replay(0.2), replay(0.5)], 1).unwrap();
    assert_eq!(s.at(&trace, 0), Some(replay(0.2)));
    assert_eq!(s.at(&trace, 2), None);
    let other = run(30, Vec::new(), None);
    assert_eq!(s.at(&other, 0), None, "laid over another run");
    assert_eq!(s.options_at(0), Some(replay(0.2).options));
}

//! A run of thousands of candidates for the window tests (`pipeline::synthetic`: another retriever's candidates
//! judged by Jev), written as a portable run file the Import view reads.
#![allow(dead_code)]

use ragsift_engine::judge::jev::PROMPT_VERSION;
use ragsift_engine::pipeline::portable;
use ragsift_engine::pipeline::replay_delta::ReplayDelta;
use ragsift_engine::pipeline::synthetic::{judged_run, SyntheticRun};
use ragsift_engine::pipeline::trace::Trace;
use ragsift_engine::policy::{PolicyOptions, CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT};
use std::collections::BTreeMap;
use std::path::Path;

/// An imported run of `n` candidates from 10 query variants, judged by "jev" (its prompt version), with three of
/// them labelled relevant.
pub fn trace(n: usize) -> Trace {
    let spec = SyntheticRun {
        relevant: vec![1, 4, 9],
        prompt_version: PROMPT_VERSION.into(),
        variants: 10,
        ..SyntheticRun::default()
    };
    judged_run(n, &spec).unwrap()
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
            let delta = serde_json::to_string(&ReplayDelta::new(trace, replay).unwrap())
                .unwrap()
                .len();
            serde_json::json!({"is_relevant": relevant, "contains_answer_evidence": evidence, "changes": changes,
                "full_bytes": full, "delta_bytes": delta})
        })
        .collect();
    serde_json::Value::Array(sizes)
}

//! Replay: the selection policy over 200 cached judgments, and the app's replay command over 2,000 candidates
//! (the judges' own cost per chunk, which replay saves, is measured by `ragsift-bench judge --speed`).

use ragsift_engine::pipeline::replay_delta::{ReplayDelta, ReplaySweep};
use ragsift_engine::pipeline::synthetic::{judged_run, SyntheticRun};
use ragsift_engine::pipeline::trace::{Replay, Trace};
use ragsift_engine::policy::{
    select, ChunkJudgment, Decision, Mode, PolicyOptions, CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT,
};
use ragsift_engine::Result;
use std::collections::BTreeMap;
use std::time::Instant;

pub fn run() -> Result<()> {
    let chunks = judgments(200);
    println!("\n## replay: selection policy over 200 cached judgments (5 questions each)");
    for (name, options) in [
        ("classify (Spring thresholds)", PolicyOptions::default()),
        (
            "filter_and_rerank, top_n 8, 1500 tokens",
            PolicyOptions {
                mode: Mode::FilterAndRerank,
                min_relevance: Some(0.3),
                top_n: Some(8),
                max_context_tokens: Some(1500),
                ..Default::default()
            },
        ),
    ] {
        let iterations = 2000;
        let t = Instant::now();
        let mut kept = 0;
        for _ in 0..iterations {
            kept += select(std::hint::black_box(&chunks), &options).selected().len();
        }
        let per = t.elapsed().as_secs_f64() / iterations as f64;
        println!(
            "{name:<42} {:>8.1} µs per replay ({} kept)",
            per * 1e6,
            kept / iterations
        );
    }

    app_replay()
}

/// The app's `replay` command at 2,000 candidates (Issue 15's Replay view): the policy, the change list and label
/// report, the delta and its JSON, against the full `Replay` the app sent before.
fn app_replay() -> Result<()> {
    let n = 2000;
    let trace = judged_run(
        n,
        &SyntheticRun {
            relevant: vec![1, 4, 9],
            variants: 10,
            ..SyntheticRun::default()
        },
    )?;
    println!(
        "\n## replay: the app's replay command over {n} candidates (a synthetic Jev-judged run: 10 variants' top 200)"
    );
    println!(
        "{:<34} {:>7} {:>8} {:>7} {:>6} {:>5} {:>8} {:>9} {:>7}",
        "setting (median µs, bytes)", "changes", "rebuilt", "replay", "delta", "JSON", "delta B", "by row B", "full B"
    );
    for (relevant, evidence) in [(0.50, 0.55), (0.60, 0.50), (0.70, 0.40)] {
        let options = thresholds(relevant, evidence);
        let iterations = 300;
        let (mut rebuilt_s, mut replay_s, mut delta_s, mut json_s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // The app keeps the run's policy input between moves (the workbench's `Replayable`).
        let kept = std::sync::OnceLock::new();
        let input = |o: &PolicyOptions| kept.get_or_init(|| std::sync::Arc::new(trace.policy_input(o))).clone();
        let (mut bytes, mut full_bytes, mut row_bytes, mut changes) = (0, 0, 0, 0);
        for _ in 0..iterations {
            let t = Instant::now();
            std::hint::black_box(trace.reselect(std::hint::black_box(&options))?);
            rebuilt_s.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let replay = trace.reselect_over(std::hint::black_box(&options), input)?;
            replay_s.push(t.elapsed().as_secs_f64());
            full_bytes = json_len(&replay);
            row_bytes = by_row_bytes(&trace.selection.decisions, &replay);
            changes = replay.changes.len();
            let t = Instant::now();
            let delta = ReplayDelta::new(&trace, replay)?;
            delta_s.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            bytes = json_len(&delta);
            json_s.push(t.elapsed().as_secs_f64());
        }
        let us = |v: Vec<f64>| median(v) * 1e6;
        println!(
            "{:<34} {changes:>7} {:>8.0} {:>7.0} {:>6.0} {:>5.0} {bytes:>8} {row_bytes:>9} {full_bytes:>7}",
            format!("relevance {relevant:.2}, evidence {evidence:.2}"),
            us(rebuilt_s),
            us(replay_s),
            us(delta_s),
            us(json_s)
        );
    }
    app_sweep(&trace)
}

/// The app's `replay_sweep` command over the same run: the relevance threshold's 101 slider values from 0.50
/// (evidence 0.55), made once per drag; against the 101 replay deltas it stands for.
fn app_sweep(trace: &Trace) -> Result<()> {
    let values: Vec<f64> = (0..=100).map(|i| f64::from(i) / 100.0).collect();
    let at = |v: f64| thresholds(v, 0.55);
    let kept = std::sync::OnceLock::new();
    let input = |o: &PolicyOptions| kept.get_or_init(|| std::sync::Arc::new(trace.policy_input(o))).clone();
    let (mut replays_s, mut sweep_s, mut json_s) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bytes, mut deltas_bytes) = (0, 0);
    for round in 0..15 {
        let t = Instant::now();
        let replays = (values.iter())
            .map(|&v| trace.reselect_over(&at(v), input))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        replays_s.push(t.elapsed().as_secs_f64());
        if round == 0 {
            deltas_bytes = (replays.iter().cloned())
                .map(|r| ReplayDelta::new(trace, r).map(|d| json_len(&d)))
                .sum::<std::result::Result<usize, _>>()?;
        }
        let t = Instant::now();
        let sweep = ReplaySweep::new(trace, IS_RELEVANT, values.clone(), 50, replays)?;
        sweep_s.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        bytes = json_len(&sweep);
        json_s.push(t.elapsed().as_secs_f64());
    }
    let ms = |v: Vec<f64>| median(v) * 1e3;
    println!(
        "\n## replay sweep: the relevance threshold's 101 values over the same run (median of 15, ms; bytes)\n\
         {:<34} {:>8} {:>7} {:>6} {:>9} {:>13}",
        "", "replays", "sweep", "JSON", "sweep B", "101 deltas B"
    );
    println!(
        "{:<34} {:>8.1} {:>7.1} {:>6.1} {bytes:>9} {deltas_bytes:>13}",
        "from relevance 0.50, evidence 0.55",
        ms(replays_s),
        ms(sweep_s),
        ms(json_s)
    );
    Ok(())
}

/// The default policy with the relevance and evidence thresholds at these values.
fn thresholds(relevant: f64, evidence: f64) -> PolicyOptions {
    PolicyOptions {
        thresholds: BTreeMap::from([
            (IS_RELEVANT.to_string(), relevant),
            (CONTAINS_ANSWER_EVIDENCE.to_string(), evidence),
        ]),
        ..PolicyOptions::default()
    }
}

/// The median (this machine's neighbours make means wander).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Deterministic pseudo-random judgments for `n` chunks.
fn judgments(n: usize) -> Vec<ChunkJudgment> {
    let mut seed = 0x243F6A8885A308D3u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f64 / (1u64 << 24) as f64
    };
    (0..n)
        .map(|i| {
            let scores: BTreeMap<String, f64> = [
                "contains_prompt_injection",
                "contradicts_query_premise",
                "is_relevant",
                "contains_answer_evidence",
                "useful",
            ]
            .iter()
            .map(|k| (k.to_string(), next()))
            .collect();
            ChunkJudgment {
                chunk_id: format!("chunk-{i:04}"),
                input_index: i,
                tokens: 100 + (i as u32 % 150),
                characters: 600,
                pinned: false,
                group: None,
                scores,
                not_assessed: Vec::new(),
            }
        })
        .collect()
}

/// Bytes of `value` as JSON (what crosses IPC).
fn json_len(value: &impl serde::Serialize) -> usize {
    serde_json::to_vec(value).map_or(0, |v| v.len())
}

/// The previous wire form's bytes: the differing decisions whole (64-hex chunk ids, every field) and the change
/// list as records.
fn by_row_bytes(stored: &[Decision], replay: &Replay) -> usize {
    let same = |a: &Decision, b: &Decision| {
        Decision {
            rank: b.rank,
            returned: b.returned,
            ..a.clone()
        } == *b
    };
    let rows: Vec<&Decision> = (replay.selection.decisions.iter().zip(stored))
        .filter(|(d, b)| !same(d, b))
        .map(|(d, _)| d)
        .collect();
    json_len(&(rows, &replay.changes))
}

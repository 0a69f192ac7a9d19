//! Replay: the selection policy over 200 cached judgments (the judges' own cost per chunk, which replay saves,
//! is measured by `ragsift-bench judge --speed`).

use ragsift_engine::policy::{select, ChunkJudgment, Mode, PolicyOptions};
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

    Ok(())
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

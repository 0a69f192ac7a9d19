//! Pipeline benchmarks: replay (the selection policy over 200 cached judgments) vs the one-time cost it
//! replaces (judging those chunks), and the local judge's cost per chunk.

use ragsift_engine::judge::{default_questions, Judge, LocalJudge};
use ragsift_engine::llm::embedded::{default_model_path, EmbeddedModel, EmbeddedOptions};
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
                min_relevance: 0.3,
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
            kept += select(std::hint::black_box(&chunks), &options).selected_ids.len();
        }
        let per = t.elapsed().as_secs_f64() / iterations as f64;
        println!(
            "{name:<42} {:>8.1} µs per replay ({} kept)",
            per * 1e6,
            kept / iterations
        );
    }

    let home = ragsift_engine::config::data_dir()?;
    let path = default_model_path(&ragsift_engine::config::models_dir(&home)?);
    let model = EmbeddedModel::load(&path, &EmbeddedOptions::default(), None)?;
    let judge = LocalJudge { model: &model };
    let passages: Vec<String> = (0..8)
        .map(|i| format!("Passage {i}. The Orion-7 battery warranty lasts 36 months from purchase; registering within 30 days extends it to 48 months. Charging from 0 to 80 percent takes 45 minutes with the 65 W charger, between 5 and 40 degrees Celsius.").repeat(2))
        .collect();
    let questions = default_questions();
    let t = Instant::now();
    let out = judge.judge("How long is the battery warranty?", &passages, &questions)?;
    let per_chunk = t.elapsed().as_secs_f64() / passages.len() as f64;
    let tokens: u32 = out.iter().map(|j| j.input_tokens).sum();
    println!(
        "\n## local judge ({}, {} questions per chunk, shared passage prefix)",
        judge.model(),
        questions.len()
    );
    println!(
        "{:.0} ms per chunk ({} prompt tokens evaluated per chunk); replay of 200 chunks replaces {:.1} s of judging",
        per_chunk * 1e3,
        tokens / passages.len() as u32,
        per_chunk * 200.0
    );
    Ok(())
}

/// Deterministic pseudo-random judgments for `n` chunks.
fn judgments(n: usize) -> Vec<ChunkJudgment> {
    let mut seed = 0x243F6A8885A308D3u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|i| {
            let scores: BTreeMap<String, f32> = [
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
            }
        })
        .collect()
}

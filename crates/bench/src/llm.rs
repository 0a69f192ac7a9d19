//! Embedded language model benchmark: prompt and generation tokens/s, and four yes/no questions about one
//! ~300-token passage with the shared-prefix KV reuse vs evaluating each prompt in full (the baseline).

use ragsift_engine::llm::embedded::{default_model_path, EmbeddedModel, EmbeddedOptions};
use ragsift_engine::llm::{yes_no_prompt, CancelToken, ChatMessage, GenerateOptions, LanguageModel};
use ragsift_engine::Result;
use std::time::Instant;

const RUNS: usize = 3;

pub fn run() -> Result<()> {
    let home = ragsift_engine::paths::data_dir()?;
    let path = default_model_path(&ragsift_engine::paths::models_dir(&home)?);
    let t = Instant::now();
    let model = EmbeddedModel::load(&path, &EmbeddedOptions::default(), None)?;
    println!(
        "\n## embedded language model: {} ({} threads)",
        path.display(),
        ragsift_engine::compute::threads()
    );
    println!("load: {:.2} s", t.elapsed().as_secs_f64());

    // Prompt processing: a ~300-token prompt, 1 generated token.
    let passage = passage();
    let prompt = [ChatMessage::user(format!("{passage}\n\nSummarise the passage."))];
    let n_prompt = model.tokenize(&model.format(&prompt)?).len();
    let one = GenerateOptions {
        max_tokens: 1,
        ..Default::default()
    };
    let best = best_of(|| model.chat(&prompt, &one, &mut |_| {}, &CancelToken::new()).map(|_| ()))?;
    println!(
        "prompt evaluation: {n_prompt} tokens in {:.3} s = {:.0} tokens/s",
        best,
        n_prompt as f64 / best
    );

    // Generation: 128 tokens greedy from a short prompt; tokens/s excludes the (short) prompt.
    let gen = GenerateOptions {
        max_tokens: 128,
        ..Default::default()
    };
    let short = [ChatMessage::user("Write a short story about a lighthouse keeper.")];
    let mut produced = 0;
    let total = best_of(|| {
        let c = model.chat(&short, &gen, &mut |_| {}, &CancelToken::new())?;
        produced = c.usage.completion_tokens;
        Ok(())
    })?;
    let prompt_part = best_of(|| model.chat(&short, &one, &mut |_| {}, &CancelToken::new()).map(|_| ()))?;
    println!(
        "generation: {produced} tokens in {:.2} s = {:.1} tokens/s",
        total - prompt_part,
        (produced.saturating_sub(1)) as f64 / (total - prompt_part)
    );

    // Four yes/no questions about one passage.
    let questions = [
        "Is the passage relevant to the question: how long is the battery warranty?",
        "Does the passage contain evidence that answers: how long is the battery warranty?",
        "Does the passage contradict the premise of: why is there no warranty?",
        "Does the passage contain instructions addressed to an AI assistant?",
    ];
    let prompts: Vec<_> = questions.iter().map(|q| yes_no_prompt(&passage, q)).collect();
    let reuse = best_of(|| model.yes_no(&prompts).map(|_| ()))?;
    let full = best_of(|| model.yes_no_unshared(&prompts).map(|_| ()))?;
    let a = model.yes_no(&prompts)?;
    let b = model.yes_no_unshared(&prompts)?;
    let max_diff = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x.p_yes - y.p_yes).abs())
        .fold(0.0, f32::max);
    println!("4 yes/no questions, one {}-token passage:", n_prompt);
    println!("  each prompt in full (baseline): {:.3} s", full);
    println!(
        "  shared prefix + KV copy:        {:.3} s ({:.1}× faster, max |Δp| = {max_diff:.4})",
        reuse,
        full / reuse
    );
    Ok(())
}

fn best_of(mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let mut best = f64::MAX;
    for _ in 0..RUNS {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// About 300 tokens of warranty text.
fn passage() -> String {
    let s = "The Orion-7 battery is covered by a limited warranty of 36 months from the date of purchase shown on \
             your receipt. During this period the maker will repair or replace any battery that fails because of a \
             defect in materials or workmanship. Registering within 30 days extends the warranty to 48 months. ";
    s.repeat(5)
}

//! Real inference on the Gemma 3 270M GGUF installed by scripts/setup.sh: streaming, cancellation, the yes/no
//! readout with and without a shared prefix, and bad model files.

use ragsift_models::llm::embedded::{default_model_path, EmbeddedModel, EmbeddedOptions};
use ragsift_models::llm::{yes_no_prompt, CancelToken, ChatMessage, FinishReason, GenerateOptions, LanguageModel};

mod common;
use common::gemma;

fn greedy(n: u32) -> GenerateOptions {
    GenerateOptions {
        max_tokens: n,
        temperature: 0.0,
        seed: 1,
    }
}

#[test]
fn streams_tokens_in_order_and_is_deterministic_when_greedy() {
    let m = gemma();
    let mut pieces = Vec::new();
    let msgs = [ChatMessage::user("What is a PDF?")];
    let c = m
        .chat(
            &msgs,
            &greedy(24),
            &mut |p| pieces.push(p.to_string()),
            &CancelToken::new(),
        )
        .unwrap();
    assert!(!pieces.is_empty());
    assert_eq!(pieces.concat(), c.text, "the streamed pieces are the answer, in order");
    assert!(c.usage.completion_tokens <= 24 && c.usage.completion_tokens as usize >= pieces.len());
    assert!(c.usage.prompt_tokens > 5);
    assert!(matches!(c.finish_reason, FinishReason::Stop | FinishReason::Length));
    let again = m.chat(&msgs, &greedy(24), &mut |_| {}, &CancelToken::new()).unwrap();
    assert_eq!(again.text, c.text);
}

#[test]
fn cancel_stops_generation() {
    let m = gemma();
    let cancel = CancelToken::new();
    let mut seen = 0;
    let c = m
        .chat(
            &[ChatMessage::user("Write a long story about the sea.")],
            &greedy(200),
            &mut |_| {
                seen += 1;
                if seen == 3 {
                    cancel.cancel();
                }
            },
            &cancel,
        )
        .unwrap();
    assert_eq!(c.finish_reason, FinishReason::Cancelled);
    assert!(
        c.usage.completion_tokens <= 4,
        "stopped right after the cancel: {}",
        c.usage.completion_tokens
    );
}

#[test]
fn yes_no_with_a_shared_prefix_matches_full_evaluation() {
    let m = gemma();
    let passage = "The Orion-7 battery is covered by a limited warranty of 36 months from the date of purchase. \
                   It charges from 0 to 80 percent in 45 minutes with the 65 W charger.";
    let questions = [
        "Is the passage relevant to the question: how long is the battery warranty?",
        "Does the passage contain the answer to: how long is the battery warranty?",
        "Does the passage contradict the premise of: why does the battery have no warranty?",
        "Does the passage try to give you instructions?",
    ];
    let prompts: Vec<_> = questions.iter().map(|q| yes_no_prompt(passage, q)).collect();
    let shared = m.yes_no(&prompts).unwrap();
    let full = m.yes_no_unshared(&prompts).unwrap();
    assert_eq!(shared.len(), 4);
    for (s, f) in shared.iter().zip(&full) {
        assert!((0.0..=1.0).contains(&s.p_yes) && s.calibrated);
        // Stated tolerance 1e-3: the KV copy reproduces the full evaluation up to float rounding. (Decoding a
        // prompt in ONE batch instead of prefix + rest moves P(yes) by up to ~0.04 with this Q4 model: llama.cpp's
        // quantised kernels round differently per batch shape, so both paths here use the same split.)
        assert!(
            (s.p_yes - f.p_yes).abs() < 1e-3,
            "shared {} vs full {}",
            s.p_yes,
            f.p_yes
        );
    }
    let order = |v: &[ragsift_models::llm::YesNo]| {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|a, b| v[*b].p_yes.total_cmp(&v[*a].p_yes));
        idx
    };
    assert_eq!(order(&shared), order(&full), "same ordering of probabilities");
    let evaluated: u32 = shared.iter().map(|y| y.usage.prompt_tokens).sum();
    let full_cost: u32 = full.iter().map(|y| y.usage.prompt_tokens).sum();
    assert!(
        evaluated * 2 < full_cost,
        "the passage is evaluated once: {evaluated} vs {full_cost} tokens"
    );
}

#[test]
fn a_prompt_longer_than_the_context_is_refused() {
    let home = ragsift_core::paths::data_dir().unwrap();
    let path = default_model_path(&ragsift_core::paths::models_dir(&home).unwrap());
    let small = EmbeddedModel::load(
        &path,
        &EmbeddedOptions {
            context_length: 256,
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let long = "word ".repeat(400);
    let err = small
        .chat(
            &[ChatMessage::user(long)],
            &greedy(16),
            &mut |_| {},
            &CancelToken::new(),
        )
        .unwrap_err();
    assert_eq!(err.code(), "context_overflow");
    assert!(err.to_string().contains("256"), "{err}");
}

#[test]
fn missing_and_corrupt_model_files_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.gguf");
    let e = EmbeddedModel::load(&missing, &EmbeddedOptions::default(), None)
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("nope.gguf") && e.to_string().contains("no such"),
        "{e}"
    );
    let garbage = dir.path().join("garbage.gguf");
    std::fs::write(&garbage, b"this is not a model").unwrap();
    let e = EmbeddedModel::load(&garbage, &EmbeddedOptions::default(), None)
        .err()
        .unwrap();
    assert!(
        e.to_string().contains("garbage.gguf") && e.to_string().contains("not a GGUF"),
        "{e}"
    );
    // A truncated real file: the header is right, the rest is missing.
    let home = ragsift_core::paths::data_dir().unwrap();
    let real = default_model_path(&ragsift_core::paths::models_dir(&home).unwrap());
    let truncated = dir.path().join("truncated.gguf");
    let bytes = std::fs::read(&real).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let e = EmbeddedModel::load(&truncated, &EmbeddedOptions::default(), None)
        .err()
        .unwrap();
    assert!(e.to_string().contains("truncated.gguf"), "{e}");
    assert_eq!(e.code(), "model");
}

#[test]
fn model_loading_reports_progress() {
    let home = ragsift_core::paths::data_dir().unwrap();
    let path = default_model_path(&ragsift_core::paths::models_dir(&home).unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = seen.clone();
    EmbeddedModel::load(
        &path,
        &EmbeddedOptions::default(),
        Some(Box::new(move |p| s.lock().unwrap().push(p))),
    )
    .unwrap();
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty() && *seen.last().unwrap() >= 0.99, "{seen:?}");
}

//! The token chunker with the embedding model's real tokenizer: budgets, boundaries, overlap, page spans.

mod common;

use common::embedder;
use ragsift_engine::chunk::{Chunker, TokenChunker};
use ragsift_engine::extract::PageText;
use ragsift_engine::Embedder;

fn page(number: u32, text: String) -> PageText {
    PageText {
        number,
        text,
        failed: false,
        ocr: false,
        decoding: Default::default(),
        ..PageText::default()
    }
}

fn sentences(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{prefix} sentence number {i} talks about retrieval thresholds."))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn chunks_respect_the_token_budget_and_cut_at_sentences() {
    let chunker = TokenChunker::from_file(embedder().tokenizer_path(), 64, 8).unwrap();
    let pages = vec![page(1, sentences("Alpha", 40))];
    let chunks = chunker.chunk(&pages).unwrap();
    assert!(chunks.len() > 3);
    for c in &chunks {
        let n = chunker.count_tokens(&c.text).unwrap();
        assert!(n <= 64, "chunk of {n} tokens");
        assert_eq!(c.tokens, n);
    }
    for c in &chunks[..chunks.len() - 1] {
        assert!(c.text.ends_with('.'), "cut at a sentence end: {:?}", c.text);
    }
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.index, i);
    }
    // Overlap: each chunk starts before the previous one ends.
    for w in chunks.windows(2) {
        assert!(w[1].char_start < w[0].char_end, "overlapping chunks");
    }
}

#[test]
fn chunks_record_page_spans_and_offsets() {
    let chunker = TokenChunker::from_file(embedder().tokenizer_path(), 254, 0).unwrap();
    // ~150 + ~200 tokens: too much for one chunk, so the cut goes where page 1 ends.
    let p1 = sentences("One", 15);
    let p2 = sentences("Two", 20);
    let pages = vec![page(1, p1.clone()), page(2, p2.clone())];
    let chunks = chunker.chunk(&pages).unwrap();
    assert_eq!(chunks.len(), 2, "a page break is the preferred cut");
    assert_eq!((chunks[0].page_start, chunks[0].page_end), (1, 1));
    assert_eq!(
        (chunks[1].page_start, chunks[1].page_end, chunks[1].char_start),
        (2, 2, 0)
    );
    assert_eq!(chunks[1].char_end, p2.chars().count());
    let slice: String = p1
        .chars()
        .skip(chunks[0].char_start)
        .take(chunks[0].char_end - chunks[0].char_start)
        .collect();
    assert_eq!(slice, chunks[0].text);
}

#[test]
fn long_words_and_empty_pages() {
    let chunker = TokenChunker::from_file(embedder().tokenizer_path(), 32, 4).unwrap();
    let pages = vec![
        page(1, String::new()),
        page(2, "x".repeat(2000)),
        page(3, String::new()),
    ];
    let chunks = chunker.chunk(&pages).unwrap();
    assert!(!chunks.is_empty());
    assert!(chunks.iter().all(|c| c.page_start == 2 && c.tokens <= 32));
    assert!(chunker.chunk(&[page(1, String::new())]).unwrap().is_empty());
}

#[test]
fn embeddings_are_unit_vectors_and_similar_texts_are_close() {
    let e = embedder();
    let v = e
        .embed(&[
            "The warranty lasts two years.",
            "How long is the guarantee?",
            "Tide pools host anemones.",
        ])
        .unwrap();
    assert_eq!(v.len(), 3);
    assert!(v.iter().all(|x| x.len() == 384));
    let norm: f32 = v[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4);
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]) + 0.1, "related texts are closer");
}

//! The token chunker with the embedding model's real tokenizer: budgets, boundaries, overlap, page spans.

mod common;

use ragsift_ingest::chunk::{Chunker, TokenChunker};
use ragsift_ingest::extract::PageText;

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
    let chunker = TokenChunker::from_file(&common::tokenizer(), 64, 8).unwrap();
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
        assert!(w[1].place.char_start < w[0].place.char_end, "overlapping chunks");
    }
}

#[test]
fn chunks_record_page_spans_and_offsets() {
    let chunker = TokenChunker::from_file(&common::tokenizer(), 254, 0).unwrap();
    // ~150 + ~200 tokens: too much for one chunk, so the cut goes where page 1 ends.
    let p1 = sentences("One", 15);
    let p2 = sentences("Two", 20);
    let pages = vec![page(1, p1.clone()), page(2, p2.clone())];
    let chunks = chunker.chunk(&pages).unwrap();
    assert_eq!(chunks.len(), 2, "a page break is the preferred cut");
    assert_eq!((chunks[0].place.page_start, chunks[0].place.page_end), (1, 1));
    assert_eq!(
        (
            chunks[1].place.page_start,
            chunks[1].place.page_end,
            chunks[1].place.char_start
        ),
        (2, 2, 0)
    );
    assert_eq!(chunks[1].place.char_end as usize, p2.chars().count());
    let slice: String = p1
        .chars()
        .skip(chunks[0].place.char_start as usize)
        .take((chunks[0].place.char_end - chunks[0].place.char_start) as usize)
        .collect();
    assert_eq!(slice, chunks[0].text);
}

#[test]
fn long_words_and_empty_pages() {
    let chunker = TokenChunker::from_file(&common::tokenizer(), 32, 4).unwrap();
    let pages = vec![
        page(1, String::new()),
        page(2, "x".repeat(2000)),
        page(3, String::new()),
    ];
    let chunks = chunker.chunk(&pages).unwrap();
    assert!(!chunks.is_empty());
    assert!(chunks.iter().all(|c| c.place.page_start == 2 && c.tokens <= 32));
    assert!(chunker.chunk(&[page(1, String::new())]).unwrap().is_empty());
}

/// A real paper's table (Rcpp, JSS 2011, page 15: run times under a header, the caption below): the page text
/// keeps the rows as the page has them, and one more chunk holds the table with each row keyed by its header,
/// placed over the table's stretch of the page so that span labels of a row count for it.
#[test]
fn a_table_becomes_a_chunk_of_header_keyed_rows_over_its_stretch_of_the_page() {
    let pdf = common::repo().join("fixtures/qa/documents/Rcpp-jss-2011.pdf");
    let pages = ragsift_ingest::extract::extract_file(
        &pdf,
        ragsift_ingest::extract::Limits {
            max_file_mb: 64,
            timeout: std::time::Duration::from_secs(120),
        },
    )
    .unwrap()
    .pages;
    let chunker = TokenChunker::from_file(&common::tokenizer(), 256, 32).unwrap();
    let chunks = chunker.chunk(&pages).unwrap();
    let row = "Implementation: Rcpp sugar; Time in millisec.: 145; Relative to R API: 0.67";
    let table: Vec<_> = chunks.iter().filter(|c| c.text.contains(row)).collect();
    assert_eq!(table.len(), 1, "one chunk holds the keyed row");
    let t = table[0];
    assert!(t.text.starts_with("Table 2: Run-time performance"), "{}", t.text);
    assert_eq!((t.place.page_start, t.place.page_end), (15, 15));
    let page: Vec<char> = pages.iter().find(|p| p.number == 15).unwrap().text.chars().collect();
    let covered: String = page[t.place.char_start as usize..t.place.char_end as usize]
        .iter()
        .collect();
    assert!(covered.contains("Rcpp sugar 145 0.67"), "{covered}");
    assert!(!t.boxes.is_empty() && t.boxes.iter().all(|b| b.page == 15));
    assert!(t.tokens <= 256);
    // It sits among the chunks in the order of the text, indexes still 0, 1, 2 …
    assert!(chunks.iter().enumerate().all(|(i, c)| c.index == i));
    let before = &chunks[t.index - 1];
    assert!(
        before.place.page_start <= 15 && before.place.page_end >= 15,
        "after the chunk its table starts in"
    );
    // The page's own chunks still slice the page: the raw row is in one of them.
    assert!(chunks.iter().any(|c| c.text.contains("Rcpp sugar 145 0.67")));
}

/// A table longer than the budget goes on in further chunks, each led by the caption and header.
#[test]
fn a_long_table_is_cut_between_rows_and_each_part_keeps_its_header() {
    use ragsift_ingest::extract::{Table, TableRow};
    let chunker = TokenChunker::from_file(&common::tokenizer(), 64, 8).unwrap();
    let head = "Table 1: Options.\nOption Meaning".to_string();
    let mut text = head.clone();
    let mut rows = Vec::new();
    for i in 0..12 {
        let line = format!("-{i} value sets option {i} of the programmer");
        text.push(' ');
        let start = text.len();
        text.push_str(&line);
        rows.push(TableRow {
            start,
            end: text.len(),
            text: format!("Option: -{i} value; Meaning: sets option {i} of the programmer"),
        });
    }
    let table = Table {
        start: 0,
        end: text.len(),
        head,
        rows,
    };
    let pages = vec![PageText {
        tables: vec![table],
        ..page(1, text)
    }];
    let chunks = chunker.chunk(&pages).unwrap();
    let parts: Vec<_> = chunks.iter().filter(|c| c.text.contains("Option: -")).collect();
    assert!(parts.len() >= 3, "{} parts", parts.len());
    for p in &parts {
        assert!(
            p.text.starts_with("Table 1: Options.\nOption Meaning\n\nOption: -"),
            "{}",
            p.text
        );
        assert!(
            p.tokens <= 64 || p.text.matches("Option: -").count() == 1,
            "{} tokens",
            p.tokens
        );
    }
    // Every row is in exactly one part, in order; the parts' stretches follow one another.
    let all: String = parts.iter().map(|p| p.text.as_str()).collect();
    for i in 0..12 {
        assert_eq!(all.matches(&format!("Option: -{i} value;")).count(), 1);
    }
    for w in parts.windows(2) {
        assert!(
            w[0].place.char_end <= w[1].place.char_start,
            "{:?} then {:?}",
            w[0].place.char_end,
            w[1].place.char_start
        );
    }
    assert_eq!(parts[0].place.char_start, 0);
}

#[test]
fn a_long_document_is_tokenized_in_pieces_with_the_same_tokens() {
    // About 1.2 MB of sentences on one line: some 75 pieces of 16 KiB for the chunker, one call for the count.
    let chunker = TokenChunker::from_file(&common::tokenizer(), 200, 0).unwrap();
    let text = sentences("Gamma", 20_000);
    let chunks = chunker.chunk(&[page(1, text.clone())]).unwrap();
    let whole = chunker.count_tokens(&text).unwrap();
    // Without overlap, the chunks hold each token of the document once, as one tokenization of all of it does.
    assert_eq!(chunks.iter().map(|c| c.tokens).sum::<usize>(), whole);
    for c in &chunks {
        assert_eq!(c.tokens, chunker.count_tokens(&c.text).unwrap(), "chunk {}", c.index);
        assert!(c.tokens <= 200);
    }
    for w in chunks.windows(2) {
        assert!(w[1].place.char_start >= w[0].place.char_end, "chunks follow each other");
    }
}

#[test]
fn a_run_of_text_without_spaces_is_cut_into_bounded_chunks() {
    // 600 KB without a space or a line break (a minified file, a base64 blob): pieces cut at character
    // boundaries, and every chunk within the budget, in tokens and in bytes (the tokenizer reads such a run as
    // one "unknown" token, which the chunker counts as one per 24 bytes).
    let chunker = TokenChunker::from_file(&common::tokenizer(), 128, 16).unwrap();
    let text: String = "é0123456789abcdefXYZ".repeat(30_000);
    let chunks = chunker.chunk(&[page(1, text.clone())]).unwrap();
    assert!(chunks.len() > 100);
    assert!(chunks
        .iter()
        .all(|c| c.tokens <= 128 && !c.text.is_empty() && c.text.len() <= 128 * 26));
    let last = chunks.last().unwrap();
    assert_eq!(
        last.place.char_end as usize,
        text.chars().count(),
        "the text is chunked to its end"
    );
}

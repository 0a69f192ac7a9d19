//! Keyword queries: quoting, and leaving out words in half the chunks without changing what a search returns.

use super::*;
use crate::backend::DocumentStore;
use crate::sqlite::{DocumentRow, NewChunk, NewPage, Store};
use ragsift_core::ChunkPlace;

#[test]
fn or_query_quotes_content_words() {
    assert_eq!(
        or_query("How long is the warranty?", '"', " OR ").unwrap(),
        "\"long\" OR \"warranty\""
    );
    // Only function words: they are kept rather than asking nothing.
    assert_eq!(or_query("Is it?", '"', " OR ").unwrap(), "\"is\" OR \"it\"");
    assert!(or_query("?!", '"', " OR ").is_none());
}

/// A library of `n` chunks: every one says "inverter" (a library-wide word), chunk i says "fault" when i % 7 == 0,
/// and "isolation" when i % 50 == 0.
fn library(n: usize) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("lib.db")).unwrap();
    let chunks: Vec<NewChunk> = (0..n)
        .map(|i| {
            let mut text = format!("The inverter manual, section {i}: inverter care and cleaning.");
            if i % 7 == 0 {
                text.push_str(" A fault code is shown.");
            }
            if i % 50 == 0 {
                text.push_str(" The isolation check failed.");
            }
            NewChunk {
                key: i as u64 + 1,
                id: format!("c{i}"),
                index: i,
                place: ChunkPlace {
                    page_start: 1,
                    page_end: 1,
                    char_start: 0,
                    char_end: text.chars().count() as u32,
                },
                tokens: 12,
                text,
                section: Vec::new(),
                boxes: Vec::new(),
                embedding: vec![0.0; 4],
            }
        })
        .collect();
    let doc = DocumentRow {
        id: "d".into(),
        path: "/d.pdf".into(),
        title: "d".into(),
        renamed: false,
        kind: ragsift_core::DocumentKind::Pdf,
        checksum: "0".repeat(64),
        size_bytes: 1,
        page_count: 1,
        chunk_count: n as u32,
        warning: None,
        embedding_model: "m".into(),
        ingested_at: 0,
    };
    store
        .replace_document(
            &doc,
            &[NewPage {
                number: 1,
                ..NewPage::default()
            }],
            &chunks,
        )
        .unwrap();
    (dir, store)
}

/// Keys and scores of the full query (every content word), as before.
fn full(store: &Store, query: &str, k: usize) -> Vec<(u64, f32)> {
    run(&store.conn(), &query_words(query), k).unwrap()
}

fn assert_same(got: &[(u64, f32)], want: &[(u64, f32)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.0, w.0, "{what}: {got:?} vs {want:?}");
        assert!((g.1 - w.1).abs() < 1e-4, "{what}: scores {} vs {}", g.1, w.1);
    }
}

#[test]
fn a_word_in_every_chunk_changes_no_result() {
    let (_dir, store) = library(400);
    // "inverter" is in all 400 chunks (idf floored to 1e-6), "fault" in 58, "isolation" in 8.
    for (query, k) in [
        ("inverter fault isolation", 8),
        ("Which inverter fault?", 20),
        ("inverter isolation", 8),
        // Fewer chunks with the other words than asked for: the full query fills the tail.
        ("inverter isolation", 30),
        ("fault isolation inverter", 100),
        // Only the common word: asked as it is.
        ("the inverter", 5),
    ] {
        let got = store.keyword_search(query, k).unwrap();
        assert_same(&got, &full(&store, query, k), &format!("{query} top {k}"));
        assert_eq!(got.len(), k.min(400), "{query} top {k}");
    }
}

#[test]
fn words_under_half_the_chunks_are_all_asked() {
    let (_dir, store) = library(10);
    // 10 chunks: "fault" is in 2 (0 and 7), under half; nothing is left out, and the ranking is BM25's.
    let got = store.keyword_search("fault isolation", 10).unwrap();
    assert_same(&got, &full(&store, "fault isolation", 10), "small library");
    assert_eq!(got.first().map(|h| h.0), Some(1), "chunk 0 has both words");
}

#[test]
fn documents_with_a_word_are_found_through_the_index() {
    let (_dir, store) = library(120);
    let found = |w: &str| store.documents_with_word(w).unwrap().into_iter().collect::<Vec<_>>();
    assert_eq!(found("isolation"), ["d"]);
    assert_eq!(found("Isolation"), ["d"], "as the index holds it: lower case");
    assert!(found("bmp280").is_empty());
    assert!(found("").is_empty());
}

//! `ragsift-bench retrieval`: how often the labelled evidence is among the retrieved chunks, per kind of
//! document and for the questions a table cell answers, by search mode and depth, with the text each setting
//! hands to the judge and its query time. The offline defaults are chosen from this table and the judge's.

use crate::qaset;
use ragsift_engine::eval::qa::{locate_evidence, DocKind, QaQuestion, QuestionKind};
use ragsift_engine::retrieve::SearchMode;
use ragsift_engine::{LibraryConfig, LibraryRetriever, Result, Retriever, SearchRequest};
use std::time::Instant;

/// Which questions a column of the table counts.
type Filter = Box<dyn Fn(&QaQuestion) -> bool>;

pub struct Options {
    /// Chunk window and overlap in tokens (the library's defaults when `None`).
    pub chunk: Option<(usize, usize)>,
}

pub fn run(o: &Options) -> Result<()> {
    let embedder = crate::embedder(0)?;
    let mut config = LibraryConfig::default();
    if let Some((tokens, overlap)) = o.chunk {
        config.chunk_tokens = tokens;
        config.overlap_tokens = overlap;
    }
    let name = format!("qa-library-{}-{}", config.chunk_tokens, config.overlap_tokens);
    let started = Instant::now();
    let library = if o.chunk.is_none() {
        qaset::library(&embedder)?
    } else {
        qaset::library_at(&embedder, &name, config.clone())?
    };
    eprintln!("library ready in {:.0} s", started.elapsed().as_secs_f64());
    let questions: Vec<QaQuestion> = qaset::questions_in(&library)?
        .into_iter()
        .filter(|q| q.kind != QuestionKind::Unanswerable)
        .collect();
    let (located, missing) = locate_evidence(library.store(), &questions)?;
    for m in &missing {
        eprintln!("warning: evidence not found in the extracted text: {m}");
    }
    let retriever = LibraryRetriever {
        library: &library,
        embedder: &embedder,
    };
    let groups: Vec<(String, Filter)> = DocKind::ALL
        .iter()
        .map(|&k| {
            let f: Filter = Box::new(move |q: &QaQuestion| q.doc_kind == Some(k));
            (k.label().to_string(), f)
        })
        .chain([
            ("table cells".to_string(), Box::new(|q: &QaQuestion| q.table) as Filter),
            ("all".to_string(), Box::new(|_: &QaQuestion| true)),
        ])
        .collect();
    println!(
        "\n## Retrieval on the labelled set ({} answerable and false-premise questions; chunks of {} tokens, {} overlap)\n",
        questions.len(),
        config.chunk_tokens,
        config.overlap_tokens
    );
    let header: Vec<String> = groups
        .iter()
        .map(|(name, f)| format!("{name} ({})", questions.iter().filter(|q| f(q)).count()))
        .collect();
    println!(
        "| mode | top k | {} | characters to judge | ms per query |",
        header.join(" | ")
    );
    println!("| --- | ---: |{} ---: | ---: |", " ---: |".repeat(groups.len()));
    for mode in [SearchMode::Vector, SearchMode::Keyword, SearchMode::Hybrid] {
        for top_k in [4, 8, 12] {
            let t = Instant::now();
            let mut found = vec![false; questions.len()];
            let mut characters = 0usize;
            for (i, (q, ev)) in questions.iter().zip(&located).enumerate() {
                let hits = retriever.retrieve(&SearchRequest {
                    top_k,
                    search_mode: mode,
                    ..SearchRequest::new(q.query.clone())
                })?;
                characters += hits.iter().map(|h| h.chunk.text.chars().count()).sum::<usize>();
                found[i] = hits.iter().any(|h| ev.holds(&h.chunk.document_id, &h.chunk.place()));
            }
            let ms = t.elapsed().as_secs_f64() * 1e3 / questions.len().max(1) as f64;
            let cells: Vec<String> = groups
                .iter()
                .map(|(_, f)| {
                    let (n, k) = questions
                        .iter()
                        .zip(&found)
                        .filter(|(q, _)| f(q))
                        .fold((0, 0), |(n, k), (_, &hit)| (n + 1, k + usize::from(hit)));
                    format!("{:.2}", k as f64 / n.max(1) as f64)
                })
                .collect();
            println!(
                "| {mode:?} | {top_k} | {} | {:.0} | {ms:.1} |",
                cells.join(" | "),
                characters as f64 / questions.len().max(1) as f64
            );
        }
    }
    Ok(())
}

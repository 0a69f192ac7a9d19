//! Chunks that follow the page's structure, on the multi-column fixtures (source text known): where the text
//! jumps from the foot of one column to the head of the next in mid-sentence, a chunk holding the jump reads the
//! sentence on as its source does; each chunk carries the section it starts in; every line has a box on the page.

mod common;

use ragsift_ingest::chunk::{ChunkDraft, Chunker, TokenChunker};
use ragsift_ingest::extract::{extract_file, Limits, PageText};
use ragsift_ingest::quality::words;
use ragsift_ingest::structure::Heading;
use std::time::Duration;

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(60),
};

fn chunker() -> TokenChunker {
    TokenChunker::from_file(&common::tokenizer(), 254, 32).expect("tokenizer")
}

/// Character offset → byte offset in `s`.
fn byte_at(s: &str, chars: usize) -> usize {
    s.char_indices().nth(chars).map_or(s.len(), |(b, _)| b)
}

/// Where each page's text jumps up to the head of another column (the next line starts above the one before it)
/// while the sentence is not finished: the byte offset of the jump and the words of the two lines around it (a
/// word hyphenated across the jump is one word), without the first and the last.
fn mid_sentence_jumps(page: &PageText) -> Vec<(usize, Vec<String>)> {
    page.lines
        .windows(2)
        .filter(|w| w[1].bbox.y1 < w[0].bbox.y0)
        .filter_map(|w| {
            let before = page.text[w[0].start..w[0].end].trim_end();
            if before.is_empty() || before.ends_with(['.', '!', '?', ':']) {
                return None;
            }
            // The first and last words may be halves of words hyphenated at the lines' other ends.
            let pair = words(&page.text[w[0].start..w[1].end]);
            (pair.len() > 2).then(|| (w[1].start, pair[1..pair.len() - 1].to_vec()))
        })
        .collect()
}

/// Whether the chunk holds the jump at byte `at` of page `page` (`text` is the page's text).
fn holds(chunk: &ChunkDraft, page: u32, text: &str, at: usize) -> bool {
    let place = &chunk.place;
    let start = if place.page_start == page {
        byte_at(text, place.char_start as usize)
    } else {
        0
    };
    let end = if place.page_end == page {
        byte_at(text, place.char_end as usize)
    } else {
        text.len()
    };
    place.on_page(page) && start < at && at < end
}

#[test]
fn a_chunk_reads_a_sentence_on_across_a_column_jump_as_its_source_does() {
    let chunker = chunker();
    let (mut checked, mut wrong) = (0u32, Vec::new());
    for (pdf, truth) in common::multicolumn() {
        let name = pdf.file_name().unwrap_or_default().to_string_lossy().to_string();
        let ex = extract_file(&pdf, LIMITS).unwrap_or_else(|e| panic!("{name}: {e}"));
        let chunks = chunker.chunk(&ex.pages).expect("chunks");
        let source: Vec<String> = truth.iter().flat_map(|t| words(t)).collect();
        let source = format!(" {} ", source.join(" "));
        for page in &ex.pages {
            for (at, around) in mid_sentence_jumps(page) {
                let gram = format!(" {} ", around.join(" "));
                for chunk in chunks.iter().filter(|c| holds(c, page.number, &page.text, at)) {
                    checked += 1;
                    // A chunk is one slice of the page text: when the page reads on rightly, so does the chunk.
                    if !source.contains(&gram) {
                        wrong.push(format!(
                            "{name} p{} chunk {}: \"{}\"",
                            page.number,
                            chunk.index,
                            gram.trim()
                        ));
                    }
                }
            }
        }
    }
    println!("{checked} chunk-held column jumps in mid-sentence checked");
    assert!(
        checked >= 30,
        "too few column jumps in mid-sentence to check: {checked}"
    );
    assert!(
        wrong.is_empty(),
        "{} of {checked} read on wrongly:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The numbered section headings of a source text ("3 Method", "2. Extraction"), with the word index where each
/// starts.
fn source_headings(pages: &[String]) -> (Vec<String>, Vec<(usize, String)>) {
    let (mut all, mut headings) = (Vec::new(), Vec::new());
    for para in pages.iter().flat_map(|p| p.split("\n\n")) {
        let w = words(para);
        let numbered = para.split_whitespace().next().is_some_and(|first| {
            first
                .trim_end_matches('.')
                .chars()
                .all(|c| c.is_ascii_digit() || c == '.')
                && first.starts_with(|c: char| c.is_ascii_digit())
        });
        let short = w.len() <= 10 && !para.trim_end().ends_with('.');
        if numbered
            && short
            && para
                .split_whitespace()
                .nth(1)
                .is_some_and(|s| s.starts_with(char::is_uppercase))
        {
            headings.push((all.len(), w.join(" ")));
        }
        all.extend(w);
    }
    (all, headings)
}

#[test]
fn chunks_carry_the_section_they_start_in() {
    let chunker = chunker();
    let (mut located, mut agree, mut total, mut report) = (0, 0, 0, String::new());
    for (pdf, truth) in common::multicolumn() {
        let name = pdf.file_name().unwrap_or_default().to_string_lossy().to_string();
        let ex = extract_file(&pdf, LIMITS).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (source, headings) = source_headings(&truth);
        assert!(headings.len() >= 3, "{name}: the source has numbered sections");
        let mut from = 0;
        for chunk in chunker.chunk(&ex.pages).expect("chunks") {
            total += 1;
            let w = words(&chunk.text);
            let Some(head) = w.get(..6) else { continue };
            let Some(pos) = (from..source.len().saturating_sub(5)).find(|&i| source[i..i + 6] == *head) else {
                continue;
            };
            from = pos;
            located += 1;
            let want = headings
                .iter()
                .take_while(|(at, _)| *at <= pos)
                .last()
                .map(|(_, h)| h.clone());
            let got = chunk.section.last().map(|h| words(h).join(" "));
            match want {
                // Before the first numbered section (title, abstract) any path is right.
                None => agree += 1,
                Some(want) if got.as_deref() == Some(want.as_str()) => agree += 1,
                Some(want) => report.push_str(&format!("{name} chunk {}: {got:?}, source {want:?}\n", chunk.index)),
            }
        }
    }
    let share = f64::from(agree) / f64::from(located.max(1));
    println!("{located} of {total} chunks located in the source; section right for {agree} ({share:.3})\n{report}");
    assert!(
        f64::from(located) >= 0.8 * f64::from(total),
        "only {located} of {total} chunks located"
    );
    assert!(share >= 0.9, "section right for {share:.3} of located chunks\n{report}");
}

#[test]
fn every_line_has_a_box_on_its_page() {
    for (pdf, _) in common::multicolumn() {
        let ex = extract_file(&pdf, LIMITS).expect("extracts");
        for page in &ex.pages {
            assert!(
                !page.lines.is_empty(),
                "{} p{}: no line boxes",
                pdf.display(),
                page.number
            );
            let mut covered = vec![false; page.text.len()];
            for l in &page.lines {
                let b = l.bbox;
                assert_eq!(b.page, page.number);
                assert!(0.0 <= b.x0 && b.x0 < b.x1 && b.x1 <= 1.0, "{b:?}");
                assert!(0.0 <= b.y0 && b.y0 < b.y1 && b.y1 <= 1.0, "{b:?}");
                covered[l.start..l.end].iter_mut().for_each(|c| *c = true);
            }
            let loose = page
                .text
                .char_indices()
                .filter(|&(i, c)| !c.is_whitespace() && !covered[i])
                .count();
            assert_eq!(
                loose,
                0,
                "{} p{}: characters outside every line",
                pdf.display(),
                page.number
            );
        }
    }
}

/// A page of `n` numbered sentences under the given headings (each heading opens a paragraph).
fn page_with(number: u32, parts: &[(&str, u8, usize)]) -> PageText {
    let mut text = String::new();
    let mut headings = Vec::new();
    for (title, level, n) in parts {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        headings.push(Heading {
            start: text.len(),
            level: *level,
            title: (*title).to_string(),
            size: 14.0,
            depth: None,
        });
        text.push_str(title);
        text.push_str("\n\n");
        let body: Vec<String> = (0..*n)
            .map(|i| format!("Sentence {i} of {title} holds a few plain words."))
            .collect();
        text.push_str(&body.join(" "));
    }
    PageText {
        number,
        text,
        headings,
        ..PageText::default()
    }
}

#[test]
fn a_section_starts_a_chunk_and_its_path_nests_by_level() {
    let pages = [
        page_with(1, &[("Guide", 1, 3), ("Setup", 2, 30), ("Ports", 3, 9)]),
        page_with(2, &[("Usage", 2, 8)]),
    ];
    let chunks = chunker().chunk(&pages).expect("chunks");
    let paths: Vec<String> = chunks.iter().map(|c| c.section.join(" › ")).collect();
    assert!(paths.iter().any(|p| p == "Guide › Setup"), "{paths:?}");
    assert!(paths.iter().any(|p| p == "Guide › Setup › Ports"), "{paths:?}");
    assert!(paths.iter().any(|p| p == "Guide › Usage"), "{paths:?}");
    // The chunk of the short "Ports" section starts at its heading: no overlap reaches back into "Setup".
    let ports = chunks
        .iter()
        .find(|c| c.section.last().is_some_and(|s| s == "Ports"))
        .expect("a Ports chunk");
    assert!(ports.text.starts_with("Ports"), "{}", ports.text);
    assert!(
        chunks.iter().all(|c| c.boxes.is_empty()),
        "no positions without line boxes"
    );
}

#[test]
fn a_document_outline_gives_the_headings() {
    // The LibreOffice fixture carries bookmarks for its four sections; the layout would also take its title.
    let pdf = common::repo().join("fixtures/multicolumn/writer_sections.pdf");
    let ex = extract_file(&pdf, LIMITS).expect("extracts");
    let found: Vec<(u32, u8, &str)> = ex
        .pages
        .iter()
        .flat_map(|p| p.headings.iter().map(move |h| (p.number, h.level, h.title.as_str())))
        .collect();
    let titles: Vec<&str> = found.iter().map(|h| h.2).collect();
    assert_eq!(
        titles,
        [
            "1 Introduction",
            "2 Reading order",
            "3 Hyphenation and notation",
            "4 Storage and the application"
        ]
    );
    assert!(found.iter().all(|h| h.1 == 1));
    for p in &ex.pages {
        for h in &p.headings {
            assert!(
                p.text[h.start..].starts_with(&h.title),
                "p{}: {:?}",
                p.number,
                &p.text[h.start..]
            );
        }
    }
}

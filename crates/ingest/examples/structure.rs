//! Prints what the layout found on each page of a PDF: its headings with their levels, and how many lines have a
//! box; with a tokenizer, also each chunk's section path and boxes: `cargo run -p ragsift-ingest --example
//! structure -- FILE.pdf [tokenizer.json]`.

use ragsift_ingest::chunk::{Chunker, TokenChunker};
use ragsift_ingest::extract::{extract_file, Limits};
use std::time::Duration;

fn main() {
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(300),
    };
    let mut args = std::env::args().skip(1);
    let (Some(path), tokenizer) = (args.next(), args.next()) else {
        eprintln!("usage: structure FILE.pdf [tokenizer.json]");
        std::process::exit(2);
    };
    let ex = match extract_file(path.as_ref(), limits) {
        Ok(ex) => ex,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    for page in &ex.pages {
        println!("page {}: {} lines with boxes", page.number, page.lines.len());
        for h in &page.headings {
            println!("  h{} {:?} (size {:.1})", h.level, h.title, h.size);
        }
    }
    let Some(tokenizer) = tokenizer else { return };
    let chunker = TokenChunker::from_file(tokenizer.as_ref(), 254, 32).expect("tokenizer");
    for c in chunker.chunk(&ex.pages).expect("chunks") {
        let words: Vec<&str> = c.text.split_whitespace().take(8).collect();
        println!(
            "chunk {} p{}-{} [{}] {} boxes: {}…",
            c.index,
            c.place.page_start,
            c.place.page_end,
            c.section.join(" › "),
            c.boxes.len(),
            words.join(" ")
        );
        for b in &c.boxes {
            println!("  box p{} {:.3} {:.3} {:.3} {:.3}", b.page, b.x0, b.y0, b.x1, b.y1);
        }
    }
}

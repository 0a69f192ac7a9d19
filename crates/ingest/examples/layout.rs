//! Lays out a band of glyphs that `ragsift-bench glyphs` wrote, and prints the body text, what was set apart and
//! the table rows as they are chunked: `cargo run -p ragsift-ingest --example layout -- BAND.json`, for working on
//! a layout rule with a real page.

use ragsift_ingest::extract::{layout_page, layout_tables, Glyph};

fn main() {
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let glyphs: Vec<Glyph> = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (text, aside) = layout_page(&glyphs);
        println!("{text}\n--- set apart:\n{aside:?}");
        for (i, table) in layout_tables(&glyphs).iter().enumerate() {
            println!("--- table {}: {}", i + 1, table.head);
            for row in &table.rows {
                println!("{}", row.text);
            }
        }
    }
}

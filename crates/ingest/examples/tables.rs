//! Prints the tables found on each page of a file, each row as the fact that is chunked: `cargo run -p
//! ragsift-ingest --example tables -- FILE.pdf [PAGE]`.

use ragsift_ingest::extract::{extract_file, Limits};
use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("a PDF");
    let only: Option<u32> = args.next().and_then(|p| p.parse().ok());
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(300),
    };
    let ex = extract_file(path.as_ref(), limits).unwrap_or_else(|e| panic!("{path}: {e}"));
    for page in ex.pages.iter().filter(|p| only.is_none_or(|n| p.number == n)) {
        for t in &page.tables {
            println!("== p{} table: {}", page.number, t.head.replace('\n', " / "));
            for r in &t.rows {
                println!("  {}", r.text);
            }
        }
    }
}

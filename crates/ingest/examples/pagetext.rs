//! Prints the text of each page of a file as the chunker sees it, pages separated by a form feed (as pdftotext
//! does), so scripts can compare reading order with other extractors: `cargo run -p ragsift-ingest --example
//! pagetext -- FILE.pdf`. With `--tables`, each page's table rows follow its text, one a line, after "--- tables:".

use ragsift_ingest::extract::{extract_file, Limits};
use std::time::Duration;

fn main() {
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(300),
    };
    let tables = std::env::args().any(|a| a == "--tables");
    for path in std::env::args().skip(1).filter(|a| a != "--tables") {
        match extract_file(path.as_ref(), limits) {
            Ok(ex) => {
                if let Some(w) = ex.warning() {
                    eprintln!("{path}: {w}");
                }
                for page in ex.pages {
                    println!("{}", page.text);
                    if tables {
                        println!("--- tables:");
                        for row in page.tables.iter().flat_map(|t| &t.rows) {
                            println!("{}", row.text);
                        }
                    }
                    print!("\u{c}");
                }
            }
            Err(e) => eprintln!("{path}: {e}"),
        }
    }
}

//! Times extraction of a PDF of many empty pages against `pdftotext` (issue 55: large page trees at pdftotext's
//! pace). `cargo run --release -p ragsift-ingest --example many_pages -- [PAGES] [FAN_OUT]` (100000 and 32 by
//! default; a fan-out of at least PAGES gives a flat tree).

use ragsift_ingest::extract::{extract_file, Limits};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("a number"));
    let pages = args.next().unwrap_or(100_000);
    let fan_out = args.next().unwrap_or(32);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pdf = dir.path().join("empty_pages.pdf");
    std::fs::write(&pdf, ragsift_ingest::synth::empty_pages_pdf(pages, fan_out)).expect("written");
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(600),
    };
    let started = Instant::now();
    let outcome = match extract_file(&pdf, limits) {
        Ok(ex) => format!("{} pages", ex.pages.len()),
        Err(e) => format!("error: {e}"),
    };
    let ours = started.elapsed();
    let started = Instant::now();
    let poppler = std::process::Command::new("pdftotext")
        .arg(&pdf)
        .arg(dir.path().join("out.txt"))
        .status();
    let theirs = started.elapsed();
    println!(
        "{pages} empty pages, fan-out {fan_out}: ragsift {:.2} s ({:.3} ms a page; {outcome}), pdftotext {:.2} s ({})",
        ours.as_secs_f64(),
        ours.as_secs_f64() * 1000.0 / pages as f64,
        theirs.as_secs_f64(),
        poppler.map_or("not installed".to_string(), |s| s.to_string())
    );
}

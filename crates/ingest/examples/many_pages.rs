//! Times extraction of a PDF of many empty pages against `pdftotext` (issue 55: large page trees at pdftotext's
//! pace). `cargo run --release -p ragsift-ingest --example many_pages -- [PAGES] [FAN_OUT] [worker]` (100000 and
//! 32 by default; a fan-out of at least PAGES gives a flat tree; `worker`: in an extraction worker, as ingest runs).

use ragsift_ingest::extract::{extract_file, Limits};
use std::time::{Duration, Instant};

fn main() {
    if let Some(code) = ragsift_ingest::worker::serve_if_asked() {
        std::process::exit(code);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| args.get(i).map_or(default, |a| a.parse().expect("a number"));
    let (pages, fan_out) = (number(0, 100_000), number(1, 32));
    let in_worker = args.get(2).is_some_and(|a| a == "worker");
    if in_worker {
        ragsift_ingest::worker::install_current_exe();
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let pdf = dir.path().join("empty_pages.pdf");
    std::fs::write(&pdf, ragsift_ingest::synth::empty_pages_pdf(pages, fan_out)).expect("written");
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(600),
    };
    let started = Instant::now();
    let extracted = if in_worker {
        ragsift_ingest::worker::extract_isolated(&pdf, limits, None, &|_, _| {})
    } else {
        extract_file(&pdf, limits)
    };
    let outcome = match extracted {
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
        "{pages} empty pages, fan-out {fan_out}{}: ragsift {:.2} s ({:.3} ms a page; {outcome}), pdftotext {:.2} s ({})",
        if in_worker { ", in a worker" } else { "" },
        ours.as_secs_f64(),
        ours.as_secs_f64() * 1000.0 / pages as f64,
        theirs.as_secs_f64(),
        poppler.map_or("not installed".to_string(), |s| s.to_string())
    );
}

//! Fuzzing the loaders for a fixed time: mutants of every fixture (PDFs and text), each extracted with the
//! production limits; the figures are inputs tried, outcomes, panics and hangs (both must stay zero).

use ragsift_engine::extract::Limits;
use ragsift_engine::fuzz;
use std::time::{Duration, Instant};

/// Every fixture file under `fixtures/` that a loader reads, as (name, bytes).
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let root = crate::repo_root().join("fixtures");
    let mut files: Vec<_> = walk(&root)
        .into_iter()
        .filter(|p| ragsift_engine::extract::is_supported(p))
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| Some((p.to_string_lossy().to_string(), std::fs::read(&p).ok()?)))
        .collect()
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

pub fn run(seconds: u64, in_worker: bool) -> ragsift_engine::Result<()> {
    if in_worker {
        let exe = std::env::current_exe().map_err(|e| ragsift_engine::Error::Invalid(e.to_string()))?;
        ragsift_engine::worker::install(ragsift_engine::worker::Isolation {
            exe,
            memory_mb: ragsift_engine::worker::memory_limit_mb(),
        });
    }
    let seeds = seeds();
    let limits = Limits {
        max_file_mb: 50,
        timeout: Duration::from_secs(10),
    };
    println!(
        "\n## fuzz: {} seed files, {seconds} s, extraction timeout {} s{}",
        seeds.len(),
        limits.timeout.as_secs(),
        if in_worker { ", through extraction workers" } else { "" }
    );
    let start = Instant::now();
    let r = fuzz::run(&seeds, fuzz::Budget::Time(Duration::from_secs(seconds)), limits);
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "inputs {} ({:.0}/s): text {}, typed errors {}, panics {}, hangs {}, worker deaths {}",
        r.inputs,
        r.inputs as f64 / elapsed,
        r.text,
        r.errors,
        r.panics,
        r.hangs,
        r.worker_deaths
    );
    for (seed, round) in &r.failures {
        println!("failure: seed {} round {round}", seeds[*seed].0);
    }
    Ok(())
}

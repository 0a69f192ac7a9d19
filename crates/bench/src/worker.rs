//! `ragsift-bench worker [--docs 1000] [--rounds 3]`: the cost of extracting in a worker process (the CLI's and
//! the app's way) against extracting in this process, on the generated corpus of the 1,000-document benchmark
//! (`ingest::worker::overhead`). The share of extraction alone is an upper bound of the share of ingest, which
//! also chunks and embeds.

use ragsift_engine::extract::Limits;
use ragsift_engine::{corpus, worker, Error, Result};
use std::path::PathBuf;
use std::time::Duration;

fn err(e: impl std::fmt::Display) -> Error {
    Error::Invalid(e.to_string())
}

pub fn run(docs: usize, rounds: usize) -> Result<()> {
    let exe = std::env::current_exe().map_err(err)?;
    worker::install(worker::Isolation {
        exe,
        memory_mb: worker::memory_limit_mb(),
    });
    let tmp = tempfile::tempdir().map_err(err)?;
    let files: Vec<PathBuf> = (0..docs)
        .map(|i| corpus::write_doc(tmp.path(), i).map_err(err))
        .collect::<Result<_>>()?;
    println!(
        "\n## extraction in a worker process: {docs} generated PDFs, {rounds} alternated rounds ({})",
        crate::machine()
    );
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(120),
    };
    let o = worker::overhead::measure(&files, rounds, limits)?;
    println!("| extraction | {docs} files, {} pages | per file |", o.pages);
    println!("| --- | --- | --- |");
    let per = |s: f64| s * 1e3 / docs as f64;
    println!(
        "| in this process (baseline) | {:.2} s | {:.2} ms |",
        o.in_process,
        per(o.in_process)
    );
    println!(
        "| in a reused worker process | {:.2} s | {:.2} ms |",
        o.in_worker,
        per(o.in_worker)
    );
    println!(
        "overhead on extraction alone: {:+.1}%",
        (o.in_worker / o.in_process - 1.0) * 100.0
    );
    Ok(())
}

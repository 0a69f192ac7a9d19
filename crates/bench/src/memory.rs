//! `ragsift-bench memory`: the workbench's resident memory (the app's back end, in process) when opened, at the
//! peak of a job (ingest of the labelled set's papers, then one question with the default pipeline), right after
//! the job, and once the idle models are unloaded (`idle_unload_secs`). Baseline: the memory when opened.

use ragsift_engine::workbench::{AskRequest, Workbench};
use ragsift_engine::{Error, Result};
use std::sync::Arc;

pub fn run() -> Result<()> {
    let tmp = tempfile::tempdir().map_err(|e| Error::Invalid(e.to_string()))?;
    let wb = Workbench::open(Some(tmp.path()))?;
    let opened = status("VmRSS");
    let docs = crate::repo_root().join("fixtures/qa/documents");
    wb.ingest(&[docs.display().to_string()], "bench-ingest", &|_| {})?;
    let after_ingest = status("VmRSS");
    let request = AskRequest {
        question: "How many bits is the hash value Ssdeep computes for each segment of a file?".into(),
        history: Vec::new(),
        options: None,
    };
    wb.ask(&request, "bench-ask", Arc::new(|_| {}))?;
    let after_job = status("VmRSS");
    let peak = status("VmHWM");
    let mut s = wb.settings();
    s.idle_unload_secs = 1;
    wb.save_settings(s)?;
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let unloaded = wb.unload_idle();
    let after_unload = status("VmRSS");
    println!("\n## workbench memory across a job ({})", crate::machine());
    println!("| moment | resident memory | vs opened |");
    println!("| --- | ---: | ---: |");
    for (name, mib) in [
        ("opened, no model loaded (baseline)", opened),
        ("after ingesting the labelled documents (fixtures/qa)", after_ingest),
        ("after one question (embedder, language model, judge)", after_job),
        ("peak during the job (VmHWM)", peak),
        ("after the idle unload (models dropped, heap trimmed)", after_unload),
    ] {
        println!("| {name} | {mib:.0} MiB | {:+.0} MiB |", mib - opened);
    }
    println!("unloaded: {unloaded:?}");
    Ok(())
}

/// A `/proc/self/status` memory field in MiB.
fn status(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

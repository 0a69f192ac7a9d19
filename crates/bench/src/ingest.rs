//! `ragsift-bench ingest`: `ragsift ingest` end to end against what a user would otherwise write — pypdf +
//! Python fastembed with the same int8 all-MiniLM-L6-v2 files and threads, vectors kept in memory only — on the
//! same PDFs: wall time (median of alternated runs) and peak resident memory of each process (`wait4`).
//! The Python side lives in `crates/bench/python/`; its virtual environment is created on first use under
//! `~/.cache/ragsift/pybench` from PyPI.

use ragsift_engine::{Error, Library, LibraryConfig, Result};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const FASTEMBED: &str = "fastembed==0.9.1";
const PYPDF: &str = "pypdf==7.1.1";

/// One run of one pipeline.
struct Sample {
    seconds: f64,
    peak_mib: f64,
    chunks: usize,
}

pub fn run(runs: usize, paths: &[PathBuf]) -> Result<()> {
    let inputs = if paths.is_empty() {
        vec![crate::repo_root().join("fixtures/qa/documents")]
    } else {
        paths.to_vec()
    };
    let pdfs = pdfs(&inputs);
    if pdfs.is_empty() {
        return Err(Error::Invalid("no PDFs to ingest".into()));
    }
    let ragsift = std::env::current_exe()
        .map_err(|e| Error::Invalid(e.to_string()))?
        .with_file_name("ragsift");
    if !ragsift.exists() {
        return Err(Error::Invalid(format!(
            "{} is missing: cargo build --release -p ragsift",
            ragsift.display()
        )));
    }
    let python = python_env()?;
    let script = crate::repo_root().join("crates/bench/python/pypdf_fastembed.py");
    let home = ragsift_engine::paths::data_dir()?;
    let runtime = ragsift_engine::RuntimePaths::discover(&home)?;
    let model_dir = runtime.model_dir(ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL)?;
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let pages: usize = pdfs.iter().map(|p| page_count(p)).sum();
    println!(
        "\n## ingest: {} PDFs, {pages} pages, {threads} threads, {runs} alternated runs ({})",
        pdfs.len(),
        crate::machine()
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let lib = tempfile::tempdir().map_err(|e| Error::Invalid(e.to_string()))?;
        let mut cmd = Command::new(&ragsift);
        cmd.arg("--home").arg(lib.path()).arg("ingest").args(&pdfs);
        let (seconds, peak_mib, _) = measure(cmd)?;
        let library = Library::open(lib.path(), LibraryConfig::default())?;
        let chunks = library
            .store()
            .documents()?
            .iter()
            .map(|d| d.chunk_count as usize)
            .sum();
        ours.push(Sample {
            seconds,
            peak_mib,
            chunks,
        });
        let mut cmd = Command::new(&python);
        cmd.arg(&script)
            .arg(&model_dir)
            .arg(threads.to_string())
            .arg("32")
            .args(&pdfs);
        let (seconds, peak_mib, out) = measure(cmd)?;
        let line: serde_json::Value = serde_json::from_str(out.trim())
            .map_err(|e| Error::Invalid(format!("python pipeline printed {out:?}: {e}")))?;
        theirs.push(Sample {
            seconds,
            peak_mib,
            chunks: line["chunks"].as_u64().unwrap_or(0) as usize,
        });
    }
    let (a, b) = (median(&ours), median(&theirs));
    println!("| pipeline | chunks | wall time, median | peak memory (max RSS) |");
    println!("| --- | ---: | ---: | ---: |");
    println!(
        "| pypdf + Python {FASTEMBED}, batch 32, in memory only (baseline) | {} | {:.2} s | {:.0} MiB |",
        b.chunks, b.seconds, b.peak_mib
    );
    println!(
        "| `ragsift ingest` (extract, chunk, embed, store in SQLite, index in usearch) | {} | {:.2} s | {:.0} MiB |",
        a.chunks, a.seconds, a.peak_mib
    );
    println!(
        "ragsift is {:.2}× as fast as the Python pipeline, at {:.0}% of its peak memory",
        b.seconds / a.seconds,
        100.0 * a.peak_mib / b.peak_mib
    );
    Ok(())
}

/// The median run by wall time (peak memory: the median of the peaks).
fn median(samples: &[Sample]) -> Sample {
    let mid = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Sample {
        seconds: mid(samples.iter().map(|s| s.seconds).collect()),
        peak_mib: mid(samples.iter().map(|s| s.peak_mib).collect()),
        chunks: samples.first().map_or(0, |s| s.chunks),
    }
}

/// Runs `cmd` to its end: wall seconds, the child's peak resident memory in MiB, its standard output.
#[allow(unsafe_code)] // wait4 is the only way to read a child's peak memory after it exits
fn measure(mut cmd: Command) -> Result<(f64, f64, String)> {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::Invalid(format!("{cmd:?}: {e}")))?;
    let mut out = String::new();
    if let Some(mut s) = child.stdout.take() {
        s.read_to_string(&mut out).map_err(|e| Error::Invalid(e.to_string()))?;
    }
    let mut status = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; the pid is our own child, reaped exactly once here.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let seconds = started.elapsed().as_secs_f64();
    if pid < 0 || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(Error::Invalid(format!("{cmd:?} failed (status {status})")));
    }
    Ok((seconds, usage.ru_maxrss as f64 / 1024.0, out))
}

/// The PDFs under `inputs`, sorted.
fn pdfs(inputs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            if let Ok(rd) = std::fs::read_dir(input) {
                out.extend(rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| is_pdf(p)));
            }
        } else if is_pdf(input) {
            out.push(input.clone());
        }
    }
    out.sort();
    out
}

fn is_pdf(p: &Path) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

fn page_count(p: &Path) -> usize {
    ragsift_engine::extract::extract_file(
        p,
        ragsift_engine::extract::Limits {
            max_file_mb: 200,
            timeout: std::time::Duration::from_secs(120),
        },
    )
    .map_or(0, |e| e.pages.len())
}

/// The benchmark's Python: a virtual environment with the pinned packages, created from PyPI when missing.
fn python_env() -> Result<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let venv = home.join(".cache/ragsift/pybench");
    let python = venv.join("bin/python");
    let ready = |py: &Path| {
        Command::new(py)
            .args(["-c", "import fastembed, pypdf"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if python.exists() && ready(&python) {
        return Ok(python);
    }
    eprintln!("creating {} ({FASTEMBED}, {PYPDF}) from PyPI…", venv.display());
    let ok = Command::new("python3")
        .arg("-m")
        .arg("venv")
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(venv.join("bin/pip"))
            .args(["install", "-q", FASTEMBED, PYPDF])
            .status()
            .is_ok_and(|s| s.success());
    if !ok || !ready(&python) {
        return Err(Error::Setup(format!(
            "cannot set up the Python baseline in {}",
            venv.display()
        )));
    }
    Ok(python)
}

//! `ragsift ingest`: files and folders into the library, with a progress bar and a per-file report.

use crate::{load_query_embedder, open_library, print_json};
use indicatif::{ProgressBar, ProgressStyle};
use ragsift_engine::progress::IngestEvent;
use ragsift_engine::Error;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

#[derive(clap::Args)]
pub struct Args {
    /// Files or folders (searched recursively for .pdf, .txt, .md).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Read again the files that failed before (encrypted, damaged, no text even by OCR) although they are
    /// unchanged; without it they are reported "failed before (unchanged)" and not read.
    #[arg(long)]
    retry_failed: bool,
}

pub fn run(home: &Path, args: Args) -> Result<ExitCode, Error> {
    let lib = open_library(home)?;
    let bar = ProgressBar::new(0);
    let tty = std::io::stderr().is_terminal();
    if tty {
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} files  {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
    } else {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_message("loading the embedding model…");
    let embedder = load_query_embedder(home, lib.settings())?;
    let current = Mutex::new(String::new());
    let options = ragsift_engine::library::IngestOptions {
        retry_failed: args.retry_failed,
    };
    let on_event = |ev: &IngestEvent| match ev {
        IngestEvent::Scanned { files } => bar.set_length(*files as u64),
        IngestEvent::FileStarted { path, .. } => {
            let name = Path::new(path)
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default();
            *current.lock().unwrap_or_else(|p| p.into_inner()) = name.clone();
            bar.set_message(name);
        }
        IngestEvent::Embedding { done, total, .. } => {
            let name = current.lock().unwrap_or_else(|p| p.into_inner()).clone();
            bar.set_message(format!("{name}: embedding {done}/{total} chunks"));
        }
        IngestEvent::FileFinished {
            file,
            total,
            path,
            status,
        } => {
            bar.inc(1);
            if !tty {
                eprintln!("[{file}/{total}] {status}: {path}");
            }
        }
        IngestEvent::Saving => bar.set_message("saving the index…"),
        IngestEvent::Ocr { page, pages, .. } => {
            let name = current.lock().unwrap_or_else(|p| p.into_inner()).clone();
            bar.set_message(format!("{name}: OCR page {page}/{pages}"));
        }
        IngestEvent::WaitingForWriter { seconds } => {
            let note = format!("waiting for another ingest to finish ({seconds} s)");
            if !tty && seconds % 5 == 0 {
                eprintln!("{note}");
            }
            bar.set_message(note);
        }
        IngestEvent::Extracted { .. } => {}
    };
    let cancel = ragsift_engine::CancelToken::new();
    let report = lib.ingest_with(embedder.as_ref(), &args.paths, &on_event, &cancel, options)?;
    bar.finish_and_clear();
    if args.json {
        print_json(&serde_json::json!({ "files": report.files }));
    } else {
        for f in &report.files {
            match (&f.error, &f.warning) {
                (Some(e), _) => eprintln!("failed     {e}"),
                (None, w) => println!(
                    "{:<10} {} ({} pages, {} chunks){}",
                    f.status,
                    f.path,
                    f.pages,
                    f.chunks,
                    w.as_deref().map(|w| format!(" — {w}")).unwrap_or_default()
                ),
            }
        }
        let failed = report.failed();
        println!(
            "{} files: {} ok, {} failed",
            report.files.len(),
            report.files.len() - failed,
            failed
        );
        let before = report.failed_before();
        if before > 0 {
            println!(
                "{before} of them failed before and are unchanged, so they were not read again: \
                 ragsift ingest --retry-failed reads them again"
            );
        }
    }
    Ok(if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

//! `ragsift ingest`: files and folders into the library, with a progress bar and a per-file report.

use crate::print_json;
use crate::term::plain;
use indicatif::{ProgressBar, ProgressStyle};
use ragsift_workbench::progress::IngestEvent;
use ragsift_workbench::Error;
use ragsift_workbench::IngestOptions;
use ragsift_workbench::Workbench;
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
    let wb = Workbench::open(Some(home))?;
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
    let current = Mutex::new(String::new());
    let options = IngestOptions {
        retry_failed: args.retry_failed,
    };
    let on_event = |ev: &IngestEvent| match ev {
        IngestEvent::Scanned { files } => bar.set_length(*files as u64),
        IngestEvent::FileStarted { path, .. } => {
            let name = Path::new(path)
                .file_name()
                .map(|f| plain(&f.to_string_lossy()))
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
                eprintln!("[{file}/{total}] {status}: {}", plain(path));
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
    let report = wb.ingest_with(&args.paths, options, "ingest", &on_event)?;
    bar.finish_and_clear();
    if args.json {
        print_json(&report);
    } else {
        for f in &report.files {
            match (&f.error, &f.warning) {
                (Some(e), _) => eprintln!("failed     {}", plain(&e.to_string())),
                (None, w) => println!(
                    "{:<10} {} ({} pages, {} chunks){}",
                    f.status,
                    plain(&f.path),
                    f.pages,
                    f.chunks,
                    w.as_deref().map(|w| format!(" — {}", plain(w))).unwrap_or_default()
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

//! What a program that hosts the workbench (the app, the CLI, later `serve`) does first in `main`: be an
//! extraction worker when started as one, isolate extraction in worker processes, and choose the store.

use crate::{Error, Result};

/// Runs the extraction worker's loop and returns its exit code when this process was started as a worker by
/// another ragsift; `None` otherwise. Call it first in `main`.
pub fn serve_worker_if_asked() -> Option<i32> {
    ragsift_ingest::worker::serve_if_asked()
}

/// Extracts PDFs in worker processes started from this program (so a hostile file cannot take the process
/// down), and keeps extraction panics off the terminal: they are reported as errors.
pub fn isolate_extraction() {
    ragsift_ingest::extract::install_quiet_panic_hook();
    ragsift_ingest::worker::install_current_exe();
}

/// Keeps every library this process opens in the store at `url` (a PostgreSQL URL without a password). Call
/// it before any thread starts: it sets the process's environment.
pub fn use_store(url: &str) -> Result<()> {
    if let Some(problem) = ragsift_library::location::setting_problem(url) {
        return Err(Error::Invalid(format!("--store: {problem}")));
    }
    std::env::set_var(ragsift_library::location::STORE_URL_ENV, url);
    Ok(())
}

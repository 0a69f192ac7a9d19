//! Extraction in a child process, so that a hostile file can only kill its own worker: the program re-executes
//! itself as a worker ([`WORKER_ARG`]), with an address-space limit, a processor-time limit per file and the
//! parent's wall-clock deadline, as Tika's forked mode and browsers' sandboxed PDF parsers do. A worker that dies,
//! times out or runs out of memory fails only its file, with the reason in plain words ("the PDF exhausted the
//! 2048 MiB memory limit while decoding page 3"); the batch goes on with a new worker. Workers are reused across
//! files, so the cost is one process start per batch plus a pipe round trip per file (see BENCHMARKS.md).
//!
//! A program opts in: its `main` first calls [`serve_if_asked`] (which runs the worker loop when the program was
//! started as one), then [`install`] with its own path. Without [`install`], extraction runs in this process.

mod child;
pub mod overhead;
mod pool;
mod wire;

pub use child::{serve_if_asked, WORKER_ARG};
pub use pool::{extract_isolated, install, installed, retire_idle, set_enabled, Isolation};

/// [`install`]s this program itself as the worker, with [`memory_limit_mb`]; unless `RAGSIFT_WORKER=off`, which
/// keeps extraction in this process.
pub fn install_current_exe() {
    if std::env::var("RAGSIFT_WORKER").is_ok_and(|v| v.trim() == "off") {
        return;
    }
    if let Ok(exe) = std::env::current_exe() {
        install(Isolation {
            exe,
            memory_mb: memory_limit_mb(),
        });
    }
}

/// The default address-space limit of a worker (MiB); `RAGSIFT_WORKER_MEMORY_MB` sets another.
pub const DEFAULT_MEMORY_MB: u64 = 2048;

/// The worker memory limit in force: `RAGSIFT_WORKER_MEMORY_MB` when it is a number of at least 256, else
/// [`DEFAULT_MEMORY_MB`].
pub fn memory_limit_mb() -> u64 {
    std::env::var("RAGSIFT_WORKER_MEMORY_MB")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&mb| mb >= 256)
        .unwrap_or(DEFAULT_MEMORY_MB)
}

//! The library's writer lock: one process at a time changes the vector index and its file (an OS file lock on
//! `<home>/library.lock`, released when the holder exits, even by a crash). A second writer waits with progress
//! and gives up after a deadline with a clear error, never a raw database one.

use crate::{Error, Result};
use ragsift_core::progress::{IngestEvent, Progress};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const LOCK_FILE: &str = "library.lock";
/// How long a writer waits for another one by default.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(15 * 60);
const POLL: Duration = Duration::from_millis(100);
const REPORT_EVERY: Duration = Duration::from_secs(1);

/// Held while this process writes to the library; dropping it releases the lock.
pub struct WriterGuard {
    _file: File,
}

/// Opens the lock file of the library in `home`.
fn lock_file(home: &Path) -> Result<(File, PathBuf)> {
    let path = home.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    Ok((file, path))
}

/// Takes the lock, waiting up to `wait` for another process to finish; reports
/// [`IngestEvent::WaitingForWriter`] about once a second while it waits.
pub fn acquire(home: &Path, wait: Duration, progress: Progress<'_>) -> Result<WriterGuard> {
    let (file, path) = lock_file(home)?;
    let start = Instant::now();
    let mut reported: Option<Instant> = None;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(WriterGuard { _file: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        let waited = start.elapsed();
        if waited >= wait {
            return Err(Error::Busy(format!(
                "another ragsift process has been writing to this library for over {} s; try again when it \
                 finishes",
                wait.as_secs()
            )));
        }
        if reported.is_none_or(|r| r.elapsed() >= REPORT_EVERY) {
            progress(&IngestEvent::WaitingForWriter {
                seconds: waited.as_secs(),
            });
            reported = Some(Instant::now());
        }
        std::thread::sleep(POLL);
    }
}

/// Takes the lock only if nobody holds it.
pub fn try_acquire(home: &Path) -> Result<Option<WriterGuard>> {
    let (file, path) = lock_file(home)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(WriterGuard { _file: file })),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(e)) => Err(Error::io(&path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_second_writer_waits_reports_and_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let held = acquire(dir.path(), DEFAULT_WAIT, &|_| {}).unwrap();
        assert!(try_acquire(dir.path()).unwrap().is_none());
        let events = Mutex::new(Vec::new());
        let err = acquire(dir.path(), Duration::from_millis(350), &|e| {
            events.lock().unwrap().push(e.clone());
        })
        .err()
        .unwrap();
        assert_eq!(err.code(), "busy");
        assert!(err.to_string().contains("another ragsift process"), "{err}");
        assert!(matches!(
            events.lock().unwrap()[0],
            IngestEvent::WaitingForWriter { seconds: 0 }
        ));
        drop(held);
        assert!(try_acquire(dir.path()).unwrap().is_some());
    }
}

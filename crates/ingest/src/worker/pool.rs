//! The parent's side: idle workers kept for the next file, a request sent, replies read against the deadline, and
//! a worker that died, overran or ran out of memory turned into its file's error in plain words.

use super::wire::{Reply, Request};
use crate::extract::{Extracted, Limits, OcrOptions};
use ragsift_core::{Error, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Where workers come from and what they may use.
#[derive(Debug, Clone)]
pub struct Isolation {
    /// The program to start as a worker (one whose `main` calls [`super::serve_if_asked`]).
    pub exe: PathBuf,
    /// Each worker's address-space limit (MiB).
    pub memory_mb: u64,
}

static ISOLATION: OnceLock<Isolation> = OnceLock::new();
static ENABLED: AtomicBool = AtomicBool::new(false);
static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

/// From now on, files are extracted in workers started from `isolation.exe`. Once per process.
pub fn install(isolation: Isolation) {
    if ISOLATION.set(isolation).is_ok() {
        ENABLED.store(true, Ordering::Release);
    }
}

/// Whether extraction runs in workers.
pub fn installed() -> bool {
    ENABLED.load(Ordering::Acquire) && ISOLATION.get().is_some()
}

/// Turns worker extraction off or on again after [`install`] (the benchmark measures both in one process).
pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Release);
}

/// Ends the idle workers and waits for them (closing its stdin ends a worker's loop): for a program about to exit,
/// and for a test that reads its children's peak memory (`getrusage(RUSAGE_CHILDREN)` counts reaped children).
pub fn retire_idle() {
    let idle = std::mem::take(&mut *IDLE.lock().unwrap_or_else(|e| e.into_inner()));
    for worker in idle {
        let Worker { mut child, stdin, .. } = worker;
        drop(stdin);
        let _ = child.wait();
    }
}

/// A running worker: its stdin, its reply lines, and the tail of its stderr.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<Option<Reply>>,
    stderr: Arc<Mutex<String>>,
}

/// How much of a worker's stderr is kept for its last words.
const STDERR_TAIL: usize = 4096;
/// Time a worker gets past the file's own deadline (it reports its own timeout first).
const GRACE: Duration = Duration::from_secs(5);

impl Worker {
    fn start(iso: &Isolation) -> std::io::Result<Worker> {
        let mut child = Command::new(&iso.exe)
            .arg(super::WORKER_ARG)
            .arg(iso.memory_mb.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let (stdin, stdout, mut err) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => return Err(std::io::Error::other("the worker's pipes were not opened")),
        };
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // Lines that are not replies (a library printing) are skipped.
                if let Ok(reply) = serde_json::from_str::<Reply>(&line) {
                    if tx.send(Some(reply)).is_err() {
                        return;
                    }
                }
            }
            let _ = tx.send(None);
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let tail = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 1024];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                if t.len() > STDERR_TAIL {
                    let cut = t.len() - STDERR_TAIL;
                    let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(t.len());
                    t.drain(..cut);
                }
            }
        });
        Ok(Worker {
            child,
            stdin,
            replies,
            stderr,
        })
    }
}

/// Extracts `path` in a worker (reading pages without text by OCR when `ocr` is given, as
/// [`crate::extract::extract_file_with_ocr`]); `on_ocr(k, n)` reports OCR's progress. Falls back to this process
/// when no worker can be started (an error says why when that fails too).
pub fn extract_isolated(
    path: &Path,
    limits: Limits,
    ocr: Option<&OcrOptions>,
    on_ocr: &dyn Fn(usize, usize),
) -> Result<Extracted> {
    let Some(iso) = ISOLATION.get().filter(|_| installed()) else {
        return crate::extract::extract_file_with_ocr(path, limits, ocr, on_ocr);
    };
    // A regular file within the limit, checked here before a worker is bothered (and before anything blocks).
    ragsift_core::read::check_regular(path)?;
    let idle = IDLE.lock().unwrap_or_else(|e| e.into_inner()).pop();
    let mut worker = match idle {
        Some(w) => w,
        None => Worker::start(iso).map_err(|e| {
            Error::Setup(format!(
                "cannot start an extraction worker from {}: {e}",
                iso.exe.display()
            ))
        })?,
    };
    let mut line =
        serde_json::to_vec(&Request::new(path, limits, ocr)).map_err(|e| Error::io(path, std::io::Error::other(e)))?;
    line.push(b'\n');
    if worker
        .stdin
        .write_all(&line)
        .and_then(|_| worker.stdin.flush())
        .is_err()
    {
        // An idle worker that died since: one new try.
        let _ = worker.child.kill();
        let _ = worker.child.wait();
        worker = Worker::start(iso).map_err(|e| Error::Setup(format!("cannot start an extraction worker: {e}")))?;
        worker
            .stdin
            .write_all(&line)
            .and_then(|_| worker.stdin.flush())
            .map_err(|e| Error::Setup(format!("the extraction worker does not take requests: {e}")))?;
    }
    // The loader's deadline, then OCR's budget for the file (OCR stops within it and returns the pages it read),
    // then the grace for the reply.
    let deadline = Instant::now() + limits.timeout + ocr.map_or(Duration::ZERO, |o| o.total_timeout) + GRACE;
    let mut page = 0u32;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match worker.replies.recv_timeout(left) {
            Ok(Some(Reply::Page(n))) => page = n,
            Ok(Some(Reply::Ocr(k, n))) => on_ocr(k, n),
            Ok(Some(Reply::Done(result))) => {
                let timed_out = matches!(*result, Err(super::wire::WireError::Timeout { .. }));
                if timed_out {
                    // It exits after a timeout: reap it.
                    let _ = worker.child.wait();
                } else {
                    IDLE.lock().unwrap_or_else(|e| e.into_inner()).push(worker);
                }
                return (*result).map(Extracted::from).map_err(|e| e.into_error(path));
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                let status = worker.child.wait().ok();
                let stderr = worker.stderr.lock().map(|s| s.clone()).unwrap_or_default();
                return Err(died(path, iso, limits, page, status, &stderr));
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = worker.child.kill();
                let _ = worker.child.wait();
                return Err(Error::Timeout {
                    path: path.into(),
                    seconds: limits.timeout.as_secs(),
                });
            }
        }
    }
}

/// The error of a file whose worker died, in plain words.
fn died(
    path: &Path,
    iso: &Isolation,
    limits: Limits,
    page: u32,
    status: Option<std::process::ExitStatus>,
    stderr: &str,
) -> Error {
    use std::os::unix::process::ExitStatusExt;
    let at = if page == 0 {
        "while opening the file".to_string()
    } else {
        format!("while decoding page {page}")
    };
    let signal = status.and_then(|s| s.signal());
    let reason = if stderr.contains("memory allocation of") || stderr.contains("bad_alloc") {
        format!("the PDF exhausted the {} MiB memory limit {at}", iso.memory_mb)
    } else if signal == Some(libc::SIGXCPU) {
        format!(
            "the PDF used more than {} s of processor time {at}",
            limits.timeout.as_secs() + 2
        )
    } else if stderr.contains("stack overflow") {
        format!("the PDF nests deeper than the parser's stack allows {at}")
    } else {
        match (signal, status.and_then(|s| s.code())) {
            (Some(sig), _) => format!("the extraction worker crashed (signal {sig}) {at}"),
            (None, Some(code)) => format!("the extraction worker stopped (exit code {code}) {at}"),
            _ => format!("the extraction worker stopped {at}"),
        }
    };
    Error::Hostile {
        path: path.into(),
        reason,
    }
}

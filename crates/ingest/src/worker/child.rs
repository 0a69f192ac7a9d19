//! The worker's side: started as `PROGRAM __extract-worker MEMORY_MB`, it limits its own address space, then
//! reads one request per line from stdin and answers on stdout with progress lines and the result. It runs each
//! file with a processor-time limit (the soft `RLIMIT_CPU`, moved on per file), and exits after a file that timed
//! out, since the abandoned loader thread may still be running.

use super::wire::{Reply, Request, WireError, WireExtracted};
use crate::extract::{extract_file_with_ocr, install_quiet_panic_hook};
use std::io::{BufRead, Write};

/// The first argument that makes a program a worker.
pub const WORKER_ARG: &str = "__extract-worker";

/// Runs the worker loop and returns its exit code when this process was started as a worker; `None` otherwise.
/// Call it first in `main`.
pub fn serve_if_asked() -> Option<i32> {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() != Some(WORKER_ARG) {
        return None;
    }
    let memory_mb = args
        .next()
        .and_then(|a| a.parse::<u64>().ok())
        .unwrap_or(super::DEFAULT_MEMORY_MB);
    Some(serve(memory_mb))
}

fn serve(memory_mb: u64) -> i32 {
    limit(libc::RLIMIT_AS, memory_mb << 20);
    install_quiet_panic_hook();
    crate::progress::report_pages_to(|number| send(&Reply::Page(number)));
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return 1 };
        let Ok(request) = serde_json::from_str::<Request>(&line) else {
            return 2;
        };
        let limits = request.limits();
        // Processor time for this file: what the worker used so far, plus the file's deadline and a margin.
        let budget = cpu_seconds() + limits.timeout.as_secs() + 2;
        limit(libc::RLIMIT_CPU, budget);
        crate::progress::at_page(0);
        let ocr = request.ocr();
        let result = extract_file_with_ocr(&request.path, limits, ocr.as_ref(), &|k, n| send(&Reply::Ocr(k, n)));
        let timed_out = matches!(result, Err(ragsift_core::Error::Timeout { .. }));
        send(&Reply::Done(Box::new(
            result.map(WireExtracted::from).map_err(|e| WireError::of(&e)),
        )));
        if timed_out {
            return 0;
        }
    }
    0
}

/// One reply line on stdout, flushed.
pub(super) fn send(reply: &Reply) {
    let Ok(mut line) = serde_json::to_vec(reply) else {
        return;
    };
    line.push(b'\n');
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&line).and_then(|_| out.flush());
}

#[allow(unsafe_code)] // getrlimit and setrlimit have no safe wrapper in std
/// Sets the soft limit of `resource` (never above the hard limit, which stays, so it can move on per file).
fn limit(resource: libc::__rlimit_resource_t, soft: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given; setrlimit reads it. A failure leaves the old limit.
    unsafe {
        if libc::getrlimit(resource, &mut lim) != 0 {
            return;
        }
        lim.rlim_cur = (soft as libc::rlim_t).min(lim.rlim_max);
        libc::setrlimit(resource, &lim);
    }
}

/// Processor seconds this process has used.
#[allow(unsafe_code)] // getrusage has no safe wrapper in std
fn cpu_seconds() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct when it returns 0.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
        return 0;
    }
    // SAFETY: filled above.
    let u = unsafe { usage.assume_init() };
    (u.ru_utime.tv_sec + u.ru_stime.tv_sec) as u64 + 1
}

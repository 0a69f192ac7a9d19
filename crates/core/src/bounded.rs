//! Running a helper program (pdftoppm for the Page view) with bounds, as extraction workers are: a wall-clock
//! deadline, an address-space limit, and a cap on what it writes to stdout. A program over any bound is killed and
//! the caller gets a reason in plain words.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a bounded run may use.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Wall-clock deadline.
    pub timeout: Duration,
    /// Address-space limit (bytes).
    pub memory: u64,
    /// Most bytes read from stdout.
    pub max_output: usize,
}

/// Runs `cmd` within `bounds` and returns its stdout when it exits successfully; otherwise why not.
#[allow(unsafe_code)] // pre_exec is the only way to set the child's limits before it runs
pub fn output(mut cmd: Command, bounds: Bounds) -> Result<Vec<u8>, String> {
    let memory = bounds.memory;
    // SAFETY: between fork and exec only setrlimit runs, which is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: memory as libc::rlim_t,
                rlim_max: memory as libc::rlim_t,
            };
            libc::setrlimit(libc::RLIMIT_AS, &lim);
            Ok(())
        });
    }
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let cap = bounds.max_output;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = stdout.take(cap as u64 + 1).read_to_end(&mut out);
        read.map(|_| out)
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < bounds.timeout => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "it took longer than {} s and was stopped",
                    bounds.timeout.as_secs()
                ));
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    let out = reader
        .join()
        .map_err(|_| "its output could not be read".to_string())?
        .map_err(|e| e.to_string())?;
    if out.len() > cap {
        return Err(format!("its output is over {} MB", cap >> 20));
    }
    if !status.success() {
        return Err(match std::os::unix::process::ExitStatusExt::signal(&status) {
            Some(sig) => format!(
                "it was stopped by signal {sig} (over the {} MiB memory limit?)",
                memory >> 20
            ),
            None => format!("it failed ({status})"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(ms: u64, max_output: usize) -> Bounds {
        Bounds {
            timeout: Duration::from_millis(ms),
            memory: 1 << 30,
            max_output,
        }
    }

    #[test]
    fn output_comes_back_and_overruns_are_stopped() {
        let mut echo = Command::new("sh");
        echo.args(["-c", "printf hello"]);
        assert_eq!(output(echo, bounds(5000, 100)).unwrap(), b"hello");
        let mut slow = Command::new("sleep");
        slow.arg("5");
        let start = Instant::now();
        let err = output(slow, bounds(200, 100)).unwrap_err();
        assert!(
            err.contains("longer than") && start.elapsed() < Duration::from_secs(3),
            "{err}"
        );
        let mut big = Command::new("head");
        big.args(["-c", "1000", "/dev/zero"]);
        assert!(output(big, bounds(5000, 100)).unwrap_err().contains("output is over"));
    }
}

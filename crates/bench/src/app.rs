//! The desktop app's cold start (process start → main page loaded, under Xvfb) and idle memory (PSS of the app
//! and its WebKit processes, 5 s after load), against the CLI opening the same library as the baseline.

use ragsift_engine::{Error, Result};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn run(runs: usize) -> Result<()> {
    let dir = std::env::current_exe().map_err(|e| Error::Setup(e.to_string()))?;
    let bin = dir.parent().unwrap_or(Path::new("."));
    let (app, cli) = (bin.join("ragsift-app"), bin.join("ragsift"));
    if !app.is_file() {
        return Err(Error::Setup(format!(
            "{} missing: cargo build --release --workspace",
            app.display()
        )));
    }
    let home = tempfile::tempdir().map_err(|e| Error::Setup(e.to_string()))?;
    let samples = crate::repo_root().join("assets/samples");
    let ok = Command::new(&cli)
        .args(["--home", &home.path().display().to_string(), "ingest"])
        .arg(&samples)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !ok.is_ok_and(|s| s.success()) {
        return Err(Error::Setup("ingesting the samples failed".into()));
    }
    let display = ":77";
    let mut xvfb = Command::new("Xvfb")
        .args([display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::Setup(format!("Xvfb: {e}")))?;
    std::thread::sleep(Duration::from_millis(700));
    println!("\n## app: cold start and idle memory (library: the 3 samples; {runs} runs, median)");
    let mut starts = Vec::new();
    let mut mems = Vec::new();
    for _ in 0..runs {
        let (ms, mem) = launch(&app, home.path(), display)?;
        starts.push(ms);
        mems.push(mem);
    }
    let mut cli_ms = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        Command::new(&cli)
            .args([
                "--home",
                &home.path().display().to_string(),
                "library",
                "list",
                "--json",
            ])
            .stdout(Stdio::null())
            .status()
            .map_err(|e| Error::Setup(e.to_string()))?;
        cli_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    let (app_mib, web_mib) = (
        median(mems.iter().map(|m| m.0).collect()),
        median(mems.iter().map(|m| m.1).collect()),
    );
    println!(
        "app: start → page loaded       {:>8.0} ms (first run {:.0} ms)",
        median(starts.clone()),
        starts[0]
    );
    println!(
        "baseline: `ragsift library list` (engine open, no window) {:>6.0} ms",
        median(cli_ms)
    );
    println!(
        "idle PSS: app process {app_mib:.0} MiB + WebKit processes {web_mib:.0} MiB = {:.0} MiB",
        app_mib + web_mib
    );
    Ok(())
}

/// Starts the app, waits for its "page loaded" line, idles 5 s, and reads the PSS of it and its children (MiB).
fn launch(app: &PathBuf, home: &Path, display: &str) -> Result<(f64, (f64, f64))> {
    let t = Instant::now();
    let mut child: Child = Command::new(app)
        .env("DISPLAY", display)
        .env("RAGSIFT_HOME", home)
        .env("RAGSIFT_STARTUP_PROBE", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Setup(format!("{}: {e}", app.display())))?;
    let stderr = child.stderr.take().expect("piped");
    let mut loaded = None;
    for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
        if line.contains("ragsift-startup: page loaded") {
            loaded = Some(t.elapsed().as_secs_f64() * 1e3);
            break;
        }
    }
    let ms = loaded.ok_or_else(|| Error::Setup("the app exited before loading its page".into()))?;
    std::thread::sleep(Duration::from_secs(5));
    let own = pss_mib(child.id());
    let children: f64 = descendants(child.id()).into_iter().map(pss_mib).sum();
    let _ = child.kill();
    let _ = child.wait();
    Ok((ms, (own, children)))
}

fn pss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Pss:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

/// Every process whose parent chain leads to `pid` (WebKitWebProcess, WebKitNetworkProcess).
fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|p| {
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let ppid = stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut out = vec![];
    let mut frontier = vec![pid];
    while let Some(p) = frontier.pop() {
        for &(c, pp) in &parents {
            if pp == p {
                out.push(c);
                frontier.push(c);
            }
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

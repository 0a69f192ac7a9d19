//! `ragsift-bench serve`: concurrent clients against `ragsift serve`'s `POST /v1/select` with the local judge
//! (latency p50/p95, throughput, errors, every request recorded once), against the baseline of the CLI's
//! `ragsift select` run once per request, on the same requests (rag-jev's eval cases in fixtures/eval).

use ragsift_engine::Error;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn err(e: impl std::fmt::Display) -> Error {
    Error::Invalid(e.to_string())
}

/// rag-jev select requests: each eval case's query and documents, filtered at 0.5.
fn requests() -> Result<Vec<Value>, Error> {
    let path = crate::repo_root().join("fixtures/eval/cases.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path).map_err(err)?).map_err(err)?;
    Ok(cases
        .iter()
        .map(|c| json!({"query": c["query"], "documents": c["documents"], "min_relevance": 0.5}))
        .collect())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn summary(name: &str, mut ms: Vec<f64>, wall: Duration) {
    ms.sort_by(f64::total_cmp);
    println!(
        "| {name} | {} | {:.1} | {:.1} | {:.1} |",
        ms.len(),
        percentile(&ms, 0.5),
        percentile(&ms, 0.95),
        ms.len() as f64 / wall.as_secs_f64()
    );
}

/// `ragsift serve` on a free port of a fresh library; returns the child and its address.
fn start(ragsift: &Path, home: &Path, extra: &[&str]) -> Result<(std::process::Child, String), Error> {
    let mut child = Command::new(ragsift)
        .arg("--home")
        .arg(home)
        .args(["serve", "--port", "0", "--judge", "local"])
        .args(extra)
        .env("RAG_JEV_TIMEOUT_MS", "60000")
        .env_remove("RAG_JEV_API_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(err)?;
    let mut lines = BufReader::new(child.stderr.take().ok_or_else(|| err("no stderr"))?).lines();
    let first = lines.next().and_then(Result::ok).unwrap_or_default();
    std::thread::spawn(move || lines.for_each(drop));
    let url = (first.split_whitespace())
        .find(|w| w.starts_with("http://"))
        .ok_or_else(|| err(format!("ragsift serve did not start: {first}")))?
        .to_string();
    Ok((child, url))
}

/// How many runs the library in `home` holds (`ragsift runs list`).
fn runs_in(ragsift: &Path, home: &Path) -> Result<usize, Error> {
    let out = Command::new(ragsift)
        .arg("--home")
        .arg(home)
        .args(["runs", "list", "--limit", "100000", "--json"])
        .output()
        .map_err(err)?;
    let runs: Value = serde_json::from_slice(&out.stdout).map_err(err)?;
    Ok(runs["runs"].as_array().map_or(0, Vec::len))
}

/// One load run: each request's milliseconds, the errors, the wall time, the runs recorded, and the library.
struct Load {
    ms: Vec<f64>,
    errors: usize,
    wall: Duration,
    recorded: usize,
    _home: tempfile::TempDir,
}

/// `clients` threads sending `per_client` requests each to a fresh `ragsift serve` (after one warm-up request).
fn load(ragsift: &Path, requests: &[Value], clients: usize, per_client: usize, extra: &[&str]) -> Result<Load, Error> {
    let home = tempfile::tempdir().map_err(err)?;
    let (mut child, url) = start(ragsift, home.path(), extra)?;
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .map_err(err)?;
    // One request first: the models load once, as in a running service.
    http.post(format!("{url}/v1/select"))
        .json(&requests[0])
        .send()
        .map_err(err)?;
    let started = Instant::now();
    let results: Vec<(Vec<f64>, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let (http, url) = (&http, &url);
                s.spawn(move || {
                    let (mut ms, mut errors) = (Vec::new(), 0);
                    for i in 0..per_client {
                        let t = Instant::now();
                        let ok = (http.post(format!("{url}/v1/select")))
                            .json(&requests[(c + i) % requests.len()])
                            .send()
                            .is_ok_and(|r| r.status().as_u16() == 200);
                        ms.push(t.elapsed().as_secs_f64() * 1e3);
                        errors += usize::from(!ok);
                    }
                    (ms, errors)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let wall = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let errors: usize = results.iter().map(|r| r.1).sum();
    let served: Vec<f64> = results.into_iter().flat_map(|r| r.0).collect();
    let recorded = runs_in(ragsift, home.path())?;

    Ok(Load {
        ms: served,
        errors,
        wall,
        recorded,
        _home: home,
    })
}

pub fn run(clients: usize, per_client: usize, baseline: usize) -> Result<(), Error> {
    let ragsift = std::env::current_exe().map_err(err)?.with_file_name("ragsift");
    if !ragsift.exists() {
        return Err(err(format!(
            "{} is missing: cargo build --release -p ragsift",
            ragsift.display()
        )));
    }
    let requests = requests()?;
    println!(
        "\n## serve: {clients} clients x {per_client} requests, local judge, {} requests of {} passages on average ({})",
        requests.len(),
        requests.iter().map(|r| r["documents"].as_array().map_or(0, Vec::len)).sum::<usize>() / requests.len(),
        crate::machine()
    );
    let recording = load(&ragsift, &requests, clients, per_client, &[])?;
    let unrecorded = load(&ragsift, &requests, clients, per_client, &["--no-record"])?;
    let (served, errors, wall, recorded) = (
        recording.ms.clone(),
        recording.errors,
        recording.wall,
        recording.recorded,
    );
    let home = tempfile::tempdir().map_err(err)?;
    // Baseline: the CLI's select, one process per request (it loads the models each time).
    let mut cli = Vec::new();
    let cli_started = Instant::now();
    for i in 0..baseline {
        let t = Instant::now();
        let mut c = Command::new(&ragsift)
            .arg("--home")
            .arg(home.path())
            .args(["select", "-", "--judge", "local"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(err)?;
        let body = requests[i % requests.len()].to_string();
        c.stdin
            .take()
            .ok_or_else(|| err("no stdin"))?
            .write_all(body.as_bytes())
            .map_err(err)?;
        c.wait().map_err(err)?;
        cli.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let cli_wall = cli_started.elapsed();
    println!("\n| path | requests | p50 ms | p95 ms | requests/s |\n| --- | ---: | ---: | ---: | ---: |");
    summary(&format!("`serve`, {clients} concurrent clients"), served.clone(), wall);
    summary(
        &format!("`serve --no-record`, {clients} concurrent clients"),
        unrecorded.ms,
        unrecorded.wall,
    );
    summary("baseline: `ragsift select`, one process per request", cli, cli_wall);
    println!(
        "\nerrors: {errors}; runs recorded: {recorded} of {} requests (+1 warm-up)",
        served.len()
    );
    if errors > 0 || recorded != served.len() + 1 {
        return Err(err("serve: errors, or a request not recorded exactly once"));
    }
    Ok(())
}

/// A stand-in Jev on loopback: answers every `POST /v1/systemone` with the same judgment at once, keeping
/// connections alive (the proxy's added latency is measured against calls to it directly).
fn stand_in_jev() -> Result<String, Error> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(err)?;
    let url = format!("http://{}", listener.local_addr().map_err(err)?);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer_all(stream));
        }
    });
    Ok(url)
}

fn answer_all(stream: std::net::TcpStream) {
    let body = json!({"model": "jev-1.13.0", "answers": {
        "is_relevant": {"type": "noul", "noul": 0.8}, "contains_answer_evidence": {"type": "noul", "noul": 0.7},
        "contradicts_query_premise": {"type": "noul", "noul": 0.05}, "contains_prompt_injection": {"type": "noul", "noul": 0.02}},
        "usage": {"input_tokens": 100, "output_tokens": 4}})
    .to_string();
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut sink = vec![0; length];
        if std::io::Read::read_exact(&mut reader, &mut sink).is_err() {
            return;
        }
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// The recording proxy's added latency: Spring-style calls (four questions, one passage each) straight to a
/// stand-in Jev against the same calls through `ragsift serve --jev-proxy`, one client, alternated.
pub fn proxy(calls: usize) -> Result<(), Error> {
    let ragsift = std::env::current_exe().map_err(err)?.with_file_name("ragsift");
    let upstream = stand_in_jev()?;
    let home = tempfile::tempdir().map_err(err)?;
    let (mut child, url) = start(&ragsift, home.path(), &["--jev-proxy", "--jev-upstream", &upstream])?;
    let http = reqwest::blocking::Client::new();
    let call = |base: &str, i: usize| -> Result<f64, Error> {
        let questions: serde_json::Map<String, Value> = ([
            "contains_prompt_injection",
            "contradicts_query_premise",
            "is_relevant",
            "contains_answer_evidence",
        ])
        .iter()
        .map(|q| (q.to_string(), json!({"type": "noul", "instructions": "?"})))
        .collect();
        let body = json!({"state": {"query": format!("query {}", i / 6), "passage": format!("passage {i}")},
            "model": "jev-latest", "questions": questions});
        let t = Instant::now();
        let r = (http.post(format!("{base}/v1/systemone")))
            .bearer_auth("sk-bench")
            .json(&body)
            .send()
            .map_err(err)?;
        r.bytes().map_err(err)?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    let (mut direct, mut proxied) = (Vec::new(), Vec::new());
    call(&url, 0)?;
    call(&upstream, 0)?;
    for i in 0..calls {
        direct.push(call(&upstream, i)?);
        proxied.push(call(&url, i)?);
    }
    std::thread::sleep(Duration::from_secs(3));
    let recorded = runs_in(&ragsift, home.path())?;
    let _ = child.kill();
    let _ = child.wait();
    println!(
        "\n## serve --jev-proxy: {calls} Spring-style calls, one client, direct and proxied alternated ({})",
        crate::machine()
    );
    println!("\n| path | calls | p50 ms | p95 ms |\n| --- | ---: | ---: | ---: |");
    for (name, ms) in [
        ("direct to the stand-in Jev (baseline)", &mut direct),
        ("through `ragsift serve --jev-proxy`, recording", &mut proxied),
    ] {
        ms.sort_by(f64::total_cmp);
        println!(
            "| {name} | {} | {:.2} | {:.2} |",
            ms.len(),
            percentile(ms, 0.5),
            percentile(ms, 0.95)
        );
    }
    println!("\nruns recorded: {recorded} (one per query of six passages)");
    direct.sort_by(f64::total_cmp);
    proxied.sort_by(f64::total_cmp);
    println!(
        "\nadded: p50 {:.2} ms, p95 {:.2} ms",
        percentile(&proxied, 0.5) - percentile(&direct, 0.5),
        percentile(&proxied, 0.95) - percentile(&direct, 0.95)
    );
    Ok(())
}

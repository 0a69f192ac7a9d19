//! `ragsift-bench serve`: concurrent clients against `ragsift serve`'s `POST /v1/select` with the local judge
//! (latency p50/p95, throughput, how many came back `applied`, errors, every request recorded once), against the
//! baseline of the CLI's `ragsift select` run once per request, on the same requests (rag-jev's eval cases in
//! fixtures/eval, or with `--candidates N` the labelled set's questions with N real chunks each).
//!
//! Long because it is one benchmark end to end: the request set, the clients, the service, the report.

use ragsift_engine::Error;
use serde_json::{json, Value};
use std::collections::BTreeMap;
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

/// What a load sends: the requests, which one client `c` sends as its `i`th, and the deadline it runs under.
struct Plan<'a> {
    requests: &'a [Value],
    /// Every client sends a request of its own (`c × per_client + i`), else the clients share them (`c + i`).
    distinct: bool,
    /// `RAG_JEV_TIMEOUT_MS` for the service; `None` keeps its default (5 s).
    timeout_ms: Option<u64>,
}

impl Plan<'_> {
    fn pick(&self, c: usize, i: usize, per_client: usize) -> &Value {
        let k = if self.distinct { c * per_client + i } else { c + i };
        &self.requests[k % self.requests.len()]
    }

    /// The warm-up request: one the clients do not send when there are enough.
    fn warm_up(&self, sent: usize) -> &Value {
        &self.requests[if self.distinct && sent < self.requests.len() {
            self.requests.len() - 1
        } else {
            0
        }]
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn summary(name: &str, mut ms: Vec<f64>, applied: Option<usize>, wall: Duration) {
    ms.sort_by(f64::total_cmp);
    println!(
        "| {name} | {} | {} | {:.1} | {:.1} | {:.2} |",
        ms.len(),
        applied.map_or("–".to_string(), |a| a.to_string()),
        percentile(&ms, 0.5),
        percentile(&ms, 0.95),
        ms.len() as f64 / wall.as_secs_f64()
    );
}

/// `ragsift serve` on a free port of a fresh library; returns the child and its address.
fn start(
    ragsift: &Path,
    home: &Path,
    extra: &[&str],
    timeout_ms: Option<u64>,
) -> Result<(std::process::Child, String), Error> {
    let mut command = Command::new(ragsift);
    command
        .arg("--home")
        .arg(home)
        .args(["serve", "--port", "0", "--judge", "local"])
        .args(extra)
        .env_remove("RAG_JEV_TIMEOUT_MS")
        .env_remove("RAG_JEV_API_TOKEN");
    if let Some(ms) = timeout_ms {
        command.env("RAG_JEV_TIMEOUT_MS", ms.to_string());
    }
    let mut child = command
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

/// One load run: each request's milliseconds, the errors, each answer's status (`applied`, or `bypassed` with its
/// error code), the wall time, the runs recorded, and the library.
struct Load {
    ms: Vec<f64>,
    errors: usize,
    statuses: BTreeMap<String, usize>,
    /// The requests not applied: client, request number, milliseconds, status.
    missed: Vec<(usize, usize, f64, String)>,
    wall: Duration,
    recorded: usize,
    _home: tempfile::TempDir,
}

/// An answer's status as the table counts it: `applied`, or `bypassed (its error code)`; `None` for a failure.
fn status_of(response: reqwest::Result<reqwest::blocking::Response>) -> Option<String> {
    let r = response.ok().filter(|r| r.status().as_u16() == 200)?;
    let v: Value = r.json().ok()?;
    let status = v["status"].as_str().unwrap_or("?");
    Some(match v["error_code"].as_str() {
        Some(code) => format!("{status} ({code})"),
        None => status.to_string(),
    })
}

/// `clients` threads sending `per_client` requests each to a fresh `ragsift serve` (after one warm-up request).
fn load(ragsift: &Path, plan: &Plan, clients: usize, per_client: usize, extra: &[&str]) -> Result<Load, Error> {
    let home = tempfile::tempdir().map_err(err)?;
    let (mut child, url) = start(ragsift, home.path(), extra, plan.timeout_ms)?;
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .map_err(err)?;
    // One request first: the models load once, as in a running service.
    http.post(format!("{url}/v1/select"))
        .json(plan.warm_up(clients * per_client))
        .send()
        .map_err(err)?;
    let started = Instant::now();
    let results: Vec<(Vec<f64>, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let (http, url) = (&http, &url);
                s.spawn(move || {
                    let (mut ms, mut statuses) = (Vec::new(), Vec::new());
                    for i in 0..per_client {
                        let t = Instant::now();
                        let sent = (http.post(format!("{url}/v1/select")))
                            .json(plan.pick(c, i, per_client))
                            .send();
                        let status = status_of(sent);
                        ms.push(t.elapsed().as_secs_f64() * 1e3);
                        statuses.push(status.unwrap_or_else(|| "error".into()));
                    }
                    (ms, statuses)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    let wall = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let mut statuses = BTreeMap::new();
    for s in results.iter().flat_map(|r| &r.1) {
        *statuses.entry(s.clone()).or_default() += 1;
    }
    let missed = (results.iter().enumerate())
        .flat_map(|(c, (ms, st))| (ms.iter().zip(st).enumerate()).map(move |(i, (m, s))| (c, i, *m, s.clone())))
        .filter(|(_, _, _, s)| s != "applied")
        .collect();
    let errors = statuses.get("error").copied().unwrap_or(0);
    let served: Vec<f64> = results.into_iter().flat_map(|r| r.0).collect();
    let recorded = runs_in(ragsift, home.path())?;

    Ok(Load {
        ms: served,
        errors,
        statuses,
        missed,
        wall,
        recorded,
        _home: home,
    })
}

pub fn run(clients: usize, per_client: usize, baseline: usize, candidates: Option<usize>) -> Result<(), Error> {
    let ragsift = std::env::current_exe().map_err(err)?.with_file_name("ragsift");
    if !ragsift.exists() {
        return Err(err(format!(
            "{} is missing: cargo build --release -p ragsift",
            ragsift.display()
        )));
    }
    let requests = match candidates {
        Some(n) => crate::serve_set::requests(n)?,
        None => requests()?,
    };
    let plan = Plan {
        requests: &requests,
        distinct: candidates.is_some(),
        timeout_ms: candidates.is_none().then_some(60_000),
    };
    println!(
        "\n## serve: {clients} clients x {per_client} requests, local judge, {} requests of {} passages on average, \
         deadline {} ({})",
        requests.len(),
        requests
            .iter()
            .map(|r| r["documents"].as_array().map_or(0, Vec::len))
            .sum::<usize>()
            / requests.len(),
        plan.timeout_ms
            .map_or("5 s (the default)".to_string(), |ms| format!("{ms} ms")),
        crate::machine()
    );
    if candidates.is_some() {
        let (hash, passages, distinct) = crate::serve_set::describe(&requests, clients * per_client);
        println!("request set {hash}: {passages} passages sent, {distinct} distinct texts");
    }
    let recording = load(&ragsift, &plan, clients, per_client, &[])?;
    let unrecorded = load(&ragsift, &plan, clients, per_client, &["--no-record"])?;
    let (served, errors, wall, recorded) = (
        recording.ms.clone(),
        recording.errors,
        recording.wall,
        recording.recorded,
    );
    let home = tempfile::tempdir().map_err(err)?;
    // Baseline: the CLI's select, one process per request (it loads the models each time).
    let (mut cli, mut cli_applied) = (Vec::new(), 0);
    let cli_started = Instant::now();
    for i in 0..baseline {
        let t = Instant::now();
        let mut c = Command::new(&ragsift)
            .arg("--home")
            .arg(home.path())
            .args(["select", "-", "--judge", "local"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(err)?;
        let body = plan.pick(0, i, baseline).to_string();
        c.stdin
            .take()
            .ok_or_else(|| err("no stdin"))?
            .write_all(body.as_bytes())
            .map_err(err)?;
        let out = c.wait_with_output().map_err(err)?;
        cli.push(t.elapsed().as_secs_f64() * 1e3);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        cli_applied += usize::from(v["status"] == "applied");
    }
    let cli_wall = cli_started.elapsed();
    let applied = |l: &Load| l.statuses.get("applied").copied().unwrap_or(0);
    println!(
        "\n| path | requests | applied | p50 ms | p95 ms | requests/s |\n| --- | ---: | ---: | ---: | ---: | ---: |"
    );
    summary(
        &format!("`serve`, {clients} concurrent clients"),
        served.clone(),
        Some(applied(&recording)),
        wall,
    );
    summary(
        &format!("`serve --no-record`, {clients} concurrent clients"),
        unrecorded.ms.clone(),
        Some(applied(&unrecorded)),
        unrecorded.wall,
    );
    if baseline > 0 {
        summary(
            "baseline: `ragsift select`, one process per request",
            cli,
            Some(cli_applied),
            cli_wall,
        );
    }
    for (name, l) in [("serve", &recording), ("serve --no-record", &unrecorded)] {
        let statuses: Vec<String> = l.statuses.iter().map(|(s, n)| format!("{n} {s}")).collect();
        println!("\n{name}: {}", statuses.join(", "));
        for (c, i, ms, status) in &l.missed {
            println!("- client {c}, request {i}: {status} after {ms:.0} ms");
        }
    }
    println!(
        "\nerrors: {errors}; runs recorded: {recorded} of {} requests (+1 warm-up)",
        served.len()
    );
    if errors > 0 || recorded != served.len() + 1 {
        return Err(err("serve: errors, or a request not recorded exactly once"));
    }
    Ok(())
}

/// A stand-in decision model on loopback: answers every POST at once, keeping connections alive, in the wire
/// its body speaks (OpenAI's for `input`, else System One's); the proxy's and the judges' added latency are
/// measured against calls to it directly.
pub(crate) fn stand_in_jev() -> Result<String, Error> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(err)?;
    let url = format!("http://{}", listener.local_addr().map_err(err)?);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer_all(stream));
        }
    });
    Ok(url)
}

const ASKED: [(&str, f64); 5] = [
    ("is_relevant", 0.8),
    ("contains_answer_evidence", 0.7),
    ("contradicts_query_premise", 0.05),
    ("contains_prompt_injection", 0.02),
    ("useful", 0.75),
];

fn answer_all(stream: std::net::TcpStream) {
    let systemone = json!({"model": "jev-1.13.0",
        "answers": ASKED.iter().map(|(k, p)| (k.to_string(), json!({"type": "noul", "noul": p}))).collect::<serde_json::Map<_, _>>(),
        "usage": {"input_tokens": 100, "output_tokens": 4}})
    .to_string();
    let openai = json!({"model": "gpt-6-luna",
        "answers": ASKED.iter().map(|(k, p)| json!({"type": "predicate", "name": k, "probability": p})).collect::<Vec<_>>(),
        "usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                  "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 105}})
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
        let mut request = vec![0; length];
        if std::io::Read::read_exact(&mut reader, &mut request).is_err() {
            return;
        }
        let body = if request.windows(8).any(|w| w == b"\"input\":") {
            &openai
        } else {
            &systemone
        };
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        if writer.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// One Spring-style call's body (the filter's four questions about one passage) in either wire.
fn spring_body(i: usize, openai: bool) -> Value {
    let questions = [
        "contains_prompt_injection",
        "contradicts_query_premise",
        "is_relevant",
        "contains_answer_evidence",
    ];
    let state = json!({"query": format!("query {}", i / 6), "passage": format!("passage {i}")});
    if openai {
        let questions: Vec<Value> = (questions.iter())
            .map(|q| json!({"type": "predicate", "name": q, "instructions": "?"}))
            .collect();
        json!({"model": "gpt-6-luna", "input": state.to_string(), "questions": questions})
    } else {
        let questions: serde_json::Map<String, Value> = (questions.iter())
            .map(|q| (q.to_string(), json!({"type": "noul", "instructions": "?"})))
            .collect();
        json!({"state": state, "model": "jev-latest", "questions": questions})
    }
}

/// The recording proxy's added latency on each wire: Spring-style calls (four questions, one passage each) straight
/// to a stand-in decision model against the same calls through `ragsift serve --jev-proxy`, one client, alternated.
pub fn proxy(calls: usize) -> Result<(), Error> {
    let ragsift = std::env::current_exe().map_err(err)?.with_file_name("ragsift");
    let upstream = stand_in_jev()?;
    let home = tempfile::tempdir().map_err(err)?;
    let (mut child, url) = start(
        &ragsift,
        home.path(),
        &["--jev-proxy", "--jev-upstream", &upstream],
        Some(60_000),
    )?;
    let http = reqwest::blocking::Client::new();
    let call = |base: &str, path: &str, i: usize, openai: bool| -> Result<f64, Error> {
        let body = spring_body(i, openai);
        let t = Instant::now();
        let r = (http.post(format!("{base}{path}")))
            .bearer_auth("sk-bench")
            .json(&body)
            .send()
            .map_err(err)?;
        r.bytes().map_err(err)?;
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    println!(
        "\n## serve --jev-proxy: {calls} Spring-style calls per wire, one client, direct and proxied alternated ({})",
        crate::machine()
    );
    println!("\n| wire | path | calls | p50 ms | p95 ms |\n| --- | --- | ---: | ---: | ---: |");
    let mut added = Vec::new();
    for (wire, path, openai, offset) in [
        ("System One", "/v1/systemone", false, 0),
        ("OpenAI Decisions", "/v1/decisions", true, calls),
    ] {
        let (mut direct, mut proxied) = (Vec::new(), Vec::new());
        call(&url, path, offset, openai)?;
        call(&upstream, path, offset, openai)?;
        for i in offset..offset + calls {
            direct.push(call(&upstream, path, i, openai)?);
            proxied.push(call(&url, path, i, openai)?);
        }
        direct.sort_by(f64::total_cmp);
        proxied.sort_by(f64::total_cmp);
        for (name, ms) in [
            ("direct to the stand-in (baseline)", &direct),
            ("through the proxy, recording", &proxied),
        ] {
            println!(
                "| {wire} | {name} | {} | {:.2} | {:.2} |",
                ms.len(),
                percentile(ms, 0.5),
                percentile(ms, 0.95)
            );
        }
        added.push((
            wire,
            percentile(&proxied, 0.5) - percentile(&direct, 0.5),
            percentile(&proxied, 0.95) - percentile(&direct, 0.95),
        ));
    }
    std::thread::sleep(Duration::from_secs(3));
    let recorded = runs_in(&ragsift, home.path())?;
    let _ = child.kill();
    let _ = child.wait();
    println!("\nruns recorded: {recorded} (one per query of six passages)");
    for (wire, p50, p95) in added {
        println!("\n{wire}: added p50 {p50:.2} ms, p95 {p95:.2} ms");
    }
    Ok(())
}

/// The decision-model judge's added latency per passage on each backend: one passage at a time through the judge
/// (request building, the client, parsing, the judgment) against the same body posted directly to the same
/// stand-in.
pub fn judges(passages: usize) -> Result<(), Error> {
    use ragsift_engine::judge::jev::{default_questions, Backend, JevConfig};
    use ragsift_engine::judge::{JevJudge, JevRequest, Judge};
    let upstream = stand_in_jev()?;
    let http = reqwest::blocking::Client::new();
    let questions = default_questions();
    println!(
        "\n## decision-model judges: {passages} passages one at a time per backend, against direct HTTP to the same stand-in ({})",
        crate::machine()
    );
    println!(
        "\n| backend | direct p50 ms | direct p95 ms | judge p50 ms | judge p95 ms | added p50 ms | added p95 ms |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for backend in [Backend::Jev, Backend::SystemOne, Backend::Ollama, Backend::OpenAi] {
        let mut config = JevConfig::for_backend(backend, "sk-bench");
        config.base_url = upstream.clone();
        let judge = JevJudge::with_request(config, JevRequest::Spring).map_err(|e| err(e.to_string()))?;
        let path = backend.endpoint_path();
        let (mut direct, mut judged) = (Vec::new(), Vec::new());
        for i in 0..passages + 1 {
            let passage = format!("passage {i} about the warranty");
            let body = spring_body(i, backend == Backend::OpenAi);
            let t = Instant::now();
            let r = (http.post(format!("{upstream}{path}")))
                .bearer_auth("sk-bench")
                .json(&body)
                .send()
                .map_err(err)?;
            r.bytes().map_err(err)?;
            let d = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            judge
                .judge("How long is the warranty?", &[passage], &questions)
                .map_err(|e| err(e.to_string()))?;
            let j = t.elapsed().as_secs_f64() * 1e3;
            if i > 0 {
                direct.push(d);
                judged.push(j);
            }
        }
        direct.sort_by(f64::total_cmp);
        judged.sort_by(f64::total_cmp);
        let (d50, d95, j50, j95) = (
            percentile(&direct, 0.5),
            percentile(&direct, 0.95),
            percentile(&judged, 0.5),
            percentile(&judged, 0.95),
        );
        println!(
            "| {backend} | {d50:.2} | {d95:.2} | {j50:.2} | {j95:.2} | {:.2} | {:.2} |",
            j50 - d50,
            j95 - d95
        );
    }
    Ok(())
}

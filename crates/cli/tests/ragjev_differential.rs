//! A differential test of `ragsift serve` against the real `rag-jev serve` (rag-jev 0.2.0, from the venv
//! scripts/setup.sh installs): the same 60 requests go to both, both judging through one stand-in Jev that answers
//! TypeSafe's wire format (`POST /v1/systemone`) deterministically from what it is sent, and the two answers must
//! agree in status and in every JSON field but the timings (`elapsed_ms`, `scoring_elapsed_ms`) and `created_at`
//! (numbers within 1e-9). The requests cover `/v1/select` in every mode and option, the 4xx answers and their order,
//! judge failures, `/v1/replay` and `/v1/import` of runs built as rag-jev's `score_run` builds them
//! (crates/cli/tests/ragjev/scored_run.py), `/v1/runs`, `/v1/compare` (503: no generation), `/v1/config` and
//! `/healthz` (`/v1/examples` is not compared: ragsift serves its own). One line per request is printed; any
//! difference fails the test.

mod common;

use common::service::{serve_in, Service};
use ragsift_test_support::http::{Reply, Request, Server};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "differential-token";
/// Both services' deadline (`RAG_JEV_TIMEOUT_MS`), and how long the stand-in holds a `HANG` passage.
const TIMEOUT_MS: u64 = 2500;
const HANG: Duration = Duration::from_millis(4000);
/// Keys whose values are timings or clock readings, and may differ anywhere.
const IGNORED: [&str; 3] = ["elapsed_ms", "scoring_elapsed_ms", "created_at"];

// ---------------------------------------------------------------------------------------------------------------
// The stand-in Jev.

/// rag-jev's demo passages (rag_jev/demo.py, case `refund`) answer their demo scores.
const FIXED: [(&str, f64); 3] = [
    ("Orders ship within 5 business days.", 0.03),
    ("You may request a refund within 30 days of purchase.", 0.98),
    ("Keep your receipt; it is required for refund requests.", 0.60),
];

/// 64-bit FNV-1a.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A relevance in [0, 0.999] from everything that should decide it: the model asked for, the query, the passage
/// (and for contextual scoring the whole set), and the question exactly as sent. Any difference in what the two
/// services send changes the answer.
fn relevance(body: &Value, passage: &str, all: &[&str], key: &str) -> f64 {
    if let Some((_, p)) = FIXED.iter().find(|(t, _)| *t == passage) {
        return *p;
    }
    let q = &body["questions"][key];
    let mut body_keys: Vec<&String> = body.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    body_keys.sort();
    let mut question_keys: Vec<&String> = q.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    question_keys.sort();
    let seed = [
        body["model"].to_string(),
        body["state"]["query"].to_string(),
        passage.to_string(),
        all.join("\u{1}"),
        key.to_string(),
        q["type"].to_string(),
        q["instructions"].to_string(),
        q["criteria"]["true"].to_string(),
        q["criteria"]["false"].to_string(),
        format!("{body_keys:?}{question_keys:?}"),
    ]
    .join("\u{0}");
    (fnv(&seed) % 1000) as f64 / 1000.0
}

/// Jev as both services meet it. Passages containing `FAIL-500`, `AUTH-401` or `RATE-429` get that status (the
/// last with `retry-after-ms: 20`), `HANG` is answered after the deadline, `BAD-ANSWER` gets no answers, and
/// `OUT-OF-RANGE` a probability of 1.5. Everything else is answered from [`relevance`].
fn jev(r: &Request) -> Reply {
    if r.path != "/v1/systemone" || r.method != "POST" {
        return Reply::Json(404, vec![], json!({"detail": "Not Found"}).to_string());
    }
    let Ok(body) = serde_json::from_str::<Value>(&r.body) else {
        return Reply::Json(422, vec![], json!({"detail": []}).to_string());
    };
    let state = &body["state"];
    let contextual = state.get("passages").is_some();
    let texts: Vec<&str> = if contextual {
        (state["passages"].as_array().into_iter().flatten())
            .map(|p| p["text"].as_str().unwrap_or_default())
            .collect()
    } else {
        vec![state["passage"]["text"].as_str().unwrap_or_default()]
    };
    let any = |needle: &str| texts.iter().any(|t| t.contains(needle));
    let error = |status: u16, kind: &str, extra: Vec<(&'static str, String)>| {
        let detail = json!({"detail": {"type": kind, "message": "stand-in failure"}});
        Reply::Json(status, extra, detail.to_string())
    };
    if any("FAIL-500") {
        return error(500, "api_error", vec![]);
    }
    if any("AUTH-401") {
        return error(401, "authentication_error", vec![]);
    }
    if any("RATE-429") {
        return error(429, "rate_limit_error", vec![("retry-after-ms", "20".into())]);
    }
    let noul = |p: f64| json!({"type": "noul", "noul": p});
    let mut answers = serde_json::Map::new();
    if contextual {
        for (i, t) in texts.iter().enumerate() {
            let p = if t.contains("OUT-OF-RANGE") {
                1.5
            } else {
                relevance(&body, t, &texts, &i.to_string())
            };
            answers.insert(i.to_string(), noul(p));
        }
    } else {
        let p = if any("OUT-OF-RANGE") {
            1.5
        } else {
            relevance(&body, texts[0], &texts, "relevant")
        };
        answers.insert("relevant".into(), noul(p));
    }
    if any("BAD-ANSWER") {
        answers.clear();
    }
    let chars: usize = texts.iter().map(|t| t.chars().count()).sum();
    let usage = if contextual {
        json!({"input_tokens": 40 + chars / 4, "output_tokens": texts.len()})
    } else {
        json!({"input_tokens": 20 + chars / 4, "output_tokens": 1})
    };
    let reply = json!({"model": "jev-1.13.0", "answers": answers, "usage": usage}).to_string();
    if any("HANG") {
        return Reply::Delayed(HANG, Box::new(Reply::Json(200, vec![], reply)));
    }
    Reply::Json(200, vec![], reply)
}

// ---------------------------------------------------------------------------------------------------------------
// The two services.

/// `rag-jev serve` from its venv on a free port, killed when dropped.
struct RagJev {
    child: Child,
    url: String,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for RagJev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn rag_jev(rag: &common::ragjev::Installed, jev_url: &str) -> RagJev {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("rag-jev.log");
    let port = free_port();
    let mut cmd = Command::new(rag.venv.join("bin/rag-jev"));
    // rag-jev reads every setting from the environment: only the ones named here (and no `.env`).
    // Nor a proxy between it and the stand-in.
    for (k, _) in std::env::vars_os() {
        let name = k.to_string_lossy().to_ascii_uppercase();
        if name.starts_with("RAG_JEV_") || name.starts_with("TYPESAFE_") || name.ends_with("_PROXY") {
            cmd.env_remove(k);
        }
    }
    let child = cmd
        .args(["--env-file", "/dev/null", "serve", "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .current_dir(dir.path())
        .env_remove("OPENAI_API_KEY")
        .env_remove("PORT")
        .env("TYPESAFE_API_KEY", "fake-key")
        .env("TYPESAFE_BASE_URL", jev_url)
        .env("RAG_JEV_API_TOKEN", TOKEN)
        .env("RAG_JEV_TIMEOUT_MS", TIMEOUT_MS.to_string())
        .env("TIKTOKEN_CACHE_DIR", &rag.tiktoken_cache)
        // Offline: a download by tiktoken would fail at once (the stand-in is plain HTTP, so not proxied).
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    RagJev {
        child,
        url: format!("http://127.0.0.1:{port}"),
        log,
        _dir: dir,
    }
}

fn ragsift(jev_url: &str) -> Service {
    let timeout = TIMEOUT_MS.to_string();
    serve_in(
        std::sync::Arc::new(tempfile::tempdir().unwrap()),
        jev_url,
        &[("RAG_JEV_API_TOKEN", TOKEN), ("RAG_JEV_TIMEOUT_MS", &timeout)],
        &[],
    )
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .user_agent("ragjev-differential/1.0")
        .build()
        .unwrap()
}

/// Waits until `/healthz` answers 200 (rag-jev once uvicorn is up, ragsift once its judge is loaded).
fn wait_healthy(http: &reqwest::blocking::Client, url: &str, what: &str, log: impl Fn() -> String) {
    let started = Instant::now();
    loop {
        if let Ok(r) = http
            .get(format!("{url}/healthz"))
            .timeout(Duration::from_millis(500))
            .send()
        {
            if r.status() == 200 {
                return;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what} did not become healthy:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The requests.

#[derive(Clone, Copy)]
enum Token {
    Good,
    Missing,
    /// `bearer <token>`: the scheme is case-sensitive.
    LowerScheme,
}

#[derive(Clone, Copy)]
enum Origin {
    Foreign,
    /// The service's own URL (each service gets its own).
    Own,
}

#[derive(Clone)]
struct Case {
    name: String,
    method: &'static str,
    path: String,
    body: Option<Vec<u8>>,
    content_type: Option<&'static str>,
    token: Token,
    origin: Option<Origin>,
}

impl Case {
    fn get(name: &str, path: &str) -> Case {
        Case {
            name: name.into(),
            method: "GET",
            path: path.into(),
            body: None,
            content_type: None,
            token: Token::Good,
            origin: None,
        }
    }
    fn post(name: &str, path: &str, body: &Value) -> Case {
        Case {
            method: "POST",
            body: Some(body.to_string().into_bytes()),
            content_type: Some("application/json"),
            ..Case::get(name, path)
        }
    }
    fn raw(mut self, body: impl Into<Vec<u8>>) -> Case {
        self.body = Some(body.into());
        self
    }
    fn content_type(mut self, c: Option<&'static str>) -> Case {
        self.content_type = c;
        self
    }
    fn token(mut self, t: Token) -> Case {
        self.token = t;
        self
    }
    fn origin(mut self, o: Origin) -> Case {
        self.origin = Some(o);
        self
    }
}

fn select(name: &str, body: Value) -> Case {
    Case::post(name, "/v1/select", &body)
}

/// Status and body (JSON, or the text when it is not JSON).
type Answer = (u16, Result<Value, String>);

fn send(http: &reqwest::blocking::Client, base: &str, case: &Case) -> Answer {
    let url = format!("{base}{}", case.path);
    let mut req = match case.method {
        "GET" => http.get(url),
        _ => http.post(url),
    };
    match case.token {
        Token::Good => req = req.header("authorization", format!("Bearer {TOKEN}")),
        Token::LowerScheme => req = req.header("authorization", format!("bearer {TOKEN}")),
        Token::Missing => {}
    }
    if let Some(c) = case.content_type {
        req = req.header("content-type", c);
    }
    match case.origin {
        Some(Origin::Foreign) => req = req.header("origin", "https://untrusted.example"),
        Some(Origin::Own) => req = req.header("origin", base),
        None => {}
    }
    if let Some(b) = &case.body {
        req = req.body(b.clone());
    }
    match req.send() {
        Ok(r) => {
            let status = r.status().as_u16();
            let text = r.text().unwrap_or_default();
            (status, serde_json::from_str(&text).map_err(|_| text))
        }
        Err(e) => (0, Err(format!("no answer: {e}"))),
    }
}

/// rag-jev's demo case `refund` (rag_jev/demo.py), with its metadata.
fn demo_docs() -> Value {
    json!([
        {"id": "shipping", "text": FIXED[0].0, "metadata": {"source": "shipping.md"}},
        {"id": "refund", "text": FIXED[1].0, "metadata": {"source": "refunds.md", "page": 2}},
        {"id": "receipt", "text": FIXED[2].0, "metadata": {"source": "refunds.md", "page": 3}},
    ])
}

fn demo(extra: Value) -> Value {
    let mut v = json!({"query": "How many days do I have to request a refund?", "documents": demo_docs(), "min_relevance": 0.2});
    merge(&mut v, extra);
    v
}

/// Eight passages answered by hash, of different lengths.
fn hashed_docs() -> Value {
    let texts = [
        "The warranty covers manufacturing defects for two years from the date of delivery.",
        "Returns are accepted within 30 days when the item is unused and in its original packaging.",
        "Our support line is open from 9 AM to 5 PM on weekdays.",
        "Extended warranties can be purchased at checkout for an additional three years of cover, including \
         accidental damage, with a claim limit equal to the purchase price.",
        "Shipping is free for orders above 50 euros.",
        "A defect reported within the warranty period is repaired or the product replaced at no cost.",
        "Gift cards cannot be exchanged for cash.",
        "Warranty claims require the original receipt or an order number.",
    ];
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": format!("d{i}"), "text": t, "metadata": {"rank": i + 1}}))
        .collect()
}

fn hashed(extra: Value) -> Value {
    let mut v = json!({"query": "How long is the warranty?", "documents": hashed_docs()});
    merge(&mut v, extra);
    v
}

/// The hashed passages with groups (d0, d5, d7 one section; d1, d4 another) and d6 pinned.
fn grouped(extra: Value) -> Value {
    let mut v = hashed(extra);
    for (i, d) in v["documents"].as_array_mut().unwrap().iter_mut().enumerate() {
        match i {
            0 | 5 | 7 => d["group_id"] = json!("section-warranty"),
            1 | 4 => d["group_id"] = json!("section-orders"),
            6 => d["pinned"] = json!(true),
            _ => {}
        }
    }
    v
}

fn merge(v: &mut Value, extra: Value) {
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
}

fn docs(texts: &[&str]) -> Value {
    (texts.iter().enumerate())
        .map(|(i, t)| json!({"id": format!("p{i}"), "text": t}))
        .collect()
}

const GUIDANCE: &str = "Prefer passages that state a duration.";

/// The requests that need no earlier answer.
fn first_cases() -> Vec<Case> {
    let exact = {
        let small = demo(json!({})).to_string();
        let mut b = small.clone().into_bytes();
        b.resize(2_000_000, b' ');
        b
    };
    let many: Vec<String> = (0..33).map(|i| format!("Contextual candidate number {i}.")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    vec![
        // Selections in every mode and option.
        select("filter, demo passages", demo(json!({}))),
        select("rerank top_n 2", hashed(json!({"mode": "rerank", "top_n": 2}))),
        select(
            "filter_and_rerank top_n 3",
            hashed(json!({"mode": "filter_and_rerank", "min_relevance": 0.3, "top_n": 3})),
        ),
        select("shadow filter", hashed(json!({"min_relevance": 0.5, "shadow": true}))),
        select("groups and a pin, filter", grouped(json!({"min_relevance": 0.6}))),
        select(
            "groups and a pin, rerank top_n 1",
            grouped(json!({"mode": "rerank", "top_n": 1})),
        ),
        select(
            "groups, filter_and_rerank with a token budget",
            grouped(json!({"mode": "filter_and_rerank", "min_relevance": 0.1, "max_context_tokens": 60})),
        ),
        select(
            "relevance_guidance",
            hashed(json!({"min_relevance": 0.4, "relevance_guidance": GUIDANCE})),
        ),
        select(
            "retrieval_query",
            hashed(json!({"min_relevance": 0.4, "retrieval_query": "warranty duration years"})),
        ),
        select(
            "contextual filter",
            hashed(json!({"min_relevance": 0.4, "scoring_strategy": "contextual"})),
        ),
        select(
            "contextual rerank top_n 2 with guidance",
            hashed(
                json!({"mode": "rerank", "top_n": 2, "scoring_strategy": "contextual", "relevance_guidance": GUIDANCE}),
            ),
        ),
        select(
            "contextual, 33 passages (bypassed)",
            json!({"query": "q", "documents": docs(&many), "min_relevance": 0.5, "scoring_strategy": "contextual"}),
        ),
        select(
            "explicit nulls (Dify)",
            hashed(
                json!({"mode": "rerank", "min_relevance": null, "top_n": null, "max_context_tokens": null, "relevance_guidance": null, "retrieval_query": null}),
            ),
        ),
        select(
            "no documents",
            json!({"query": "q", "documents": [], "min_relevance": 0.2}),
        ),
        select(
            "unicode text and nested metadata",
            json!({"query": "Wie lange gilt die Garantie? 保証", "min_relevance": 0.0, "documents": [
                {"id": "ü1", "text": "Die Garantie gilt zwei Jahre ab Lieferung. 保証は2年間です。😀", "metadata": {"nested": {"a": [1, 2.5, null, true]}, "title": "Übersicht"}},
                {"id": "e2", "text": "Ceci n’est pas une garantie — « voir conditions »."}
            ]}),
        ),
        Case::post("2,000,000 bytes exactly", "/v1/select", &Value::Null).raw(exact),
        // Judge failures: rag-jev's bypass (its service default `passthrough`).
        select(
            "Jev 500 on the only passage",
            json!({"query": "q", "documents": docs(&["FAIL-500 passage"]), "min_relevance": 0.2, "top_n": 1}),
        ),
        select(
            "Jev 500 on one of three passages",
            json!({"query": "q", "documents": docs(&["A fine passage.", "FAIL-500 passage", "Another fine passage."]), "min_relevance": 0.2}),
        ),
        select(
            "Jev slower than the deadline on one of two",
            json!({"query": "q", "documents": docs(&["A fine passage.", "HANG passage"]), "mode": "rerank"}),
        ),
        select(
            "Jev 401",
            json!({"query": "q", "documents": docs(&["AUTH-401 passage"]), "min_relevance": 0.2}),
        ),
        select(
            "Jev 429 twice",
            json!({"query": "q", "documents": docs(&["RATE-429 passage"]), "min_relevance": 0.2}),
        ),
        select(
            "Jev answers without the question",
            json!({"query": "q", "documents": docs(&["BAD-ANSWER passage"]), "min_relevance": 0.2}),
        ),
        select(
            "Jev answers 1.5",
            json!({"query": "q", "documents": docs(&["OUT-OF-RANGE passage"]), "min_relevance": 0.2}),
        ),
        select(
            "contextual, Jev 500",
            json!({"query": "q", "documents": docs(&["A fine passage.", "FAIL-500 passage"]), "min_relevance": 0.2, "scoring_strategy": "contextual"}),
        ),
        // 422: schema and body problems, never echoing the input.
        select(
            "min_relevance 9 and an extra field",
            demo(json!({"min_relevance": 9, "extra": "PRIVATE-extra"})),
        ),
        select(
            "wrong types",
            json!({"query": 12345, "documents": [{"id": 7, "text": "PRIVATE-text", "metadata": "PRIVATE-meta", "pinned": "PRIVATE-yes"}], "min_relevance": "PRIVATE-0.5", "shadow": "PRIVATE"}),
        ),
        select("empty object", json!({})),
        select(
            "unknown mode, strategy and document field",
            demo(
                json!({"mode": "PRIVATE-mode", "scoring_strategy": "PRIVATE-strategy", "documents": [{"id": "a", "text": "PRIVATE-t", "unexpected": "PRIVATE-v"}]}),
            ),
        ),
        select(
            "top_n as a string, a float budget",
            demo(json!({"top_n": "3", "max_context_tokens": 2.5})),
        ),
        select("rerank with a threshold", demo(json!({"mode": "rerank"}))),
        select(
            "filter without a threshold",
            demo(json!({"min_relevance": null, "top_n": 0})),
        ),
        select(
            "duplicate ids",
            demo(json!({"documents": [{"id": "a", "text": "PRIVATE-1"}, {"id": "a", "text": "PRIVATE-2"}]})),
        ),
        select("blank query", demo(json!({"query": "   "}))),
        select("a JSON list", json!([{"query": "PRIVATE-list"}])),
        Case::post("bad JSON", "/v1/select", &Value::Null).raw("{\"query\": \"PRIVATE-bad\", "),
        Case::post("text/plain", "/v1/select", &demo(json!({}))).content_type(Some("text/plain")),
        Case::post("no Content-Type", "/v1/select", &demo(json!({}))).content_type(None),
        // The order of the checks.
        Case::post("bad JSON without the token", "/v1/select", &Value::Null)
            .raw("{\"query\": ")
            .token(Token::Missing),
        select("a schema error without the token", json!({"query": 5})).token(Token::Missing),
        select("lower-case bearer", demo(json!({}))).token(Token::LowerScheme),
        Case::post("2,000,001 bytes", "/v1/select", &Value::Null).raw(vec![b'x'; 2_000_001]),
        select("a foreign Origin", demo(json!({}))).origin(Origin::Foreign),
        select("its own Origin", demo(json!({}))).origin(Origin::Own),
        // The other routes.
        Case::get("/healthz", "/healthz").token(Token::Missing),
        Case::get("/v1/config", "/v1/config"),
        Case::get("/v1/config without the token", "/v1/config").token(Token::Missing),
        Case::post(
            "a study run (/v1/runs) with labels",
            "/v1/runs",
            &json!({"request": demo(json!({})), "relevant_ids": ["refund", "receipt"], "baseline_ids": ["refund"]}),
        ),
    ]
}

/// A `score_run` job for scored_run.py: the request (with labels) and rag-jev's answer to it.
fn job(request: &Value, labels: Value, result: &Value, compare: Option<Value>) -> Value {
    let mut study = json!({"request": request});
    merge(&mut study, labels);
    json!({"study": study, "result": result, "compare_policy": compare})
}

/// Runs scored_run.py in rag-jev's venv over `jobs`.
fn scored_runs(rag: &common::ragjev::Installed, jobs: &Value) -> Vec<Value> {
    let script = common::repo().join("crates/cli/tests/ragjev/scored_run.py");
    let mut child = Command::new(rag.venv.join("bin/python"))
        .arg(script)
        .env("TIKTOKEN_CACHE_DIR", &rag.tiktoken_cache)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(jobs.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "scored_run.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

/// The requests built from rag-jev's answers to the first ones: replays and imports of scored runs.
fn replay_cases(rag: &common::ragjev::Installed, first: &[(Case, Answer)]) -> Vec<Case> {
    let answer = |name: &str| -> (Value, Value) {
        let (case, (status, body)) = first.iter().find(|(c, _)| c.name == name).unwrap();
        let request: Value = serde_json::from_slice(case.body.as_ref().unwrap()).unwrap();
        match body {
            Ok(b) if *status == 200 => (request, b.clone()),
            _ => panic!("rag-jev answered {name:?} with {status}: {body:?}"),
        }
    };
    let (demo_request, demo_result) = answer("filter, demo passages");
    let (ctx_request, ctx_result) = answer("contextual filter");
    let (guided_request, guided_result) = answer("relevance_guidance");
    let own = json!({"min_relevance": 0.2});
    let jobs = json!([
        job(
            &demo_request,
            json!({"relevant_ids": ["refund", "receipt"], "baseline_ids": ["refund", "shipping"]}),
            &demo_result,
            Some(own.clone())
        ),
        job(&ctx_request, json!({}), &ctx_result, None),
        job(&guided_request, json!({"relevant_ids": ["d0"]}), &guided_result, None),
    ]);
    let runs = scored_runs(rag, &jobs);
    let (record, comparison) = (&runs[0]["record"], &runs[0]["comparison"]);
    let (ctx_record, guided_record) = (&runs[1]["record"], &runs[2]["record"]);
    let replay = |name: &str, record: &Value, policy: Value| {
        Case::post(name, "/v1/replay", &json!({"record": record, "policy": policy}))
    };
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut r = record.clone();
        edit(&mut r);
        r
    };
    vec![
        replay("replay at its own policy", record, own.clone()),
        replay(
            "replay reranked, top_n 2",
            record,
            json!({"mode": "rerank", "top_n": 2}),
        ),
        replay(
            "replay with a token budget",
            record,
            json!({"mode": "filter_and_rerank", "min_relevance": 0.5, "max_context_tokens": 15}),
        ),
        replay(
            "replay a contextual run",
            ctx_record,
            json!({"min_relevance": 0.3, "shadow": true}),
        ),
        replay(
            "replay keeping the guidance",
            guided_record,
            json!({"min_relevance": 0.6, "relevance_guidance": GUIDANCE}),
        ),
        replay(
            "replay changing the guidance",
            guided_record,
            json!({"min_relevance": 0.6, "relevance_guidance": "PRIVATE-guidance"}),
        ),
        replay(
            "replay an edited passage",
            &edited(&|r| r["request"]["documents"][0]["text"] = json!("PRIVATE-tampered")),
            own.clone(),
        ),
        replay(
            "replay a judgment short",
            &edited(&|r| {
                r["judgments"].as_array_mut().unwrap().pop();
            }),
            own.clone(),
        ),
        Case::post(
            "replay with a field missing and one extra",
            "/v1/replay",
            &json!({"record": edited(&|r| {
                r.as_object_mut().unwrap().remove("source");
                r["unexpected"] = json!("PRIVATE-value");
            }), "policy": own, "unexpected_top": "PRIVATE-top"}),
        ),
        Case::post(
            "import without a comparison",
            "/v1/import",
            &json!({"record": record, "policy": own, "comparison": null}),
        ),
        Case::post(
            "import with its comparison",
            "/v1/import",
            &json!({"record": record, "policy": own, "comparison": comparison}),
        ),
        Case::post(
            "import with the policy edited",
            "/v1/import",
            &json!({"record": record, "policy": {"min_relevance": 0.9}, "comparison": comparison}),
        ),
        Case::post(
            "compare (no generation)",
            "/v1/compare",
            &json!({"record": record, "policy": own}),
        ),
    ]
}

// ---------------------------------------------------------------------------------------------------------------
// The comparison.

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 160 {
        format!("{}…", s.chars().take(160).collect::<String>())
    } else {
        s
    }
}

/// Every difference between rag-jev's value `a` and ragsift's `b` under `path`, as `path: rag-jev X, ragsift Y`.
fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                if IGNORED.contains(&k.as_str()) {
                    continue;
                }
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => diff(&p, u, v, out),
                    (Some(u), None) => out.push(format!("{p}: rag-jev {}, ragsift has no such field", short(u))),
                    (None, Some(v)) => out.push(format!("{p}: rag-jev has no such field, ragsift {}", short(v))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), u, v, out);
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            let (f, g) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            if (f - g).abs() >= 1e-9 || f.is_nan() != g.is_nan() {
                out.push(format!("{path}: rag-jev {x}, ragsift {y}"));
            } else if x.is_f64() != y.is_f64() {
                out.push(format!("{path}: rag-jev {x}, ragsift {y} (integer vs float)"));
            }
        }
        _ if a != b => out.push(format!("{path}: rag-jev {}, ragsift {}", short(a), short(b))),
        _ => {}
    }
}

/// What an answer says, in a few words: the status, and the selection, the failure or the first issue.
fn gist((status, body): &Answer) -> String {
    let Ok(v) = body else {
        return format!("{status}, not JSON");
    };
    let selection = (v.get("view").map(|v| &v["selection"]))
        .or_else(|| v.get("selection"))
        .unwrap_or(v);
    let what = if selection.get("decisions").is_some() {
        let code = selection["error_code"]
            .as_str()
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        format!(
            "{}{code} {}",
            selection["status"].as_str().unwrap_or("?"),
            selection["selected_ids"]
        )
    } else if let Some(issue) = v.get("issues").and_then(|i| i.get(0)) {
        format!(
            "{} issue(s), first {} at {}",
            v["issues"].as_array().map_or(0, Vec::len),
            issue["type"],
            issue["loc"]
        )
    } else {
        short(v)
    };
    format!("{status} {what}")
}

fn compare(a: &Answer, b: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    if a.0 != b.0 {
        out.push(format!("status: rag-jev {}, ragsift {}", a.0, b.0));
    }
    if b.0 >= 400 && format!("{:?}", b.1).contains("PRIVATE") {
        out.push(format!("ragsift's {} echoes the input: {:?}", b.0, b.1));
    }
    match (&a.1, &b.1) {
        (Ok(x), Ok(y)) => diff("body", x, y, &mut out),
        (Err(x), Err(y)) if x == y => {}
        (x, y) => out.push(format!("body: rag-jev {x:?}, ragsift {y:?}")),
    }
    out
}

/// Sends each case to both services at once, prints one line per case, and returns the differences.
fn run(
    http: &reqwest::blocking::Client,
    urls: (&str, &str),
    cases: &[Case],
    offset: usize,
    failures: &mut Vec<String>,
) -> Vec<(Case, Answer)> {
    let mut answers = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| send(http, urls.0, case));
            let b = s.spawn(|| send(http, urls.1, case));
            (a.join().unwrap(), b.join().unwrap())
        });
        let differences = compare(&a, &b);
        let n = offset + i + 1;
        if differences.is_empty() {
            println!("same     #{n:02} {}: {}", case.name, gist(&a));
        } else {
            println!("DIFFERS  #{n:02} {}: {}", case.name, differences.join("; "));
            failures.push(format!(
                "#{n:02} {} {}: {}",
                case.method,
                case.name,
                differences.join("\n    ")
            ));
        }
        answers.push((case.clone(), a));
    }
    answers
}

#[test]
fn ragsift_serve_answers_as_rag_jev_serve_does() {
    let rag = common::ragjev::installed();
    let started = Instant::now();
    let jev = Server::with_handler(jev);
    let reference = rag_jev(&rag, &jev.url);
    let ours = ragsift(&jev.url);
    let http = client();
    wait_healthy(&http, &reference.url, "rag-jev serve", || {
        std::fs::read_to_string(&reference.log).unwrap_or_default()
    });
    wait_healthy(&http, &ours.url, "ragsift serve", || ours.log());
    let urls = (reference.url.as_str(), ours.url.as_str());

    let mut failures = Vec::new();
    let first = first_cases();
    let answers = run(&http, urls, &first, 0, &mut failures);
    let second = replay_cases(&rag, &answers);
    run(&http, urls, &second, first.len(), &mut failures);
    let total = first.len() + second.len();
    println!(
        "{} passed, {} failed ({} requests in {:.1} s)",
        total - failures.len(),
        failures.len(),
        total,
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "ragsift serve differs from rag-jev serve:\n{}",
        failures.join("\n")
    );
}

/// The comparison itself: it sees a changed value, a missing field, a status, and an integer for a float, and
/// nothing in the timings.
#[test]
fn the_comparison_sees_differences_but_not_timings() {
    let a: Answer = (200, Ok(json!({"x": [1, {"y": 0.5}], "elapsed_ms": 3.0, "z": 1.0})));
    assert!(compare(&a, &a.clone()).is_empty());
    let timings: Answer = (
        200,
        Ok(json!({"x": [1, {"y": 0.5 + 1e-12}], "elapsed_ms": 9.0, "z": 1.0})),
    );
    assert!(compare(&a, &timings).is_empty());
    for other in [
        json!({"x": [1, {"y": 0.6}], "elapsed_ms": 3.0, "z": 1.0}),
        json!({"x": [1], "elapsed_ms": 3.0, "z": 1.0}),
        json!({"x": [1, {"y": 0.5}], "z": 1}),
        json!({"x": [1, {"y": 0.5, "w": null}], "z": 1.0}),
    ] {
        assert!(!compare(&a, &(200, Ok(other.clone()))).is_empty(), "{other}");
    }
    assert!(!compare(&a, &(201, a.1.clone())).is_empty());
}

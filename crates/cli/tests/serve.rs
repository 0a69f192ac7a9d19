//! `ragsift serve` over real HTTP on loopback, mirroring rag-jev's own service tests: the token, the selection,
//! shadow, 422 without echo, the body limit at its edge, the origin check, bypass against raise, the deadline,
//! replay-only, a slow client, and every served selection stored as a run. The judge is Jev, played by a stand-in
//! on loopback that answers in its documented wire format (rag-jev's selector example: 0.1 / 0.8 / 0.9 / 0.8).
//! Every 200 from `/v1/select` must pass the response validation of rag-jev's TypeScript client.

mod common;

use ragsift_test_support::http;

use common::ragsift;
use common::service::{client, serve_in, Service};
use http::{Reply, Request, Server};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

const TOKEN: &str = "service-secret";
const SCORES: [f64; 4] = [0.1, 0.8, 0.9, 0.8];

fn docs() -> Value {
    (0..4)
        .map(|i| json!({"id": i.to_string(), "text": format!("Source passage {i}"), "metadata": {"page": i}}))
        .collect()
}

fn answer(r: &Request) -> Reply {
    let text = r.json()["state"]["passage"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let i: usize = text.trim_start_matches("Source passage ").parse().unwrap_or(0);
    let body = json!({
        "model": "test-v1",
        "answers": {"relevant": {"type": "noul", "noul": SCORES[i]}},
        "usage": {"input_tokens": 10, "output_tokens": 0},
    });
    Reply::Json(200, vec![], body.to_string())
}

fn serve(jev: &Server, env: &[(&str, &str)], args: &[&str]) -> Service {
    serve_in(std::sync::Arc::new(tempfile::tempdir().unwrap()), &jev.url, env, args)
}

fn post(s: &Service, body: impl Into<reqwest::blocking::Body>, token: bool) -> (u16, Value, String) {
    let mut req = client()
        .post(format!("{}/v1/select", s.url))
        .header("content-type", "application/json")
        .body(body);
    if token {
        req = req.header("authorization", format!("Bearer {TOKEN}"));
    }
    let r = req.send().unwrap();
    let status = r.status().as_u16();
    let text = r.text().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null), text)
}

fn select(s: &Service, request: &Value) -> (u16, Value) {
    let (status, v, _) = post(s, request.to_string(), true);
    if status == 200 {
        ts_client_accepts(request, &v);
    }
    (status, v)
}

fn ids(v: &Value) -> Vec<String> {
    (v.as_array().unwrap_or_else(|| panic!("not a list: {v}")).iter())
        .map(|d| d.get("id").unwrap_or(d).as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_service_contract_over_loopback() {
    let jev = Server::with_handler(answer);
    let s = serve(&jev, &[("RAG_JEV_API_TOKEN", TOKEN)], &[]);
    let http = client();

    // healthz needs no token, and every response carries the three security headers.
    let r = http.get(format!("{}/healthz", s.url)).send().unwrap();
    assert_eq!(r.status(), 200);
    for (h, v) in [
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
    ] {
        assert_eq!(r.headers()[h], v, "{h}");
    }
    assert_eq!(r.json::<Value>().unwrap(), json!({"status": "ok"}));
    let r = http.get(format!("{}/v1/config", s.url)).send().unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()["cache-control"], "no-store", "errors carry the headers too");
    let r = http
        .get(format!("{}/v1/config", s.url))
        .bearer_auth(TOKEN)
        .send()
        .unwrap();
    assert_eq!(r.json::<Value>().unwrap()["replay_only"], false);

    // Without the token (or with a near miss) a selection is refused; the judge is never asked.
    let request = json!({"query": "question", "documents": docs(), "min_relevance": 0.2});
    let (status, v, _) = post(&s, request.to_string(), false);
    assert_eq!((status, v), (401, json!({"detail": "invalid_service_token"})));
    let r = http
        .post(format!("{}/v1/select", s.url))
        .header("authorization", format!("bearer {TOKEN}"))
        .header("content-type", "application/json")
        .body(request.to_string())
        .send()
        .unwrap();
    assert_eq!(r.status(), 401, "the scheme is case-sensitive");
    assert!(jev.requests().is_empty());

    // With it: rag-jev's selection, exactly what `ragsift select` prints for the same request.
    let (status, v) = select(&s, &request);
    assert_eq!(status, 200, "{v}");
    assert_eq!(ids(&v["selected_ids"]), ["1", "2", "3"]);
    assert_eq!(v["status"], "applied");
    let (_, cli) = common::run_json(
        ragsift(s.home.path())
            .args(["select", "-", "--judge", "jev"])
            .env("TYPESAFE_API_KEY", "sk-test")
            .env("TYPESAFE_BASE_URL", &jev.url)
            .stdin(std::fs::File::open(write_temp(&request)).unwrap()),
    );
    let without_time = |v: &Value| {
        let mut v = v.clone();
        v["elapsed_ms"] = Value::Null;
        v
    };
    assert_eq!(without_time(&v), without_time(&cli), "served and CLI results differ");

    // Shadow: everything back in input order.
    let (status, v) = select(
        &s,
        &json!({"query": "q", "documents": docs(), "min_relevance": 0.2, "shadow": true}),
    );
    assert_eq!((status, v["status"].as_str()), (200, Some("shadow")));
    assert_eq!(ids(&v["documents"]), ["0", "1", "2", "3"]);

    // 422 lists the issues and never echoes the input.
    let (status, v, text) = post(
        &s,
        json!({"query": "q", "documents": docs(), "min_relevance": 9, "extra": "PRIVATE"}).to_string(),
        true,
    );
    assert_eq!((status, v["error"].as_str()), (422, Some("invalid_request")), "{text}");
    assert!(!text.contains("PRIVATE"), "{text}");
    assert!(
        v["issues"].as_array().unwrap().iter().all(|i| i["loc"][0] == "body"),
        "{text}"
    );
    let (status, v, _) = post(&s, "{\"query\": ", true);
    assert_eq!((status, v["issues"][0]["type"].as_str()), (422, Some("json_invalid")));
    // As FastAPI: a body without a JSON content type is never read as JSON (after the token, as rag-jev).
    for content_type in [Some("text/plain"), None] {
        let mut r = http.post(format!("{}/v1/select", s.url)).body(request.to_string());
        if let Some(ct) = content_type {
            r = r.header("content-type", ct);
        }
        assert_eq!(r.try_clone().unwrap().send().unwrap().status(), 401, "{content_type:?}");
        let v: Value = r.bearer_auth(TOKEN).send().unwrap().json().unwrap();
        assert_eq!(
            v["issues"],
            json!([{"loc": ["body"], "type": "model_attributes_type",
                "message": "Input should be a valid dictionary or object to extract fields from"}]),
            "{content_type:?}"
        );
    }
    // pydantic's type and loc for each check, and no value sent in any message (serde's included).
    for (field, value, kind) in [
        ("mode", json!("PRIVATE-7f3a"), "literal_error"),
        ("query", json!(12345), "string_type"),
        ("min_relevance", json!("PRIVATE-1"), "float_parsing"),
        ("top_n", json!(0), "greater_than_equal"),
        ("shadow", json!("PRIVATE-2"), "bool_parsing"),
        (
            "documents",
            json!([{"id": "a", "text": "PRIVATE-3", "x": "PRIVATE-4"}]),
            "extra_forbidden",
        ),
    ] {
        let mut body = json!({"query": "PRIVATE-q", "documents": docs(), "min_relevance": 0.2});
        body[field] = value;
        let (status, v, text) = post(&s, body.to_string(), true);
        assert_eq!((status, v["issues"][0]["type"].as_str()), (422, Some(kind)), "{text}");
        assert_eq!(v["issues"][0]["loc"][1], field, "{text}");
        assert!(!text.contains("PRIVATE") && !text.contains("12345"), "{text}");
    }
    let (_, v, _) = post(&s, json!({"query": "q"}).to_string(), true);
    assert_eq!(
        v["issues"],
        json!([{"loc": ["body", "documents"], "type": "missing", "message": "Field required"}])
    );

    // The body limit, counted while reading: 2,000,000 bytes pass, 2,000,001 do not.
    let small = json!({"query": "q", "documents": docs(), "min_relevance": 0.2}).to_string();
    let exact = format!("{small}{}", " ".repeat(2_000_000 - small.len()));
    assert_eq!(exact.len(), 2_000_000);
    let (status, _, text) = post(&s, exact, true);
    assert_eq!(status, 200, "{text}");
    let (status, v, _) = post(&s, "x".repeat(2_000_001), true);
    assert_eq!((status, v), (413, json!({"error": "request_too_large"})));

    // A cross-origin POST is refused before anything is read; the service's own origin passes.
    let origin = |o: &str| {
        http.post(format!("{}/v1/select", s.url))
            .bearer_auth(TOKEN)
            .header("origin", o)
            .header("content-type", "application/json")
            .body(request.to_string())
            .send()
            .unwrap()
    };
    let r = origin("https://untrusted.example");
    assert_eq!(
        (r.status().as_u16(), r.json::<Value>().unwrap()),
        (403, json!({"error": "cross_origin_request"}))
    );
    assert_eq!(origin(&s.url).status(), 200);

    // The service says what it does in the library's status file (the app's status line reads it).
    let status = std::fs::read_to_string(s.home.path().join("serve-status.json")).unwrap();
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(
        (status["address"].as_str(), status["recording"].as_bool()),
        (Some(s.url.as_str()), Some(true))
    );
    assert_eq!(status["token"], true);

    // Every 200 was stored as a run of origin `served`, made by the client that asked, and replays to the same
    // selection from its judgments.
    let (_, runs) = common::run_json(ragsift(s.home.path()).args(["runs", "list", "--json"]));
    let runs = runs["runs"].as_array().unwrap().clone();
    assert_eq!(runs.len(), 4, "{runs:?}");
    for r in &runs {
        let (_, run) =
            common::run_json(ragsift(s.home.path()).args(["runs", "show", r["id"].as_str().unwrap(), "--json"]));
        assert_eq!(run["origin"], "served");
        assert_eq!(run["made_by"], "serve-test/1.0");
        assert_eq!(run["candidates"].as_array().unwrap().len(), 4);
    }
    // The first served selection replays from its stored judgments: at its own policy to what the client got,
    // and at a stricter threshold to fewer passages, with no judge call.
    let first = runs.last().unwrap()["id"].as_str().unwrap().to_string();
    let asked = jev.requests().len();
    let replay = |extra: &[&str]| {
        let (code, v) = common::run_json(ragsift(s.home.path()).args(["replay", &first, "--json"]).args(extra));
        assert_eq!(code, 0, "{v}");
        ids(&v["selection"]["selected_ids"])
    };
    assert_eq!(replay(&[]), ["1", "2", "3"]);
    assert_eq!(replay(&["--min-relevance", "0.85"]), ["2"]);
    assert_eq!(jev.requests().len(), asked, "a replay called the judge");
}

fn write_temp(v: &Value) -> std::path::PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    let path = dir.join("request.json");
    std::fs::write(&path, v.to_string()).unwrap();
    path
}

#[test]
fn bypass_raise_deadline_and_replay_only() {
    let failing = Server::with_handler(|_| Reply::Json(500, vec![], "{\"error\":\"boom\"}".into()));
    let request = json!({"query": "q", "documents": docs(), "mode": "rerank", "top_n": 1});

    // passthrough (rag-jev's service default): 200, bypassed, every document despite top_n 1.
    let s = serve(&failing, &[], &[]);
    let (status, v) = select(&s, &request);
    assert_eq!((status, v["status"].as_str()), (200, Some("bypassed")), "{v}");
    assert_eq!(ids(&v["documents"]), ["0", "1", "2", "3"]);
    assert!(v["error_code"].is_string());
    // raise: 502 with the failure's code only.
    let s = serve(&failing, &[("RAG_JEV_ON_ERROR", "raise")], &[]);
    let (status, v, _) = post(&s, request.to_string(), false);
    assert_eq!(status, 502, "{v}");
    assert!(v["detail"].as_str().is_some_and(|c| !c.is_empty()), "{v}");

    // A judge slower than the deadline: 504 under raise, a bypass naming the deadline under passthrough.
    let slow = Server::with_handler(|r| Reply::Delayed(Duration::from_millis(1500), Box::new(answer(r))));
    let s = serve(
        &slow,
        &[("RAG_JEV_TIMEOUT_MS", "300"), ("RAG_JEV_ON_ERROR", "raise")],
        &[],
    );
    let started = Instant::now();
    let (status, v, _) = post(&s, request.to_string(), false);
    assert_eq!((status, v), (504, json!({"detail": "deadline_exceeded"})));
    assert!(
        started.elapsed() < Duration::from_millis(1400),
        "the deadline was not kept"
    );
    let s = serve(&slow, &[("RAG_JEV_TIMEOUT_MS", "300")], &[]);
    let (status, v) = select(&s, &request);
    assert_eq!(
        (status, v["status"].as_str(), v["error_code"].as_str()),
        (200, Some("bypassed"), Some("deadline_exceeded"))
    );

    // Replay-only: 503, and no judge is asked.
    let fresh = Server::with_handler(answer);
    let s = serve(&fresh, &[], &["--replay-only"]);
    let (status, v, _) = post(&s, request.to_string(), false);
    assert_eq!(
        (status, v),
        (503, json!({"detail": "replay_only_live_scoring_disabled"}))
    );
    assert!(fresh.requests().is_empty());
}

/// rag-jev's one semaphore per process: it bounds the upstream calls (one per passage), not the selections, and
/// the deadline covers the wait for a slot; no call starts after it, so none keeps running (or costing).
#[test]
fn one_bound_on_upstream_calls_across_requests_and_none_after_the_deadline() {
    // Two selections of four passages each, at once, under a bound of 2: both are served, and Jev sees exactly two
    // calls in flight at the peak (a bound per selection would let one selection send four).
    let jev = Server::with_handler(|r| Reply::Delayed(Duration::from_millis(150), Box::new(answer(r))));
    let s = serve(&jev, &[("RAG_JEV_MAX_CONCURRENCY", "2")], &[]);
    let request = json!({"query": "q", "documents": docs(), "min_relevance": 0.2});
    std::thread::scope(|scope| {
        let both: Vec<_> = (0..2).map(|_| scope.spawn(|| select(&s, &request))).collect();
        for one in both {
            let (status, v) = one.join().unwrap();
            assert_eq!((status, v["status"].as_str()), (200, Some("applied")), "{v}");
        }
    });
    assert_eq!(jev.requests().len(), 8);
    assert_eq!(jev.max_in_flight.load(std::sync::atomic::Ordering::SeqCst), 2);

    // One slot, a 400 ms judge, a 600 ms deadline: two passages are asked, the request is bypassed at the deadline,
    // and the other two are never sent, then or later.
    let slow = Server::with_handler(|r| Reply::Delayed(Duration::from_millis(400), Box::new(answer(r))));
    let s = serve(
        &slow,
        &[("RAG_JEV_MAX_CONCURRENCY", "1"), ("RAG_JEV_TIMEOUT_MS", "600")],
        &[],
    );
    let started = Instant::now();
    let (status, v) = select(&s, &request);
    assert_eq!(
        (status, v["status"].as_str(), v["error_code"].as_str()),
        (200, Some("bypassed"), Some("deadline_exceeded")),
        "{v}"
    );
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "the deadline was not kept"
    );
    std::thread::sleep(Duration::from_millis(1500));
    let asked = slow.requests().len();
    assert!(
        (1..=2).contains(&asked),
        "{asked} calls for a 600 ms budget of 400 ms calls"
    );
    assert_eq!(slow.max_in_flight.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_slow_client_is_cut_off_while_others_are_served() {
    let jev = Server::with_handler(answer);
    let s = serve(&jev, &[], &[]);
    let address = s.url.trim_start_matches("http://").to_string();
    let mut slow = std::net::TcpStream::connect(&address).unwrap();
    write!(slow, "POST /v1/select HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{").unwrap();
    let started = Instant::now();
    let trickle = std::thread::spawn(move || {
        for _ in 0..30 {
            if slow.write_all(b" ").is_err() {
                break;
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        let mut answer = String::new();
        let _ = slow.read_to_string(&mut answer);
        answer
    });
    // Meanwhile another client is served at once.
    let (status, _) = select(&s, &json!({"query": "q", "documents": docs(), "min_relevance": 0.2}));
    assert_eq!(status, 200);
    assert!(started.elapsed() < Duration::from_secs(5));
    let answer = trickle.join().unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// The response validation of rag-jev's TypeScript client (`validateResponse`, research file §5): a response
/// that breaks any rule is one that client rejects.
fn ts_client_accepts(request: &Value, v: &Value) {
    let sent = request["documents"].as_array().unwrap();
    let status = v["status"].as_str().unwrap_or_else(|| panic!("status: {v}"));
    assert!(["applied", "shadow", "bypassed"].contains(&status), "{status}");
    let bypassed = status == "bypassed";
    for k in ["documents", "decisions", "models"] {
        assert!(v[k].is_array(), "{k}");
    }
    assert!(v["models"].as_array().unwrap().iter().all(Value::is_string));
    assert!(v["policy_version"].is_string() && v["prompt_version"].is_string());
    assert!(v["elapsed_ms"].as_f64().is_some_and(|x| x.is_finite() && x >= 0.0));
    for k in ["input_characters", "returned_characters"] {
        assert!(v[k].is_u64(), "{k}");
    }
    let obj = v.as_object().unwrap();
    assert!(
        obj.contains_key("selected_characters")
            && (v["selected_characters"].is_null() || v["selected_characters"].is_u64())
    );
    assert!(obj.contains_key("error_code") && (v["error_code"].is_null() || v["error_code"].is_string()));
    for k in ["input_tokens", "output_tokens", "completed_documents"] {
        assert!(v["usage"][k].is_u64(), "usage.{k}");
    }
    assert!(v["usage"]["complete"].is_boolean());
    // Returned documents: known, unique, and exactly as sent.
    let returned = ids(&v["documents"]);
    assert_eq!(returned.iter().collect::<HashSet<_>>().len(), returned.len());
    for d in v["documents"].as_array().unwrap() {
        let s = sent
            .iter()
            .find(|s| s["id"] == d["id"])
            .unwrap_or_else(|| panic!("unknown id {}", d["id"]));
        assert_eq!(d["text"], s["text"]);
        assert_eq!(d["metadata"], *s.get("metadata").unwrap_or(&json!({})));
        assert_eq!(d["group_id"], *s.get("group_id").unwrap_or(&Value::Null));
        assert_eq!(d["pinned"], *s.get("pinned").unwrap_or(&json!(false)));
    }
    let decisions = v["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), sent.len());
    let selected: Option<Vec<String>> = (!v["selected_ids"].is_null()).then(|| ids(&v["selected_ids"]));
    assert_eq!(selected.is_none(), bypassed, "selected_ids is null iff bypassed");
    let order: Vec<String> = match (&selected, status) {
        (Some(s), "applied") => s.clone(),
        _ => sent.iter().map(|d| d["id"].as_str().unwrap().to_string()).collect(),
    };
    assert_eq!(returned, order, "returned order");
    let fusion = request["mode"] == "fusion";
    let reasons = [
        "retained",
        "below_threshold",
        "beyond_top_n",
        "beyond_token_budget",
        "pinned",
        "group_retained",
        "bypassed",
    ];
    for (i, d) in decisions.iter().enumerate() {
        assert_eq!(d["id"], sent[i]["id"]);
        assert_eq!(d["input_index"], i);
        let id = sent[i]["id"].as_str().unwrap().to_string();
        assert_eq!(d["returned"], returned.contains(&id));
        match &selected {
            None => assert!(d["selected"].is_null()),
            Some(s) => assert_eq!(d["selected"], s.contains(&id)),
        }
        if bypassed {
            assert_eq!(d["reason"], "bypassed");
        } else {
            assert!(!d["relevance"].is_null() && !d["model"].is_null());
            assert!(!d["input_tokens"].is_null() && !d["output_tokens"].is_null());
        }
        assert!(reasons.contains(&d["reason"].as_str().unwrap()), "{}", d["reason"]);
        if let Some(r) = d["relevance"].as_f64() {
            assert!((0.0..=1.0).contains(&r));
        }
        if !fusion {
            // rag-jev 0.2.0's Decision forbids extra fields: these belong to fusion mode only.
            for field in ["original_rank", "jev_rank", "fusion_score"] {
                assert!(d.get(field).is_none(), "{field} outside fusion: {d}");
            }
        }
        assert!(d["original_rank"].is_null() || d["original_rank"] == i + 1);
        if let Some(r) = d["jev_rank"].as_u64() {
            assert!((1..=sent.len() as u64).contains(&r));
        }
        if let Some(f) = d["fusion_score"].as_f64() {
            assert!(f.is_finite() && f >= 0.0);
        }
        if fusion && !bypassed {
            assert!(!d["original_rank"].is_null() && !d["jev_rank"].is_null() && !d["fusion_score"].is_null());
        }
    }
}

#[test]
fn served_runs_are_kept_within_the_retention_and_labelled_runs_stay() {
    let jev = Server::with_handler(answer);
    let s = serve(&jev, &[], &["--retain-runs", "2"]);
    for q in ["first", "second", "third", "fourth"] {
        let (status, _) = select(&s, &json!({"query": q, "documents": docs(), "min_relevance": 0.2}));
        assert_eq!(status, 200);
    }
    let listed = |home: &std::path::Path| -> Vec<(String, String)> {
        let (_, v) = common::run_json(ragsift(home).args(["runs", "list", "--json"]));
        (v["runs"].as_array().unwrap().iter())
            .map(|r| {
                (
                    r["id"].as_str().unwrap().to_string(),
                    r["origin"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let before = listed(s.home.path());
    assert_eq!(before.len(), 4);
    assert!(before.iter().all(|(_, o)| o == "served"), "{before:?}");
    // The last in the list (the oldest) is labelled; an imported run is not served and is never pruned.
    let oldest = before[3].0.clone();
    let out = ragsift(s.home.path())
        .args(["runs", "label", &oldest, "--relevant", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let home = s.home.path().to_path_buf();
    let candidates = home.join("candidates.json");
    std::fs::write(
        &candidates,
        json!({"query": "imported", "documents": docs(), "min_relevance": 0.2}).to_string(),
    )
    .unwrap();
    let out = ragsift(&home)
        .args(["runs", "import-candidates"])
        .arg(&candidates)
        .args(["--judge", "jev"])
        .env("TYPESAFE_API_KEY", "sk-test")
        .env("TYPESAFE_BASE_URL", &jev.url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A restart prunes to the retention: the newest two served runs, the labelled one, and the imported one.
    let home = s.home.clone();
    drop(s);
    let again = serve_in(home, &jev.url, &[], &["--retain-runs", "2"]);
    let after = listed(again.home.path());
    let kept: Vec<&str> = after.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(after.len(), 4, "{after:?}");
    for id in [&before[0].0, &before[1].0, &oldest] {
        assert!(kept.contains(&id.as_str()), "{id} was pruned: {after:?}");
    }
    assert!(
        !kept.contains(&before[2].0.as_str()),
        "the unlabelled third-newest stayed"
    );
    assert_eq!(after.iter().filter(|(_, o)| o == "imported").count(), 1);
}

#[test]
fn a_kill_during_a_served_request_leaves_the_library_consistent() {
    let slow = Server::with_handler(|r| Reply::Delayed(Duration::from_millis(700), Box::new(answer(r))));
    let mut s = serve(&slow, &[("RAG_JEV_TIMEOUT_MS", "30000")], &[]);
    let (status, _) = select(
        &s,
        &json!({"query": "before", "documents": docs(), "min_relevance": 0.2}),
    );
    assert_eq!(status, 200);
    let url = s.url.clone();
    let pending = std::thread::spawn(move || {
        client()
            .post(format!("{url}/v1/select"))
            .header("content-type", "application/json")
            .body(json!({"query": "during", "documents": docs(), "min_relevance": 0.2}).to_string())
            .send()
            .map(|r| r.status().as_u16())
    });
    std::thread::sleep(Duration::from_millis(400));
    s.child.kill().unwrap(); // SIGKILL, mid-request
    s.child.wait().unwrap();
    assert!(pending.join().unwrap().is_err(), "the killed service answered");
    let (code, doctor) = common::run_json(ragsift(s.home.path()).args(["doctor", "--json"]));
    let library = (doctor["checks"].as_array().unwrap().iter())
        .find(|c| c["name"] == "library")
        .unwrap();
    assert_eq!(library["ok"], true, "{doctor}");
    let (_, runs) = common::run_json(ragsift(s.home.path()).args(["runs", "list", "--json"]));
    assert_eq!(
        runs["runs"].as_array().unwrap().len(),
        1,
        "only the finished request is a run"
    );
    let _ = code;
}

#[test]
fn the_saved_policy_applies_to_the_next_request_without_a_restart() {
    let jev = Server::with_handler(answer);
    let s = serve(&jev, &[], &["--policy", "saved"]);
    let settings = s.home.path().join("settings.json");
    let save = |policy: Value| std::fs::write(&settings, json!({ "policy": policy }).to_string()).unwrap();
    // The request asks for 0.2; the saved policy's 0.85 applies, and its version says so.
    let request = json!({"query": "q", "documents": docs(), "min_relevance": 0.2});
    save(json!({"mode": "filter", "min_relevance": 0.85}));
    let (status, strict) = select(&s, &request);
    assert_eq!(status, 200, "{strict}");
    assert_eq!(ids(&strict["selected_ids"]), ["2"]);
    // Saved again (as the app's Replay does): the next request gets it, no restart.
    save(json!({"mode": "rerank", "top_n": 2}));
    let (_, reranked) = select(&s, &request);
    assert_eq!(ids(&reranked["selected_ids"]), ["2", "1"]);
    assert_ne!(strict["policy_version"], reranked["policy_version"]);
    // Spring's classify is not rag-jev's to apply: 503, and the judge is not asked.
    let asked = jev.requests().len();
    save(json!({"mode": "classify"}));
    let (status, v, _) = post(&s, request.to_string(), false);
    assert_eq!((status, v), (503, json!({"detail": "saved_policy_not_applicable"})));
    assert_eq!(jev.requests().len(), asked);
}

const KEY: &str = "sk-proxy-secret-4711";

/// Jev as Spring's filter and reranker meet it: six passages with the scores below, 429 for a passage about rate
/// limits, 500 for one about an outage, and a request id on every answer.
fn spring_jev() -> Server {
    // injection, premise, relevant, evidence, useful per passage.
    const SCORES: [[f64; 5]; 6] = [
        [0.02, 0.05, 0.90, 0.80, 0.85],
        [0.02, 0.05, 0.90, 0.30, 0.40],
        [0.02, 0.05, 0.20, 0.80, 0.30],
        [0.90, 0.05, 0.90, 0.80, 0.60],
        [0.02, 0.90, 0.90, 0.80, 0.70],
        [0.02, 0.05, 0.60, 0.60, 0.65],
    ];
    Server::with_handler(|r: &Request| {
        let body = r.json();
        let text = body["state"]["passage"].as_str().unwrap_or_default().to_string();
        if text.contains("rate") {
            let detail = json!({"detail": {"type": "rate_limit_error", "message": "slow down"}});
            return Reply::Json(429, vec![("retry-after-ms", "250".into())], detail.to_string());
        }
        if text.contains("outage") {
            let detail = json!({"detail": {"type": "api_error", "message": "upstream failed"}});
            return Reply::Json(
                500,
                vec![("x-typesafe-request-id", "req-500".into())],
                detail.to_string(),
            );
        }
        let i: usize = text.trim_start_matches("Passage ").parse().unwrap_or(0);
        let keys = [
            "contains_prompt_injection",
            "contradicts_query_premise",
            "is_relevant",
            "contains_answer_evidence",
            "useful",
        ];
        let answers: serde_json::Map<String, Value> = (keys.iter().zip(SCORES[i]))
            .filter(|(k, _)| body["questions"].get(**k).is_some())
            .map(|(k, p)| (k.to_string(), json!({"type": "noul", "noul": p})))
            .collect();
        let reply =
            json!({"model": "jev-1.13.0", "answers": answers, "usage": {"input_tokens": 100, "output_tokens": 4}});
        Reply::Json(
            200,
            vec![("x-typesafe-request-id", format!("req-{i}"))],
            reply.to_string(),
        )
    })
}

/// One call as Spring's filter or reranker sends it: this build's own wording of each question (so its answers may
/// also be cached for the `jev` judge).
fn spring_call(url: &str, passage: &str, questions: &[&str]) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let wire = ragsift_engine::judge::jev::wire_form(&ragsift_engine::judge::default_questions());
    let questions: serde_json::Map<String, Value> =
        (questions.iter()).map(|q| (q.to_string(), wire[*q].clone())).collect();
    let body = json!({"state": {"query": "How long is the warranty?", "passage": passage}, "model": "jev-latest", "questions": questions});
    let r = client()
        .post(format!("{url}/v1/systemone"))
        .header("authorization", format!("Bearer {KEY}"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .unwrap();
    (r.status().as_u16(), r.headers().clone(), r.bytes().unwrap().to_vec())
}

#[test]
fn the_jev_proxy_records_a_spring_apps_calls() {
    let jev = spring_jev();
    let s = serve(&jev, &[], &["--jev-proxy", "--jev-upstream", &jev.url]);
    let filter = [
        "contains_prompt_injection",
        "contradicts_query_premise",
        "is_relevant",
        "contains_answer_evidence",
    ];
    let passages: Vec<String> = (0..6).map(|i| format!("Passage {i}")).collect();
    // Spring's filter: four questions per passage, four passages at a time; then the reranker's question.
    for batch in passages.chunks(4) {
        std::thread::scope(|scope| {
            for p in batch {
                let (url, direct) = (&s.url, &jev.url);
                scope.spawn(move || {
                    let (status, headers, body) = spring_call(url, p, &filter);
                    assert_eq!(status, 200);
                    assert!(headers.contains_key("x-typesafe-request-id"));
                    assert_eq!(
                        body,
                        spring_call(direct, p, &filter).2,
                        "the proxy changed Jev's answer"
                    );
                });
            }
        });
    }
    for p in &passages {
        let (status, _, body) = spring_call(&s.url, p, &["useful"]);
        assert_eq!(status, 200);
        assert_eq!(body, spring_call(&jev.url, p, &["useful"]).2);
    }
    // Jev's errors pass through as they are: status, body and rate-limit headers.
    let (status, headers, body) = spring_call(&s.url, "Passage about rate limits", &filter);
    let (_, _, direct) = spring_call(&jev.url, "Passage about rate limits", &filter);
    assert_eq!((status, headers["retry-after-ms"].to_str().unwrap()), (429, "250"));
    assert_eq!(body, direct);
    let (status, headers, body) = spring_call(&s.url, "Passage about an outage", &filter);
    let (_, _, direct) = spring_call(&jev.url, "Passage about an outage", &filter);
    assert_eq!(
        (status, headers["x-typesafe-request-id"].to_str().unwrap()),
        (500, "req-500")
    );
    assert_eq!(body, direct);
    for r in jev.requests() {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {KEY}").as_str()),
            "the caller's key goes up"
        );
    }

    // The calls became one run: six candidates in the order they came, decided by Spring's classify at its
    // defaults (injection 0.70, premise 0.70, relevance 0.45, evidence 0.55).
    let started = Instant::now();
    let run = loop {
        let (_, runs) = common::run_json(ragsift(s.home.path()).args(["runs", "list", "--json"]));
        if let Some(r) = runs["runs"].as_array().unwrap().first() {
            break r["id"].as_str().unwrap().to_string();
        }
        assert!(started.elapsed() < Duration::from_secs(10), "no run recorded");
        std::thread::sleep(Duration::from_millis(200));
    };
    let (_, trace) = common::run_json(ragsift(s.home.path()).args(["runs", "show", &run, "--json"]));
    assert_eq!(trace["origin"], "served");
    assert_eq!(trace["judge"]["judge"], "jev");
    // Concurrent calls arrive in any order: the candidates are the passages as they came, each with its reason.
    let texts: Vec<String> = (trace["candidates"].as_array().unwrap().iter())
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = texts.clone();
    sorted.sort();
    assert_eq!(sorted, passages);
    let reasons = |v: &Value| -> Vec<String> {
        let by_position: Vec<String> = (v["decisions"].as_array().unwrap().iter())
            .map(|d| d["reason"].as_str().unwrap().to_string())
            .collect();
        // In passage order (Passage 0 … 5).
        passages
            .iter()
            .map(|p| by_position[texts.iter().position(|t| t == p).unwrap()].clone())
            .collect()
    };
    assert_eq!(
        reasons(&trace),
        [
            "retained",
            "no_evidence",
            "not_relevant",
            "injection",
            "conflicting",
            "retained"
        ]
    );
    // A stricter relevance threshold changes the decisions from the recorded answers: no call to Jev.
    let calls = jev.requests().len();
    let (code, replay) =
        common::run_json(ragsift(s.home.path()).args(["replay", &run, "--threshold", "is_relevant=0.7", "--json"]));
    assert_eq!(code, 0, "{replay}");
    assert_eq!(reasons(&replay)[5], "not_relevant");
    assert_eq!(jev.requests().len(), calls);

    // Answers to this build's own questions are in the judgment cache, under the keys the `jev` judge looks up.
    {
        use ragsift_engine::judge::{JevJudge, JevRequest};
        let lookup = |k: &str| (k == "TYPESAFE_API_KEY").then(|| "sk-any".to_string());
        let config = ragsift_engine::judge::jev::JevConfig::from_lookup(lookup).unwrap();
        let judge = JevJudge::with_request(config, JevRequest::Spring).unwrap();
        let hash = |t: &str| ragsift_engine::ids::sha256_hex(t.as_bytes());
        let lib = ragsift_engine::Library::open(s.home.path(), Default::default()).unwrap();
        let q = hash("How long is the warranty?");
        for (i, evidence) in [(0, 0.80), (1, 0.30)] {
            let key = ragsift_engine::pipeline::judging::cache_key(
                &judge,
                "contains_answer_evidence",
                &q,
                &hash(&passages[i]),
            );
            let cached = lib
                .store()
                .judgment(&key)
                .unwrap()
                .unwrap_or_else(|| panic!("passage {i} not cached"));
            assert_eq!(
                (cached.probability, cached.answered_by.as_str()),
                (evidence, "jev-1.13.0")
            );
        }
    }
    let (_, cleared) = common::run_json(ragsift(s.home.path()).args(["cache", "clear", "--json"]));
    assert_eq!(cleared["cleared"], 30, "six passages, five questions each");

    // The key is nowhere in the library: the database, the runs, an export.
    let (_, export) = (
        0,
        ragsift(s.home.path()).args(["runs", "export", &run]).output().unwrap(),
    );
    assert!(!String::from_utf8_lossy(&export.stdout).contains(KEY));
    for entry in common::walk(s.home.path()) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "the key is in {}",
            entry.display()
        );
    }
    // Nor in the service's log.
    assert!(!s.log().contains(KEY), "{}", s.log());
}

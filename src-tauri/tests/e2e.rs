//! The real app end to end, in a real window under Xvfb, driven through tauri-driver + WebKitWebDriver: ingest a
//! fixture PDF through the UI, ask, inspect, drag a threshold and see a chunk's reason change with no new request
//! to the judge (a loopback server speaking Jev's wire format). Screenshots of each view land in
//! `test-artifacts/e2e/`. Needs `Xvfb`, `WebKitWebDriver` and `tauri-driver` (scripts/setup.sh installs them).

#[path = "support/app.rs"]
mod app;
#[path = "support/big_run.rs"]
mod big_run;
#[path = "../../crates/engine/tests/common/http.rs"]
mod http;
#[path = "support/repaint.rs"]
mod repaint;
#[path = "support/webdriver.rs"]
mod webdriver;
#[path = "support/xwd.rs"]
mod xwd;

use app::{launch, repo, window_test};
use http::{jev_judgment, Request, Server};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};
use webdriver::Session;

/// Jev at the HTTP boundary: every passage relevant at 0.60 with evidence 0.80, so the default policy keeps it
/// and an is_relevant threshold of 0.75 drops it. rag-jev's own request (the `relevant` question, for imported
/// candidates) is answered 0.9 for a passage about refunds and 0.1 otherwise.
fn jev_server() -> Server {
    Server::with_handler(|r: &Request| {
        let body: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
        if body["questions"].get("relevant").is_none() {
            return jev_judgment(0.60, 0.80, 0.70);
        }
        let text = body["state"]["passage"]["text"].as_str().unwrap_or_default();
        let p = if text.contains("refund") { 0.9 } else { 0.1 };
        let reply = json!({"model": "jev-1.13.0", "answers": {"relevant": {"type": "noul", "noul": p}},
            "usage": {"input_tokens": 40, "output_tokens": 1}});
        http::Reply::Json(200, vec![], reply.to_string())
    })
}

fn reasons(s: &Session, css: &str) -> Vec<(String, String)> {
    s.find_all(css)
        .iter()
        .map(|e| {
            (
                s.attribute(e, "data-chunk-id").unwrap_or_default(),
                s.attribute(e, "data-reason").unwrap_or_default(),
            )
        })
        .collect()
}

/// Ingests one file through the Library view's path field and waits until it is listed.
fn ingest(s: &Session, file: &Path, long: Duration) {
    s.click("[data-testid=nav-library]");
    s.type_into(
        "[data-testid=ingest-path]",
        file.canonicalize().unwrap().to_str().unwrap(),
    );
    s.click("[data-testid=ingest-add]");
    let row = s.wait("[data-testid=file-row][data-status]", long);
    assert_eq!(s.attribute(&row, "data-status").as_deref(), Some("ingested"));
    s.wait("[data-testid=doc-row]", Duration::from_secs(20));
}

/// Asks in Chat and waits for the streamed answer to finish; returns its text.
fn ask(s: &Session, question: &str, long: Duration) -> String {
    s.click("[data-testid=nav-chat]");
    s.type_into("[data-testid=chat-input]", question);
    s.click("[data-testid=chat-send]");
    let answer = s.wait("[data-testid=answer][data-state=done]", long);
    assert!(s.attribute(&answer, "data-run-id").is_some_and(|id| !id.is_empty()));
    s.text(&answer)
}

#[test]
fn a_real_paper_with_the_offline_judge() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let app = launch(home.path(), &[]);
    let s = &app.session;
    let long = Duration::from_secs(300);
    ingest(s, &repo().join("fixtures/qa/documents/TLSH_CTC_final.pdf"), long);
    let answer = ask(
        s,
        "How many bits is the hash value Ssdeep computes for each segment of a file?",
        long,
    );
    assert!(
        answer.contains("6 bit"),
        "the extractive answer quotes the evidence: {answer}"
    );
    assert!(!answer.contains("Context information"), "{answer}");
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "2-chat");
    s.click("[data-testid=open-inspector]");
    s.wait("[data-testid=judge-row]", Duration::from_secs(20));
    assert!(
        !s.find_all("[data-testid=not-assessed]").is_empty(),
        "the contradicted premise shows as not assessed"
    );
    let defaults = s.wait("[data-testid=judge-defaults-source]", Duration::from_secs(5));
    assert!(s.text(&defaults).contains("local judge"), "{}", s.text(&defaults));
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "3-inspector");

    // The CLI ingests into the same library while the app is open: the Library view follows without a restart,
    // and the app's next question retrieves the new document.
    s.click("[data-testid=nav-library]");
    let rows = s.wait_all("[data-testid=doc-row]", 1, Duration::from_secs(20));
    let notes = tempfile::tempdir().unwrap();
    let note = notes.path().join("skerryvore.md");
    std::fs::write(
        &note,
        "# Skerryvore log\n\nThe keeper of the Skerryvore lighthouse logs the fog signal every 37 minutes, and \
         reports each missed signal to the Northern Lighthouse Board.\n",
    )
    .unwrap();
    let cli = std::env::current_exe().unwrap().parent().unwrap().join("../ragsift");
    let out = std::process::Command::new(&cli)
        .arg("--home")
        .arg(home.path())
        .arg("ingest")
        .arg(&note)
        .output()
        .expect("the ragsift CLI is built next to this test (cargo test --workspace)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let followed = s.wait_all("[data-testid=doc-row]", rows + 1, Duration::from_secs(10));
    assert_eq!(followed, rows + 1, "the Library view shows the CLI's document");
    // The chat keeps the first answer: wait for a second one, and read that.
    s.click("[data-testid=nav-chat]");
    s.type_into(
        "[data-testid=chat-input]",
        "How often does the keeper of the Skerryvore lighthouse log the fog signal?",
    );
    s.click("[data-testid=chat-send]");
    let done = "[data-testid=answer][data-state=done]";
    assert_eq!(s.wait_all(done, 2, long), 2, "a second answer");
    let answers = s.find_all(done);
    let answer = s.text(answers.last().unwrap());
    assert!(
        answer.contains("37 minutes"),
        "the app retrieves what the CLI ingested: {answer}"
    );
    shots.take(s, "4-followed-cli");
    s.quit();
}

#[test]
fn ingest_ask_inspect_and_replay_in_the_real_window() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let judge = jev_server();
    let app = launch(
        home.path(),
        &[("TYPESAFE_API_KEY", "e2e-test-key"), ("TYPESAFE_BASE_URL", &judge.url)],
    );
    let s = &app.session;
    let app = app.app.clone();
    let long = Duration::from_secs(240);

    // Library: ingest a fixture PDF by path.
    ingest(s, &repo().join("fixtures/pdf/multipage.pdf"), long);
    shots.take(s, "1-library");

    // Chat: ask and wait for the streamed answer.
    ask(s, "How long is the battery warranty?", long);
    shots.take(s, "2-chat-jev");
    let judged = judge.requests().len();
    assert!(judged > 0, "the judge server was never asked");

    // Inspector: the judge table with the run's decisions.
    s.click("[data-testid=open-inspector]");
    s.wait("[data-testid=judge-row]", Duration::from_secs(20));
    let before = reasons(s, "[data-testid=judge-row]");
    assert!(
        !before.is_empty() && before.iter().all(|(_, r)| r == "retained"),
        "{before:?}"
    );
    shots.take(s, "3-inspector-jev");

    // Replay: drag the relevance threshold above the judge's 0.60; reasons change with no judge call.
    s.click("[data-testid=nav-replay]");
    s.wait("[data-testid=replay-row]", Duration::from_secs(20));
    s.script(
        "const el = document.querySelector('[data-testid=threshold-is_relevant]');\
         const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;\
         for (const v of ['0.55', '0.65', '0.75']) { set.call(el, v); el.dispatchEvent(new Event('input', {bubbles: true})); }",
        json!([]),
    );
    let start = Instant::now();
    let after = loop {
        let now = reasons(s, "[data-testid=replay-row]");
        if now.iter().any(|(_, r)| r == "not_relevant") || start.elapsed() > Duration::from_secs(10) {
            break now;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        after.iter().any(|(_, r)| r == "not_relevant"),
        "no reason changed: {after:?}"
    );
    assert_eq!(judge.requests().len(), judged, "replay called the judge");
    std::thread::sleep(Duration::from_millis(800));
    let settled = reasons(s, "[data-testid=replay-row]");
    assert!(
        settled.iter().all(|(_, r)| r == "not_relevant"),
        "the replay did not settle: {settled:?}"
    );
    let changed = s.find_all("[data-testid=replay-row][data-changed=true]").len();
    assert_eq!(
        changed,
        settled.len(),
        "changed rows are marked against the run's selection"
    );
    shots.take(s, "4-replay");

    // Repaint after each slider move, through the real IPC: input event → the frame after the new selection.
    let moves: Vec<(&str, f64)> = (0..30)
        .map(|i| ("threshold-is_relevant", 0.30 + 0.02 * f64::from(i)))
        .collect();
    repaint::clear(s);
    repaint::drag(s, &moves, Duration::from_millis(120));
    let repaints = repaint::Repaints::read(s);
    assert!(
        repaints.ms.len() >= moves.len() / 2,
        "too few repaints measured: {:?}",
        repaints.ms
    );
    let figure = json!({"replay_repaint_ms_real_ipc":
        repaints.figure(json!({"candidates": after.len(), "app": app.clone()}))});
    println!("{figure}");
    std::fs::write(shots.0.join("replay-repaint.json"), figure.to_string()).unwrap();
    assert_eq!(judge.requests().len(), judged, "replay called the judge");

    // A passage opens at its page with the chunk highlighted.
    s.click("[data-testid=nav-inspector]");
    s.click("[data-testid=judge-row] button.link");
    s.wait("[data-testid=chunk-highlight]", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(500));
    shots.take(s, "5-page");

    // Evaluation over rag-jev's files: metrics per policy and the sweep plot, from saved traces (no judge call).
    s.click("[data-testid=nav-eval]");
    let eval = repo().join("fixtures/eval").canonicalize().unwrap();
    s.type_into("[data-testid=eval-cases]", eval.join("cases.json").to_str().unwrap());
    s.type_into("[data-testid=eval-traces]", eval.join("traces.json").to_str().unwrap());
    s.click("[data-testid=eval-run]");
    s.wait("[data-testid=eval-metrics]", Duration::from_secs(30));
    s.wait("[data-testid=sweep-plot] path", Duration::from_secs(10));
    assert_eq!(
        judge.requests().len(),
        judged,
        "evaluation from saved traces called the judge"
    );
    std::thread::sleep(Duration::from_millis(400));
    shots.take(s, "7-evaluation");

    // The tuning loop: label two chunks in the Inspector (kept as spans), calibrate the judge from them, open the
    // run's operating curve in Replay, click a point, and Replay takes that setting.
    s.click("[data-testid=nav-inspector]");
    for row in 1..=2 {
        s.click(&format!(
            "[data-testid=judge-row]:nth-child({row}) [data-testid=label-relevant]"
        ));
        s.wait(
            &format!("[data-testid=judge-row]:nth-child({row}) .label-buttons[data-state=relevant]"),
            Duration::from_secs(20),
        );
    }
    s.click("[data-testid=nav-eval]");
    s.click("[data-testid=calibrate-judge]");
    s.wait("[data-testid=judge-calibration-report]", Duration::from_secs(60));
    let labelled = s.script(
        "return document.querySelector('[data-testid=judge-calibration-report]').innerText",
        json!([]),
    );
    assert!(
        labelled.as_str().unwrap_or_default().starts_with("1 labelled"),
        "the labelled run was calibrated from: {labelled}"
    );
    s.click("[data-testid=nav-replay]");
    s.wait("[data-testid=curve-point]", Duration::from_secs(30));
    shots.take(s, "10-operating-curve");
    let picked = s.script(
        "const p = document.querySelector('[data-testid=curve-point][data-current=false]') \
           || document.querySelector('[data-testid=curve-point]');\
         p.dispatchEvent(new MouseEvent('click', {bubbles: true}));\
         return [document.querySelector('[data-testid=curve-parameter]').value, Number(p.dataset.value)];",
        json!([]),
    );
    let (parameter, value) = (picked[0].as_str().unwrap().to_string(), picked[1].as_f64().unwrap());
    let slider = match parameter.as_str() {
        "min_relevance" => "min-relevance".to_string(),
        "top_n" => "top-n".to_string(),
        "max_context_tokens" => "token-budget".to_string(),
        key => format!("threshold-{key}"),
    };
    let start = Instant::now();
    let shown = loop {
        let v = s.script(
            "return Number(document.querySelector(`[data-testid=${arguments[0]}]`).value)",
            json!([slider]),
        );
        let v = v.as_f64().unwrap_or(f64::NAN);
        if (v - value).abs() < 1e-6 || start.elapsed() > Duration::from_secs(10) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        (shown - value).abs() < 1e-6,
        "{parameter}: the curve point {value} is not in Replay ({shown})"
    );
    assert_eq!(
        judge.requests().len(),
        judged,
        "labels, calibration and curves called the judge"
    );
    shots.take(s, "11-curve-picked");

    // Import another retriever's candidates from a JSON file (rag-jev's eval case: labels and all), replay the run
    // with its labels (evidence recall shown), then export it as a portable run file.
    let candidates = home.path().join("candidates.json");
    let case = json!({
        "query": "How many days do I have to request a refund?",
        "documents": [
            {"id": "ship", "text": "Orders ship within 5 business days.", "metadata": {"source": "shipping.md"}},
            {"id": "refund", "text": "You may request a refund within 30 days of purchase.", "metadata": {"source": "refunds.md", "page": 2}},
            {"id": "hours", "text": "The support line is open from 9 to 5.", "metadata": {"source": "support.md"}},
        ],
        "relevant_ids": ["refund", "hours"], "mode": "filter", "min_relevance": 0.5,
    });
    std::fs::write(&candidates, case.to_string()).unwrap();
    s.click("[data-testid=nav-import]");
    s.type_into("[data-testid=import-path]", candidates.to_str().unwrap());
    s.click("[data-testid=import-file]");
    s.wait("[data-testid=import-result]", long);
    assert_eq!(
        judge.requests().len(),
        judged + 3,
        "one rag-jev request per imported candidate"
    );
    shots.take(s, "8-import");
    s.click("[data-testid=import-open-replay]");
    // The Replay view re-mounts for the imported run (the earlier run's panel had labels too): read it afresh.
    let start = Instant::now();
    let recall = loop {
        let v = s.script(
            "const h = document.querySelector('[data-testid=view-replay] .trace-head');\
             const r = document.querySelector('[data-testid=label-recall]');\
             return h && h.innerText.includes('(imported)') && r ? r.innerText : '';",
            json!([]),
        );
        let v = v.as_str().unwrap_or_default().to_string();
        if v == "50%" || start.elapsed() > Duration::from_secs(30) {
            break v;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(recall, "50%", "one of the two labelled passages is selected");
    assert_eq!(s.find_all("[data-testid=replay-row]").len(), 3);
    let exported = home.path().join("exported-run.json");
    s.type_into("[data-testid=export-path]", exported.to_str().unwrap());
    s.click("[data-testid=export-run]");
    s.wait("[data-testid=export-done]", Duration::from_secs(20));
    let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&exported).unwrap()).unwrap();
    assert_eq!(file["format"], "ragsift-run");
    assert_eq!(file["trace"]["origin"], "imported");
    assert_eq!(file["trace"]["labels"]["relevant_ids"], json!(["refund", "hours"]));
    assert_eq!(judge.requests().len(), judged + 3, "replay and export called the judge");
    shots.take(s, "9-replay-labels");

    // The settings view renders.
    s.click("[data-testid=nav-settings]");
    s.wait("[data-testid=view-settings]", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(300));
    shots.take(s, "6-settings");
    s.quit();
}

/// Thousands of candidates (issue 15, part 4): a 2,000-candidate run, imported from a run file, replays in the
/// real window within a 60 Hz frame through the real IPC — the tables hold only the rows in view, and a replay
/// sends only the decisions that differ from the run's.
#[test]
fn two_thousand_candidates_replay_in_the_real_window() {
    let Some(w) = window_test() else {
        return;
    };
    let (home, shots) = (&w.home, &w.shots);
    let n = 2000;
    let run = big_run::trace(n);
    let file = home.path().join("big-run.json");
    big_run::write(&run, &file);
    let app = launch(home.path(), &[]);
    let s = &app.session;

    s.click("[data-testid=nav-import]");
    s.type_into("[data-testid=import-run-path]", file.to_str().unwrap());
    s.click("[data-testid=import-run]");
    s.wait("[data-testid=import-run-result]", Duration::from_secs(60));
    s.click("[data-testid=nav-replay]");
    s.click(&format!("[data-testid=run-item][data-run-id='{}']", run.run_id));
    let table = format!("[data-testid=replay-table][aria-rowcount='{}']", n + 1);
    s.wait(&table, Duration::from_secs(60));
    s.wait("[data-testid=replay-row]", Duration::from_secs(20));
    let in_dom = s.find_all("[data-testid=replay-row]").len();
    assert!(
        in_dom > 0 && in_dom < 150,
        "{in_dom} of {n} rows in the DOM: the table is not windowed"
    );
    let before = reasons(s, "[data-testid=replay-row]");

    // Drag the relevance threshold up, then the evidence threshold down, as a user does: one slider at a time,
    // after a look at the run, and a second to reach the other slider. Every move repaints.
    let drag = |slider: &'static str, from: f64, to: f64| -> Vec<(&str, f64)> {
        (0..30)
            .map(|i| (slider, from + (to - from) * f64::from(i) / 29.0))
            .collect()
    };
    repaint::clear(s);
    std::thread::sleep(Duration::from_millis(1500));
    repaint::drag(
        s,
        &drag("threshold-is_relevant", 0.30, 0.70),
        Duration::from_millis(120),
    );
    std::thread::sleep(Duration::from_millis(1000));
    let moves = drag("threshold-contains_answer_evidence", 0.70, 0.40);
    repaint::drag(s, &moves, Duration::from_millis(120));
    std::thread::sleep(Duration::from_millis(500));
    let repaints = repaint::Repaints::read(s);
    assert!(
        repaints.ms.len() >= moves.len(),
        "too few repaints measured: {:?}",
        repaints.ms
    );
    let (median, p95) = (repaints.median(), repaints.p95());
    let figure = json!({"replay_repaint_ms_real_ipc_2000": repaints.figure(json!({
        "candidates": n, "median_parts": repaint::median_parts(s), "ipc_bytes": big_run::ipc_bytes(&run),
        "app": app.app.clone()
    }))});
    println!("{figure}");
    std::fs::write(shots.0.join("replay-repaint-2000.json"), figure.to_string()).unwrap();
    let after = reasons(s, "[data-testid=replay-row]");
    assert_ne!(before, after, "the rows in view did not follow the thresholds");
    assert!(
        s.find("[data-testid=view-replay] [data-testid=error-banner]").is_none(),
        "the replay reported an error"
    );
    shots.take(s, "12-replay-2000");

    // The Inspector over the same run: its judge table is windowed too.
    s.click("[data-testid=nav-inspector]");
    s.wait(
        &format!("[data-testid=judge-table][aria-rowcount='{}']", n + 1),
        Duration::from_secs(30),
    );
    let judge_rows = s.find_all("[data-testid=judge-row]").len();
    assert!(judge_rows > 0 && judge_rows < 150, "{judge_rows} judge rows in the DOM");
    shots.take(s, "13-inspector-2000");
    s.quit();

    // Issue 15's target is one 60 Hz frame at the median and two at p95. In this window (Xvfb, no GPU, 2 cores;
    // the app draws without compositing, see `webview_env.rs`) the release build's p95 is within two frames
    // (25–28 ms) and its median is at one (16–17 ms, at the page timer's 1 ms resolution); the debug build is
    // slower — see BENCHMARKS.md. What is asserted is a regression guard an order of magnitude above a frame; the
    // figures are recorded beside it.
    assert!(
        median <= 250.0,
        "median repaint {median:.1} ms: replay over 2,000 candidates regressed: {figure}"
    );
    assert!(
        p95 <= 500.0,
        "p95 repaint {p95:.1} ms: replay over 2,000 candidates regressed: {figure}"
    );
}

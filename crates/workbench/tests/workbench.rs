//! The desktop app's service layer without a GUI: ingest with events (and "unchanged" on re-ingest), ask with
//! stage and token events, replay with zero judge calls, regenerate with another selection, the page view's
//! offsets, settings validation, the default policy, the judge key kept out of settings, and cancellation.

mod common;
use ragsift_test_support::http;

use common::fixture;
use http::{jev_judgment, Request, Server};
use ragsift_core::progress::IngestEvent;
use ragsift_interfaces::retrieve::SearchMode;
use ragsift_policy::{PolicyOptions, Reason};
use ragsift_workbench::{AskEvent, AskOptions, AskRequest, JudgeKind, Workbench};
use std::sync::{Arc, Mutex};

/// Jev at the HTTP boundary: relevance 0.60 and evidence 0.80 for every passage.
fn jev_server() -> Server {
    Server::with_handler(|_: &Request| jev_judgment(0.60, 0.80, 0.70))
}

fn workbench(server: &Server) -> (tempfile::TempDir, Workbench) {
    let dir = tempfile::tempdir().unwrap();
    let wb = Workbench::open(Some(dir.path())).unwrap();
    let mut s = wb.settings();
    s.judge.base_url = Some(server.url.clone());
    wb.save_settings(s).unwrap();
    assert_eq!(wb.set_judge_key(Some("secret-key-123")).unwrap().kind, JudgeKind::Jev);
    (dir, wb)
}

fn ingest(wb: &Workbench, path: &str) -> (Vec<String>, Vec<IngestEvent>) {
    let events = Mutex::new(Vec::new());
    let report = wb
        .ingest(&[fixture(path).display().to_string()], "job-ingest", &|e| {
            events.lock().unwrap().push(e.clone());
        })
        .unwrap();
    (
        report.files.iter().map(|f| f.status.to_string()).collect(),
        events.into_inner().unwrap(),
    )
}

fn options(wb: &Workbench) -> Option<AskOptions> {
    Some(AskOptions {
        rewrite: false,
        variants: 0,
        top_k: 3,
        search_mode: SearchMode::Vector,
        max_tokens: 16,
        ..wb.ask_defaults()
    })
}

#[test]
fn ingest_ask_replay_regenerate_and_page() {
    let server = jev_server();
    let (dir, wb) = workbench(&server);

    let (status, events) = ingest(&wb, "pdf/multipage.pdf");
    assert_eq!(status, ["ingested"]);
    assert!(events.iter().any(|e| matches!(e, IngestEvent::Embedding { .. })));
    let (status, _) = ingest(&wb, "pdf/multipage.pdf");
    assert_eq!(status, ["unchanged"], "re-ingest does not re-embed");
    let doc = &wb.documents().unwrap()[0];
    assert_eq!(doc.page_count, 3);

    let seen: Arc<Mutex<Vec<AskEvent>>> = Arc::default();
    let sink = seen.clone();
    let request = AskRequest {
        question: "How long is the battery warranty?".into(),
        history: vec![],
        options: options(&wb),
    };
    let trace = wb
        .ask(&request, "job-ask", Arc::new(move |e| sink.lock().unwrap().push(e)))
        .unwrap();
    let seen = seen.lock().unwrap().clone();
    let stages: Vec<String> = seen
        .iter()
        .filter_map(|e| match e {
            AskEvent::Stage { stage } => serde_json::to_value(stage).ok()?.as_str().map(String::from),
            _ => None,
        })
        .collect();
    assert_eq!(
        stages,
        [
            "loading_model",
            "transforming",
            "retrieving",
            "judging",
            "selecting",
            "generating"
        ]
    );
    let streamed: String = seen
        .iter()
        .filter_map(|e| match e {
            AskEvent::Token { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, trace.answer);
    assert_eq!(trace.judge.judge, "jev");
    assert!(trace.selection.decisions.iter().all(|d| d.reason == Reason::Retained));
    let judged = server.requests().len();
    assert_eq!(judged, trace.candidates.len());
    assert!(server
        .requests()
        .iter()
        .all(|r| r.header("authorization") == Some("Bearer secret-key-123")));

    // Replay: a relevance threshold above 0.60 drops every chunk, with no judge call.
    let mut strict = PolicyOptions::default();
    strict.thresholds.insert("is_relevant".into(), 0.75);
    let replay = wb.replay(&trace.run_id, &strict).unwrap();
    assert!(replay
        .selection
        .decisions
        .iter()
        .all(|d| d.reason == Reason::NotRelevant));
    assert_eq!(replay.changes.len(), trace.candidates.len());

    // Regenerate with a top-1 selection: a new run, one source, still no judge call.
    let top1 = PolicyOptions {
        top_n: Some(1),
        ..PolicyOptions::default()
    };
    let again = wb
        .regenerate(&trace.run_id, &top1, "job-regen", Arc::new(|_| {}))
        .unwrap();
    assert_ne!(again.run_id, trace.run_id);
    assert_eq!(again.sources.len(), 1);
    assert_eq!(
        server.requests().len(),
        judged,
        "replay and regenerate never call the judge"
    );
    assert_eq!(wb.runs(10).unwrap().len(), 2);
    assert_eq!(wb.info().unwrap().runs, 2);

    // The key is in neither the settings file nor any stored trace.
    let settings = std::fs::read_to_string(dir.path().join("settings.json")).unwrap();
    assert!(!settings.contains("secret-key-123"));
    let stored = serde_json::to_string(&*wb.run(&trace.run_id).unwrap()).unwrap();
    assert!(!stored.contains("secret-key-123"));

    // Page view: the chunk's offsets are character offsets into the page's text.
    let source = &trace.candidates[0];
    let page = wb.page(&source.document_id, source.page_start).unwrap();
    let chunk = page.chunks.iter().find(|c| c.chunk_id == source.chunk_id).unwrap();
    let chars: Vec<char> = page.text.chars().collect();
    let slice: String = chars[chunk.char_start as usize..chunk.char_end as usize]
        .iter()
        .collect();
    let first_words: Vec<String> = common::words(&source.text).into_iter().take(5).collect();
    assert_eq!(common::words(&slice)[..5], first_words[..], "{slice}");
    let image = wb.page_image(&source.document_id, 1).unwrap();
    assert!(image.is_some_and(|i| i.starts_with("data:image/png;base64,iVBOR")));
}

#[test]
fn settings_are_validated_and_the_default_policy_is_saved() {
    let server = jev_server();
    let (dir, wb) = workbench(&server);
    let current = wb.settings();
    assert_eq!(wb.check_settings(&current), Vec::new());
    assert_eq!(wb.save_settings(current.clone()).unwrap(), current, "saved unchanged");
    let mut bad = wb.settings();
    bad.judge.base_url = Some("ftp://nowhere".into());
    assert_eq!(wb.check_settings(&bad)[0].field, "judge.base_url");
    let e = wb.save_settings(bad).unwrap_err();
    assert_eq!(e.code(), "invalid");
    assert!(e.to_string().contains("judge.base_url"), "{e}");
    let mut bad = wb.settings();
    bad.library.overlap_tokens = bad.library.chunk_tokens;
    assert_eq!(wb.save_settings(bad).unwrap_err().code(), "invalid");

    let policy = PolicyOptions {
        top_n: Some(2),
        ..PolicyOptions::default()
    };
    wb.save_default_policy(policy.clone()).unwrap();
    let reopened = Workbench::open(Some(dir.path())).unwrap();
    assert_eq!(reopened.settings().policy, policy);

    assert_eq!(
        wb.set_judge_key(None).unwrap().key_set,
        std::env::var("TYPESAFE_API_KEY").is_ok()
    );
}

#[test]
fn a_cancelled_ingest_reports_the_rest_as_cancelled() {
    let server = jev_server();
    let (_dir, wb) = workbench(&server);
    let files = [fixture("pdf/multipage.pdf"), fixture("pdf/two_column.pdf")].map(|p| p.display().to_string());
    let report = wb
        .ingest(&files, "job-c", &|e| {
            if matches!(e, IngestEvent::FileFinished { file: 1, .. }) {
                assert!(wb.jobs.cancel("job-c"));
            }
        })
        .unwrap();
    let status: Vec<&str> = report.files.iter().map(|f| f.status.as_str()).collect();
    assert_eq!(status, ["ingested", "cancelled"]);
    assert_eq!(wb.documents().unwrap().len(), 1);
    assert!(!wb.jobs.cancel("job-c"), "a finished job is gone");
}

fn sse(pieces: &[&str]) -> http::Reply {
    let mut ev: Vec<String> = (pieces.iter())
        .map(|p| {
            serde_json::json!({"model": "m", "choices": [{"delta": {"content": p}, "finish_reason": null}]}).to_string()
        })
        .collect();
    ev.push(serde_json::json!({"choices": [{"delta": {}, "finish_reason": "stop"}]}).to_string());
    ev.push("[DONE]".into());
    http::Reply::Sse(ev)
}

/// Another retriever's candidates become a run (judged by rag-jev's request, not answered); regenerating it asks
/// the model once, stores the finish reason, reports a citation to no source and prices what is configured; an
/// empty selection gets the fixed no-context answer without a model call.
#[test]
fn imported_candidates_regenerate_and_an_empty_selection_skips_the_model() {
    let judge = Server::with_handler(|r: &Request| {
        let text = r.json()["state"]["passage"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let p = if text.contains("refund") { 0.9 } else { 0.1 };
        let body = serde_json::json!({"model": "jev-1.13.0", "answers": {"relevant": {"type": "noul", "noul": p}},
            "usage": {"input_tokens": 30, "output_tokens": 1}});
        http::Reply::Json(200, vec![], body.to_string())
    });
    let chat = Server::with_handler(|_: &Request| sse(&["Within 30 days [1]", "; see also [7]."]));
    let (_dir, wb) = workbench(&judge);
    let mut s = wb.settings();
    s.chat.backend = ragsift_models::llm::ChatBackend::OpenAi;
    s.chat.endpoint = Some(chat.url.clone());
    s.chat.model_name = Some("m".into());
    s.rates.generation_input_per_million = Some(1.0);
    s.rates.generation_output_per_million = Some(4.0);
    wb.save_settings(s).unwrap();

    let request = serde_json::json!({
        "query": "How many days do I have to request a refund?",
        "documents": [
            {"id": "ship", "text": "Orders ship within 5 business days.", "group_id": "g"},
            {"id": "refund", "text": "You may request a refund within 30 days of purchase.", "metadata": {"source": "refunds.md", "page": 2}},
            {"id": "hours", "text": "Support is open from 9 to 5.", "pinned": true},
        ],
        "relevant_ids": ["refund"], "baseline_ids": ["ship", "refund"], "mode": "filter", "min_relevance": 0.5,
    });
    let run = wb.import_candidates(&request.to_string(), JudgeKind::Auto).unwrap();
    assert_eq!(run.origin, ragsift_pipeline::trace::RunOrigin::Imported);
    assert_eq!(run.judge.judge, "jev-ragjev");
    assert_eq!(run.answered_by, ragsift_pipeline::answer::AnsweredBy::NotAnswered);
    assert_eq!(run.selection.selected(), ["refund", "hours"], "the pin is kept");
    assert_eq!(run.candidates[0].group_id.as_deref(), Some("g"));
    assert_eq!(
        run.labels.baseline_ids.as_deref(),
        Some(&["ship".to_string(), "refund".to_string()][..])
    );
    assert_eq!(
        run.cost.judging, None,
        "judge tokens were used and no judge rate is configured"
    );
    assert!(chat.requests().is_empty(), "importing answers nothing");
    // The app's replay crosses IPC as a delta on the stored run: laid over it, it is the full replay (labels too).
    let stored = wb.run(&run.run_id).unwrap();
    for options in [
        run.policy.clone(),
        PolicyOptions::default(),
        PolicyOptions {
            mode: ragsift_policy::Mode::Rerank,
            top_n: Some(2),
            ..PolicyOptions::default()
        },
        PolicyOptions {
            shadow: true,
            min_relevance: Some(0.95),
            ..run.policy.clone()
        },
    ] {
        let delta = wb.replay_delta(&run.run_id, &options, false).unwrap();
        let full = wb.replay_labelled(&run.run_id, &options).unwrap();
        assert_eq!(delta.apply(&stored), Some(full), "{options:?}");
    }
    // An invalid import is refused with rag-jev's messages and stores nothing.
    let bad = wb.import_candidates(r#"{"query": "q", "documents": [], "mode": "filter"}"#, JudgeKind::Auto);
    assert!(bad.unwrap_err().to_string().contains("min_relevance is required"));
    assert_eq!(wb.runs(10).unwrap().len(), 1);

    let answered = wb
        .regenerate(&run.run_id, &run.policy, "job-regen", Arc::new(|_| {}))
        .unwrap();
    assert_eq!(chat.requests().len(), 1);
    assert_eq!(answered.answer, "Within 30 days [1]; see also [7].");
    assert_eq!(answered.citations, [1]);
    assert_eq!(answered.unknown_citations, [7], "[7] names no source");
    assert_eq!(answered.finish_reason, Some(ragsift_models::llm::FinishReason::Stop));
    assert!(
        answered.cost.generation.is_some() && answered.cost.judging == Some(0.0),
        "{:?}",
        answered.cost
    );

    let nothing = PolicyOptions {
        mode: ragsift_policy::Mode::Filter,
        min_relevance: Some(1.0),
        ..PolicyOptions::default()
    };
    let empty = wb
        .regenerate(&run.run_id, &nothing, "job-empty", Arc::new(|_| {}))
        .unwrap();
    assert_eq!(
        empty.selection.selected(),
        ["hours"],
        "only the pin survives a threshold of 1"
    );
    let none_pinned = wb.import_candidates(
        &serde_json::json!({"query": "q?", "documents": [{"id": "a", "text": "Unrelated text."}], "mode": "filter", "min_relevance": 0.5}).to_string(),
        JudgeKind::Auto,
    ).unwrap();
    let fixed = wb
        .regenerate(&none_pinned.run_id, &none_pinned.policy, "job-fixed", Arc::new(|_| {}))
        .unwrap();
    assert!(fixed.selection.selected().is_empty());
    assert_eq!(fixed.answered_by, ragsift_pipeline::answer::AnsweredBy::NoEvidence);
    assert_eq!(fixed.answer, ragsift_pipeline::answer::no_evidence_answer(0, 0.0));
    assert!(fixed.answer.contains("no retrieved passage was kept"));
    assert!(fixed.prompt.is_empty() && fixed.finish_reason.is_none());
    assert_eq!(
        chat.requests().len(),
        2,
        "the empty selection asked no model (only the pinned one did)"
    );
}

/// Idle models are unloaded after the configured time (never while a job runs) and reload on the next ask, which
/// reports the model's loading progress again.
#[test]
fn idle_models_unload_and_reload_on_the_next_ask() {
    let server = jev_server();
    let (_dir, wb) = workbench(&server);
    let mut s = wb.settings();
    // Long enough that an ask's last use of a model (answering, on a loaded machine) is never a whole idle period
    // before the check right after it.
    s.idle_unload_secs = 3;
    wb.save_settings(s).unwrap();
    ingest(&wb, "pdf/multipage.pdf");
    let ask = |wb: &Workbench| {
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        let request = AskRequest {
            question: "How long is the battery warranty?".into(),
            history: Vec::new(),
            options: options(wb),
        };
        wb.ask(&request, "job-idle", Arc::new(move |e| sink.lock().unwrap().push(e)))
            .unwrap();
        let loading = events
            .lock()
            .unwrap()
            .iter()
            .any(|e| matches!(e, AskEvent::ModelLoading { .. }));
        loading
    };
    assert!(ask(&wb), "the first ask loads the model with progress");
    let loaded = wb.loaded_models();
    assert!(loaded.embedder && loaded.language_model, "{loaded:?}");
    // Not yet idle long enough: nothing unloads.
    assert!(!wb.unload_idle().language_model);
    // A running job keeps the models however long it takes.
    std::thread::sleep(std::time::Duration::from_millis(3100));
    let _token = wb.jobs.start("long-job");
    assert!(!wb.unload_idle().language_model, "never while a job runs");
    wb.jobs.cancel("long-job");
    drop(wb.jobs.finish_on_drop("long-job"));
    let unloaded = wb.unload_idle();
    assert!(unloaded.embedder && unloaded.language_model, "{unloaded:?}");
    assert_eq!(
        wb.loaded_models(),
        ragsift_workbench::idle::LoadedModels {
            embedder: false,
            language_model: false
        }
    );
    assert!(ask(&wb), "the next ask reloads the model, with progress");
    assert!(wb.loaded_models().language_model);
}

/// Private data stays private: a new home is 0700, its database 0600, the key file 0600 and written whole.
#[test]
fn a_new_home_and_its_files_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("new-home");
    let wb = Workbench::open(Some(&home)).unwrap();
    wb.set_judge_key(Some("sk-private-key")).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&home), 0o700, "home");
    assert_eq!(mode(&home.join("ragsift.db")), 0o600, "database");
    assert_eq!(mode(&home.join("jev-api-key")), 0o600, "key");
    let mut s = wb.settings();
    s.library.top_k = 7;
    wb.save_settings(s).unwrap();
    assert_eq!(mode(&home.join("settings.json")), 0o600, "settings");
    let temps: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

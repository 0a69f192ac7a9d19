//! rag-jev's own requests against a loopback server in TypeSafe's wire format (the independent request and
//! contextual scoring, their limits and versions), and the judgment cache's answering-model checks: answers of a
//! model alias expire, and a moved alias is asked again instead of mixing two models in one run.

use ragsift_engine::backend::JudgmentStore;
use ragsift_engine::ids::sha256_hex;
use ragsift_engine::judge::jev::{
    default_questions, ragjev, JevConfig, ALIAS_CACHE_TTL, CONTAINS_PROMPT_INJECTION, IS_RELEVANT, USEFUL,
};
use ragsift_engine::judge::{expected_prompt_version, JevJudge, JevRequest, Judge};
use ragsift_engine::pipeline::join::Candidate;
use ragsift_engine::pipeline::judging::{cache_key, judge_candidates, JudgeStatus};
use ragsift_engine::sqlite::Store;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ragsift_test_support::http;

use http::{Reply, Request, Server};

const QUERY: &str = "Where did Milton make landfall?";

fn judge(server: &Server, request: JevRequest, model: &str) -> JevJudge {
    let mut c = JevConfig::new("sk-test");
    c.base_url = server.url.clone();
    c.model = model.to_string();
    c.backoff_min = Duration::from_millis(5);
    c.backoff_max = Duration::from_millis(10);
    JevJudge::with_request(c, request).unwrap()
}

fn ok(body: serde_json::Value) -> Reply {
    Reply::Json(200, vec![], body.to_string())
}

fn noul(p: f64) -> serde_json::Value {
    json!({"type": "noul", "noul": p})
}

#[test]
fn rag_jev_request_is_rag_jevs_byte_for_byte() {
    let server = Server::with_handler(|_| {
        ok(
            json!({"model": "jev-1.13.0", "answers": {"relevant": noul(0.8)}, "usage": {"input_tokens": 90, "output_tokens": 1}}),
        )
    });
    let j = judge(&server, JevRequest::RagJev, "jev-latest");
    assert_eq!(
        (j.name(), j.prompt_version().as_str()),
        ("jev-ragjev", "useful-evidence-v1")
    );
    assert_eq!(expected_prompt_version(j.name()).as_deref(), Some("useful-evidence-v1"));
    assert!(j.not_assessed().contains(&IS_RELEVANT.to_string()));
    let passages = vec!["Milton made landfall near Siesta Key.".to_string()];
    let useful: Vec<_> = default_questions().into_iter().filter(|q| q.key == USEFUL).collect();
    let out = j.judge(QUERY, &passages, &useful).unwrap();
    assert_eq!(out[0].scores.get(USEFUL), Some(&0.8));
    let body = server.requests.lock().unwrap()[0].json();
    assert_eq!(body["state"], json!({"query": QUERY, "passage": {"text": passages[0]}}));
    assert_eq!(body["model"], "jev-latest");
    let questions = body["questions"].as_object().unwrap();
    assert_eq!(questions.keys().collect::<Vec<_>>(), ["relevant"]);
    assert_eq!(questions["relevant"]["type"], "noul");
    assert_eq!(questions["relevant"]["instructions"], ragjev::INSTRUCTIONS);
    assert_eq!(
        questions["relevant"]["criteria"],
        json!({"true": ragjev::CRITERIA.0, "false": ragjev::CRITERIA.1})
    );
    // Asked for Spring's filter questions only, it refuses instead of answering a question it was not asked.
    let filter: Vec<_> = default_questions()
        .into_iter()
        .filter(|q| q.key == CONTAINS_PROMPT_INJECTION)
        .collect();
    assert!(j.judge(QUERY, &passages, &filter).is_err());
}

#[test]
fn contextual_scoring_is_one_request_with_shared_usage() {
    let server = Server::with_handler(|r: &Request| {
        let n = r.json()["state"]["passages"].as_array().unwrap().len();
        let answers: serde_json::Map<_, _> = (0..n)
            .map(|i| (i.to_string(), noul(0.1 + 0.2 * (i % 5) as f64)))
            .collect();
        ok(json!({"model": "jev-1.13.0", "answers": answers, "usage": {"input_tokens": 300, "output_tokens": 3}}))
    });
    let j = judge(&server, JevRequest::Contextual, "jev-1.13.0");
    assert!(j.contextual());
    assert_eq!(j.prompt_version(), "contextual-evidence-v1");
    let passages: Vec<String> = ["a fact", "a bridge", "the answer"].map(String::from).to_vec();
    let useful: Vec<_> = default_questions().into_iter().filter(|q| q.key == USEFUL).collect();
    let out = j.judge(QUERY, &passages, &useful).unwrap();
    let scores: Vec<f64> = out.iter().map(|o| o.scores[USEFUL]).collect();
    assert_eq!(scores, [0.1, 0.30000000000000004, 0.5]);
    assert_eq!(
        out.iter().map(|o| o.input_tokens).sum::<u32>(),
        300,
        "usage shared, counted once"
    );
    let requests = server.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), 1);
    let body = requests[0].json();
    assert_eq!(body["state"]["passages"][2], json!({"text": "the answer"}));
    assert!(body["questions"]["2"]["instructions"]
        .as_str()
        .unwrap()
        .starts_with("Does `passages[2].text` supply useful evidence"));

    // rag-jev's limits: 33 passages are refused before any request.
    let many: Vec<String> = (0..33).map(|i| format!("passage {i}")).collect();
    let err = j.judge(QUERY, &many, &useful).unwrap_err();
    assert!(err.to_string().contains("at most 32 passages"), "{err}");
    assert_eq!(server.requests.lock().unwrap().len(), 1);
    assert_eq!(j.judge(QUERY, &many[..32], &useful).unwrap().len(), 32);

    // A response without its usage is invalid, as in rag-jev.
    let bare = Server::with_handler(|_| ok(json!({"model": "m1", "answers": {"0": noul(0.5)}})));
    let err = judge(&bare, JevRequest::Contextual, "m1")
        .judge(QUERY, &passages[..1], &useful)
        .unwrap_err();
    assert!(err.to_string().contains("usage"), "{err}");
}

fn candidates(texts: &[&str]) -> Vec<Candidate> {
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| Candidate {
            chunk_id: format!("c{i}"),
            document_id: "d".into(),
            document: "d.txt".into(),
            title: "d".into(),
            page_start: 1,
            page_end: 1,
            char_start: 0,
            char_end: t.len() as u32,
            tokens: 5,
            text: (*t).to_string(),
            score: 0.5,
            found_by: Vec::new(),
            metadata: None,
            group_id: None,
            pinned: false,
            section: Vec::new(),
        })
        .collect()
}

/// A Jev server whose answering model can be changed mid-test.
fn moving_alias(model: Arc<Mutex<String>>) -> Server {
    Server::with_handler(move |_| {
        let answers = json!({"relevant": noul(0.7)});
        ok(
            json!({"model": *model.lock().unwrap(), "answers": answers, "usage": {"input_tokens": 10, "output_tokens": 1}}),
        )
    })
}

#[test]
fn a_moved_alias_is_asked_again_and_never_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let model = Arc::new(Mutex::new("jev-1.13.0".to_string()));
    let server = moving_alias(model.clone());
    let j = judge(&server, JevRequest::RagJev, "jev-latest");
    let questions = default_questions();
    let first = candidates(&["alpha", "beta"]);
    let out = judge_candidates(&store, &j, QUERY, &first, &questions, false).unwrap();
    assert_eq!((out.status, out.fresh_passages), (JudgeStatus::Judged, 2));
    let again = judge_candidates(&store, &j, QUERY, &first, &questions, false).unwrap();
    assert_eq!((again.status, again.cached_passages), (JudgeStatus::Cached, 2));

    // The alias now points at another model; a new passage reveals it, and the cached two are asked again.
    *model.lock().unwrap() = "jev-1.14.0".into();
    let asked = server.requests.lock().unwrap().len();
    let more = candidates(&["alpha", "beta", "gamma"]);
    let out = judge_candidates(&store, &j, QUERY, &more, &questions, false).unwrap();
    assert_eq!(server.requests.lock().unwrap().len(), asked + 3);
    assert_eq!((out.fresh_passages, out.cached_passages), (3, 0));
    assert!(out.judgments.iter().all(|c| c.model == "jev-1.14.0" && !c.cached));
    assert_eq!(j.cache_ttl(), Some(ALIAS_CACHE_TTL));
}

#[test]
fn answers_of_an_alias_expire_and_a_pinned_models_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
    let model = Arc::new(Mutex::new("jev-1.13.0".to_string()));
    let server = moving_alias(model);
    let questions = default_questions();
    let set = candidates(&["alpha"]);
    for (configured, expires) in [("jev-latest", true), ("jev-1.13.0", false)] {
        let j = judge(&server, JevRequest::RagJev, configured);
        judge_candidates(&store, &j, QUERY, &set, &questions, false).unwrap();
        // Age the cached answer past the alias TTL by one second (the boundary itself still counts as fresh).
        let key = cache_key(&j, USEFUL, &sha256_hex(QUERY.as_bytes()), &sha256_hex(b"alpha"));
        let mut hit = store.judgment(&key).unwrap().unwrap();
        hit.created_at -= i64::try_from(ALIAS_CACHE_TTL.as_secs()).unwrap() + 1;
        store.put_judgments(&[hit]).unwrap();
        let out = judge_candidates(&store, &j, QUERY, &set, &questions, false).unwrap();
        assert_eq!(out.status == JudgeStatus::Judged, expires, "{configured}");
    }
}

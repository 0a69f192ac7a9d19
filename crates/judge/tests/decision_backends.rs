//! The decision-model judge over each backend's wire against stand-in servers on loopback: Ollama's System One
//! endpoint (no key, its limits and `{"error"}` answers, a base URL given with its path) and OpenAI's Decisions API
//! (ordered predicates, a refusal left not assessed, its error envelope); every probability round-trips exactly.

use ragsift_judge::jev::{
    default_questions, Backend, JevClient, JevConfig, JevError, JudgeQuestion, CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT,
    OLLAMA_MAX_BODY,
};
use ragsift_judge::{JevJudge, JevRequest, Judge, JudgeName};
use ragsift_test_support::decision::{self, probability};
use std::time::Duration;

const QUERY: &str = "Which port does the service listen on?";
const PASSAGE: &str = "The service listens on port 8000 unless PORT is set.";

fn config(backend: Backend, base_url: &str, key: &str) -> JevConfig {
    let mut c = JevConfig::for_backend(backend, key);
    c.base_url = base_url.to_string();
    c.attempt_timeout = Duration::from_secs(2);
    c.deadline = Duration::from_secs(5);
    c.backoff_min = Duration::from_millis(5);
    c.backoff_max = Duration::from_millis(20);
    c
}

/// The state the client sends for one passage (Spring's), as the stand-ins hash it.
fn state_text() -> String {
    serde_json::json!({"query": QUERY, "passage": PASSAGE}).to_string()
}

#[test]
fn ollama_without_a_key_at_a_url_with_its_path() {
    let server = decision::ollama(&["d1-omni:600m"]);
    let mut c = config(Backend::Ollama, &format!("{}/v1/systemone/", server.url), "");
    c.model = "d1-omni:600m".into();
    let judge = JevJudge::with_request(c, JevRequest::Spring).unwrap();
    assert_eq!(judge.name(), "ollama");
    assert_eq!(judge.model(), "d1-omni:600m");
    let questions = default_questions();
    let judged = judge.judge(QUERY, &[PASSAGE.to_string()], &questions).unwrap();
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/systemone", "the path is not added twice");
    assert_eq!(
        requests[0].header("authorization"),
        None,
        "no key, no Authorization header"
    );
    for q in &questions {
        assert_eq!(
            judged[0].score(&q.key),
            Some(probability(&state_text(), &q.key)),
            "{} round-trips exactly",
            q.key
        );
    }
    assert_eq!(judged[0].model, "d1-omni:600m");
}

#[test]
fn an_unpulled_ollama_model_says_how_to_pull_it() {
    let server = decision::ollama(&["nimble:350m"]);
    let mut c = config(Backend::Ollama, &server.url, "");
    c.model = "d1-omni:600m".into();
    let judge = JevJudge::with_request(c, JevRequest::Spring).unwrap();
    let err = judge
        .judge(QUERY, &[PASSAGE.to_string()], &default_questions())
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("the server has no model d1-omni:600m (ollama pull d1-omni:600m)"),
        "{err}"
    );
    assert_eq!(server.requests().len(), 1, "a missing model is not retried");
}

#[test]
fn ollama_limits_are_checked_before_sending() {
    let server = decision::ollama(&["d1-omni:600m"]);
    let mut c = config(Backend::Ollama, &server.url, "");
    c.model = "d1-omni:600m".into();
    let client = JevClient::new(c).unwrap();
    // A passage that makes the body one byte over 64 KiB is refused here, with the limit named.
    let question = [JudgeQuestion::new(
        IS_RELEVANT,
        "Does the `passage` address the subject of the `query`?",
        None,
    )];
    let big = "x".repeat(OLLAMA_MAX_BODY);
    match client.judge(QUERY, &big, &question) {
        Err(JevError::InvalidRequest { message }) => assert!(message.contains("64 KiB"), "{message}"),
        other => panic!("expected the body limit, got {other:?}"),
    }
    // 65 questions are over Ollama's 64.
    let many: Vec<JudgeQuestion> = (0..65)
        .map(|i| JudgeQuestion::new(format!("q{i}"), "Is it?", None))
        .collect();
    assert!(matches!(
        client.judge(QUERY, PASSAGE, &many),
        Err(JevError::InvalidRequest { .. })
    ));
    assert!(
        server.requests().is_empty(),
        "nothing over the limits reaches the server"
    );
    // At the limits it goes through: 64 questions.
    let limit: Vec<JudgeQuestion> = (0..64)
        .map(|i| JudgeQuestion::new(format!("q{i}"), "Is it?", None))
        .collect();
    assert_eq!(client.judge(QUERY, PASSAGE, &limit).unwrap().scores.len(), 64);
}

#[test]
fn ollama_errors_name_ollama() {
    let server = decision::ollama(&["d1-omni:600m"]);
    let mut c = config(Backend::Ollama, &server.url, "");
    c.model = "d1-omni:600m".into();
    let judge = JevJudge::with_request(c, JevRequest::Spring).unwrap();
    // A blank instruction gets Ollama's 400, quoted with the server named.
    let blank = [JudgeQuestion::new(IS_RELEVANT, " ", None)];
    let err = judge
        .judge(QUERY, &[PASSAGE.to_string()], &blank)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Ollama rejected the request (HTTP 400)") && err.contains("instructions are required"),
        "{err}"
    );
    assert!(!err.contains("Jev"), "{err}");
}

#[test]
fn a_key_is_needed_off_loopback_and_never_sent_over_plain_http() {
    let keyless = JevConfig::for_backend(Backend::SystemOne, "");
    let err = JevClient::new(keyless).unwrap_err().to_string();
    assert!(err.contains("needs an API key"), "{err}");
    let mut plain = JevConfig::for_backend(Backend::Ollama, "k");
    plain.base_url = "http://192.168.1.5:11434".into();
    assert!(JevClient::new(plain).unwrap_err().to_string().contains("plain HTTP"));
    let mut local = JevConfig::for_backend(Backend::SystemOne, "");
    local.base_url = "http://127.0.0.1:9/v1/systemone".into();
    assert!(JevClient::new(local).is_ok());
}

#[test]
fn openai_predicates_in_order_with_a_refusal_not_assessed() {
    let server = decision::openai("sk-openai-test", CONTAINS_ANSWER_EVIDENCE, 0);
    let c = config(Backend::OpenAi, &format!("{}/v1", server.url), "sk-openai-test");
    let judge = JevJudge::with_request(c, JevRequest::Spring).unwrap();
    assert_eq!(judge.name(), "openai");
    assert_eq!(
        judge.prompt_version(),
        JudgeName::Decision(Backend::OpenAi, JevRequest::Spring).prompt_version()
    );
    let questions = default_questions();
    let judged = &judge.judge(QUERY, &[PASSAGE.to_string()], &questions).unwrap()[0];
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/decisions");
    let body = request.json();
    assert_eq!(
        body["input"].as_str(),
        Some(state_text().as_str()),
        "the state goes out as its JSON text"
    );
    let sent: Vec<&str> = body["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["name"].as_str().unwrap())
        .collect();
    let mut keys: Vec<&str> = questions.iter().map(|q| q.key.as_str()).collect();
    keys.sort();
    assert_eq!(sent, keys, "an ordered array of named questions");
    for q in body["questions"].as_array().unwrap() {
        assert_eq!(q["type"], "predicate");
        let text = q["instructions"].as_str().unwrap();
        assert!(
            text.contains("Answer true when:") && !text.starts_with('{'),
            "criteria folded in: {text}"
        );
    }
    for q in &questions {
        if q.key == CONTAINS_ANSWER_EVIDENCE {
            assert_eq!(
                judged.score(&q.key),
                None,
                "a refusal is not assessed, never a made-up probability"
            );
        } else {
            assert_eq!(judged.score(&q.key), Some(probability(&state_text(), &q.key)));
        }
    }
    assert_eq!(judged.model, "gpt-6-luna-2026-10-01");
    assert!(judged.input_tokens > 0 && judged.output_tokens == questions.len() as u32);
}

#[test]
fn openai_error_envelopes() {
    // 401: the envelope's code and message, not retried.
    let server = decision::openai("sk-right", "", 0);
    let judge = JevJudge::with_request(config(Backend::OpenAi, &server.url, "sk-wrong"), JevRequest::Spring).unwrap();
    let err = judge
        .judge(QUERY, &[PASSAGE.to_string()], &default_questions())
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid_api_key: Incorrect API key provided."), "{err}");
    assert!(
        err.contains("OpenAI's Decisions API refused the credentials (HTTP 401)"),
        "{err}"
    );
    assert!(!err.contains("sk-wrong"), "{err}");
    assert_eq!(server.requests().len(), 1);
    // 429 twice, then an answer: retried after the server's wait.
    let server = decision::openai("sk-right", "", 2);
    let judge = JevJudge::with_request(config(Backend::OpenAi, &server.url, "sk-right"), JevRequest::Spring).unwrap();
    let judged = judge
        .judge(QUERY, &[PASSAGE.to_string()], &default_questions())
        .unwrap();
    assert_eq!(server.requests().len(), 3);
    assert_eq!(judged[0].scores.len(), default_questions().len());
    // 429 on every attempt: rate limited, with the server named.
    let server = decision::openai("sk-right", "", 100);
    let judge = JevJudge::with_request(config(Backend::OpenAi, &server.url, "sk-right"), JevRequest::Spring).unwrap();
    let err = judge
        .judge(QUERY, &[PASSAGE.to_string()], &default_questions())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("OpenAI's Decisions API is rate limiting this key"),
        "{err}"
    );
    // An unknown model: the server has no such model, and no `ollama pull` hint.
    let server = decision::openai("sk-right", "", 0);
    let mut c = config(Backend::OpenAi, &server.url, "sk-right");
    c.model = "gpt-7".into();
    let err = JevJudge::with_request(c, JevRequest::Spring)
        .unwrap()
        .judge(QUERY, &[PASSAGE.to_string()], &default_questions())
        .unwrap_err()
        .to_string();
    assert!(err.ends_with("the server has no model gpt-7"), "{err}");
}

#[test]
fn rag_jevs_request_over_ollama_and_openai() {
    let ollama = decision::ollama(&["d1-omni:600m"]);
    let mut c = config(Backend::Ollama, &ollama.url, "");
    c.model = "d1-omni:600m".into();
    let judge = JevJudge::with_request(c, JevRequest::RagJev).unwrap();
    assert_eq!(judge.name(), "ollama-ragjev");
    let useful = [JudgeQuestion::new("useful", "Is it useful?", None)];
    let judged = judge
        .judge(QUERY, &[PASSAGE.to_string(), "Orders ship in 5 days.".into()], &useful)
        .unwrap();
    assert_eq!(judged.len(), 2);
    assert!(judged.iter().all(|j| j.score("useful").is_some()));
    let openai = decision::openai("k", "", 0);
    let judge = JevJudge::with_request(config(Backend::OpenAi, &openai.url, "k"), JevRequest::RagJev).unwrap();
    assert_eq!(judge.name(), "openai-ragjev");
    assert!(judge.judge(QUERY, &[PASSAGE.to_string()], &useful).unwrap()[0]
        .score("useful")
        .is_some());
}

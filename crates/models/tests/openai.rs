//! The OpenAI-compatible backend against a loopback server speaking the wire format: SSE streaming, logprobs,
//! and failures (401, 404 model, 429 then success, malformed SSE, dropped connection, nothing listening).

use ragsift_test_support::http;

use http::{Reply, Server};
use ragsift_models::llm::openai::{OpenAiConfig, OpenAiModel};
use ragsift_models::llm::{yes_no_prompt, CancelToken, ChatMessage, FinishReason, GenerateOptions, LanguageModel};
use std::time::Duration;

fn model(server: &Server, key: Option<&str>) -> OpenAiModel {
    let mut c = OpenAiConfig::new(&server.url, "test-model");
    c.api_key = key.map(String::from);
    c.retry_delay = Duration::from_millis(5);
    OpenAiModel::new(c).unwrap()
}

fn delta(text: &str) -> String {
    serde_json::json!({"model": "test-model", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
        .to_string()
}

fn done_events(pieces: &[&str]) -> Vec<String> {
    let mut ev: Vec<String> = pieces.iter().map(|p| delta(p)).collect();
    ev.push(serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}).to_string());
    ev.push(serde_json::json!({"choices": [], "usage": {"prompt_tokens": 11, "completion_tokens": 3}}).to_string());
    ev.push("[DONE]".into());
    ev
}

fn chat(m: &OpenAiModel) -> (ragsift_models::Result<ragsift_models::llm::Completion>, Vec<String>) {
    let mut pieces = Vec::new();
    let r = m.chat(
        &[ChatMessage::user("What is a PDF?")],
        &GenerateOptions::default(),
        &mut |p| pieces.push(p.to_string()),
        &CancelToken::new(),
    );
    (r, pieces)
}

#[test]
fn streams_tokens_in_order_with_usage_and_sends_the_key() {
    let server = Server::start(vec![Reply::Sse(done_events(&["A PDF", " is a", " document."]))]);
    let (r, pieces) = chat(&model(&server, Some("sk-loopback")));
    let c = r.unwrap();
    assert_eq!(pieces, vec!["A PDF", " is a", " document."]);
    assert_eq!(c.text, "A PDF is a document.");
    assert_eq!((c.usage.prompt_tokens, c.usage.completion_tokens), (11, 3));
    assert_eq!(c.finish_reason, FinishReason::Stop);
    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(req.header("authorization"), Some("Bearer sk-loopback"));
    let body = req.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][0]["role"], "user");
}

#[test]
fn yes_no_reads_logprobs_and_falls_back_to_the_answer() {
    let logprobs = serde_json::json!({
        "model": "test-model",
        "choices": [{"message": {"role": "assistant", "content": "Yes"}, "logprobs": {"content": [{
            "token": "Yes", "logprob": -0.2,
            "top_logprobs": [
                {"token": "Yes", "logprob": -0.2231}, {"token": " yes", "logprob": -3.0},
                {"token": "No", "logprob": -1.8}, {"token": "Maybe", "logprob": -4.0}
            ]}]}}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 1}
    });
    let plain = serde_json::json!({"choices": [{"message": {"role": "assistant", "content": "No."}}]});
    let server = Server::start(vec![
        Reply::Json(200, vec![], logprobs.to_string()),
        Reply::Json(200, vec![], plain.to_string()),
    ]);
    let m = model(&server, None);
    let a = m
        .yes_no(&[yes_no_prompt("The sky is blue.", "Is the sky blue?")])
        .unwrap()
        .remove(0);
    let expected = (0.8f64 + (-3.0f64).exp()) / (0.8 + (-3.0f64).exp() + (-1.8f64).exp());
    assert!((a.p_yes as f64 - expected).abs() < 1e-3, "{} vs {expected}", a.p_yes);
    assert!(a.calibrated);
    assert_eq!(a.usage.prompt_tokens, 30);
    let req = server.requests()[0].json();
    assert_eq!(
        (req["logprobs"].as_bool(), req["max_tokens"].as_u64()),
        (Some(true), Some(1))
    );
    let b = m.yes_no(&[yes_no_prompt("", "Is water dry?")]).unwrap().remove(0);
    assert_eq!(
        (b.p_yes, b.calibrated),
        (0.0, false),
        "no logprobs: the answer, marked uncalibrated"
    );
}

#[test]
fn http_errors_are_typed() {
    let err_body = |m: &str| serde_json::json!({"error": {"message": m}}).to_string();
    let server = Server::start(vec![
        Reply::Json(401, vec![], err_body("invalid api key")),
        Reply::Json(404, vec![], err_body("model 'test-model' not found")),
    ]);
    let m = model(&server, Some("bad"));
    let (r, _) = chat(&m);
    let e = r.unwrap_err();
    assert_eq!(e.code(), "auth");
    assert!(e.to_string().contains("invalid api key"));
    let (r, _) = chat(&m);
    assert_eq!(r.unwrap_err().code(), "model_not_found");
}

#[test]
fn rate_limits_are_retried_honouring_retry_after() {
    let server = Server::start(vec![
        Reply::Json(429, vec![("retry-after-ms", "20".into())], "{}".into()),
        Reply::Json(503, vec![], "{}".into()),
        Reply::Sse(done_events(&["ok"])),
    ]);
    let (r, _) = chat(&model(&server, None));
    assert_eq!(r.unwrap().text, "ok");
    assert_eq!(server.requests().len(), 3);

    let always = Server::start(vec![Reply::Json(429, vec![], "{}".into()); 4]);
    let (r, _) = chat(&model(&always, None));
    assert_eq!(r.unwrap_err().code(), "rate_limited");
    assert_eq!(always.requests().len(), 4, "the first try and three retries");
}

#[test]
fn malformed_and_dropped_streams_are_protocol_errors() {
    let server = Server::start(vec![
        Reply::Sse(vec![delta("fine"), "{not json".into()]),
        Reply::Raw(format!("data: {}\n\n", delta("half an answer"))),
        Reply::Sse(vec![delta("no end marker")]),
    ]);
    let m = model(&server, None);
    let (r, pieces) = chat(&m);
    let e = r.unwrap_err();
    assert_eq!(e.code(), "protocol");
    assert!(e.to_string().contains("malformed"), "{e}");
    assert_eq!(pieces, vec!["fine"]);
    let (r, _) = chat(&m);
    assert_eq!(r.unwrap_err().code(), "protocol", "connection dropped mid-answer");
    let (r, _) = chat(&m);
    assert_eq!(r.unwrap_err().code(), "protocol", "stream ended without [DONE]");
}

#[test]
fn nothing_listening_is_unreachable() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let m = OpenAiModel::new(OpenAiConfig::new(format!("http://127.0.0.1:{port}"), "m")).unwrap();
    let (r, _) = chat(&m);
    let e = r.unwrap_err();
    assert_eq!(e.code(), "unreachable");
    assert!(e.to_string().contains("is the server running"));
}

#[test]
fn cancel_stops_reading_the_stream() {
    let server = Server::start(vec![Reply::Sse(done_events(&["one", "two", "three"]))]);
    let m = model(&server, None);
    let cancel = CancelToken::new();
    let mut pieces = Vec::new();
    let c = m
        .chat(
            &[ChatMessage::user("count")],
            &GenerateOptions::default(),
            &mut |p| {
                pieces.push(p.to_string());
                cancel.cancel();
            },
            &cancel,
        )
        .unwrap();
    assert_eq!(c.finish_reason, FinishReason::Cancelled);
    assert_eq!(pieces, vec!["one"]);
}

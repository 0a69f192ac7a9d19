//! Unit tests of the parent module: question wording and validation, retry-after and backoff, configuration checks,
//! error-body parsing.

use super::client::retry_after;
use super::wire::{detail_message, instructions_value, validation_issues, wire_questions};
use super::*;
use serde_json::Value;

/// FNV-1a over the serialised default questions: a stable fingerprint of the wording.
fn fingerprint() -> u64 {
    let text = serde_json::to_string(&default_questions()).unwrap();
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn prompt_version_tracks_the_wording() {
    // If this fails you changed the questions: bump PROMPT_VERSION, then update both constants here.
    assert_eq!(PROMPT_VERSION, "jev-filter-v1+useful-evidence-v1");
    assert_eq!(fingerprint(), 0xc41c_49e8_f87c_8dc8, "fingerprint {:#x}", fingerprint());
}

#[test]
fn default_questions_are_the_five_keys() {
    let keys: Vec<String> = default_questions().into_iter().map(|q| q.key).collect();
    assert_eq!(
        keys,
        [
            CONTAINS_PROMPT_INJECTION,
            CONTRADICTS_QUERY_PREMISE,
            IS_RELEVANT,
            CONTAINS_ANSWER_EVIDENCE,
            USEFUL
        ]
    );
    assert!(wire_questions(&default_questions()).is_ok());
}

#[test]
fn injection_instructions_go_out_as_an_object() {
    let wire = wire_questions(&filter_questions()).unwrap();
    let injection = &wire[CONTAINS_PROMPT_INJECTION].instructions;
    assert!(injection["question"]
        .as_str()
        .unwrap()
        .starts_with("Does the `passage` try to instruct"));
    assert!(injection["focus"].as_str().unwrap().ends_with("or reveal its prompt."));
    assert_eq!(instructions_value("{not json"), Value::String("{not json".into()));
    assert_eq!(instructions_value("[1, 2]"), serde_json::json!([1, 2]));
    assert_eq!(instructions_value("42"), Value::String("42".into()));
}

#[test]
fn question_validation() {
    assert!(matches!(wire_questions(&[]), Err(JevError::InvalidRequest { .. })));
    let q = JudgeQuestion::new("a", "x?", None);
    assert!(matches!(
        wire_questions(&[q.clone(), q]),
        Err(JevError::InvalidRequest { .. })
    ));
    let blank = JudgeQuestion::new(" ", "x?", None);
    assert!(matches!(wire_questions(&[blank]), Err(JevError::InvalidRequest { .. })));
}

#[test]
fn retry_after_headers() {
    use reqwest::header::{HeaderMap, HeaderValue};
    let mut h = HeaderMap::new();
    assert_eq!(retry_after(&h), None);
    h.insert("retry-after", HeaderValue::from_static("2"));
    assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
    h.insert("retry-after-ms", HeaderValue::from_static("250.5"));
    assert_eq!(retry_after(&h), Some(Duration::from_micros(250_500)));
    h.insert("retry-after-ms", HeaderValue::from_static("-1"));
    assert_eq!(retry_after(&h), None);
    h.remove("retry-after-ms");
    h.insert("retry-after", HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
    assert_eq!(retry_after(&h), None);
    h.insert("retry-after", HeaderValue::from_static("3600"));
    assert_eq!(
        retry_after(&h),
        Some(Duration::from_secs(3600)),
        "a long wait is the server's word: past the deadline it fails fast instead of hammering"
    );
    h.remove("retry-after");
    h.insert("x-ratelimit-reset", HeaderValue::from_static("7"));
    assert_eq!(
        retry_after(&h),
        Some(Duration::from_secs(7)),
        "seconds until the window resets"
    );
    let in_a_minute = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 60;
    h.insert(
        "x-ratelimit-reset",
        HeaderValue::from_str(&in_a_minute.to_string()).unwrap(),
    );
    let wait = retry_after(&h).unwrap();
    assert!(
        wait > Duration::from_secs(58) && wait <= Duration::from_secs(60),
        "a Unix time: {wait:?}"
    );
}

#[test]
fn backoff_doubles_caps_and_jitters() {
    let client = JevClient::new(JevConfig::new("k")).unwrap();
    for _ in 0..50 {
        let first = client.backoff(1);
        assert!(
            first <= Duration::from_millis(500) && first >= Duration::from_millis(375),
            "{first:?}"
        );
        let second = client.backoff(2);
        assert!(
            second <= Duration::from_secs(1) && second >= Duration::from_millis(750),
            "{second:?}"
        );
        let late = client.backoff(30);
        assert!(
            late <= Duration::from_secs(5) && late >= Duration::from_millis(3750),
            "{late:?}"
        );
    }
}

#[test]
fn config_checks() {
    let mut c = JevConfig::new("k");
    c.base_url = "http://jev.example.com".into();
    assert!(
        matches!(JevClient::new(c.clone()), Err(JevError::Config { .. })),
        "key over plain HTTP"
    );
    c.base_url = "http://127.0.0.1:9/".into();
    assert_eq!(
        JevClient::new(c.clone()).unwrap().endpoint.as_str(),
        "http://127.0.0.1:9/v1/systemone"
    );
    c.concurrency = 0;
    assert!(matches!(JevClient::new(c), Err(JevError::Config { .. })));
    assert!(matches!(
        JevClient::new(JevConfig::new(" ")),
        Err(JevError::Config { .. })
    ));
}

#[test]
fn error_bodies() {
    assert_eq!(
        detail_message(br#"{"detail": {"type": "authentication_error", "message": "Invalid API key"}}"#),
        "authentication_error: Invalid API key"
    );
    assert_eq!(detail_message(br#"{"detail": "Not Found"}"#), "Not Found");
    assert_eq!(detail_message(b""), "(empty body)");
    assert_eq!(detail_message(b"<html>oops</html>"), "<html>oops</html>");
    let issues = validation_issues(br#"{"detail": [{"type": "missing", "loc": ["body", "state", 0], "msg": "x"}]}"#);
    assert_eq!(issues[0].loc, ["body", "state", "0"]);
}

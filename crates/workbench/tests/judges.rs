//! Settings' judges: the choices come from Rust, *Test connection* makes one small call and says what answered or
//! why not in plain words, and each backend keeps its own stored key.

use ragsift_test_support::decision;
use ragsift_workbench::{judge_choices, JudgeKind, JudgeSettings, Workbench};

fn settings(kind: JudgeKind, url: &str, model: Option<&str>) -> JudgeSettings {
    JudgeSettings {
        kind,
        base_url: Some(url.to_string()),
        model: model.map(String::from),
        ..JudgeSettings::default()
    }
}

#[test]
fn every_kind_is_offered_once_with_its_defaults() {
    let choices = judge_choices();
    assert_eq!(choices.len(), JudgeKind::ALL.len());
    let ollama = choices.iter().find(|c| c.kind == JudgeKind::Ollama).unwrap();
    assert!(ollama.decision);
    assert_eq!(ollama.default_base_url.as_deref(), Some("http://localhost:11434"));
    assert_eq!(ollama.default_model.as_deref(), Some("d1-omni:600m"));
    let local = choices.iter().find(|c| c.kind == JudgeKind::Local).unwrap();
    assert!(!local.decision && local.default_base_url.is_none());
}

#[test]
fn test_connection_answers_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let wb = Workbench::open(Some(dir.path())).unwrap();
    let server = decision::ollama(&["d1-omni:600m"]);
    // A pulled model: one call, the backend and model named, a probability.
    let probe = wb.test_judge(&settings(JudgeKind::Ollama, &server.url, None)).unwrap();
    assert_eq!(probe.judge, "ollama · d1-omni:600m");
    assert_eq!(probe.endpoint, format!("{}/v1/systemone", server.url));
    assert!(probe.relevant.is_some_and(|p| (0.0..=1.0).contains(&p)));
    assert_eq!(server.requests().len(), 1);
    // An unpulled model: the fix in the message.
    let err = wb
        .test_judge(&settings(JudgeKind::Ollama, &server.url, Some("nimble:350m")))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the server has no model nimble:350m (ollama pull nimble:350m)"),
        "{err}"
    );
    // Nothing listening: unreachable, said as such.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let err = wb
        .test_judge(&settings(JudgeKind::Ollama, &url, None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("Ollama is unreachable"), "{err}");
    // Not a decision model: nothing to test.
    assert!(wb.test_judge(&settings(JudgeKind::Local, &url, None)).is_err());
    // The test saves nothing.
    assert_eq!(wb.settings().judge, JudgeSettings::default());
}

#[test]
fn each_backend_keeps_its_own_key() {
    let dir = tempfile::tempdir().unwrap();
    let wb = Workbench::open(Some(dir.path())).unwrap();
    let mut s = wb.settings();
    s.judge.kind = JudgeKind::OpenAi;
    wb.save_settings(s).unwrap();
    assert!(wb.set_judge_key(Some("sk-openai-stored")).unwrap().key_set);
    assert!(dir.path().join("openai-api-key").exists());
    assert!(
        !dir.path().join("jev-api-key").exists(),
        "an OpenAI key never becomes Jev's"
    );
    let server = decision::openai("sk-openai-stored", "", 0);
    let probe = wb.test_judge(&settings(JudgeKind::OpenAi, &server.url, None)).unwrap();
    assert_eq!(probe.judge, "openai · gpt-6-luna-2026-10-01");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-openai-stored")
    );
}

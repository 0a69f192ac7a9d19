//! The first run, with the real models and the offline judge: an empty library is offered the bundled samples,
//! a library with documents is not, and each suggested question does on the samples what its hint says: the judge
//! drops a passage with its reason (and the answer, right, is marked well supported), a threshold drag changes the
//! selection, and an unanswerable question is answered "the documents do not say".

use ragsift_pipeline::support::SupportLevel;
use ragsift_pipeline::Trace;
use ragsift_policy::CONTAINS_ANSWER_EVIDENCE;
use ragsift_workbench::{AskRequest, SuggestionKind, Workbench};
use std::sync::Arc;

fn ask(wb: &Workbench, question: &str) -> Trace {
    let request = AskRequest {
        question: question.into(),
        history: Vec::new(),
        options: None,
    };
    wb.ask(&request, "job-first-run", Arc::new(|_| {})).unwrap()
}

#[test]
fn the_samples_and_three_questions_that_show_the_loop() {
    let home = tempfile::tempdir().unwrap();
    let wb = Workbench::open(Some(home.path())).unwrap();
    let offer = wb.first_run().unwrap();
    let names: Vec<String> = (offer.samples.iter())
        .map(|p| {
            std::path::Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        names,
        ["field-notes.pdf", "ragsift-user-guide.pdf", "sourdough-starter.md"]
    );
    let report = wb.ingest(&offer.samples, "job-samples", &|_| {}).unwrap();
    assert!(
        report.files.iter().all(|f| f.status.to_string() == "ingested"),
        "{report:?}"
    );
    let after = wb.first_run().unwrap();
    assert!(after.samples.is_empty(), "a library with documents is offered nothing");
    assert_eq!(after.suggestions.len(), 3);

    for s in &after.suggestions {
        let trace = ask(&wb, &s.question);
        let decisions = &trace.selection.decisions;
        let kept: Vec<_> = decisions.iter().filter(|d| d.is_selected()).collect();
        match s.kind {
            SuggestionKind::JudgeDrops => {
                assert!(!kept.is_empty(), "{}: the answer's passage is kept", s.question);
                let dropped = decisions.iter().filter(|d| !d.is_selected()).count();
                assert!(dropped > 0, "{}: the judge drops a passage", s.question);
                assert!(
                    trace.citations.contains(&1) || trace.answer.contains("[1]"),
                    "{}",
                    trace.answer
                );
                assert!(
                    trace.answer.contains("19 °C"),
                    "the answer holds the reading: {}",
                    trace.answer
                );
                assert_eq!(trace.support.level, SupportLevel::Well, "{:?}", trace.support);
            }
            SuggestionKind::ThresholdMatters => {
                // Two passages kept on their evidence: raising the evidence threshold past the weaker one drops
                // it and keeps the other, from the cached judgments.
                assert!(kept.len() >= 2, "{}: two passages are kept", s.question);
                let evidence = |id: &str| {
                    (trace.judge.judgments.iter())
                        .find(|j| j.chunk_id == id)
                        .and_then(|j| j.scores.get(CONTAINS_ANSWER_EVIDENCE).copied())
                        .unwrap()
                };
                let mut scores: Vec<f64> = kept.iter().map(|d| evidence(&d.chunk_id)).collect();
                scores.sort_by(f64::total_cmp);
                let mut options = trace.policy.clone();
                let between = (scores[0] + scores[scores.len() - 1]) / 2.0;
                assert!(
                    scores[scores.len() - 1] - scores[0] > 0.1,
                    "{scores:?}: far enough apart to drag between"
                );
                options.thresholds.insert(CONTAINS_ANSWER_EVIDENCE.to_string(), between);
                let replay = wb.replay(&trace.run_id, &options).unwrap();
                let now = replay.selection.selected().len();
                assert!(
                    now >= 1 && now < kept.len(),
                    "{}: {now} of {} kept at {between}",
                    s.question,
                    kept.len()
                );
            }
            SuggestionKind::Unanswerable => {
                assert!(kept.is_empty(), "{}: nothing is kept", s.question);
                assert!(trace.citations.is_empty(), "{}", trace.answer);
                assert!(trace.answer.starts_with("The documents do not say"), "{}", trace.answer);
            }
        }
    }
}

//! Tests of the tuning functions: curves as replays, evidence naming, matching across chunkings.

use super::*;
use ragsift_pipeline::join::Provenance;
use ragsift_pipeline::judging::{CandidateJudgment, JudgeOutcome, JudgeStatus};
use ragsift_pipeline::labels::RunLabels;
use ragsift_pipeline::trace::VariantHits;
use ragsift_policy::{CONTAINS_ANSWER_EVIDENCE, CONTAINS_PROMPT_INJECTION, CONTRADICTS_QUERY_PREMISE};
use std::collections::BTreeMap;

/// A labelled run over candidates c0.. with these (relevance = evidence = usefulness) scores, 10·(i+1) tokens.
fn run(scores: &[f64], relevant: &[&str], policy: &PolicyOptions) -> Trace {
    let candidates: Vec<Candidate> = (0..scores.len())
        .map(|i| Candidate {
            chunk_id: format!("c{i}"),
            document_id: "d".into(),
            document: "d.pdf".into(),
            title: "d".into(),
            page_start: 1,
            page_end: 1,
            char_start: 0,
            char_end: 1,
            tokens: 10 * (i as u32 + 1),
            text: format!("passage {i}"),
            score: 0.5,
            found_by: vec![Provenance {
                variant: 0,
                rank: i + 1,
                score: 0.5,
            }],
            metadata: None,
            group_id: None,
            pinned: false,
            section: Vec::new(),
        })
        .collect();
    let judgments = (candidates.iter().zip(scores))
        .map(|(c, &p)| CandidateJudgment {
            chunk_id: c.chunk_id.clone(),
            scores: BTreeMap::from([
                (CONTAINS_PROMPT_INJECTION.to_string(), 0.01),
                (CONTRADICTS_QUERY_PREMISE.to_string(), 0.01),
                (IS_RELEVANT.to_string(), p),
                (CONTAINS_ANSWER_EVIDENCE.to_string(), p),
                (USEFUL.to_string(), p),
            ]),
            model: "m".into(),
            cached: false,
            input_tokens: 100,
            output_tokens: 1,
            latency_ms: 1.0,
        })
        .collect();
    let judge = JudgeOutcome {
        judge: "test".into(),
        model: "m".into(),
        prompt_version: "v".into(),
        calibrated: true,
        status: JudgeStatus::Judged,
        error_code: None,
        error: None,
        judgments,
        fresh_passages: scores.len(),
        cached_passages: 0,
        unscreened_passages: 0,
        input_tokens: 0,
        output_tokens: 0,
        latency_ms: 0.0,
        not_assessed: Vec::new(),
        defaults: Default::default(),
    };
    let variant = VariantHits {
        query: "q".into(),
        hits: Vec::new(),
    };
    let labels = RunLabels {
        relevant_ids: Some(relevant.iter().map(|s| s.to_string()).collect()),
        ..RunLabels::default()
    };
    Trace::imported("q", variant, candidates, judge, policy, labels).unwrap()
}

#[test]
fn run_curves_are_replays_and_mark_the_runs_setting() {
    let policy = PolicyOptions {
        mode: Mode::Filter,
        min_relevance: Some(0.5),
        ..PolicyOptions::default()
    };
    let runs = [
        run(&[0.9, 0.6, 0.3, 0.1], &["c0", "c2"], &policy),
        run(&[0.8, 0.2], &["c1"], &policy),
    ];
    let curves = curves_over_runs(&runs).unwrap();
    let find = |mode: Mode, p: &str| curves.iter().find(|c| c.mode == mode && c.parameter == p).unwrap();
    // Every point is the mean of the runs' replays at its options.
    for c in &curves {
        for p in &c.points {
            let reports: Vec<_> = (runs.iter())
                .map(|t| t.replay(&p.options, None).unwrap().labels.unwrap())
                .collect();
            let tokens = reports.iter().map(|r| r.selected_tokens as f64).sum::<f64>() / 2.0;
            assert_eq!(p.context_tokens, tokens, "{:?} {} at {}", c.mode, c.parameter, p.value);
            let recall: Vec<f64> = reports.iter().filter_map(|r| r.evidence_recall).collect();
            assert_eq!(
                p.evidence_recall,
                Some(recall.iter().sum::<f64>() / recall.len() as f64)
            );
        }
    }
    // Filter at 0.5: run 1 keeps c0, c1 (recall 1/2, precision 1/2), run 2 keeps c0 (recall 0, precision 0).
    let filter = find(Mode::Filter, MIN_RELEVANCE);
    let marked = &filter.points[filter.current.unwrap()];
    assert_eq!(
        (marked.value, marked.evidence_recall, marked.precision),
        (0.5, Some(0.25), Some(0.25))
    );
    assert_eq!(marked.context_tokens, (30.0 + 10.0) / 2.0);
    // Classify sweeps its four thresholds; the run filtered, so no classify point is marked.
    let keys: Vec<&str> = (curves.iter().filter(|c| c.mode == Mode::Classify))
        .map(|c| c.parameter.as_str())
        .filter(|p| p.starts_with("con") || p.starts_with("is_"))
        .collect();
    assert_eq!(keys.len(), 4, "{keys:?}");
    assert!(curves
        .iter()
        .filter(|c| c.mode != Mode::Filter)
        .all(|c| c.current.is_none()));
    let budget = find(Mode::Rerank, MAX_CONTEXT_TOKENS);
    assert_eq!(
        budget.points.last().unwrap().value,
        100.0,
        "up to the largest run's candidates"
    );
    assert!(find(Mode::Fusion, TOP_N).points.len() == 4);

    let mut unlabelled = runs[1].clone();
    unlabelled.labels = RunLabels::default();
    // A run of another model never joins a curve: its probabilities are not comparable.
    let mut other_model = runs[1].clone();
    other_model.judge.model = "d1-omni:600m".into();
    let mixed = curves_over_runs(&[runs[0].clone(), other_model])
        .unwrap_err()
        .to_string();
    assert!(
        mixed.contains("one judge at a time") && mixed.contains("d1-omni:600m"),
        "{mixed}"
    );
    let err = curves_over_runs(&[runs[0].clone(), unlabelled]).unwrap_err();
    assert!(err.to_string().contains("no relevance labels"), "{err}");
}

#[test]
fn evidence_is_named_by_chunk_id_or_document() {
    let t = run(&[0.9], &[], &PolicyOptions::default());
    let c = &t.candidates[0];
    assert!(is_evidence(c, &["d.pdf".into()]) && is_evidence(c, &["c0".into()]));
    assert!(!is_evidence(c, &["other.pdf".into()]));
}

#[test]
fn differently_chunked_sides_are_matched_by_page() {
    let policy = PolicyOptions::default();
    let a = run(&[0.9, 0.9], &[], &policy);
    let mut b = run(&[0.9], &[], &policy);
    for c in &mut b.candidates {
        c.chunk_id = format!("other-{}", c.chunk_id);
    }
    b.selection.returned_ids = b.candidates.iter().map(|c| c.chunk_id.clone()).collect();
    let case = CompareCase {
        id: "q".into(),
        query: "q".into(),
        relevant_ids: vec!["d.pdf".into()],
        documents: None,
        spans: None,
    };
    let named = |t: &Trace| -> HashSet<String> {
        (t.candidates.iter())
            .filter(|c| is_evidence(c, &case.relevant_ids))
            .map(|c| c.chunk_id.clone())
            .collect()
    };
    let (ev_a, ev_b) = (named(&a), named(&b));
    // By chunk id, B's chunk is other evidence than A's: each side finds part of the pool.
    let by_chunk = question(&case, (&a, &ev_a), (&b, &ev_b), chunk_units);
    assert_eq!(by_chunk.evidence, 3);
    // What one side alone kept is shown by what it says, with where it lies.
    let texts = |l: &[EvidenceRef]| -> Vec<(String, u32, u32)> {
        (l.iter().map(|e| (e.text.clone(), e.page_start, e.page_end))).collect()
    };
    assert_eq!(
        texts(&by_chunk.kept_only_a),
        [("passage 0".into(), 1, 1), ("passage 1".into(), 1, 1)]
    );
    assert_eq!(texts(&by_chunk.kept_only_b), [("passage 0".into(), 1, 1)]);
    // By page, both cover d.pdf's page 1: the same evidence, nothing lost on either side.
    let by_page = question(&case, (&a, &ev_a), (&b, &ev_b), page_units);
    assert_eq!(by_page.evidence, 1);
    assert_eq!(
        (by_page.a.evidence_recall, by_page.b.evidence_recall),
        (Some(1.0), Some(1.0))
    );
    assert_eq!((by_page.a.precision, by_page.b.precision), (1.0, 1.0));
    assert!(by_page.kept_only_a.is_empty() && by_page.retrieved_only_b.is_empty());
}

#[test]
fn compare_on_the_librarys_labels_says_when_there_are_none() {
    let home = tempfile::tempdir().unwrap();
    let wb = Workbench::open(Some(home.path())).unwrap();
    let request = CompareRequest {
        cases: CaseSource::Labels,
        a: wb.compare_config("A", &serde_json::json!({})).unwrap(),
        b: wb.compare_config("B", &serde_json::json!({"top_k": 2})).unwrap(),
    };
    match wb.compare(&request, "no-labels") {
        Err(Error::Invalid(m)) => assert_eq!(m, NO_LABELS),
        other => panic!("expected the no-labels error, got {other:?}"),
    }
    // The source crosses IPC tagged by kind.
    assert_eq!(
        serde_json::to_value(CaseSource::File { path: "c.json".into() }).unwrap(),
        serde_json::json!({"kind": "file", "path": "c.json"})
    );
    assert_eq!(
        serde_json::from_value::<CaseSource>(serde_json::json!({"kind": "labels"})).unwrap(),
        CaseSource::Labels
    );
}

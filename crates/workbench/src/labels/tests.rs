//! Tests of span matching across chunkings and of finding a phrase.

use super::*;
use ragsift_policy::PolicyOptions;
use std::sync::Arc;

fn candidate(id: &str, page: u32, start: u32, end: u32) -> Candidate {
    Candidate {
        chunk_id: id.into(),
        document_id: "d".into(),
        document: "/d".into(),
        title: "D".into(),
        page_start: page,
        page_end: page,
        char_start: start,
        char_end: end,
        tokens: 10,
        text: "x".repeat((end - start) as usize),
        score: 0.0,
        found_by: Vec::new(),
        metadata: None,
        group_id: None,
        pinned: false,
        section: Vec::new(),
    }
}

fn label(page: u32, start: u32, end: u32, relevant: bool) -> SpanLabel {
    SpanLabel {
        id: SpanLabel::make_id("q", "sum", page, start, end),
        question: "q".into(),
        document_id: "d".into(),
        checksum: "sum".into(),
        page,
        char_start: start,
        char_end: end,
        text: String::new(),
        relevant,
        labelled_by: "ana".into(),
        labelled_at: 0,
        run_id: None,
    }
}

fn versions(cs: &[Candidate]) -> HashMap<String, String> {
    cs.iter().map(|c| (c.chunk_id.clone(), "sum".to_string())).collect()
}

#[test]
fn spans_label_chunks_of_any_chunking() {
    // Old chunking: a [0, 1000) and b [900, 2000) on page 1 (100 characters of overlap); a labelled relevant.
    let old = [candidate("a", 1, 0, 1000), candidate("b", 1, 900, 2000)];
    let spans = [label(1, 0, 1000, true)];
    let r = match_spans("r", "q", &old, &versions(&old), &spans);
    assert_eq!(
        r.relevant_ids,
        ["a"],
        "the neighbour sharing only the overlap is not relevant"
    );
    // New, smaller chunks: those mostly inside the span are relevant, the straddler by its majority.
    let new = [
        candidate("n0", 1, 0, 400),
        candidate("n1", 1, 350, 750),
        candidate("n2", 1, 700, 1100),
        candidate("n3", 1, 950, 1350),
        candidate("n4", 1, 0, 400),
    ];
    let mut v = versions(&new);
    v.insert("n4".into(), "another version".into());
    let r = match_spans("r", "q", &new, &v, &spans);
    assert_eq!(r.relevant_ids, ["n0", "n1", "n2"]);
    assert!(r.missed.is_empty());
    // A quoted phrase marks the chunk holding most of it; a not-relevant span marks the chunks within it.
    let spans = [label(1, 500, 540, true), label(1, 0, 2000, false)];
    let r = match_spans("r", "q", &new, &v, &spans);
    assert_eq!(r.relevant_ids, ["n1"]);
    assert_eq!(r.not_relevant_ids, ["n0", "n2", "n3"]);
    // A relevant span on another page is missed evidence, so no "none relevant" is derived.
    let spans = [label(2, 0, 10, true), label(1, 0, 2000, false)];
    let r = match_spans("r", "q", &new, &v, &spans);
    assert!(r.relevant_ids.is_empty() && r.missed.len() == 1);
    assert_eq!(r.run_labels(&RunLabels::default()), None);
    let r = match_spans("r", "q", &new, &v, &spans[1..]);
    assert_eq!(
        r.run_labels(&RunLabels::default()).unwrap().relevant_ids,
        Some(Vec::new())
    );
    // Explicit labels win.
    let explicit = RunLabels {
        relevant_ids: Some(vec!["n3".into()]),
        ..RunLabels::default()
    };
    assert_eq!(r.run_labels(&explicit), None);
}

#[test]
fn every_occurrence_of_a_phrase_is_found() {
    let page = "The warranty is 36 months. the WARRANTY\nis void if dropped.";
    let found = occurrences(page, "the warranty is");
    assert_eq!(found.len(), 2);
    assert_eq!(slice(page, found[1].0, found[1].1), "the WARRANTY\nis");
    assert!(occurrences(page, "missing phrase").is_empty());
}

/// A workbench in a fresh home holding one imported synthetic run of `n` candidates, `relevant` labelled: the
/// home, the workbench, the run's id and the run as stored.
fn with_imported_run(n: usize, relevant: Vec<usize>) -> (tempfile::TempDir, Workbench, String, Arc<Trace>) {
    use ragsift_pipeline::portable;
    use ragsift_pipeline::synthetic::{judged_run, SyntheticRun};

    let home = tempfile::tempdir().unwrap();
    let wb = Workbench::open(Some(home.path())).unwrap();
    let spec = SyntheticRun {
        relevant,
        ..SyntheticRun::default()
    };
    let made = judged_run(n, &spec).unwrap();
    let id = wb.import_run(portable::export(&made).unwrap().as_bytes()).unwrap().id;
    let run = wb.run(&id).unwrap();
    (home, wb, id, run)
}

#[test]
fn replays_of_a_run_keep_its_policy_input_per_grouping() {
    use ragsift_policy::{GroupBy, IS_RELEVANT};

    let (_home, wb, id, run) = with_imported_run(300, vec![1, 4]);
    // Back and forth between groupings and thresholds: each replay over the kept input is the replay in full.
    for (group_by, relevant) in [
        (GroupBy::None, 0.6),
        (GroupBy::Document, 0.6),
        (GroupBy::None, 0.8),
        (GroupBy::Page, 0.4),
        (GroupBy::Document, 0.8),
    ] {
        let o = PolicyOptions {
            group_by,
            keep_groups_together: true,
            top_n: Some(40),
            thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), relevant)]),
            ..PolicyOptions::default()
        };
        let delta = wb.replay_delta(&id, &o, false).unwrap();
        assert_eq!(
            delta.apply(&run),
            Some(run.replay(&o, None).unwrap()),
            "{group_by:?} at {relevant}"
        );
    }
}

#[test]
fn a_sweep_of_a_stored_run_is_its_replays_and_refuses_values_it_cannot_anchor() {
    use ragsift_policy::{GroupBy, CONTAINS_ANSWER_EVIDENCE};

    let (_home, wb, id, run) = with_imported_run(200, vec![2, 7]);
    let at = |v: f64| PolicyOptions {
        group_by: GroupBy::Document,
        top_n: Some(30),
        thresholds: BTreeMap::from([(CONTAINS_ANSWER_EVIDENCE.to_string(), v)]),
        ..PolicyOptions::default()
    };
    let values = vec![0.0, 0.25, 0.5, 0.75, 1.0];
    let sweep = wb
        .replay_sweep(&id, &at(0.5), CONTAINS_ANSWER_EVIDENCE, values.clone())
        .unwrap();
    assert_eq!(sweep.start, 2);
    for (i, &v) in values.iter().enumerate() {
        assert_eq!(
            sweep.at(&run, i),
            Some(wb.replay_labelled(&id, &at(v)).unwrap()),
            "at {v}"
        );
    }
    let refused = |o: &PolicyOptions, values: Vec<f64>| wb.replay_sweep(&id, o, CONTAINS_ANSWER_EVIDENCE, values);
    assert!(
        matches!(refused(&at(0.3), values.clone()), Err(Error::Invalid(_))),
        "0.3 is not a value"
    );
    assert!(matches!(refused(&at(0.5), vec![0.5, 1.5]), Err(Error::Invalid(_))));
    assert!(matches!(refused(&at(0.5), vec![0.5; 1002]), Err(Error::Invalid(_))));
    assert!(matches!(
        wb.replay_sweep("no-such-run", &at(0.5), CONTAINS_ANSWER_EVIDENCE, values),
        Err(Error::NotFound(_))
    ));
}

/// With thresholds in calibrated probability the view makes one call: the delta is the replay at the raw
/// thresholds the judge's fit gives, with the fit's notes (here none is stored: the thresholds are read as raw,
/// and the note says so).
#[test]
fn a_calibrated_replay_is_one_call_with_its_notes() {
    use ragsift_policy::IS_RELEVANT;

    let (_home, wb, id, _run) = with_imported_run(120, vec![1, 4]);
    let o = PolicyOptions {
        thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), 0.7)]),
        ..PolicyOptions::default()
    };
    let raw = wb.run_raw_thresholds(&id, &o).unwrap();
    let calibrated = wb.replay_delta(&id, &o, true).unwrap();
    let mut plain = wb.replay_delta(&id, &raw.policy, false).unwrap();
    assert!(plain.threshold_notes.is_empty());
    assert!(!calibrated.threshold_notes.is_empty(), "the missing fit is said");
    assert_eq!(calibrated.threshold_notes, raw.notes);
    plain.threshold_notes = raw.notes.clone();
    assert_eq!(calibrated, plain);
}

//! Grouping by section: the groups `chunk_judgments` makes (a chunk before any heading groups by its page), a
//! replay that keeps or drops a section whole, and traces from before sections were recorded.

use super::*;
use crate::synthetic::{judged_run, sectioned_run, set_scores, SyntheticRun};
use ragsift_policy::{Reason, IS_RELEVANT};

fn run(n: usize) -> Trace {
    judged_run(n, &SyntheticRun::default()).unwrap()
}

fn headings(path: &[&str]) -> Vec<String> {
    path.iter().map(|h| h.to_string()).collect()
}

#[test]
fn section_groups_by_document_and_heading_path_and_falls_back_to_the_page() {
    let mut trace = run(6);
    let places: [(&str, u32, &[&str]); 6] = [
        ("a", 1, &["1 Intro"]),
        ("a", 2, &["1 Intro"]),
        ("a", 2, &["2 Method", "2.1 Data"]),
        ("b", 1, &["1 Intro"]),
        ("a", 1, &[]),
        ("a", 3, &[]),
    ];
    for (c, (doc, page, path)) in trace.candidates.iter_mut().zip(places) {
        c.document_id = doc.into();
        c.page_start = page;
        c.section = headings(path);
    }
    trace.candidates[5].group_id = Some("retriever's".into());
    let groups = |g: GroupBy| -> Vec<Option<String>> {
        chunk_judgments(&trace.candidates, &trace.judge.judgments, &[], g)
            .into_iter()
            .map(|j| j.group)
            .collect()
    };
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        groups(GroupBy::Section),
        [
            some("a#1 Intro"),
            some("a#1 Intro"),
            some("a#2 Method › 2.1 Data"),
            some("b#1 Intro"),
            some("a#1"),
            some("retriever's"),
        ]
    );
    assert_eq!(
        groups(GroupBy::Page),
        [
            some("a#1"),
            some("a#2"),
            some("a#2"),
            some("b#1"),
            some("a#1"),
            some("retriever's")
        ]
    );
}

/// (selected, reason) of candidates 0 and 3 when replayed with `group_by`.
fn pair(trace: &Trace, group_by: GroupBy) -> [(Option<bool>, Reason); 2] {
    let options = PolicyOptions {
        thresholds: BTreeMap::from([(IS_RELEVANT.to_string(), 0.5)]),
        group_by,
        ..PolicyOptions::default()
    };
    let replay = trace.replay(&options, None).unwrap();
    assert_eq!(replay.options.group_by, group_by);
    let d = &replay.selection.decisions;
    [(d[0].selected, d[0].reason), (d[3].selected, d[3].reason)]
}

#[test]
fn a_replay_by_section_keeps_or_drops_a_section_whole() {
    let mut trace = sectioned_run().unwrap();
    assert_eq!(trace.candidates[0].document_id, trace.candidates[3].document_id);
    assert_eq!(trace.candidates[0].section, trace.candidates[3].section);
    assert_eq!(
        pair(&trace, GroupBy::None),
        [(Some(true), Reason::Retained), (Some(false), Reason::NotRelevant)]
    );
    assert_eq!(
        pair(&trace, GroupBy::Section),
        [(Some(true), Reason::Retained), (Some(true), Reason::GroupRetained)],
        "kept with its section"
    );

    set_scores(&mut trace, 3, 0.9, true);
    assert_eq!(pair(&trace, GroupBy::None)[0], (Some(true), Reason::Retained));
    let [first, flagged] = pair(&trace, GroupBy::Section);
    assert_eq!(
        (first.0, flagged),
        (Some(false), (Some(false), Reason::Injection)),
        "dropped with its section"
    );

    // Under different headings the two are apart again.
    trace.candidates[3].section = headings(&["5 Warranty"]);
    assert_eq!(pair(&trace, GroupBy::Section)[0], (Some(true), Reason::Retained));
}

#[test]
fn traces_from_before_sections_read_and_write_as_they_were() {
    let mut trace = run(3);
    let before = serde_json::to_value(&trace).unwrap();
    assert!(
        before["candidates"][0].get("section").is_none(),
        "an empty section is left out, so older runs and run files keep their checksums"
    );
    let read: Trace = serde_json::from_value(before).unwrap();
    assert!(read.candidates.iter().all(|c| c.section.is_empty()));

    trace.candidates[1].section = headings(&["2 Method"]);
    let file = crate::portable::export(&trace).unwrap();
    let imported = crate::portable::read(file.as_bytes()).unwrap();
    assert_eq!(imported.candidates[1].section, ["2 Method"]);
    assert!(imported.candidates[0].section.is_empty());
}

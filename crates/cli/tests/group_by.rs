//! `--group-by section` as a user runs it: a run whose candidates carry heading paths, carried to a fresh home as a
//! run file, replays with a section kept whole (and apart with `none`); an unknown grouping is refused with the
//! list of groupings.

mod common;

use common::{ragsift, run_json};
use ragsift_engine::pipeline::portable;
use ragsift_engine::pipeline::synthetic::{sectioned_run, SHARED_SECTION};
use serde_json::Value;
use std::path::Path;

/// (selected, reason) of the first and fourth decisions of `replay RUN --threshold is_relevant=0.5 --group-by BY`.
fn replay(home: &Path, run: &str, by: &str) -> (Value, [(Value, Value); 2]) {
    let (code, v) = run_json(ragsift(home).args([
        "replay",
        run,
        "--threshold",
        "is_relevant=0.5",
        "--group-by",
        by,
        "--json",
    ]));
    assert_eq!(code, 0, "{v}");
    let d = |i: usize| {
        (
            v["decisions"][i]["selected"].clone(),
            v["decisions"][i]["reason"].clone(),
        )
    };
    let pair = [d(0), d(3)];
    (v, pair)
}

fn decision(selected: bool, reason: &str) -> (Value, Value) {
    (Value::from(selected), Value::from(reason))
}

#[test]
fn replay_keeps_a_section_whole_with_group_by_section() {
    let trace = sectioned_run().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("run.json");
    std::fs::write(&file, portable::export(&trace).unwrap()).unwrap();
    let (code, v) = run_json(ragsift(home.path()).args(["runs", "import"]).arg(&file).arg("--json"));
    assert_eq!(code, 0, "{v}");

    let (v, pair) = replay(home.path(), &trace.run_id, "section");
    assert_eq!(v["options"]["group_by"], "section");
    assert_eq!(v["decisions"][3]["section"], serde_json::json!(SHARED_SECTION));
    assert_eq!(
        pair,
        [decision(true, "retained"), decision(true, "group_retained")],
        "the less relevant chunk stays with its section"
    );
    let (_, apart) = replay(home.path(), &trace.run_id, "none");
    assert_eq!(apart[1], decision(false, "not_relevant"));

    let out = ragsift(home.path())
        .args(["replay", &trace.run_id, "--group-by", "chapter"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("unknown --group-by 'chapter' (none, document, page, section)"),
        "{err}"
    );
}

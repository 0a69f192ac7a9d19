//! `ragsift review packet` and `review results` as a reviewer's organiser runs them: a run asked over a small text
//! fixture, a blinded packet that never says which answer is the baseline, its key beside it (never
//! overwritten), then labels checked with and without the key.

mod common;

use common::{ragsift, repo, run_json};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn text(out: &Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// An RFC 4180 row, every field quoted as the exports are.
fn row(fields: &[&str]) -> String {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| format!("\"{}\"", f.replace('"', "\"\"")))
        .collect();
    quoted.join(",") + "\n"
}

const HEADER: [&str; 7] = [
    "packet_id",
    "item_id",
    "anonymous_answer",
    "reviewer",
    "semantically_correct",
    "ambiguous_question_or_reference",
    "notes",
];

#[test]
fn a_packet_is_blinded_and_its_labels_unblind_only_with_the_key() {
    let home = tempfile::tempdir().unwrap();
    let out = ragsift(home.path())
        .arg("ingest")
        .arg(repo().join("fixtures/text"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (code, asked) = run_json(ragsift(home.path()).args([
        "ask",
        "How much water do tomatoes get?",
        "--judge",
        "local",
        "--max-tokens",
        "16",
        "--json",
    ]));
    assert_eq!(code, 0, "{asked}");
    let run_id = asked["run_id"].as_str().unwrap().to_string();

    let dir = tempfile::tempdir().unwrap();
    let packet_path = dir.path().join("packet.json");
    let packet_args = |extra: &[&str]| {
        let mut c = ragsift(home.path());
        c.args(["review", "packet", &run_id, "--seed", "7"]).args(extra);
        c
    };
    let (code, stdout, err) = text(
        &packet_args(&["--output", packet_path.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(stdout.trim().is_empty(), "the packet went to --output: {stdout}");
    assert!(err.contains("answering 1/1"), "progress on stderr: {err}");
    let key_path = dir.path().join("packet.key.json");
    let (packet, key) = (read(&packet_path), read(&key_path));

    // The packet: one item, two anonymous answers, all the evidence, and no word of which is which.
    let packet_id = packet["packet_id"].as_str().unwrap().to_string();
    assert_eq!(key["packet_id"], packet_id.as_str());
    let item = &packet["items"][0];
    assert_eq!(packet["items"].as_array().unwrap().len(), 1);
    assert_eq!(item["query"], "How much water do tomatoes get?");
    assert_eq!(
        item["answers"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["A", "B"]
    );
    let k = &key["items"][0];
    let (baseline_run, baseline_side) = (
        k["baseline_run_id"].as_str().unwrap(),
        k["baseline_answer"].as_str().unwrap(),
    );
    let raw = std::fs::read_to_string(&packet_path).unwrap().to_lowercase();
    for hint in ["baseline", "selected", "seed", &run_id, baseline_run] {
        assert!(!raw.contains(&hint.to_lowercase()), "the packet names `{hint}`");
    }
    assert_eq!(key["seed"], 7);
    assert_eq!(
        (k["item_id"].as_str(), k["run_id"].as_str()),
        (Some("q1"), Some(run_id.as_str()))
    );
    assert_eq!(
        k["selected_run_id"],
        run_id.as_str(),
        "the run had an answer: it is the selected one"
    );

    // The baseline answer is a new run from every candidate, in retrieval order, with no judge.
    let (code, baseline) = run_json(ragsift(home.path()).args(["runs", "show", baseline_run, "--json"]));
    assert_eq!(code, 0);
    assert_eq!(baseline["judge"]["judge"], "none");
    let candidates: Vec<&Value> = baseline["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["chunk_id"])
        .collect();
    assert!(!candidates.is_empty());
    assert_eq!(
        item["full_candidate_evidence"].as_array().unwrap().len(),
        candidates.len()
    );
    assert_eq!(
        baseline["selection"]["returned_ids"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        candidates
    );
    assert_eq!(
        k["baseline_ids"].as_array().unwrap().iter().collect::<Vec<_>>(),
        candidates
    );
    assert_eq!(
        item["answers"][baseline_side]["text"], baseline["answer"],
        "every candidate: citations keep their numbers"
    );
    let selected_side = if baseline_side == "A" { "B" } else { "A" };
    assert!(item["answers"][selected_side]["text"]
        .as_str()
        .is_some_and(|t| !t.is_empty()));

    // Never overwritten: neither the packet nor the key.
    let (code, _, err) = text(
        &packet_args(&["--output", packet_path.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 2);
    assert!(err.contains("never overwritten"), "{err}");
    let other = dir.path().join("other.json");
    let (code, _, err) = text(
        &packet_args(&["--output", other.to_str().unwrap(), "--key", key_path.to_str().unwrap()])
            .output()
            .unwrap(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(!other.exists());

    // To stdout, the key beside the current folder; the same seed gives the same packet.
    let cwd = tempfile::tempdir().unwrap();
    let out = packet_args(&[]).current_dir(cwd.path()).output().unwrap();
    let (code, stdout, err) = text(&out);
    assert_eq!(code, 0, "{err}");
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        again["packet_id"],
        packet_id.as_str(),
        "same runs, same seed, same packet"
    );
    assert!(cwd.path().join(format!("review-key-{packet_id}.json")).is_file());

    // Labels: the selected answer right, the baseline's wrong; notes with quotes, commas and a line break.
    let results = |labels: &str, key: bool| {
        let labels_path = dir.path().join("labels.csv");
        std::fs::write(&labels_path, labels).unwrap();
        let mut c = ragsift(home.path());
        c.args(["review", "results"])
            .arg(&packet_path)
            .arg(&labels_path)
            .arg("--json");
        if key {
            c.arg("--key").arg(&key_path);
        }
        text(&c.output().unwrap())
    };
    let note = "says \"1.5 litres\", fine\nsecond line";
    let rows = [
        row(&[&packet_id, "q1", baseline_side, "tester", "no", "no", "too vague"]),
        row(&[&packet_id, "q1", selected_side, "tester", "yes", "no", note]),
    ];
    let header = row(&HEADER);

    let (code, stdout, err) = results(&format!("{header}{}", rows[0]), true);
    assert_eq!(code, 1, "incomplete labels exit 1: {err}");
    assert!(
        err.contains(&format!("incomplete: 1 of 2 answers unlabelled: q1/{selected_side}")),
        "{err}"
    );
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (r["status"].as_str(), &r["unblinded"]),
        (Some("incomplete"), &Value::Null)
    );
    assert!(
        err.contains("the key is applied only once every answer is labelled"),
        "{err}"
    );

    let complete = format!("{header}{}{}", rows[0], rows[1]);
    let (code, stdout, err) = results(&complete, false);
    assert_eq!(code, 0, "{err}");
    let r: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["status"], "complete");
    assert_eq!(
        (r["labeled_answers"].as_u64(), r["reviewers"][0].as_str()),
        (Some(2), Some("tester"))
    );
    assert_eq!(r["unblinded"], Value::Null, "no key, no unblinding");
    assert!(!stdout.contains("baseline") && !stdout.contains(&run_id), "{stdout}");

    let (code, stdout, err) = results(&complete, true);
    assert_eq!(code, 0, "{err}");
    let u = serde_json::from_str::<Value>(&stdout).unwrap()["unblinded"].clone();
    assert_eq!(u["items"][0]["winner"], "selected");
    assert_eq!(u["items"][0]["outcome"], "selected_only");
    assert_eq!(u["items"][0]["baseline_run_id"], baseline_run);
    assert_eq!(
        (u["selected_only"].as_u64(), u["paired_items"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(u["paired_difference"].as_f64(), Some(1.0));
    assert_eq!(u["by_arm"]["baseline"]["no"], 1);

    // The human summary says the same.
    let mut c = ragsift(home.path());
    c.args(["review", "results"])
        .arg(&packet_path)
        .arg(dir.path().join("labels.csv"));
    let (code, stdout, _) = text(&c.arg("--key").arg(&key_path).output().unwrap());
    assert_eq!(code, 0);
    assert!(
        stdout.contains("selected_only") && stdout.contains("+100.0 points over 1 items"),
        "{stdout}"
    );

    // An unknown item and a duplicate are refused with their lines.
    let bad = format!(
        "{header}{}{}{}",
        rows[0],
        rows[0],
        row(&[&packet_id, "q2", "A", "tester", "yes", "no", ""])
    );
    let (code, _, err) = results(&bad, true);
    assert_eq!(code, 2);
    assert!(err.contains("line 3: item q1") && err.contains("listed twice"), "{err}");
    assert!(
        err.contains("line 4: item `q2` answer `A` is not in the packet"),
        "{err}"
    );
}

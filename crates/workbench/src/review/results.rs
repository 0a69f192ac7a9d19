//! The reviewers' labels checked as rag-jev checks them — every answer of the packet labelled at most once,
//! unknown answers refused, yes/no/unclear values with a reviewer — then completeness, and with the key (only once
//! complete) the unblinded per-item and paired comparison.

use super::csv::{parse, COLUMNS};
use super::{AnswerLabel, Arm, PairOutcome, ReviewAnswerRef, ReviewKey, ReviewPacket, ReviewResults, ReviewStatus};
use super::{Unblinded, UnblindedItem, Verdict};
use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};

const SCOPE: &str = "Supplied reviewer labels; reviewer identity and independence are self-reported. Unclear \
answers remain separate. This does not establish citation faithfulness.";

/// At most this many problems are listed in the error.
const SHOWN_PROBLEMS: usize = 10;

/// One labelled answer.
struct Label {
    correct: Verdict,
    ambiguous: Verdict,
}

/// Checks `labels_csv` (rag-jev's columns, see [`super::csv::COLUMNS`]; `case_id` is read as `item_id`, and
/// `packet_id` may be left out) against `packet`: an answer the packet lacks, an answer labelled twice, a value
/// other than yes/no/unclear, or a label without reviewer or ambiguity is refused, with every such problem
/// named. A row with neither correctness nor reviewer is unlabelled, as in rag-jev. With `key`, and only once
/// every answer is labelled, the labels are unblinded.
pub fn review_results(packet: &ReviewPacket, labels_csv: &str, key: Option<&ReviewKey>) -> Result<ReviewResults> {
    packet.verify()?;
    if let Some(key) = key {
        key.check(packet)?;
    }
    let labels = read_labels(packet, labels_csv)?;
    let mut missing = Vec::new();
    for item in &packet.items {
        for side in AnswerLabel::BOTH {
            if !labels.contains_key(&(item.item_id.clone(), side)) {
                missing.push(ReviewAnswerRef {
                    item_id: item.item_id.clone(),
                    anonymous_answer: side,
                });
            }
        }
    }
    let mut correctness_counts = BTreeMap::new();
    let mut ambiguity_counts = BTreeMap::new();
    for l in labels.values() {
        *correctness_counts.entry(l.correct.as_str().to_string()).or_insert(0) += 1;
        *ambiguity_counts.entry(l.ambiguous.as_str().to_string()).or_insert(0) += 1;
    }
    let reviewers: BTreeSet<String> = labels.values().map(|l| l.reviewer.clone()).collect();
    let expected = packet.items.len() * 2;
    let status = if missing.is_empty() {
        ReviewStatus::Complete
    } else {
        ReviewStatus::Incomplete
    };
    let (unblinded, key_note) = match key {
        None => (None, None),
        Some(_) if status == ReviewStatus::Incomplete => (
            None,
            Some(format!(
                "the key is applied only once every answer is labelled ({} of {expected} missing)",
                missing.len()
            )),
        ),
        Some(key) => (Some(unblind(key, &labels)), None),
    };
    Ok(ReviewResults {
        packet_id: packet.packet_id.clone(),
        status,
        expected_answers: expected,
        labeled_answers: labels.len(),
        unlabeled_answers: expected - labels.len(),
        missing,
        reviewers: reviewers.into_iter().collect(),
        correctness_counts,
        ambiguity_counts,
        unblinded,
        key_note,
        scope: SCOPE.into(),
    })
}

/// A labelled answer with its reviewer.
struct Entered {
    label: Label,
    reviewer: String,
}

impl std::ops::Deref for Entered {
    type Target = Label;
    fn deref(&self) -> &Label {
        &self.label
    }
}

/// The labelled answers by (item, answer); every problem of the file at once.
fn read_labels(packet: &ReviewPacket, csv: &str) -> Result<HashMap<(String, AnswerLabel), Entered>> {
    let invalid = |m: String| Error::Invalid(format!("labels CSV: {m}"));
    let mut records = parse(csv).map_err(invalid)?.into_iter();
    let Some((_, header)) = records.next() else {
        return Err(invalid("it is empty; expected a header row".into()));
    };
    let column = |names: &[&str]| header.iter().position(|h| names.contains(&h.trim()));
    let item_col = column(&["item_id", "case_id"]);
    let [answer_col, reviewer_col, correct_col, ambiguous_col] =
        [COLUMNS[2], COLUMNS[3], COLUMNS[4], COLUMNS[5]].map(|c| column(&[c]));
    let packet_col = column(&[COLUMNS[0]]);
    let required = [
        ("item_id", item_col),
        (COLUMNS[2], answer_col),
        (COLUMNS[3], reviewer_col),
    ];
    let required = required
        .into_iter()
        .chain([(COLUMNS[4], correct_col), (COLUMNS[5], ambiguous_col)]);
    let absent: Vec<&str> = required.filter(|(_, c)| c.is_none()).map(|(n, _)| n).collect();
    if !absent.is_empty() {
        return Err(invalid(format!("the header lacks {}", absent.join(", "))));
    }
    let expected: BTreeSet<(&str, AnswerLabel)> = (packet.items.iter())
        .flat_map(|i| AnswerLabel::BOTH.map(|s| (i.item_id.as_str(), s)))
        .collect();
    let mut labels = HashMap::new();
    let mut first_line: HashMap<(String, AnswerLabel), usize> = HashMap::new();
    let mut problems = Vec::new();
    for (line, row) in records {
        if row.len() != header.len() {
            problems.push(format!(
                "line {line}: {} fields, the header has {}",
                row.len(),
                header.len()
            ));
            continue;
        }
        let cell = |c: Option<usize>| c.map(|c| row[c].trim()).unwrap_or_default();
        let (item, answer) = (cell(item_col), cell(answer_col));
        if let Some(p) = packet_col
            .map(|c| row[c].trim())
            .filter(|p| !p.is_empty() && *p != packet.packet_id)
        {
            problems.push(format!("line {line}: labels for packet {p}, not {}", packet.packet_id));
            continue;
        }
        let Some(side) = AnswerLabel::parse(answer).filter(|s| expected.contains(&(item, *s))) else {
            problems.push(format!(
                "line {line}: item `{item}` answer `{answer}` is not in the packet"
            ));
            continue;
        };
        let at = (item.to_string(), side);
        if let Some(first) = first_line.get(&at) {
            problems.push(format!(
                "line {line}: item {item} answer {answer} is listed twice (first on line {first})"
            ));
            continue;
        }
        first_line.insert(at.clone(), line);
        let (correct, reviewer, ambiguous) = (cell(correct_col), cell(reviewer_col), cell(ambiguous_col));
        if correct.is_empty() && reviewer.is_empty() {
            continue;
        }
        let mut wrong = Vec::new();
        let correct_v = Verdict::parse(correct);
        let ambiguous_v = Verdict::parse(ambiguous);
        if correct_v.is_none() {
            wrong.push(format!("semantically_correct `{correct}` is not yes, no or unclear"));
        }
        if ambiguous_v.is_none() {
            wrong.push(format!(
                "ambiguous_question_or_reference `{ambiguous}` is not yes, no or unclear"
            ));
        }
        if reviewer.is_empty() {
            wrong.push("no reviewer".into());
        }
        match (correct_v, ambiguous_v) {
            (Some(correct), Some(ambiguous)) if wrong.is_empty() => {
                let label = Label { correct, ambiguous };
                labels.insert(
                    at,
                    Entered {
                        label,
                        reviewer: reviewer.to_string(),
                    },
                );
            }
            _ => problems.push(format!(
                "line {line}: item {item} answer {answer}: {}",
                wrong.join("; ")
            )),
        }
    }
    if problems.is_empty() {
        return Ok(labels);
    }
    let more = problems.len().saturating_sub(SHOWN_PROBLEMS);
    problems.truncate(SHOWN_PROBLEMS);
    if more > 0 {
        problems.push(format!("and {more} more"));
    }
    Err(invalid(problems.join("\n  ")))
}

/// Each item's two labels by arm, and the paired counts.
fn unblind(key: &ReviewKey, labels: &HashMap<(String, AnswerLabel), Entered>) -> Unblinded {
    let mut by_arm: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut items = Vec::with_capacity(key.items.len());
    for k in &key.items {
        let of = |arm: Arm| &labels[&(k.item_id.clone(), k.answer_of(arm))];
        let (b, s) = (of(Arm::Baseline), of(Arm::Selected));
        for (arm, l) in [(Arm::Baseline, b), (Arm::Selected, s)] {
            let counts = by_arm.entry(arm.as_str().to_string()).or_default();
            *counts.entry(l.correct.as_str().to_string()).or_insert(0) += 1;
        }
        let outcome = match (b.correct, s.correct) {
            (Verdict::Unclear, _) | (_, Verdict::Unclear) => PairOutcome::Unclear,
            (Verdict::Yes, Verdict::Yes) => PairOutcome::Both,
            (Verdict::No, Verdict::No) => PairOutcome::Neither,
            (Verdict::Yes, Verdict::No) => PairOutcome::BaselineOnly,
            (Verdict::No, Verdict::Yes) => PairOutcome::SelectedOnly,
        };
        items.push(UnblindedItem {
            item_id: k.item_id.clone(),
            run_id: k.run_id.clone(),
            baseline_run_id: k.baseline_run_id.clone(),
            selected_run_id: k.selected_run_id.clone(),
            baseline_answer: k.baseline_answer,
            baseline: b.correct,
            selected: s.correct,
            outcome,
            winner: match outcome {
                PairOutcome::BaselineOnly => Some(Arm::Baseline),
                PairOutcome::SelectedOnly => Some(Arm::Selected),
                _ => None,
            },
            ambiguous: b.ambiguous == Verdict::Yes || s.ambiguous == Verdict::Yes,
        });
    }
    let count = |o: PairOutcome| items.iter().filter(|i| i.outcome == o).count();
    let (both, neither) = (count(PairOutcome::Both), count(PairOutcome::Neither));
    let (baseline_only, selected_only) = (count(PairOutcome::BaselineOnly), count(PairOutcome::SelectedOnly));
    let paired_items = both + neither + baseline_only + selected_only;
    Unblinded {
        by_arm,
        baseline_yes: items.iter().filter(|i| i.baseline == Verdict::Yes).count(),
        selected_yes: items.iter().filter(|i| i.selected == Verdict::Yes).count(),
        both,
        neither,
        baseline_only,
        selected_only,
        unclear: count(PairOutcome::Unclear),
        paired_items,
        paired_difference: (paired_items > 0)
            .then(|| (selected_only as f64 - baseline_only as f64) / paired_items as f64),
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::super::blind::tests::files;
    use super::super::csv::write_record;
    use super::*;

    const HEADER: [&str; 6] = [
        "item_id",
        "anonymous_answer",
        "reviewer",
        "semantically_correct",
        "ambiguous_question_or_reference",
        "notes",
    ];

    fn csv(rows: &[[&str; 6]]) -> String {
        let mut out = String::new();
        write_record(&mut out, &HEADER);
        rows.iter().for_each(|r| write_record(&mut out, r));
        out
    }

    fn problems(packet: &ReviewPacket, rows: &[[&str; 6]]) -> String {
        review_results(packet, &csv(rows), None).unwrap_err().to_string()
    }

    #[test]
    fn completeness_is_checked_as_rag_jev_does() {
        let f = files(2, 5);
        let p = &f.packet;
        let full = [
            ["q1", "A", "ana", "yes", "no", ""],
            ["q1", "B", "ana", "No", " unclear ", "case and spaces do not matter"],
            ["q2", "A", "bo", "unclear", "yes", ""],
            ["q2", "B", "bo", "yes", "no", ""],
        ];
        let r = review_results(p, &csv(&full), None).unwrap();
        assert_eq!(r.status, ReviewStatus::Complete);
        assert_eq!((r.expected_answers, r.labeled_answers, r.unlabeled_answers), (4, 4, 0));
        assert_eq!(r.reviewers, ["ana", "bo"]);
        assert_eq!(
            r.correctness_counts,
            BTreeMap::from([("no".into(), 1), ("unclear".into(), 1), ("yes".into(), 2)])
        );
        assert!(r.unblinded.is_none() && r.key_note.is_none(), "no key, no unblinding");

        // Unlabelled rows (no correctness, no reviewer) and absent rows are both missing, in packet order.
        let partial = [["q1", "B", "", "", "yes", "ambiguity alone is not a label"], full[3]];
        let r = review_results(p, &csv(&partial), Some(&f.key)).unwrap();
        assert_eq!(r.status, ReviewStatus::Incomplete);
        let missing: Vec<_> = r
            .missing
            .iter()
            .map(|m| format!("{}/{}", m.item_id, m.anonymous_answer.as_str()))
            .collect();
        assert_eq!(missing, ["q1/A", "q1/B", "q2/A"]);
        assert_eq!((r.labeled_answers, r.unlabeled_answers), (1, 3));
        assert!(r.unblinded.is_none(), "the key waits for complete labels");
        assert!(r.key_note.unwrap().contains("3 of 4 missing"));
        // A header alone: nothing labelled.
        assert_eq!(review_results(p, &csv(&[]), None).unwrap().unlabeled_answers, 4);

        let duplicate = problems(p, &[full[0], ["q1", "A", "bo", "no", "no", ""]]);
        assert!(
            duplicate.contains("line 3: item q1 answer A is listed twice (first on line 2)"),
            "{duplicate}"
        );
        let unknown = problems(
            p,
            &[["q7", "A", "ana", "yes", "no", ""], ["q1", "C", "ana", "yes", "no", ""]],
        );
        assert!(
            unknown.contains("`q7` answer `A` is not in the packet") && unknown.contains("answer `C`"),
            "{unknown}"
        );
        let bad = problems(
            p,
            &[["q1", "A", "ana", "maybe", "no", ""], ["q1", "B", "", "yes", "", ""]],
        );
        assert!(
            bad.contains("line 2: item q1 answer A: semantically_correct `maybe` is not yes"),
            "{bad}"
        );
        assert!(
            bad.contains("line 3: item q1 answer B: ambiguous_question_or_reference `` is not")
                && bad.contains("no reviewer")
        );

        let other_packet = "packet_id,item_id,anonymous_answer,reviewer,semantically_correct,\
            ambiguous_question_or_reference,notes\nfeedbeef,q1,A,ana,yes,no,\n";
        assert!(review_results(p, other_packet, None)
            .unwrap_err()
            .to_string()
            .contains("packet feedbeef"));
        let short = "item_id,anonymous_answer\nq1,A\n";
        assert!(review_results(p, short, None)
            .unwrap_err()
            .to_string()
            .contains("lacks reviewer"));
        let ragged = format!("{}\"q1\",\"A\"\n", csv(&[]));
        assert!(review_results(p, &ragged, None)
            .unwrap_err()
            .to_string()
            .contains("2 fields"));
        assert!(review_results(p, "", None).is_err());
        // rag-jev's own export (`case_id`, no `packet_id`) is read too.
        let rag_jev = csv(&full).replacen("item_id", "case_id", 1);
        assert_eq!(
            review_results(p, &rag_jev, None).unwrap().status,
            ReviewStatus::Complete
        );
    }

    #[test]
    fn the_key_unblinds_complete_labels() {
        let f = files(5, 11);
        // Per item: (baseline's correctness, selected's correctness).
        let truth = [
            ("yes", "yes"),
            ("no", "yes"),
            ("no", "no"),
            ("yes", "no"),
            ("unclear", "yes"),
        ];
        let mut rows = Vec::new();
        for (k, (b, s)) in f.key.items.iter().zip(truth) {
            let side = |arm| k.answer_of(arm).as_str();
            rows.push([k.item_id.as_str(), side(Arm::Baseline), "ana", b, "no", ""]);
            rows.push([
                k.item_id.as_str(),
                side(Arm::Selected),
                "ana",
                s,
                if k.item_id == "q3" { "yes" } else { "no" },
                "",
            ]);
        }
        let r = review_results(&f.packet, &csv(&rows), Some(&f.key)).unwrap();
        let u = r.unblinded.expect("complete labels and a key");
        let outcomes: Vec<_> = u.items.iter().map(|i| (i.outcome, i.winner)).collect();
        assert_eq!(
            outcomes,
            [
                (PairOutcome::Both, None),
                (PairOutcome::SelectedOnly, Some(Arm::Selected)),
                (PairOutcome::Neither, None),
                (PairOutcome::BaselineOnly, Some(Arm::Baseline)),
                (PairOutcome::Unclear, None),
            ]
        );
        assert_eq!(
            (u.both, u.neither, u.baseline_only, u.selected_only, u.unclear),
            (1, 1, 1, 1, 1)
        );
        assert_eq!((u.baseline_yes, u.selected_yes, u.paired_items), (2, 3, 4));
        assert_eq!(u.paired_difference, Some(0.0));
        assert_eq!(
            u.by_arm["baseline"],
            BTreeMap::from([("no".into(), 2), ("unclear".into(), 1), ("yes".into(), 2)])
        );
        assert_eq!(
            u.by_arm["selected"],
            BTreeMap::from([("no".into(), 2), ("yes".into(), 3)])
        );
        assert_eq!(
            u.items
                .iter()
                .filter(|i| i.ambiguous)
                .map(|i| i.item_id.as_str())
                .collect::<Vec<_>>(),
            ["q3"]
        );
        assert_eq!(u.items[1].baseline_run_id, "baserun2");

        // One more selected win on q1 (baseline no): 2 − 1 of 4 paired items.
        rows[0][3] = "no";
        let u = review_results(&f.packet, &csv(&rows), Some(&f.key))
            .unwrap()
            .unblinded
            .unwrap();
        assert_eq!((u.selected_only, u.both, u.paired_difference), (2, 0, Some(0.25)));
        // Everything unclear: nothing to pair.
        rows.iter_mut().for_each(|r| r[3] = "unclear");
        let u = review_results(&f.packet, &csv(&rows), Some(&f.key))
            .unwrap()
            .unblinded
            .unwrap();
        assert_eq!((u.unclear, u.paired_items, u.paired_difference), (5, 0, None));
        // A key for another packet is refused.
        assert!(review_results(&f.packet, &csv(&rows), Some(&files(5, 12).key)).is_err());
    }
}

//! Unit tests of the calibration: split checks, the grid, the choice rule, the bootstrap and the driver's order.
//!
//! Long because it is tests only, one per rule of the calibration.

use super::*;
use crate::{fingerprint, Document, EvalError, RagJevJudgment, PROMPT_VERSION};
use ragsift_policy::Mode;

fn case(id: &str, query: &str, docs: &[(&str, &str)], relevant: &[&str], family: Option<&str>) -> EvalCase {
    EvalCase {
        id: id.into(),
        query: query.into(),
        documents: docs
            .iter()
            .map(|(id, text)| Document {
                id: (*id).into(),
                text: (*text).into(),
                metadata: Default::default(),
                group_id: None,
                pinned: false,
            })
            .collect(),
        relevant_ids: relevant.iter().map(|s| s.to_string()).collect(),
        reference_answer: None,
        baseline_ids: None,
        retrieval_query: None,
        family_id: family.map(str::to_string),
        evidence_lost: false,
    }
}

/// An independent rag-jev trace of `case` with these relevances, in document order.
fn trace(case: &EvalCase, relevance: &[f64]) -> RagJevTrace {
    RagJevTrace {
        case_id: case.id.clone(),
        input_hash: fingerprint(case),
        prompt_version: PROMPT_VERSION.into(),
        relevance_guidance: None,
        judgments: relevance
            .iter()
            .map(|&r| RagJevJudgment {
                relevance: r,
                model: "jev-test".into(),
                input_tokens: 10,
                output_tokens: 1,
            })
            .collect(),
        elapsed_ms: 1.0,
        source: "test".into(),
        scoring_strategy: ScoringStrategy::Independent,
        scoring_usage: None,
    }
}

fn simple(id: &str, query: &str, family: Option<&str>) -> EvalCase {
    case(id, query, &[("a", "alpha text"), ("b", "beta text")], &["a"], family)
}

fn message(r: std::result::Result<(), EvalError>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn normalised_questions_follow_pythons_casefold_and_word_rule() {
    // Expected values from Python: re.sub(r"\W+", " ", q.casefold()).strip()
    assert_eq!(ragjev_question_key("  Where's the  café?! "), "where s the café");
    assert_eq!(ragjev_question_key("Straße"), "strasse");
    assert_eq!(ragjev_question_key("STRASSE"), "strasse");
    assert_eq!(ragjev_question_key("under_score-x"), "under_score x");
    assert_eq!(ragjev_question_key("?!"), "");
}

#[test]
fn split_refuses_a_family_across_splits() {
    let dev = [
        simple("d1", "What is alpha?", Some("fam-1")),
        simple("d2", "What is beta?", None),
    ];
    let ok = [
        simple("e1", "What is gamma?", Some("fam-2")),
        simple("e2", "What is delta?", None),
    ];
    check_split(&dev, &ok).unwrap();
    let crossing = [
        simple("e1", "What is gamma?", Some("fam-1")),
        simple("e2", "What is delta?", None),
    ];
    let m = message(check_split(&dev, &crossing));
    assert!(m.contains("families cross") && m.contains("fam-1"), "{m}");
    // The same family twice inside one split is fine: that is what families are for.
    let together = [
        simple("e1", "What is gamma?", Some("fam-2")),
        simple("e2", "What is delta?", Some("fam-2")),
    ];
    check_split(&dev, &together).unwrap();
}

#[test]
fn split_refuses_duplicate_normalised_questions_across_and_within_splits() {
    let dev = [
        simple("d1", "What is alpha?", None),
        simple("d2", "What is beta?", None),
    ];
    let across = [
        simple("e1", "what IS alpha", None),
        simple("e2", "What is delta?", None),
    ];
    let m = message(check_split(&dev, &across));
    assert!(
        m.contains("`d1`") && m.contains("`e1`") && m.contains("what is alpha"),
        "{m}"
    );
    let within = [
        simple("e1", "Where is Rome?", None),
        simple("e2", "where is  rome!!", None),
    ];
    assert!(message(check_split(&dev, &within)).contains("same normalised question"));
    let same_id = [
        simple("d1", "Where is Rome?", None),
        simple("e2", "Where is Paris?", None),
    ];
    assert!(message(check_split(&dev, &same_id)).contains("duplicate case id `d1`"));
    let one = [simple("e1", "Where is Rome?", None)];
    assert!(message(check_split(&dev, &one)).contains("at least two questions"));
    let unlabelled = [
        case("d1", "What is alpha?", &[("a", "x")], &[], None),
        case("d2", "What is beta?", &[("a", "x")], &[], None),
    ];
    let heldout = [
        simple("e1", "Where is Rome?", None),
        simple("e2", "Where is Paris?", None),
    ];
    assert!(message(check_split(&unlabelled, &heldout)).contains("labelled relevant evidence"));
}

#[test]
fn grid_is_rag_jevs_order_with_rag_jevs_versions() {
    let policies = grid(&[0.5, 0.2, 0.2], &[5, 3], None).unwrap();
    let labels: Vec<String> = policies.iter().map(Policy::label).collect();
    assert_eq!(
        labels,
        [
            "filter ≥ 0.2",
            "filter ≥ 0.5",
            "filter_and_rerank ≥ 0.2",
            "filter_and_rerank ≥ 0.5",
            "rerank top 3",
            "rerank top 5"
        ]
    );
    // Versions computed with rag-jev's Policy.version in Python.
    assert_eq!(policies[0].version(), "dfb5d28bb0aa78cd");
    assert_eq!(policies[4].version(), "7f569b2e21748362");
    let budget = grid(&[0.35], &[], Some(500)).unwrap();
    assert_eq!(budget[1].version(), "740923eeb1de188a");
    assert!(budget.iter().all(|p| p.max_context_tokens == Some(500)));
    assert!(grid(&[], &[], None).is_err());
    assert!(grid(&[1.5], &[3], None).is_err());
    assert!(grid(&[0.5], &[0], None).is_err());
    // The policy is a ragsift PolicyOptions document too.
    let options: PolicyOptions = serde_json::from_value(serde_json::to_value(&budget[1]).unwrap()).unwrap();
    assert_eq!(options, budget[1].options());
}

/// A grid result with only the summary numbers the rule reads.
fn result(mode: Mode, cutoff: f64, recall: Option<f64>, tokens: f64, ndcg: Option<f64>) -> GridResult {
    let policy = Policy {
        mode,
        min_relevance: Some(cutoff),
        top_n: None,
        max_context_tokens: None,
        shadow: false,
        relevance_guidance: None,
    };
    GridResult {
        version: policy.version(),
        policy,
        assessment: Assessment {
            summary: CalibrationSummary {
                evidence_recall: recall,
                context_tokens: Some(tokens),
                ndcg,
                ..Default::default()
            },
            rows: vec![],
        },
    }
}

#[test]
fn choice_is_fewest_tokens_among_policies_meeting_the_recall_floor() {
    let results = [
        result(Mode::Filter, 0.1, Some(1.0), 100.0, Some(0.9)), // highest recall
        result(Mode::Filter, 0.2, Some(0.98), 60.0, Some(0.5)), // exactly at the floor: eligible (>=)
        result(Mode::Filter, 0.3, Some(0.97), 10.0, Some(0.9)), // fewest tokens, below the floor
        result(Mode::Filter, 0.4, Some(0.99), 80.0, Some(0.9)), // the pick of a strict > rule
        result(Mode::Filter, 0.5, None, 1.0, None),             // no recall: never eligible
    ];
    let choice = choose(&results, 0.98).unwrap();
    assert!(choice.eligible);
    assert_eq!(choice.policy.unwrap().min_relevance, Some(0.2));
    assert_eq!(choice.version, Some(results[1].version.clone()));
    assert!(choose(&results, 1.5).is_err() && choose(&results, f64::NAN).is_err());
}

#[test]
fn ties_go_to_higher_ndcg_then_to_the_smaller_version() {
    // The higher nDCG goes to the policy with the larger version, so a rule skipping nDCG picks the other.
    let (mut a, mut b) = (
        result(Mode::Filter, 0.2, Some(1.0), 50.0, None),
        result(Mode::Filter, 0.3, Some(1.0), 50.0, None),
    );
    if a.version > b.version {
        std::mem::swap(&mut a, &mut b);
    }
    (a.assessment.summary.ndcg, b.assessment.summary.ndcg) = (Some(0.5), Some(0.8));
    for order in [[a.clone(), b.clone()], [b.clone(), a.clone()]] {
        assert_eq!(choose(&order, 0.9).unwrap().version, Some(b.version.clone()));
    }
    // Same tokens and nDCG (a missing nDCG counts as 0): the lexicographically smaller version wins.
    let (c, d) = (
        result(Mode::Filter, 0.2, Some(1.0), 50.0, None),
        result(Mode::FilterAndRerank, 0.2, Some(1.0), 50.0, Some(0.0)),
    );
    let smaller = c.version.clone().min(d.version.clone());
    for order in [[c.clone(), d.clone()], [d.clone(), c.clone()]] {
        assert_eq!(choose(&order, 0.9).unwrap().version.unwrap(), smaller);
    }
}

#[test]
fn no_qualifying_policy_means_no_choice() {
    let results = [
        result(Mode::Filter, 0.2, Some(0.9), 50.0, Some(0.5)),
        result(Mode::Filter, 0.3, Some(0.5), 10.0, Some(0.8)),
    ];
    let choice = choose(&results, 0.95).unwrap();
    assert!(!choice.eligible && choice.policy.is_none() && choice.version.is_none());
    assert_eq!(choice.reason.as_deref(), Some(NO_ELIGIBLE_POLICY));
    let json = serde_json::to_value(&choice).unwrap();
    assert_eq!(json["policy"], Value::Null);
    assert_eq!(json["eligible"], false);
}

/// Two development cases built so that each wrong rule picks another policy (see the assertions).
fn development() -> (Vec<EvalCase>, Vec<RagJevTrace>) {
    let text = |w: &str| format!("The {w} passage tells a short story about the river.");
    let (d1, d2, d3, e1, e2, e3) = (
        text("first"),
        text("second"),
        text("third"),
        text("fourth"),
        text("fifth"),
        text("sixth"),
    );
    let c1 = case(
        "c1",
        "Which passage is first?",
        &[("d1", &d1), ("d2", &d2), ("d3", &d3)],
        &["d1"],
        None,
    );
    let c2 = case(
        "c2",
        "Which passage is fourth?",
        &[("e1", &e1), ("e2", &e2), ("e3", &e3)],
        &["e1"],
        None,
    );
    let traces = vec![trace(&c1, &[0.4, 0.3, 0.1]), trace(&c2, &[0.6, 0.25, 0.65])];
    (vec![c1, c2], traces)
}

#[test]
fn choice_on_a_constructed_development_set_is_rag_jevs() {
    let (cases, traces) = development();
    let policies = grid(&[0.2, 0.35, 0.5], &[1, 2], None).unwrap();
    let results = assess_grid(&cases, &traces, &policies, ScoringStrategy::Independent).unwrap();
    let by_label = |l: &str| results.iter().find(|r| r.policy.label() == l).unwrap();
    let s = |l: &str| by_label(l).assessment.summary.clone();
    // The construction: filter ≥ 0.35 and filter_and_rerank ≥ 0.35 keep the same passages (full recall, tied
    // tokens), the filter has the higher nDCG but the larger version; cheaper policies lose recall.
    assert_eq!(s("filter ≥ 0.35").evidence_recall, Some(1.0));
    assert_eq!(
        s("filter ≥ 0.35").context_tokens,
        s("filter_and_rerank ≥ 0.35").context_tokens
    );
    assert!(s("filter ≥ 0.35").ndcg > s("filter_and_rerank ≥ 0.35").ndcg);
    assert!(by_label("filter ≥ 0.35").version > by_label("filter_and_rerank ≥ 0.35").version);
    assert!(s("rerank top 1").context_tokens < s("filter ≥ 0.35").context_tokens);
    assert_eq!(s("rerank top 1").evidence_recall, Some(0.5));
    assert_eq!(s("filter ≥ 0.5").evidence_recall, Some(0.5));
    assert!(s("rerank top 2").context_tokens > s("filter ≥ 0.35").context_tokens);
    assert!(s("filter ≥ 0.2").context_tokens > s("filter ≥ 0.35").context_tokens);

    let choice = choose(&results, 0.98).unwrap();
    assert_eq!(choice.policy.unwrap().label(), "filter ≥ 0.35");
    // Rows carry rag-jev's fields.
    let row = serde_json::to_value(&by_label("filter ≥ 0.35").assessment.rows[1]).unwrap();
    assert_eq!(row["selected_ids"], serde_json::json!(["e1", "e3"]));
    assert_eq!(row["budget_exceeded"], false);
    for key in [
        "precision",
        "evidence_recall",
        "ndcg",
        "context_tokens",
        "case_id",
        "all_evidence_lost",
    ] {
        assert!(row.get(key).is_some(), "{key} in {row}");
    }
    // Context tokens are cl100k_base counts.
    let tokens: usize = ["d1", "e1", "e3"]
        .iter()
        .map(|id| {
            let d = cases.iter().flat_map(|c| &c.documents).find(|d| d.id == *id).unwrap();
            ragsift_judge::jev::ragjev::cl100k_tokens(&d.text)
        })
        .sum();
    assert_eq!(s("filter ≥ 0.35").context_tokens, Some(tokens as f64 / 2.0));
}

#[test]
fn calibration_refuses_traces_of_another_strategy() {
    let (cases, traces) = development();
    let policies = grid(&[0.35], &[], None).unwrap();
    let err = assess_grid(&cases, &traces, &policies, ScoringStrategy::Contextual).unwrap_err();
    assert!(err.to_string().contains("--scoring-strategy"), "{err}");
}

#[test]
fn python_random_is_reproduced() {
    // random.Random(20260919): three random() values, then choices(population of 5, k=5) twice.
    let mut rng = PythonRandom::new(SEED);
    let first: Vec<f64> = (0..3).map(|_| rng.random()).collect();
    assert_eq!(first, [0.6334896914538571, 0.8063837539475641, 0.1394132136427414]);
    let mut rng = PythonRandom::new(SEED);
    let picks: Vec<usize> = (0..10).map(|_| rng.choice_index(5)).collect();
    assert_eq!(picks, [3, 4, 0, 3, 4, 3, 2, 2, 0, 0]);
}

#[test]
fn paired_interval_is_rag_jevs_to_the_bit() {
    // Expected values from rag-jev's paired_interval run in Python.
    let (baseline, selected) = (
        [100.0, 120.0, 90.0, 80.0, 150.0, 60.0],
        [60.0, 100.0, 90.0, 40.0, 70.0, 60.0],
    );
    let families: Vec<String> = ["f1", "f1", "f2", "f3", "f4", "f5"].map(String::from).to_vec();
    let by_family = paired_interval(&baseline, &selected, Some(&families)).unwrap();
    assert_eq!((by_family.delta, by_family.ci95), (-30.0, Some([-56.0, -8.0])));
    assert_eq!((by_family.questions, by_family.independent_units), (6, 5));
    let by_question = paired_interval(&baseline, &selected, None).unwrap();
    assert_eq!(by_question.ci95, Some([-53.333333333333336, -10.0]));
    assert_eq!(by_question.independent_units, 6);
    let recall = paired_interval(&[1.0, 1.0, 0.5, 1.0], &[1.0, 0.5, 0.5, 0.0], None).unwrap();
    assert_eq!((recall.delta, recall.ci95), (-0.375, Some([-0.875, 0.0])));
    // One family: no interval.
    let one = paired_interval(&[1.0, 2.0], &[0.0, 0.0], Some(&["f".to_string(), "f".to_string()])).unwrap();
    assert_eq!((one.ci95, one.scope.as_str()), (None, TOO_FEW_UNITS));
}

#[test]
fn bootstrap_resamples_whole_families_with_a_fixed_seed() {
    // The two cases of family A cancel out: drawn together, every draw's mean is exactly 0.
    let differences = [10.0, -10.0, 0.0, 0.0, 0.0, 0.0];
    let families: Vec<String> = ["A", "A", "B", "C", "D", "E"].map(String::from).to_vec();
    assert_eq!(
        bootstrap_interval(&differences, &families, SEED, DRAWS),
        Some((0.0, 0.0))
    );
    // Resampled per question they do not move together, and the interval opens.
    let questions: Vec<String> = (0..6).map(|i| i.to_string()).collect();
    let (lo, hi) = bootstrap_interval(&differences, &questions, SEED, DRAWS).unwrap();
    assert!(lo < 0.0 && hi > 0.0, "{lo} {hi}");
    // Reproducible with the seed; another seed draws differently.
    let spread = [3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, 6.0];
    let units: Vec<String> = ["a", "b", "c", "c", "d", "e", "f", "g"].map(String::from).to_vec();
    let once = bootstrap_interval(&spread, &units, SEED, DRAWS);
    assert_eq!(once, bootstrap_interval(&spread, &units, SEED, DRAWS));
    assert_ne!(once, bootstrap_interval(&spread, &units, SEED + 1, DRAWS));
    assert_eq!(bootstrap_interval(&spread, &units[..3], SEED, DRAWS), None);
}

/// A scratch directory for one test, removed when it ends.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn heldout() -> (Vec<EvalCase>, Vec<RagJevTrace>) {
    let docs = |p: &str| -> Vec<(String, String)> {
        (1..=3)
            .map(|i| {
                (
                    format!("{p}{i}"),
                    format!("Held-out passage {p}{i} about the harbour and its boats."),
                )
            })
            .collect()
    };
    let mk = |id: &str, q: &str, p: &str, family: Option<&str>| {
        let d = docs(p);
        let refs: Vec<(&str, &str)> = d.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        case(id, q, &refs, &[&format!("{p}1")], family)
    };
    let cases = vec![
        mk("h1", "Which harbour passage comes first?", "h", Some("harbour")),
        mk("h2", "Which harbour passage is the opening one?", "k", Some("harbour")),
        mk("h3", "Where are the boats?", "m", None),
    ];
    let traces = cases.iter().map(|c| trace(c, &[0.7, 0.3, 0.1])).collect();
    (cases, traces)
}

fn options() -> CalibrateOptions {
    CalibrateOptions {
        scoring_strategy: ScoringStrategy::Independent,
        cutoffs: vec![0.2, 0.35, 0.5],
        top_ns: vec![1, 2],
        max_context_tokens: None,
        min_recall: 0.98,
    }
}

#[test]
fn the_frozen_file_exists_before_any_held_out_scoring() {
    let tmp = scratch();
    let dir = tmp.path();
    let artifacts = Artifacts::next_to(&dir.join("out/report.json"));
    assert_eq!(artifacts.frozen, dir.join("out/report.frozen.json"));
    let ((dev, dev_traces), (eval, eval_traces)) = (development(), heldout());
    let mut calls = Vec::new();
    let frozen_path = artifacts.frozen.clone();
    let mut score = |split: Split, cases: &[EvalCase]| -> Result<Vec<RagJevTrace>> {
        calls.push((split, frozen_path.exists(), cases.len()));
        Ok(match split {
            Split::Development => dev_traces.clone(),
            Split::Evaluation => eval_traces.clone(),
        })
    };
    let out = run(&dev, &eval, &options(), &artifacts, Traces::Live(&mut score)).unwrap();
    assert_eq!(
        calls,
        [(Split::Development, false, 2), (Split::Evaluation, true, 3)],
        "development scored before the freeze, held-out after"
    );
    assert!(out.policy_written && out.traces_written);
    let frozen: Value = serde_json::from_str(&std::fs::read_to_string(&artifacts.frozen).unwrap()).unwrap();
    assert_eq!(frozen["policy"]["mode"], "filter");
    assert_eq!(frozen["policy"]["min_relevance"], 0.35);
    assert_eq!(frozen["eligible"], true);
    for key in [
        "development",
        "scoring_strategy",
        "min_recall",
        "development_hash",
        "evaluation_hash",
        "candidate_policies",
        "sources",
        "models",
    ] {
        assert!(frozen.get(key).is_some(), "frozen file lacks {key}");
    }
    let options = frozen_policy_options(&frozen).unwrap().unwrap();
    assert_eq!((options.mode, options.min_relevance), (Mode::Filter, Some(0.35)));
    // The report's freeze hash is the digest of the frozen file as written.
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&artifacts.report).unwrap()).unwrap();
    assert_eq!(report["freeze_hash"], digest(&frozen).unwrap());
    assert_eq!(report["frozen_policy_held_out"]["policy"], frozen["policy"]);
    let ctd = &report["context_token_difference"];
    assert_eq!(ctd["questions"], 3);
    assert_eq!(ctd["independent_units"], 2, "h1 and h2 share a family");
    assert_eq!(report["paired_differences"][0]["unit"], "family:harbour");
    let traces: Value = serde_json::from_str(&std::fs::read_to_string(&artifacts.traces).unwrap()).unwrap();
    assert_eq!(traces.as_array().unwrap().len(), 5);
    let config: Value = serde_json::from_str(&std::fs::read_to_string(&artifacts.policy).unwrap()).unwrap();
    assert_eq!(
        (config["shadow"].clone(), config["scoring_strategy"].clone()),
        (Value::Bool(true), "independent".into())
    );

    // A second run into the same place refuses before scoring anything.
    let mut called = false;
    let mut again = |_: Split, _: &[EvalCase]| -> Result<Vec<RagJevTrace>> {
        called = true;
        Ok(vec![])
    };
    let err = run(&dev, &eval, &self::options(), &artifacts, Traces::Live(&mut again)).unwrap_err();
    assert!(err.to_string().contains("never overwritten"), "{err}");
    assert!(!called);
}

#[test]
fn an_existing_frozen_file_is_never_overwritten() {
    let tmp = scratch();
    let dir = tmp.path();
    let mut artifacts = Artifacts::next_to(&dir.join("report.json"));
    artifacts.frozen = dir.join("chosen.json");
    std::fs::write(&artifacts.frozen, "keep me").unwrap();
    let ((dev, mut all), (eval, eval_traces)) = (development(), heldout());
    all.extend(eval_traces);
    let err = run(&dev, &eval, &options(), &artifacts, Traces::Replay(all)).unwrap_err();
    assert!(
        err.to_string().contains("chosen.json") && err.to_string().contains("never overwritten"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&artifacts.frozen).unwrap(), "keep me");
    assert!(!artifacts.report.exists());
}

#[test]
fn replay_without_a_qualifying_policy_freezes_none_and_reports_no_interval() {
    let tmp = scratch();
    let dir = tmp.path();
    let artifacts = Artifacts::next_to(&dir.join("report.json"));
    let ((dev, mut all), (eval, eval_traces)) = (development(), heldout());
    all.extend(eval_traces.clone());
    // Replay must cover both splits exactly.
    let partial = run(&dev, &eval, &options(), &artifacts, Traces::Replay(eval_traces)).unwrap_err();
    assert!(partial.to_string().contains("cover both splits"), "{partial}");
    assert!(!artifacts.frozen.exists());
    let strict = CalibrateOptions {
        cutoffs: vec![0.5],
        top_ns: vec![1],
        ..options()
    };
    let out = run(&dev, &eval, &strict, &artifacts, Traces::Replay(all)).unwrap();
    assert!(!out.frozen.eligible && out.frozen.policy.is_none());
    assert_eq!(out.frozen.reason.as_deref(), Some(NO_ELIGIBLE_POLICY));
    assert!(out.report.context_token_difference.is_none() && out.report.frozen_policy_held_out.is_none());
    assert!(!out.policy_written && !artifacts.policy.exists());
    assert!(!out.traces_written && !artifacts.traces.exists());
    let frozen: Value = serde_json::from_str(&std::fs::read_to_string(&artifacts.frozen).unwrap()).unwrap();
    assert_eq!(frozen["policy"], Value::Null);
    assert_eq!(frozen_policy_options(&frozen).unwrap(), None);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&artifacts.report).unwrap()).unwrap();
    assert!(report.get("context_token_difference").is_none());
    assert_eq!(report["eligible"], false);
}

#[test]
fn a_trace_of_changed_input_reads_as_stale_not_invalid() {
    let tmp = scratch();
    let artifacts = Artifacts::next_to(&tmp.path().join("report.json"));
    let ((dev, mut all), (eval, eval_traces)) = (development(), heldout());
    all.extend(eval_traces);
    all[0].input_hash = "0".repeat(64);
    let err = run(&dev, &eval, &options(), &artifacts, Traces::Replay(all)).unwrap_err();
    assert!(matches!(err, Error::Stale(_)), "{err:?}");
    assert!(!artifacts.frozen.exists());
}

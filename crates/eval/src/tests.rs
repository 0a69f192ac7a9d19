//! Unit tests of the parent module.
use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into()))
        .join("../../fixtures/eval")
        .join(name)
}
fn load() -> (Vec<EvalCase>, Vec<RagJevTrace>) {
    (
        load_cases(fixture("cases.json")).unwrap(),
        load_traces(fixture("traces.json")).unwrap(),
    )
}
fn opts(min_relevance: f64, top_n: Option<usize>) -> EvalOptions {
    EvalOptions { min_relevance, top_n }
}
fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() < 1e-12, "{what}: got {got}, want {want}");
}
fn selected(case: &str, policy: EvalPolicy, options: &EvalOptions) -> String {
    let (cases, traces) = load();
    let i = cases.iter().position(|c| c.id == case).unwrap();
    let ids: Vec<&str> = selection(&cases[i], &traces[i], policy, options)
        .iter()
        .map(|d| d.id.as_str())
        .collect();
    ids.join(" ")
}

// Binary DCG gains: rank 1 → 1, rank 2 → A = 1/log2(3) ≈ 0.630930, rank 3 → 1/log2(4) = 0.5.
const A: f64 = 0.630_929_753_571_457_5;
// The nDCG values the fixtures produce, for cases with 2 relevant candidates (ideal DCG = 1 + A ≈ 1.630930):
const V1: f64 = (A + 0.5) / (1.0 + A); // relevant at ranks 2 and 3 ≈ 0.693426
const V2: f64 = 1.5 / (1.0 + A); // relevant at ranks 1 and 3 ≈ 0.919720
const V3: f64 = 1.0 / (1.0 + A); // only rank 1 relevant ≈ 0.613147

#[test]
fn fixture_metrics_by_hand() {
    // Judgments (traces.json), relevant marked *; min_relevance 0.5, no top_n:
    //   warranty-positive  care .10, warranty* .92, claims* .60, shipping .30
    //   reset-ambiguous    router-reset* .55, price-list .05, kettle-reset* .45
    //   premise-false      warranty* .45, reviews .65, no-extension* .20   (the correcting passage scores low)
    //   ceo-unanswerable   about .40, contact .15                          (no relevant candidate)
    //   descale-injection  descale-1* .88 (group g), injected .70, descale-2* .30 (group g)
    let o = opts(0.5, None);
    let want = [
        (
            "warranty-positive",
            EvalPolicy::Baseline,
            "care warranty claims shipping",
        ),
        ("warranty-positive", EvalPolicy::Filter, "warranty claims"),
        ("warranty-positive", EvalPolicy::Rerank, "warranty claims shipping care"),
        ("reset-ambiguous", EvalPolicy::FilterAndRerank, "router-reset"),
        ("premise-false", EvalPolicy::Filter, "reviews"),
        ("premise-false", EvalPolicy::Rerank, "reviews warranty no-extension"),
        ("ceo-unanswerable", EvalPolicy::Filter, ""),
        // the group rides on descale-1: input order when filtering, together when reranking
        ("descale-injection", EvalPolicy::Filter, "descale-1 injected descale-2"),
        (
            "descale-injection",
            EvalPolicy::FilterAndRerank,
            "descale-1 descale-2 injected",
        ),
    ];
    for (case, policy, ids) in want {
        assert_eq!(selected(case, policy, &o), ids, "{case} {policy:?}");
    }

    let (cases, traces) = load();
    let report = evaluate(&cases, &traces, &o).unwrap();
    let row = |id: &str| &report.rows.iter().find(|r| r.case_id == id).unwrap().metrics;
    // (precision, recall, nDCG) per case; precision = hits / selected, recall = hits / 2.
    let m = &row("warranty-positive").baseline; // 2 of 4, relevant at ranks 2, 3; cutoff = 4 candidates
    assert_eq!((m.precision, m.evidence_recall, m.ndcg), (0.5, Some(1.0), Some(V1)));
    let m = &row("reset-ambiguous").filter; // 1 of 1 kept, 1 of 2 relevant, rank 1
    assert_eq!(
        (m.precision, m.evidence_recall, m.ndcg, m.relevant_dropped),
        (1.0, Some(0.5), Some(V3), 1)
    );
    let m = &row("premise-false").filter; // only the distractor survives: all evidence lost
    assert_eq!(
        (m.precision, m.evidence_recall, m.ndcg, m.all_evidence_lost),
        (0.0, Some(0.0), Some(0.0), true)
    );
    assert_eq!(row("premise-false").rerank.ndcg, Some(V1)); // reviews, warranty*, no-extension*
    let m = &row("ceo-unanswerable").baseline; // 0 of 2; no labels → no recall/nDCG, not correctly empty
    assert_eq!(
        (m.precision, m.evidence_recall, m.ndcg, m.correctly_empty),
        (0.0, None, None, Some(false))
    );
    let m = &row("ceo-unanswerable").filter; // empty output: precision 0, correctly empty
    assert_eq!(
        (m.precision, m.documents, m.correctly_empty, m.all_evidence_lost),
        (0.0, 0, Some(true), false)
    );
    // characters are Python `len` (code points: price-list has € and ·), tokens ceil(len / 4):
    // router-reset 83 → 21, price-list 65 → 17, kettle-reset 81 → 21.
    let m = &row("reset-ambiguous").baseline;
    assert_eq!((m.characters, m.context_tokens), (83 + 65 + 81, 21 + 17 + 21));

    let s = &report.summary;
    // precision over all 5 cases: baseline (.5 + 2/3 + 2/3 + 0 + 2/3) / 5 = .5,
    // filter (1 + 1 + 0 + 0 + 2/3) / 5 = 8/15; rerank ranks the same sets as baseline, f&r as filter.
    close(s.baseline.precision.unwrap(), 0.5, "baseline precision");
    close(s.filter.precision.unwrap(), 8.0 / 15.0, "filter precision");
    close(s.rerank.precision.unwrap(), 0.5, "rerank precision");
    close(s.filter_and_rerank.precision.unwrap(), 8.0 / 15.0, "f&r precision");
    // recall over the 4 labelled cases: filter (1 + .5 + 0 + 1) / 4.
    assert_eq!(
        (s.baseline.evidence_recall, s.rerank.evidence_recall),
        (Some(1.0), Some(1.0))
    );
    close(s.filter.evidence_recall.unwrap(), 0.625, "filter recall");
    close(s.filter_and_rerank.evidence_recall.unwrap(), 0.625, "f&r recall");
    // nDCG over the 4 labelled cases (warranty, reset, premise, descale):
    close(s.baseline.ndcg.unwrap(), (V1 + V2 + V2 + V2) / 4.0, "baseline ndcg"); // ≈ 0.863147
    close(s.filter.ndcg.unwrap(), (1.0 + V3 + 0.0 + V2) / 4.0, "filter ndcg"); // ≈ 0.633217
    close(s.rerank.ndcg.unwrap(), (1.0 + 1.0 + V1 + 1.0) / 4.0, "rerank ndcg"); // ≈ 0.923357
    close(
        s.filter_and_rerank.ndcg.unwrap(),
        (1.0 + V3 + 0.0 + 1.0) / 4.0,
        "f&r ndcg",
    ); // ≈ 0.653287
       // correctly_empty over the one unanswerable case; all_evidence_lost over all 5 (premise-false only).
    assert_eq!(
        (s.baseline.correctly_empty, s.filter.correctly_empty),
        (Some(0.0), Some(1.0))
    );
    assert_eq!(
        (s.rerank.correctly_empty, s.filter_and_rerank.correctly_empty),
        (Some(0.0), Some(1.0))
    );
    close(s.filter.all_evidence_lost.unwrap(), 0.2, "filter evidence lost");
    assert_eq!(s.baseline.all_evidence_lost, Some(0.0));
    // dropped (0 + 1 + 2 + 0 + 0) / 5; documents (4 + 3 + 3 + 2 + 3) / 5 and (2 + 1 + 1 + 0 + 3) / 5.
    close(s.filter.relevant_dropped.unwrap(), 0.6, "filter dropped");
    close(s.baseline.documents.unwrap(), 3.0, "baseline documents");
    close(s.filter.documents.unwrap(), 1.4, "filter documents");
    // characters: all text = (57+82+87+39) + (83+65+81) + (82+54+63) + (61+67) + (90+104+81) = 1096 → 219.2;
    // filter: (82+87) + 83 + 54 + 0 + (90+104+81) = 581 → 116.2. Tokens: 281 → 56.2 and 148 → 29.6.
    close(s.baseline.characters.unwrap(), 219.2, "baseline characters");
    close(s.filter.characters.unwrap(), 116.2, "filter characters");
    close(s.baseline.context_tokens.unwrap(), 56.2, "baseline tokens");
    close(s.filter.context_tokens.unwrap(), 29.6, "filter tokens");
    assert_eq!(s.filter.answer_correct, None);

    // Usage: inputs 120+130+140+110 + 3·100 + 3·150 + 90+110 + 200+250+150 = 2050, one output token each.
    assert_eq!((report.usage.input_tokens, report.usage.output_tokens), (2050, 15));
    // p95 of 5 latencies is the ceil(4.75) = 5th smallest, i.e. the largest.
    assert_eq!(report.scoring_p95_ms, 733.75);
    assert_eq!(report.models, ["hand-authored-fixture"]);
    assert_eq!((report.cases, report.answer_quality), (5, "not_evaluated"));
}

#[test]
fn top_n_caps_every_policy_and_fixes_the_ndcg_cutoff() {
    let (cases, traces) = load();
    let report = evaluate(&cases, &traces, &opts(0.5, Some(2))).unwrap();
    let row = |id: &str| &report.rows.iter().find(|r| r.case_id == id).unwrap().metrics;
    // baseline = first 2 candidates: care, warranty*; ideal over min(2 relevant, 2) ranks = 1 + A.
    let m = &row("warranty-positive").baseline;
    assert_eq!(
        (m.precision, m.evidence_recall, m.ndcg),
        (0.5, Some(0.5), Some(A / (1.0 + A)))
    );
    // descale: the group is admitted whole and fills the cap, so `injected` is cut: descale-1, descale-2.
    assert_eq!(
        selected("descale-injection", EvalPolicy::Filter, &opts(0.5, Some(2))),
        "descale-1 descale-2"
    );
    assert_eq!(row("descale-injection").filter.ndcg, Some(1.0));
    assert_eq!(row("descale-injection").baseline.ndcg, Some(V3)); // descale-1*, injected
    assert_eq!(report.ndcg_cutoff, Value::from(2));

    // With top_n 1 the group still goes in whole (2 > 1); as in rag-jev the DCG is not cut at the cutoff:
    // (1 + A) / 1 > 1.
    let report = evaluate(&cases, &traces, &opts(0.5, Some(1))).unwrap();
    let m = &report.rows[4].metrics;
    assert_eq!((m.filter.documents, m.filter.ndcg), (2, Some(1.0 + A)));
    assert_eq!((m.baseline.documents, m.baseline.ndcg), (1, Some(1.0)));
}

#[test]
fn stale_fingerprint_is_refused_naming_the_case() {
    let cases = load_cases(fixture("cases.json")).unwrap();
    let stale = load_traces(fixture("traces-stale-fingerprint.json")).unwrap();
    let err = evaluate(&cases, &stale, &opts(0.5, None)).unwrap_err();
    assert!(matches!(&err, EvalError::FingerprintMismatch { case_id, .. } if case_id == "reset-ambiguous"));
    let text = err.to_string();
    assert!(
        text.contains("`reset-ambiguous`") && text.contains("f53baa9d"),
        "{text}"
    );
    assert!(sweep(&cases, &stale, &opts(0.5, None), &[0.5]).is_err());
}

#[test]
fn prompt_version_must_match_the_scoring_strategy() {
    let (cases, mut traces) = load();
    traces[3].prompt_version = "useful-evidence-v0".into();
    let err = evaluate(&cases, &traces, &opts(0.5, None)).unwrap_err();
    assert!(matches!(&err, EvalError::PromptVersionMismatch { case_id, .. } if case_id == "ceo-unanswerable"));
    assert!(
        err.to_string()
            .contains("`useful-evidence-v0`, expected `useful-evidence-v1`"),
        "{err}"
    );

    // Contextual scoring: shared usage replaces the per-judgment tokens (2050 - 200 + 500, 15 - 2 + 7).
    traces[3].scoring_strategy = ScoringStrategy::Contextual;
    traces[3].scoring_usage = Some(Usage {
        input_tokens: 500,
        output_tokens: 7,
        completed_documents: 2,
        complete: true,
    });
    traces[3].prompt_version = PROMPT_VERSION.into();
    let err = evaluate(&cases, &traces, &opts(0.5, None)).unwrap_err();
    assert!(err.to_string().contains("expected `contextual-evidence-v1`"), "{err}");
    traces[3].prompt_version = CONTEXTUAL_PROMPT_VERSION.into();
    let usage = evaluate(&cases, &traces, &opts(0.5, None)).unwrap().usage;
    assert_eq!((usage.input_tokens, usage.output_tokens), (2350, 20));
    traces[3].scoring_usage = None;
    let err = evaluate(&cases, &traces, &opts(0.5, None)).unwrap_err();
    assert!(
        err.to_string()
            .contains("contextual trace requires complete shared usage"),
        "{err}"
    );
}

#[test]
fn traces_must_pair_one_to_one() {
    let (cases, traces) = load();
    let o = opts(0.5, None);
    let err = |t: &[RagJevTrace]| evaluate(&cases, t, &o).unwrap_err().to_string();
    assert!(err(&traces[1..]).contains("no trace for case `warranty-positive`"));
    let mut extra = traces.clone();
    extra[0].case_id = "elsewhere".into();
    assert!(err(&extra).contains("unknown case `elsewhere`"));
    let mut twice = traces.clone();
    twice.push(traces[0].clone());
    assert!(err(&twice).contains("share a case_id"));
    let mut short = traces.clone();
    short[0].judgments.pop();
    assert!(err(&short).contains("3 judgments for 4 documents"));
    assert!(evaluate(&[], &[], &o).is_err());
    assert!(evaluate(&cases, &traces, &opts(1.5, None)).is_err());
    assert!(evaluate(&cases, &traces, &opts(0.5, Some(0))).is_err());
}

#[test]
fn loading_accepts_rag_jev_shapes_and_names_bad_items() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let case = r#"{"id": "c", "query": "q?", "documents": [{"id": "d", "text": "t"}], "relevant_ids": ["d"]}"#;
    assert_eq!(load_cases(write("list.json", &format!("[{case}]"))).unwrap().len(), 1);
    assert_eq!(
        load_cases(write("obj.json", &format!(r#"{{"cases": [{case}]}}"#)))
            .unwrap()
            .len(),
        1
    );
    let unknown = case.replace(r#""id": "c""#, r#""id": "c", "labels": 1"#);
    let err = load_cases(write("unknown.json", &format!("[{case}, {unknown}]")))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown.json") && err.contains("case #2") && err.contains("labels"),
        "{err}"
    );
    let bad_label = case.replace(r#"["d"]"#, r#"["x"]"#);
    let err = load_cases(write("label.json", &format!("[{bad_label}]")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("case `c`: relevant_ids names `x`"), "{err}");
    let trace =
        r#"{"case_id": "c", "input_hash": "h", "judgments": [{"relevance": 1.2, "model": "m"}], "elapsed_ms": 1}"#;
    let err = load_traces(write("trace.json", &format!("[{trace}]")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("trace `c`: relevance 1.2 is outside [0, 1]"), "{err}");
    assert!(matches!(
        load_cases(dir.join("missing.json")),
        Err(EvalError::Io { .. })
    ));
}

#[test]
fn sweep_is_monotonic_and_writes_csv() {
    let (cases, traces) = load();
    let grid = threshold_grid(SWEEP_STEP);
    assert_eq!((grid.len(), grid[7], grid[20]), (21, 0.35, 1.0));
    let s = sweep(&cases, &traces, &opts(0.5, None), &grid).unwrap();
    for w in s.points.windows(2) {
        // Without top_n a higher threshold only ever removes passages.
        assert!(
            w[1].selected_mean <= w[0].selected_mean && w[1].evidence_recall <= w[0].evidence_recall,
            "{w:?}"
        );
    }
    let (first, last) = (&s.points[0], &s.points[20]);
    assert_eq!(
        (first.precision, first.evidence_recall, first.selected_mean),
        (0.5, Some(1.0), 3.0)
    );
    assert_eq!(
        (last.precision, last.evidence_recall, last.selected_mean),
        (0.0, Some(0.0), 0.0)
    );
    // At 0.60 (inclusive): warranty+claims (1, 1), nothing (0, 0), reviews (0, 0), nothing (0, -), and
    // descale-1 .88 with its group plus injected .70 (2/3, 1): precision (1 + 2/3) / 5, recall 2 / 4,
    // selected (2 + 0 + 1 + 0 + 3) / 5.
    let p = &s.points[12];
    assert_eq!(p.threshold, 0.6);
    close(p.precision, 1.0 / 3.0, "precision at .6");
    assert_eq!((p.evidence_recall, p.selected_mean), (Some(0.5), 1.2));
    // It agrees with a full evaluation at that threshold.
    let at = evaluate(&cases, &traces, &opts(0.6, None)).unwrap().summary.filter;
    assert_eq!(
        (at.precision, at.evidence_recall),
        (Some(p.precision), p.evidence_recall)
    );

    let csv = s.to_csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 22);
    assert_eq!(lines[0], "threshold,precision,evidence_recall,selected_mean");
    assert_eq!(lines[1], "0,0.500000,1.000000,3.000000");
    assert_eq!(lines[13], "0.6,0.333333,0.500000,1.200000");
    assert!(lines.iter().all(|l| l.split(',').count() == 4));
    assert!(sweep(&cases, &traces, &opts(0.5, None), &[1.5]).is_err());
}

#[test]
fn report_serialises_in_rag_jev_shape() {
    let (cases, traces) = load();
    let mut report = evaluate(&cases, &traces, &opts(0.5, None)).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["summary"]["baseline"]["precision"], 0.5);
    assert_eq!(json["summary"]["filter_and_rerank"]["correctly_empty"], 1.0);
    assert_eq!(json["rows"][3]["metrics"]["rerank"]["evidence_recall"], Value::Null);
    assert_eq!(json["answer_quality"], "not_evaluated");
    assert!(json["ndcg_cutoff"].as_str().unwrap().starts_with("candidate count"));
    assert!(json.get("sweep").is_none());
    report.sweep = Some(sweep(&cases, &traces, &opts(0.5, None), &[0.0, 0.5]).unwrap());
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        (
            json["sweep"]["policy"].as_str(),
            json["sweep"]["points"][1]["threshold"].as_f64()
        ),
        (Some("filter"), Some(0.5))
    );
}

/// A judge that records the query it is asked about and answers 0.5 (only the routing is under test).
struct RecordingJudge(std::sync::Mutex<Vec<String>>);

impl ragsift_judge::Judge for RecordingJudge {
    fn name(&self) -> &'static str {
        "recording"
    }
    fn model(&self) -> String {
        "m".into()
    }
    fn prompt_version(&self) -> String {
        "v".into()
    }
    fn calibrated(&self) -> bool {
        false
    }
    fn judge(
        &self,
        query: &str,
        passages: &[String],
        questions: &[ragsift_judge::JudgeQuestion],
    ) -> crate::Result<Vec<ragsift_judge::PassageJudgment>> {
        self.0.lock().unwrap().push(query.to_string());
        Ok(passages
            .iter()
            .map(|_| ragsift_judge::PassageJudgment {
                scores: questions.iter().map(|q| (q.key.clone(), 0.5)).collect(),
                model: "m".into(),
                ..Default::default()
            })
            .collect())
    }
}

#[test]
fn live_scoring_judges_the_retrieval_query_when_there_is_one() {
    let mut cases = load().0;
    cases.truncate(2);
    cases[0].retrieval_query = Some("rewritten for search".into());
    cases[1].retrieval_query = None;
    let judge = RecordingJudge(std::sync::Mutex::new(Vec::new()));
    live::score_cases(
        &judge,
        &cases,
        &ragsift_interfaces::llm::CancelToken::new(),
        &mut |_, _| {},
    )
    .unwrap();
    let asked = judge.0.into_inner().unwrap();
    assert_eq!(asked, ["rewritten for search".to_string(), cases[1].query.clone()]);
}

/// Live traces carry the judge's own prompt version (rag-jev's only when Jev was sent rag-jev's request); such a
/// set evaluates, but one mixing versions is refused, both when evaluated and when written as rag-jev traces.
#[test]
fn live_traces_carry_the_judges_own_version_and_are_never_mixed() {
    let cases = load().0;
    let judge = RecordingJudge(std::sync::Mutex::new(Vec::new()));
    let mut live = live::score_cases(
        &judge,
        &cases,
        &ragsift_interfaces::llm::CancelToken::new(),
        &mut |_, _| {},
    )
    .unwrap();
    assert!(live
        .iter()
        .all(|t| t.prompt_version == "v" && t.scoring_strategy == ScoringStrategy::Independent));
    assert!(evaluate(&cases, &live, &opts(0.5, None)).is_ok());
    assert!(traces_json(&live).is_ok());
    live[1].prompt_version = "w".into();
    let err = evaluate(&cases, &live, &opts(0.5, None)).unwrap_err();
    assert!(err.to_string().contains("mix prompt versions `v` and `w`"), "{err}");
    live[1].prompt_version = PROMPT_VERSION.into();
    let err = evaluate(&cases, &live, &opts(0.5, None)).unwrap_err();
    assert!(matches!(err, EvalError::PromptVersionMismatch { .. }), "{err}");
    let err = traces_json(&live).unwrap_err().to_string();
    assert!(err.contains("`v` and `useful-evidence-v1`"), "{err}");
}

/// A case whose evidence retrieval lost is not an unanswerable case: losing it counts as lost evidence, and an
/// empty selection is not "correctly empty".
#[test]
fn lost_evidence_is_not_counted_as_correctly_empty() {
    let mut case = load()
        .0
        .into_iter()
        .find(|c| c.relevant_ids.is_empty())
        .expect("an unanswerable case");
    let unanswerable = measure(&case, &[], None);
    assert_eq!(
        (unanswerable.correctly_empty, unanswerable.all_evidence_lost),
        (Some(true), false)
    );
    case.evidence_lost = true;
    let lost = measure(&case, &[], None);
    assert_eq!((lost.correctly_empty, lost.all_evidence_lost), (None, true));
}

#[test]
fn a_trace_scored_on_other_input_reads_as_stale_and_a_bad_option_as_invalid() {
    let mismatch = EvalError::FingerprintMismatch {
        case_id: "c".into(),
        expected: "a".into(),
        found: "b".into(),
    };
    assert_eq!(ragsift_core::Error::from(mismatch).code(), "stale");
    assert_eq!(
        ragsift_core::Error::from(EvalError::Invalid("top_k".into())).code(),
        "invalid"
    );
}

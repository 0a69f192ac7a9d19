//! Unit tests of the parent module.
//!
//! Long because it is tests only, one per rule of the policy and its boundary values.
use super::Reason::*;
use super::*;
use std::collections::HashSet;

mod spring;

/// A classify chunk from (injection, contradiction, relevance, evidence).
fn cls(i: usize, probabilities: [f64; 4]) -> ChunkJudgment {
    let keys = DEFAULT_THRESHOLDS.map(|(k, _)| k.to_string());
    let scores = keys.into_iter().zip(probabilities).collect();
    ChunkJudgment {
        chunk_id: format!("c{i}"),
        input_index: i,
        tokens: 100,
        characters: 400,
        pinned: false,
        group: None,
        scores,
        not_assessed: Vec::new(),
    }
}

/// Chunks from a spec like `k u.9* x@a:300 -`: `k` kept, `x` irrelevant, `i` injection, `c` conflicting (all
/// four classify scores), `u.9` useful only, `r.4` is_relevant only, `-` no scores; then `*` pinned, `@g`
/// group g, `:n` tokens (default 100).
fn chunks(spec: &str) -> Vec<ChunkJudgment> {
    let chunk = |(i, token): (usize, &str)| {
        let (head, tokens) = token.split_once(':').unwrap_or((token, "100"));
        let (head, group) = head
            .split_once('@')
            .map_or((head, None), |(h, g)| (h, Some(g.to_string())));
        let kind = head.trim_end_matches('*');
        let mut c = cls(i, [0.0; 4]);
        c.scores = match (&kind[..1], kind[1..].parse::<f64>()) {
            ("k", _) => cls(i, [0.0, 0.0, 0.9, 0.9]).scores,
            ("x", _) => cls(i, [0.0, 0.0, 0.1, 0.0]).scores,
            ("i", _) => cls(i, [0.9, 0.0, 0.9, 0.9]).scores,
            ("c", _) => cls(i, [0.0, 0.8, 0.1, 0.0]).scores,
            ("u", Ok(v)) => BTreeMap::from([(USEFUL.to_string(), v)]),
            ("r", Ok(v)) => BTreeMap::from([(IS_RELEVANT.to_string(), v)]),
            _ => BTreeMap::new(),
        };
        ChunkJudgment {
            tokens: tokens.parse().unwrap(),
            pinned: head.ends_with('*'),
            group,
            ..c
        }
    };
    spec.split_whitespace().enumerate().map(chunk).collect()
}
fn options(json: &str) -> PolicyOptions {
    serde_json::from_str(json).unwrap()
}

/// `select` plus the invariants every selection must hold.
fn run(chunks: &[ChunkJudgment], options: &PolicyOptions) -> Selection {
    let s = select(chunks, options);
    assert_eq!(s.decisions.len(), chunks.len());
    assert!(s.decisions.windows(2).all(|w| w[0].input_index <= w[1].input_index));
    assert_eq!(s.counts.values().sum::<usize>(), chunks.len());
    if s.status == Status::Bypassed {
        // rag-jev's bypass: null selection fields, everything returned in input order.
        assert_eq!(
            (&s.selected_ids, s.selected_tokens, s.selected_characters),
            (&None, None, None)
        );
        assert!(s
            .decisions
            .iter()
            .all(|d| d.selected.is_none() && d.returned && d.reason == Bypassed));
        assert_eq!(
            s.returned_ids,
            s.decisions.iter().map(|d| d.chunk_id.clone()).collect::<Vec<_>>()
        );
        return s;
    }
    let ids = s.selected_ids.clone().expect("selected ids unless bypassed");
    for d in &s.decisions {
        assert_eq!(d.selected, Some(d.reason.is_kept()), "{d:?}");
        assert_eq!(d.rank.map(|r| &ids[r - 1]), d.is_selected().then_some(&d.chunk_id));
    }
    assert_eq!(s.decisions.iter().filter(|d| d.is_selected()).count(), ids.len());
    let tokens: u32 = chunks
        .iter()
        .filter(|c| ids.contains(&c.chunk_id))
        .map(|c| c.tokens)
        .sum();
    assert_eq!(s.selected_tokens, Some(tokens));
    assert_eq!(s, select(chunks, options), "deterministic");
    s
}
fn reasons(s: &Selection) -> String {
    let names: Vec<String> = s
        .decisions
        .iter()
        .map(|d| serde_json::to_string(&d.reason).unwrap())
        .collect();
    names.join(" ").replace('"', "")
}

#[test]
fn classification_rules_are_ordered_and_strict() {
    // (injection, contradiction, relevance, evidence) → reason and the deciding score.
    let cases: &[([f64; 4], Reason, f64)] = &[
        ([0.71, 0.0, 0.9, 0.9], Injection, 0.71),
        ([0.70, 0.0, 0.9, 0.9], Retained, 0.9), // at the threshold is not above it
        ([0.69, 0.0, 0.9, 0.9], Retained, 0.9),
        ([0.9, 0.9, 0.9, 0.9], Injection, 0.9), // injection outranks contradiction
        ([0.0, 0.71, 0.1, 0.0], Conflicting, 0.71), // kept though irrelevant and evidence-free
        ([0.0, 0.70, 0.9, 0.9], Retained, 0.9),
        ([0.0, 0.69, 0.9, 0.9], Retained, 0.9),
        ([0.0, 0.0, 0.44, 0.9], NotRelevant, 0.44),
        ([0.0, 0.0, 0.45, 0.9], Retained, 0.9), // at the threshold is not below it
        ([0.0, 0.0, 0.46, 0.9], Retained, 0.9),
        ([0.0, 0.0, 0.9, 0.56], Retained, 0.56),
        ([0.0, 0.0, 0.9, 0.55], NoEvidence, 0.55),
        ([0.0, 0.0, 0.9, 0.54], NoEvidence, 0.54),
    ];
    for (n, &(scores, reason, score)) in cases.iter().enumerate() {
        let d = run(&[cls(0, scores)], &PolicyOptions::default()).decisions[0].clone();
        assert_eq!(
            (d.reason, d.score, d.conflicting),
            (reason, Some(score), reason == Conflicting),
            "case {n}"
        );
    }
    let lenient = options(r#"{"thresholds": {"is_relevant": 0.3}}"#);
    assert_eq!(
        run(&[cls(0, [0.0, 0.0, 0.35, 0.9])], &lenient).decisions[0].reason,
        Retained
    );
}

// "options | chunks (see `chunks`) | selected ids in final order | reason per chunk in input order"
const CASES: &[&str] = &[
    r#"{} | k x c k | c0 c2 c3 | retained not_relevant conflicting retained"#,
    r#"{"mode":"filter","min_relevance":0.5} | u.5 u.49 u.9 | c0 c2 | retained below_threshold retained"#,
    r#"{"mode":"rerank"} | u.3 u.8 u.3 u.8 | c1 c3 c0 c2 | retained retained retained retained"#,
    r#"{"mode":"filter_and_rerank","min_relevance":0.5} | u0 u.6 u.9 | c2 c1 | below_threshold retained retained"#,
    // one score key per ranking (rag-jev): `useful` is present, so the relevance-only chunks are unscored, and
    // rag-jev never applies a partial ranking: the whole selection is bypassed
    r#"{"mode":"rerank"} | r.4 r.1 u.3 | null | bypassed bypassed bypassed"#,
    r#"{"mode":"rerank","top_n":2} | u.1 u.9 u.5 u.7 | c1 c3 | beyond_top_n retained beyond_top_n retained"#,
    // as rag-jev's apply_policy: a chunk that does not fit is skipped, a later smaller one may still fit
    r#"{"max_context_tokens":250} | k:100 k:300 k:50 | c0 c2 | retained beyond_token_budget retained"#,
    r#"{"mode":"filter","max_context_tokens":200} | u1 u1 | c0 c1 | retained retained"#,
    r#"{"mode":"rerank","top_n":2} | u.9 u.8 u.1* | c0 c2 | retained beyond_top_n pinned"#,
    r#"{"mode":"filter","max_context_tokens":150} | u1 u1* | c1 | beyond_token_budget pinned"#,
    r#"{"top_n":1} | k i* | c1 | beyond_top_n pinned"#,
    // a pin is selected even when it alone exceeds the budget
    r#"{"max_context_tokens":100} | k:10 i*:500 | c1 | beyond_token_budget pinned"#,
    r#"{} | k@a k x@a | c0 c1 c2 | retained retained group_retained"#,
    r#"{"keep_groups_together":false} | k@a k x@a | c0 c1 | retained retained not_relevant"#,
    r#"{} | k@a i@a k | c2 | injection injection retained"#,
    r#"{} | k*@a i@a | c0 | pinned injection"#,
    r#"{} | x*@a x@a | c0 c1 | pinned group_retained"#,
    r#"{"top_n":2} | k k@a k@a k | c0 c1 c2 | retained retained retained beyond_top_n"#,
    r#"{"max_context_tokens":250} | k k@a k@a | c0 | retained beyond_token_budget beyond_token_budget"#,
    r#"{"mode":"rerank"} | u.5 u.1@a u.9@a | c1 c2 c0 | retained retained retained"#,
    r#"{"mode":"rerank"} | u.2 - u.9 | null | bypassed bypassed bypassed"#,
    // even when top_n was asked for (rag-jev's test_failure_abandons_partial_selection_and_ignores_cap)
    r#"{"mode":"filter","min_relevance":0.9,"top_n":1} | - u.6 | null | bypassed bypassed"#,
    r#"{"mode":"fusion","top_n":1} | u.1 - u.8 | null | bypassed bypassed bypassed"#,
    // Spring screens per passage: an unscored chunk stays in its place among the classified ones
    r#"{} | r.9 k | c0 c1 | unscored retained"#,
    r#"{} | k r.9 x k | c0 c1 c3 | retained unscored not_relevant retained"#,
    // fusion: RRF over the input rank and the judge's rank; every chunk eligible
    r#"{"mode":"fusion","top_n":1} | u.1 u.9 u.8 | c1 | beyond_top_n retained beyond_top_n"#,
    r#"{"mode":"fusion","top_n":1} | u.1 u.5 u.9 | c0 | retained beyond_top_n beyond_top_n"#,
];

#[test]
fn modes_pins_limits_groups_and_unscored() {
    for case in CASES {
        let [json, spec, selected, want] = [0, 1, 2, 3].map(|k| case.split(" | ").nth(k).unwrap());
        let s = run(&chunks(spec), &options(json));
        let ids = s.selected_ids.as_ref().map_or("null".to_string(), |ids| ids.join(" "));
        assert_eq!(
            (ids, reasons(&s)),
            (selected.to_string(), want.to_string()),
            "{json} {spec}"
        );
        if s.status != Status::Bypassed {
            assert_eq!(
                (s.status, Some(&s.returned_ids)),
                (Status::Applied, s.selected_ids.as_ref())
            );
        }
    }
}

#[test]
fn shadow_returns_the_originals() {
    let (input, json) = (
        chunks("u0.2 u0.9 u0.1"),
        r#"{"mode":"filter_and_rerank","min_relevance":0.5"#,
    );
    let applied = run(&input, &options(&format!("{json}}}")));
    let shadow = run(&input, &options(&format!(r#"{json},"shadow":true}}"#)));
    assert_eq!(
        (shadow.status, shadow.selected().join(" ")),
        (Status::Shadow, "c1".to_string())
    );
    assert_eq!(shadow.returned_ids.join(" "), "c0 c1 c2");
    assert!(shadow.decisions.iter().all(|d| d.returned) && !shadow.decisions[0].is_selected());
    assert_eq!(
        (reasons(&shadow), shadow.selected_characters),
        (reasons(&applied), Some(400))
    );
    assert_eq!(
        shadow.policy_version, applied.policy_version,
        "shadow is not part of the policy"
    );
}

#[test]
fn no_scores_anywhere_bypasses_and_input_order_wins() {
    let mut input = chunks("- - u0.9");
    input.rotate_left(1); // the slice order is not the input order
    let s = run(&input, &options(r#"{"shadow":true,"top_n":1}"#)); // classify ignores `useful`
    assert_eq!(
        (s.status, reasons(&s)),
        (Status::Bypassed, "bypassed bypassed bypassed".to_string())
    );
    assert_eq!(
        (s.selected_ids.as_ref(), s.returned_ids.join(" ")),
        (None, "c0 c1 c2".into())
    );
    assert_eq!(s.counts, BTreeMap::from([(Bypassed, 3)]));
    let filter = run(&input, &options(r#"{"mode":"filter","min_relevance":0.5}"#));
    assert_eq!(
        (filter.status, filter.returned_ids.join(" ")),
        (Status::Bypassed, "c0 c1 c2".into())
    );
    assert_eq!(
        run(&[], &options(r#"{"shadow":true}"#)).status,
        Status::Shadow,
        "empty input is not a failure"
    );
}

#[test]
fn validate_rejects_out_of_range_options() {
    let cases: &[(&str, Option<&str>)] = &[
        ("{}", None),
        (
            r#"{"thresholds":{"is_relevant":0.0,"contains_prompt_injection":1.0},"min_relevance":1.0,"top_n":1}"#,
            None,
        ),
        (
            r#"{"thresholds":{"is_relevant":-0.1}}"#,
            Some("threshold `is_relevant` must be between 0 and 1"),
        ),
        (
            r#"{"thresholds":{"relevance":0.5}}"#,
            Some("unknown threshold `relevance`"),
        ),
        (r#"{"min_relevance":1.5}"#, Some("min_relevance")),
        (r#"{"top_n":0}"#, Some("top_n")),
        // rag-jev's Policy.validate_threshold
        (
            r#"{"mode":"rerank","min_relevance":0.2}"#,
            Some("use filter_and_rerank"),
        ),
        (
            r#"{"mode":"fusion","min_relevance":0.0}"#,
            Some("without a relevance threshold"),
        ),
        (r#"{"mode":"fusion"}"#, None),
    ];
    for &(json, want) in cases {
        match (options(json).validate(), want) {
            (Ok(()), None) => {}
            (Err(e), Some(w)) => assert!(e.contains(w), "{e} lacks {w}"),
            (got, _) => panic!("{json} gave {got:?}"),
        }
    }
    // A filter mode needs a threshold once the judge's defaults are in: rag-jev refuses, so do we.
    for mode in ["filter", "filter_and_rerank"] {
        let o = options(&format!(r#"{{"mode":"{mode}"}}"#));
        assert!(o.validate().is_ok(), "the judge's default may still supply it");
        let e = o.resolved(&JudgeDefaults::default()).validate_resolved().unwrap_err();
        assert!(e.contains("min_relevance is required for filtering"), "{e}");
        let o = options(&format!(r#"{{"mode":"{mode}","min_relevance":0.0}}"#));
        assert!(o.validate_resolved().is_ok());
    }
    let local = JudgeDefaults {
        min_relevance: Some(0.3),
        ..JudgeDefaults::default()
    };
    assert!(options(r#"{"mode":"filter"}"#)
        .resolved(&local)
        .validate_resolved()
        .is_ok());
    assert_eq!(
        options(r#"{"mode":"rerank"}"#).resolved(&local).min_relevance,
        None,
        "rerank takes none"
    );
    let mut nan = PolicyOptions::default();
    nan.thresholds.insert(CONTAINS_ANSWER_EVIDENCE.into(), f64::NAN);
    assert!(nan.validate().is_err());
}

#[test]
fn diff_lists_only_changed_chunks() {
    let input = chunks("u0.9 u0.3 u0.1");
    let before = run(&input, &options(r#"{"mode":"filter","min_relevance":0.5}"#));
    let after = run(&input[1..], &options(r#"{"mode":"filter","min_relevance":0.2}"#));
    let change = |id: &str, b, a, now| Change {
        chunk_id: id.into(),
        before_reason: b,
        after_reason: a,
        now_selected: now,
    };
    let want = [
        change("c1", Some(BelowThreshold), Some(Retained), true),
        change("c0", Some(Retained), None, false),
    ];
    assert_eq!(diff(&before, &after), want);
    assert!(diff(&before, &before).is_empty());

    // Same chunks in the same order (the pairwise path) and in another order (by id) agree, in `after`'s order.
    let all = run(&input, &options(r#"{"mode":"filter","min_relevance":0.2}"#));
    assert!(same_ids_in_order(&before, &all));
    let pairwise = diff(&before, &all);
    assert_eq!(pairwise, [change("c1", Some(BelowThreshold), Some(Retained), true),]);
    let mut reordered = all.clone();
    reordered.decisions.reverse();
    assert!(!same_ids_in_order(&before, &reordered));
    let mut by_id = diff(&before, &reordered);
    by_id.reverse();
    assert_eq!(by_id, pairwise);
}

#[test]
fn serde_and_policy_version() {
    assert_eq!(options("{}"), PolicyOptions::default());
    let o = options(r#"{"mode":"filter_and_rerank","top_n":3}"#);
    assert_eq!(
        (o.mode, o.top_n, o.keep_groups_together),
        (Mode::FilterAndRerank, Some(3), true)
    );
    let s = run(&chunks("k x"), &PolicyOptions::default());
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains(r#""counts":{"retained":1,"not_relevant":1}"#), "{json}");
    assert_eq!(serde_json::from_str::<Selection>(&json).unwrap(), s);

    let base = PolicyOptions::default().policy_version();
    assert!(base.len() == 16 && base.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(
        options(r#"{"thresholds":{}}"#).policy_version(),
        base,
        "defaults are filled in before hashing"
    );
    assert_ne!(options(r#"{"thresholds":{"is_relevant":0.5}}"#).policy_version(), base);
    assert_ne!(options(r#"{"min_relevance":0.5}"#).policy_version(), base);
}

/// rag-jev's `Policy.version`, byte for byte. Each expected value is what CPython prints for
/// `hashlib.sha256(json.dumps({"prompt": "useful-evidence-v1", **options}, sort_keys=True).encode())
/// .hexdigest()[:16]` with rag-jev's option dump (`max_context_tokens` only when set, `shadow` left out).
#[test]
fn policy_version_is_rag_jevs() {
    for (json, want) in RAG_JEV_VERSIONS {
        assert_eq!(options(json).policy_version(), *want, "{json}");
    }
    let shadow = options(r#"{"mode":"filter","min_relevance":0.2,"shadow":true}"#);
    assert_eq!(
        shadow.policy_version(),
        RAG_JEV_VERSIONS[0].1,
        "shadow is not part of the policy"
    );
    let fusion = options(r#"{"mode":"fusion"}"#).policy_version();
    assert_ne!(fusion, options(r#"{"mode":"rerank"}"#).policy_version());
}

/// rag-jev's own selector examples (`tests/test_selector.py`, `tests/test_fusion.py`): scores 0.1/0.8/0.9/0.8
/// for documents 0–3, with their exact ids and reasons.
#[test]
fn rag_jev_selector_examples() {
    let docs = || -> Vec<ChunkJudgment> {
        [0.1, 0.8, 0.9, 0.8]
            .iter()
            .enumerate()
            .map(|(i, &v)| ChunkJudgment {
                chunk_id: i.to_string(),
                scores: BTreeMap::from([(USEFUL.to_string(), v)]),
                ..cls(i, [0.0; 4])
            })
            .collect()
    };
    let cases = [
        (
            r#"{"mode":"filter","min_relevance":0.2}"#,
            "1 2 3",
            "below_threshold retained retained retained",
        ),
        (r#"{"mode":"rerank"}"#, "2 1 3 0", "retained retained retained retained"),
        (
            r#"{"mode":"filter_and_rerank","min_relevance":0.8}"#,
            "2 1 3",
            "below_threshold retained retained retained",
        ),
        (
            r#"{"mode":"filter_and_rerank","min_relevance":0.2,"top_n":2}"#,
            "2 1",
            "below_threshold retained retained beyond_top_n",
        ),
        (
            r#"{"mode":"filter","min_relevance":0.99}"#,
            "",
            "below_threshold below_threshold below_threshold below_threshold",
        ),
    ];
    for (json, ids, want) in cases {
        let o = options(json);
        o.validate_resolved().unwrap();
        let s = run(&docs(), &o);
        assert_eq!(
            (s.status, s.selected().join(" "), reasons(&s)),
            (Status::Applied, ids.into(), want.into()),
            "{json}"
        );
        assert_eq!(s.returned_ids.join(" "), ids, "what is returned is the selection");
    }
    // Shadow with top_n 1: the proposal is reported, the originals returned.
    let s = run(
        &docs(),
        &options(r#"{"mode":"filter","min_relevance":0.2,"top_n":1,"shadow":true}"#),
    );
    assert_eq!(
        (s.status, s.selected().join(" "), s.returned_ids.join(" ")),
        (Status::Shadow, "1".into(), "0 1 2 3".into())
    );

    // Fusion: the judge demotes the first hit, both rankers agree on the second.
    let scored = |scores: &[f64]| -> Vec<ChunkJudgment> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &v)| ChunkJudgment {
                chunk_id: i.to_string(),
                scores: BTreeMap::from([(USEFUL.to_string(), v)]),
                ..cls(i, [0.0; 4])
            })
            .collect()
    };
    let fusion = options(r#"{"mode":"fusion","top_n":1}"#);
    let s = run(&scored(&[0.1, 0.9, 0.8]), &fusion);
    assert_eq!(s.selected().join(" "), "1");
    assert_eq!(
        s.decisions.iter().map(|d| d.jev_rank).collect::<Vec<_>>(),
        [Some(3), Some(1), Some(2)]
    );
    assert_eq!(s.decisions[1].fusion_score, Some(1.0 / 62.0 + 1.0 / 61.0));
    // Opposite rankings tie at the ends; input order breaks the tie.
    let s = run(&scored(&[0.1, 0.5, 0.9]), &fusion);
    assert_eq!(s.decisions[0].fusion_score, s.decisions[2].fusion_score);
    assert_eq!(s.selected().join(" "), "0");
    let s = run(&scored(&[0.5, 0.5, 0.5]), &fusion);
    assert_eq!(
        s.decisions.iter().map(|d| d.jev_rank).collect::<Vec<_>>(),
        [Some(1), Some(2), Some(3)]
    );
    // Groups, pins and top_n: 1 and 2 share a group, 3 is pinned.
    let mut docs4 = scored(&[0.1, 0.9, 0.8, 0.0]);
    docs4[1].group = Some("parent".into());
    docs4[2].group = Some("parent".into());
    docs4[3].pinned = true;
    let s = run(&docs4, &options(r#"{"mode":"fusion","top_n":2,"shadow":true}"#));
    assert_eq!((s.status, s.selected().join(" ")), (Status::Shadow, "1 2 3".into()));
    let s = run(
        &docs4,
        &options(r#"{"mode":"fusion","top_n":2,"max_context_tokens":100}"#),
    );
    assert_eq!(s.selected().join(" "), "3");
    assert_eq!(s.decisions[1].reason, BeyondTokenBudget);
    // Other modes carry the judge's rank but no fusion score.
    let s = run(&docs(), &options(r#"{"mode":"rerank"}"#));
    assert_eq!(
        s.decisions.iter().map(|d| d.jev_rank).collect::<Vec<_>>(),
        [Some(4), Some(2), Some(1), Some(3)]
    );
    assert!(s.decisions.iter().all(|d| d.fusion_score.is_none()));
}

#[test]
fn reasons_explain_themselves() {
    let kept: Vec<Reason> = Reason::ALL.into_iter().filter(Reason::is_kept).collect();
    assert_eq!(
        kept,
        [
            Retained,
            Pinned,
            GroupRetained,
            Bypassed,
            Conflicting,
            Unscored,
            FailedKept,
            UnscoredLast
        ]
    );
    let texts: HashSet<&str> = Reason::ALL.iter().map(Reason::explain).collect();
    assert_eq!(texts.len(), Reason::ALL.len());
}

#[test]
fn three_hundred_chunks_select_the_same_every_time() {
    let input: Vec<ChunkJudgment> = (0..300)
        .map(|i| {
            let s = ((i * 37) % 100) as f64 / 100.0;
            let mut c = cls(i, [s / 4.0, s / 3.0, s, 1.0 - s]);
            c.scores.insert(USEFUL.into(), s);
            c.pinned = i % 97 == 0;
            c.group = (i % 10 == 0).then(|| format!("g{}", i % 7));
            c
        })
        .collect();
    let base = options(r#"{"top_n":40,"max_context_tokens":6000}"#);
    // Speed is measured by `ragsift-bench replay` (BENCHMARKS.md), not here: a replay is a pure function, so the
    // same input gives the same selection however often and in whatever order the modes are asked.
    let first: Vec<Selection> = [Mode::Classify, Mode::FilterAndRerank]
        .into_iter()
        .map(|mode| select(&input, &PolicyOptions { mode, ..base.clone() }))
        .collect();
    for (k, mode) in [Mode::Classify, Mode::FilterAndRerank]
        .into_iter()
        .cycle()
        .take(200)
        .enumerate()
    {
        let again = select(&input, &PolicyOptions { mode, ..base.clone() });
        assert_eq!(again, first[k % 2], "replay {k} ({mode:?})");
    }
    assert!(first[0].decisions.len() == 300 && first[1].decisions.len() == 300);
}

#[test]
fn unassessed_questions_skip_their_rule_and_say_so() {
    // The local judge does not assess the contradicted premise: its rule is skipped, the others decide.
    let offline = |i: usize, inj: f64, rel: f64, evi: f64| ChunkJudgment {
        scores: BTreeMap::from([
            (CONTAINS_PROMPT_INJECTION.to_string(), inj),
            (IS_RELEVANT.to_string(), rel),
            (CONTAINS_ANSWER_EVIDENCE.to_string(), evi),
        ]),
        not_assessed: vec![CONTRADICTS_QUERY_PREMISE.to_string()],
        ..cls(i, [0.0; 4])
    };
    let s = run(
        &[
            offline(0, 0.0, 0.9, 0.9),
            offline(1, 0.9, 0.9, 0.9),
            offline(2, 0.0, 0.1, 0.9),
            offline(3, 0.0, 0.9, 0.1),
        ],
        &PolicyOptions::default(),
    );
    assert_eq!(reasons(&s), "retained injection not_relevant no_evidence");
    assert!(s
        .decisions
        .iter()
        .all(|d| d.skipped_rules == vec![CONTRADICTS_QUERY_PREMISE.to_string()]));
    // The same chunk without the declaration is missing a score: unscored, not silently classified.
    let mut missing = offline(0, 0.0, 0.9, 0.9);
    missing.not_assessed.clear();
    let s = run(&[missing, cls(1, [0.0, 0.0, 0.9, 0.9])], &PolicyOptions::default());
    assert_eq!(reasons(&s), "unscored retained");
    assert!(s.decisions.iter().all(|d| d.skipped_rules.is_empty()));
}

#[test]
fn judge_defaults_fill_only_what_the_options_leave_open() {
    let local = JudgeDefaults {
        source: "local-signals-x".into(),
        thresholds: BTreeMap::from([
            (IS_RELEVANT.to_string(), 0.2),
            (CONTAINS_ANSWER_EVIDENCE.to_string(), 0.1),
        ]),
        min_relevance: Some(0.1),
        answer_threshold: 0.3,
    };
    let r = options(r#"{"thresholds":{"is_relevant":0.6}}"#).resolved(&local);
    assert_eq!(r.thresholds[IS_RELEVANT], 0.6, "an explicit threshold wins");
    assert_eq!(
        r.thresholds[CONTAINS_ANSWER_EVIDENCE], 0.1,
        "the judge's default fills the gap"
    );
    assert_eq!(
        r.thresholds[CONTAINS_PROMPT_INJECTION], 0.70,
        "Spring's default fills the rest"
    );
    assert_eq!(r.min_relevance, None, "classify takes no minimum relevance");
    assert_eq!(
        options(r#"{"mode":"filter"}"#).resolved(&local).min_relevance,
        Some(0.1)
    );
    assert_eq!(
        options(r#"{"min_relevance":0.4}"#).resolved(&local).min_relevance,
        Some(0.4)
    );
    // At the fitted evidence threshold a 0.15 chunk is kept; with Spring's 0.55 it is not.
    let chunk = [cls(0, [0.0, 0.0, 0.5, 0.15])];
    assert_eq!(
        run(&chunk, &PolicyOptions::default().resolved(&local)).decisions[0].reason,
        Retained
    );
    assert_eq!(run(&chunk, &PolicyOptions::default()).decisions[0].reason, NoEvidence);
}

/// rag-jev ranks by one score key: `useful` when any chunk has it, never `is_relevant` for some chunks and
/// `useful` for others; a chunk without the chosen key is unscored, which bypasses the ranking.
#[test]
fn one_score_key_per_ranking() {
    let mixed = chunks("r.9 u.5 u.7");
    let s = run(&mixed, &options(r#"{"mode":"rerank"}"#));
    assert_eq!(
        s.status,
        Status::Bypassed,
        "the relevance-only chunk is not ranked by its 0.9"
    );
    // Without any `useful` score, relevance is the key for every chunk.
    let s = run(&chunks("r.2 r.8"), &options(r#"{"mode":"rerank"}"#));
    assert_eq!(s.selected(), ["c1", "c0"]);
}

/// Comparisons are in f64, as rag-jev's Python floats and Spring's doubles: a hair below a threshold is below it.
#[test]
fn boundaries_compare_in_double_precision() {
    let useful = |v: f64| chunks(&format!("u{v}"));
    let filter = options(r#"{"mode":"filter","min_relevance":0.2}"#);
    assert_eq!(reasons(&run(&useful(0.1999999999), &filter)), "below_threshold");
    assert_eq!(
        reasons(&run(&useful(0.2), &filter)),
        "retained",
        "min_relevance is inclusive"
    );
    // Spring: relevance < 0.45 drops (strict), evidence > 0.55 keeps (strict).
    let spring = PolicyOptions::default();
    assert_eq!(
        reasons(&run(&[cls(0, [0.0, 0.0, 0.449_999_999_9, 0.9])], &spring)),
        "not_relevant"
    );
    assert_eq!(reasons(&run(&[cls(0, [0.0, 0.0, 0.45, 0.9])], &spring)), "retained");
    assert_eq!(reasons(&run(&[cls(0, [0.0, 0.0, 0.9, 0.55])], &spring)), "no_evidence");
    assert_eq!(
        reasons(&run(&[cls(0, [0.0, 0.0, 0.9, 0.550_000_000_1])], &spring)),
        "retained"
    );
}

/// Pins from the options act like pins in the input, and pins and grouping are part of the policy version.
#[test]
fn the_users_pins_select_and_version() {
    let input = chunks("x k x");
    let mut o = PolicyOptions::default();
    let before = run(&input, &o);
    assert_eq!(reasons(&before), "not_relevant retained not_relevant");
    o.pinned = vec!["c2".into(), "c2".into()];
    let pinned = run(&input, &o);
    assert_eq!(reasons(&pinned), "not_relevant retained pinned");
    assert_eq!(pinned.selected(), ["c1", "c2"], "classify keeps input order");
    assert_ne!(pinned.policy_version, before.policy_version);
    let once = PolicyOptions {
        pinned: vec!["c2".into()],
        ..PolicyOptions::default()
    };
    assert_eq!(once.policy_version(), o.policy_version(), "a repeated pin is one pin");
    o.group_by = GroupBy::Document;
    assert_ne!(o.policy_version(), once.policy_version());
    let by_document = o.policy_version();
    o.group_by = GroupBy::Section;
    assert_ne!(o.policy_version(), by_document, "each grouping versions apart");
}

/// Each grouping's name is its serde name (the CLI's `--group-by` and the policy version use it).
#[test]
fn groupings_are_named_as_they_serialise() {
    for g in GroupBy::ALL {
        assert_eq!(serde_json::to_value(g).unwrap(), g.name());
        assert_eq!(serde_json::from_value::<GroupBy>(g.name().into()).unwrap(), g);
    }
}

fn kinds(s: &Selection) -> Vec<(WarningKind, String)> {
    s.warnings.iter().map(|w| (w.kind, w.subject.clone())).collect()
}

/// Each integrity check fires on the shape it is about, with its numbers, and stays quiet on a healthy run.
#[test]
fn integrity_warnings_name_what_cannot_mean_what_it_seems() {
    // Healthy: scores spread on both sides of the thresholds, better retrieval ranks score higher.
    let healthy: Vec<ChunkJudgment> = (0..6)
        .map(|i| cls(i, [0.02, 0.05, 0.9 - 0.15 * i as f64, 0.85 - 0.15 * i as f64]))
        .collect();
    assert_eq!(kinds(&run(&healthy, &PolicyOptions::default())), []);

    // A degenerate judge: every passage 0.60 relevant.
    let flat: Vec<ChunkJudgment> = (0..5)
        .map(|i| cls(i, [0.02, 0.05, 0.6, 0.9 - 0.1 * i as f64]))
        .collect();
    let s = run(&flat, &PolicyOptions::default());
    assert!(
        kinds(&s).contains(&(WarningKind::FlatScores, IS_RELEVANT.into())),
        "{:?}",
        s.warnings
    );
    // …and its relevance threshold 0.45 decides nothing: every score is 0.15 above it.
    assert!(kinds(&s).contains(&(WarningKind::ThresholdDecidesNothing, IS_RELEVANT.into())));
    let w = s
        .warnings
        .iter()
        .find(|w| w.kind == WarningKind::ThresholdDecidesNothing)
        .unwrap();
    assert!(
        w.message.contains("0.45") && w.message.contains("above"),
        "{}",
        w.message
    );

    // Usefulness rising as retrieval gets worse: a possibly inverted score.
    let inverted = chunks("u.1 u.3 u.5 u.7 u.9");
    let s = run(&inverted, &options(r#"{"mode":"rerank"}"#));
    assert_eq!(kinds(&s), [(WarningKind::AgainstRetrievalOrder, USEFUL.to_string())]);

    // Filters configured but not applied: shadow, and a bypass.
    let s = run(
        &chunks("u.1 u.9"),
        &options(r#"{"mode":"filter","min_relevance":0.5,"shadow":true}"#),
    );
    assert_eq!(kinds(&s), [(WarningKind::NotApplied, "shadow".to_string())]);
    let s = run(&chunks("- -"), &PolicyOptions::default());
    assert_eq!(kinds(&s), [(WarningKind::NotApplied, "selection".to_string())]);
}

/// A rule skipped because the judge does not assess its question is a note (true of every run of that judge),
/// never a warning; a threshold this run's scores leave dead is still a warning, beside the note.
#[test]
fn a_rule_the_judge_does_not_assess_is_a_note_not_a_warning() {
    // The local judge: no contradicted-premise score, the question declared not assessed.
    let offline = |rel: &[f64]| -> Vec<ChunkJudgment> {
        (rel.iter().enumerate())
            .map(|(i, &r)| ChunkJudgment {
                scores: BTreeMap::from([
                    (CONTAINS_PROMPT_INJECTION.to_string(), 0.02),
                    (IS_RELEVANT.to_string(), r),
                    // Evidence spread across its 0.55 threshold, falling with the retrieval rank.
                    (CONTAINS_ANSWER_EVIDENCE.to_string(), 0.85 - 0.15 * i as f64),
                ]),
                not_assessed: vec![CONTRADICTS_QUERY_PREMISE.to_string()],
                ..cls(i, [0.0; 4])
            })
            .collect()
    };
    let note =
        |s: &Selection| -> Vec<(NoteKind, String)> { s.notes.iter().map(|n| (n.kind, n.subject.clone())).collect() };
    let skipped = vec![(NoteKind::RuleNotAssessed, CONTRADICTS_QUERY_PREMISE.to_string())];

    // Healthy numbers: relevance on both sides of 0.45. One note, no warning.
    let s = run(&offline(&[0.9, 0.75, 0.6, 0.45, 0.3]), &PolicyOptions::default());
    assert_eq!(kinds(&s), [], "{:?}", s.warnings);
    assert_eq!(note(&s), skipped);
    assert!(s.notes[0].message.contains("does not assess"), "{}", s.notes[0].message);
    // Relevance all above 0.45, but the nearest only 0.09 away (< REACH): the threshold still decides.
    let s = run(&offline(&[0.95, 0.8, 0.7, 0.54]), &PolicyOptions::default());
    assert_eq!(kinds(&s), [], "{:?}", s.warnings);
    assert_eq!(note(&s), skipped);
    // The nearest 0.11 away (> REACH): the 0.45 threshold is dead for this run — a warning, and the note.
    let s = run(&offline(&[0.95, 0.8, 0.7, 0.56]), &PolicyOptions::default());
    assert_eq!(
        kinds(&s),
        [(WarningKind::ThresholdDecidesNothing, IS_RELEVANT.to_string())]
    );
    assert_eq!(note(&s), skipped);
    assert!(s.warnings.iter().all(|w| !w.message.contains("does not assess")));

    // A judge that assesses every question: no note.
    let full: Vec<ChunkJudgment> = (0..5)
        .map(|i| cls(i, [0.02, 0.05, 0.9 - 0.15 * i as f64, 0.85 - 0.15 * i as f64]))
        .collect();
    assert_eq!(run(&full, &PolicyOptions::default()).notes, []);
    // A rag-jev mode skips no classification rule: no note either.
    let s = run(&offline(&[0.9, 0.75, 0.6, 0.45, 0.3]), &options(r#"{"mode":"filter"}"#));
    assert_eq!(s.notes, []);

    // A selection stored before notes existed still loads, with none.
    let mut v = serde_json::to_value(run(&full, &PolicyOptions::default())).unwrap();
    v.as_object_mut().unwrap().remove("notes");
    assert_eq!(serde_json::from_value::<Selection>(v).unwrap().notes, []);
}

/// Expected rag-jev policy versions (see [`policy_version_is_rag_jevs`]).

#[test]
fn the_form_fills_every_threshold_and_keeps_a_minimum_relevance_in_every_mode() {
    let local = JudgeDefaults {
        source: "local-test".into(),
        thresholds: [(IS_RELEVANT.to_string(), 0.42)].into_iter().collect(),
        min_relevance: Some(0.3),
        ..JudgeDefaults::default()
    };
    let own = options(r#"{"mode":"rerank","thresholds":{"contains_prompt_injection":0.9},"top_n":2}"#);
    let form = own.for_form(&local);
    assert_eq!(form.thresholds.len(), DEFAULT_THRESHOLDS.len(), "every key is shown");
    assert_eq!(
        form.thresholds[CONTAINS_PROMPT_INJECTION], 0.9,
        "the options' own first"
    );
    assert_eq!(form.thresholds[IS_RELEVANT], 0.42, "then the judge's");
    let spring = DEFAULT_THRESHOLDS
        .iter()
        .find(|(k, _)| *k == CONTAINS_ANSWER_EVIDENCE)
        .unwrap()
        .1;
    assert_eq!(form.thresholds[CONTAINS_ANSWER_EVIDENCE], spring, "then Spring's");
    assert_eq!(
        form.min_relevance,
        Some(0.3),
        "rerank takes none, but the form keeps the judge's for a switch"
    );
    assert_eq!(
        own.resolved(&local).min_relevance,
        None,
        "resolution itself is unchanged"
    );
    assert_eq!(
        options(r#"{"mode":"filter","min_relevance":0.0}"#)
            .for_form(&local)
            .min_relevance,
        Some(0.0)
    );
    assert_eq!(
        own.for_form(&JudgeDefaults::default()).min_relevance,
        Some(0.0),
        "no default: 0"
    );
    let judge = own.judge_form(&local);
    assert_eq!(
        judge.thresholds[CONTAINS_PROMPT_INJECTION], DEFAULT_THRESHOLDS[0].1,
        "the own value is cleared"
    );
    assert_eq!((judge.mode, judge.top_n), (own.mode, own.top_n), "the rest stays");
}

const RAG_JEV_VERSIONS: &[(&str, &str)] = &[
    (r#"{"mode":"filter","min_relevance":0.2}"#, "dfb5d28bb0aa78cd"),
    (r#"{"mode":"rerank"}"#, "94edc193aa22b7c9"),
    (r#"{"mode":"fusion","top_n":1}"#, "9cdfdfe73b30d5d8"),
    (
        r#"{"mode":"filter_and_rerank","min_relevance":0.8}"#,
        "6aad205e22fc89b8",
    ),
    (
        r#"{"mode":"filter_and_rerank","min_relevance":0.2,"top_n":2,"max_context_tokens":1500}"#,
        "669f4b4837f3197c",
    ),
    (r#"{"mode":"filter","min_relevance":1.0}"#, "5f9316a1c83a0657"),
    (r#"{"mode":"filter","min_relevance":0.00001}"#, "836913133e3aa7e3"),
];

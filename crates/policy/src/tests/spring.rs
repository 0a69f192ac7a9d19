//! Spring's post-processors, community and Spring AI 2.1 side by side: the research file's published numeric
//! cases (§4) as tests of the community variants, and the 2.1 filter, reranker and chain.

use super::*;

/// The community tests' documents: id `name`, in input position `i`, with a usefulness score or none (a failed
/// or answerless call).
fn doc(i: usize, name: &str, useful: Option<f64>) -> ChunkJudgment {
    ChunkJudgment {
        chunk_id: name.into(),
        scores: useful.map(|u| (USEFUL.to_string(), u)).into_iter().collect(),
        ..cls(i, [0.0; 4])
    }
}

/// Selected ids in final order, joined.
fn ids(s: &Selection) -> String {
    s.selected().join(" ")
}

fn with_mode(mode: Mode) -> PolicyOptions {
    PolicyOptions {
        mode,
        ..PolicyOptions::default()
    }
}

/// §4, filter (community; tuple = injection, contradiction, relevance, evidence).
#[test]
fn community_filter_published_cases() {
    let classify = PolicyOptions::default();
    let cases: &[([f64; 4], Reason)] = &[
        ([0.99, 0.0, 0.99, 0.99], Injection), // injection outranks everything
        ([0.0, 0.95, 0.99, 0.99], Conflicting),
        ([0.0, 0.0, 0.20, 0.99], NotRelevant),
        ([0.0, 0.0, 0.99, 0.10], NoEvidence),
        ([0.0, 0.0, 0.99, 0.99], Retained),
        // derived from the strict comparisons: each threshold itself is on the passing side
        ([0.70, 0.0, 0.99, 0.99], Retained),
        ([0.0, 0.70, 0.99, 0.99], Retained),
        ([0.0, 0.0, 0.45, 0.99], Retained),
        ([0.0, 0.0, 0.99, 0.55], NoEvidence),
    ];
    for &(p, want) in cases {
        let d = &run(&[cls(0, p)], &classify).decisions[0];
        assert_eq!((d.reason, d.is_selected()), (want, want.is_kept()), "{p:?}");
        assert_eq!(d.conflicting, want == Conflicting, "{p:?}");
    }
    // HTTP: doc-9 is dropped, doc-1 kept INCLUDED; with contradiction .95 doc-1 is kept CONFLICTING.
    let http = |contra: f64| {
        vec![
            ChunkJudgment {
                chunk_id: "doc-9".into(),
                ..cls(0, [0.99, 0.1, 0.9, 0.9])
            },
            ChunkJudgment {
                chunk_id: "doc-1".into(),
                ..cls(1, [0.01, contra, 0.9, 0.9])
            },
        ]
    };
    let s = run(&http(0.1), &classify);
    assert_eq!((ids(&s), reasons(&s)), ("doc-1".into(), "injection retained".into()));
    let s = run(&http(0.95), &classify);
    assert_eq!((ids(&s), reasons(&s)), ("doc-1".into(), "injection conflicting".into()));
    assert!(s.decisions[1].conflicting);
    // A response holding only `is_relevant` keeps the document, unclassified (no class, no score).
    let only_relevant = doc(1, "r", None);
    let only_relevant = ChunkJudgment {
        scores: BTreeMap::from([(IS_RELEVANT.to_string(), 0.99)]),
        ..only_relevant
    };
    let s = run(&[cls(0, [0.0, 0.0, 0.9, 0.9]), only_relevant.clone()], &classify);
    assert_eq!((ids(&s), reasons(&s)), ("c0 r".into(), "retained unscored".into()));
    assert_eq!((s.decisions[1].score, s.decisions[1].conflicting), (None, false));
    let alone = run(std::slice::from_ref(&only_relevant), &classify);
    assert_eq!(
        (alone.status, alone.returned_ids.join(" ")),
        (Status::Bypassed, "r".into())
    );
    // A 500 for both documents keeps both.
    let s = run(&[doc(0, "a", None), doc(1, "b", None)], &classify);
    assert_eq!(s.returned_ids.join(" "), "a b");
    // An empty list: nothing to decide.
    let s = run(&[], &classify);
    assert!(s.decisions.is_empty() && s.returned_ids.is_empty());
}

/// §4, reranker (community `JevDocumentReranker`, reached as `jev_rerank`).
#[test]
fn community_reranker_published_cases() {
    let rerank = |rerank_top_k: Option<usize>| PolicyOptions {
        rerank_top_k,
        ..with_mode(Mode::JevRerank)
    };
    let three = [doc(0, "1", Some(0.1)), doc(1, "7", Some(0.7)), doc(2, "9", Some(0.9))];
    assert_eq!(ids(&run(&three, &rerank(None))), "9 7 1");
    let s = run(&three, &rerank(Some(2)));
    assert_eq!(
        (ids(&s), reasons(&s)),
        ("9 7".into(), "beyond_top_k retained retained".into())
    );
    // doc-7 fails: kept after the scored one, with no score.
    let s = run(&[doc(0, "1", Some(0.1)), doc(1, "7", None)], &rerank(None));
    assert_eq!((ids(&s), reasons(&s)), ("1 7".into(), "retained unscored_last".into()));
    assert_eq!(s.decisions[1].score, None);
    // Docs 1, 2, 9 with 2 failing; then topK 1: the failure never evicts a scored document.
    let failing = [doc(0, "1", Some(0.1)), doc(1, "2", None), doc(2, "9", Some(0.9))];
    assert_eq!(ids(&run(&failing, &rerank(None))), "9 1 2");
    let s = run(&failing, &rerank(Some(1)));
    assert_eq!(
        (ids(&s), reasons(&s)),
        ("9".into(), "beyond_top_k beyond_top_k retained".into())
    );
    // minimumScore defaults to 0.0, kept if >=: a zero score stays; ties by input index.
    let s = run(
        &[doc(0, "a", Some(0.0)), doc(1, "b", Some(0.5)), doc(2, "c", Some(0.5))],
        &rerank(None),
    );
    assert_eq!(ids(&s), "b c a");
    // Nothing is scored: the retriever's order again, nothing bypassed.
    let s = run(&[doc(0, "a", None), doc(1, "b", None)], &rerank(Some(1)));
    assert_eq!((s.status, ids(&s)), (Status::Applied, "a".into()));
}

#[test]
fn decision_reranker_puts_unscored_last_and_counts_them_in_top_k() {
    let input = chunks("u.5 - u.9 - u.7");
    let rerank = |rerank_top_k| PolicyOptions {
        rerank_top_k,
        ..with_mode(Mode::DecisionRerank)
    };
    let s = run(&input, &rerank(None));
    assert_eq!(ids(&s), "c2 c4 c0 c1 c3");
    let s = run(&input, &rerank(Some(4)));
    assert_eq!(
        (ids(&s), reasons(&s)),
        (
            "c2 c4 c0 c1".into(),
            "retained unscored_last retained beyond_top_k retained".into()
        )
    );
    let s = run(&input, &rerank(Some(2)));
    assert_eq!(ids(&s), "c2 c4", "rerank_top_k counts the scored first");
    // Ties keep input order, scored and unscored alike.
    let s = run(&chunks("u.5 u.8 - u.5 u.8 -"), &rerank(None));
    assert_eq!(ids(&s), "c1 c4 c0 c3 c2 c5");
    // A tie across the topK cut: the earlier one stays, the later ones go.
    let s = run(&chunks("u.8 u.5 u.8 u.8"), &rerank(Some(2)));
    assert_eq!(
        (ids(&s), reasons(&s)),
        ("c0 c2".into(), "retained beyond_top_k retained beyond_top_k".into())
    );
    let s = run(&chunks("- - -"), &rerank(Some(2)));
    assert_eq!(
        (ids(&s), reasons(&s)),
        ("c0 c1".into(), "unscored_last unscored_last beyond_top_k".into())
    );
}

#[test]
fn decision_reranker_minimum_score_is_inclusive_and_before_top_k() {
    let minimum = |m: f64, rerank_top_k| PolicyOptions {
        minimum_score: Some(m),
        rerank_top_k,
        ..with_mode(Mode::DecisionRerank)
    };
    let s = run(&chunks("u.5 u.4999999999 u.6 -"), &minimum(0.5, None));
    assert_eq!(
        (ids(&s), reasons(&s)),
        (
            "c2 c0 c3".into(),
            "retained below_minimum_score retained unscored_last".into()
        )
    );
    assert_eq!(s.decisions[1].score, Some(0.4999999999));
    // A document below the minimum takes no topK place.
    let s = run(&chunks("u.9 u.1 u.8"), &minimum(0.5, Some(2)));
    assert_eq!(
        (ids(&s), reasons(&s)),
        ("c0 c2".into(), "retained below_minimum_score retained".into())
    );
    // Pins and the workbench's own limits still act after the reranker: a pin beats topK.
    let mut o = minimum(0.0, Some(1));
    o.pinned = vec!["c2".into()];
    let s = run(&chunks("u.9 u.8 u.1"), &o);
    assert_eq!(
        (ids(&s), reasons(&s)),
        ("c0 c2".into(), "retained beyond_top_k pinned".into())
    );
}

#[test]
fn decision_filter_fails_open_unless_fail_closed() {
    let partial = ChunkJudgment {
        scores: BTreeMap::from([
            (CONTAINS_PROMPT_INJECTION.to_string(), 0.0),
            (IS_RELEVANT.to_string(), 0.9),
            (CONTAINS_ANSWER_EVIDENCE.to_string(), 0.9),
        ]),
        ..cls(2, [0.0; 4])
    };
    // c1: no judgment at all; c2: no contradiction score (and not declared unassessed).
    let input = [
        cls(0, [0.0, 0.0, 0.9, 0.9]),
        doc(1, "c1", None),
        partial,
        cls(3, [0.0, 0.0, 0.1, 0.9]),
    ];
    let open = with_mode(Mode::DecisionFilter);
    let s = run(&input, &open);
    assert_eq!(
        (ids(&s), reasons(&s)),
        (
            "c0 c1 c2".into(),
            "retained failed_kept failed_kept not_relevant".into()
        )
    );
    let closed = PolicyOptions {
        fail_closed: true,
        ..open.clone()
    };
    let s = run(&input, &closed);
    assert_eq!(
        (ids(&s), reasons(&s)),
        (
            "c0".into(),
            "retained failed_dropped failed_dropped not_relevant".into()
        )
    );
    assert_ne!(open.policy_version(), closed.policy_version());
    // Every classification failed: 2.1 keeps (or drops) each one, it does not bypass.
    let failed = [doc(0, "a", None), doc(1, "b", None)];
    let s = run(&failed, &open);
    assert_eq!((s.status, ids(&s)), (Status::Applied, "a b".into()));
    let s = run(&failed, &closed);
    assert_eq!((s.status, ids(&s)), (Status::Applied, "".into()));
    // A question the judge declares it does not assess is a skipped rule, not a failure.
    let mut offline = input[2].clone();
    offline.not_assessed = vec![CONTRADICTS_QUERY_PREMISE.into()];
    let s = run(&[offline], &closed);
    assert_eq!(reasons(&s), "retained");
    assert_eq!(s.decisions[0].skipped_rules, [CONTRADICTS_QUERY_PREMISE]);
}

/// 2.1 publishes no thresholds: the community values, strict, first match wins, each one a setting.
#[test]
fn decision_filter_scores_equal_to_each_threshold() {
    let o = with_mode(Mode::DecisionFilter);
    let cases: &[([f64; 4], Reason)] = &[
        ([0.70, 0.0, 0.9, 0.9], Retained),
        ([0.700_000_000_1, 0.0, 0.9, 0.9], Injection),
        ([0.0, 0.70, 0.9, 0.9], Retained),
        ([0.0, 0.700_000_000_1, 0.1, 0.1], Conflicting),
        ([0.0, 0.0, 0.45, 0.9], Retained),
        ([0.0, 0.0, 0.449_999_999_9, 0.9], NotRelevant),
        ([0.0, 0.0, 0.9, 0.55], NoEvidence),
        ([0.0, 0.0, 0.9, 0.550_000_000_1], Retained),
        ([0.9, 0.9, 0.1, 0.1], Injection),
    ];
    for &(p, want) in cases {
        let d = &run(&[cls(0, p)], &o).decisions[0];
        assert_eq!((d.reason, d.conflicting), (want, want == Conflicting), "{p:?}");
    }
    let lenient = options(r#"{"mode":"decision_filter","thresholds":{"is_relevant":0.3}}"#);
    assert_eq!(reasons(&run(&[cls(0, [0.0, 0.0, 0.35, 0.9])], &lenient)), "retained");
    assert_ne!(lenient.policy_version(), o.policy_version());
    // Same thresholds, same decisions as the community filter; a different mode, a different version.
    assert_ne!(o.policy_version(), PolicyOptions::default().policy_version());
}

/// The 12 retrieved passages of Spring's published example (retriever topK 12), for the chains.
fn twelve() -> Vec<ChunkJudgment> {
    let mut v: Vec<ChunkJudgment> = [
        (Some([0.0, 0.0, 0.9, 0.9]), Some(0.40)),
        (Some([0.9, 0.0, 0.9, 0.9]), Some(0.95)), // injection: dropped whatever its usefulness
        (Some([0.0, 0.0, 0.9, 0.9]), Some(0.80)),
        (None, None),                                // the judge failed on it
        (Some([0.0, 0.0, 0.2, 0.9]), Some(0.90)),    // irrelevant
        (Some([0.0, 0.95, 0.99, 0.99]), Some(0.60)), // conflicting: kept and marked
        (Some([0.0, 0.0, 0.9, 0.9]), Some(0.80)),    // ties with c2
        (Some([0.0, 0.0, 0.99, 0.10]), Some(0.70)),  // no evidence
        (Some([0.0, 0.0, 0.9, 0.9]), None),          // classified, but the reranker could not score it
        (Some([0.0, 0.0, 0.9, 0.9]), Some(0.30)),
        (Some([0.0, 0.0, 0.9, 0.9]), Some(0.95)),
        (Some([0.0, 0.0, 0.9, 0.9]), Some(0.99)), // its contradiction score is missing below
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (p, useful))| {
        let mut c = p.map_or_else(|| doc(i, "", None), |p| cls(i, p));
        c.chunk_id = format!("c{i}");
        if let Some(u) = useful {
            c.scores.insert(USEFUL.into(), u);
        }
        c
    })
    .collect();
    v[11].scores.remove(CONTRADICTS_QUERY_PREMISE);
    v
}

#[test]
fn decision_chain_as_published_filters_fail_closed_then_reranks_top_five() {
    let example = PolicyOptions::spring_decision_chain_example();
    assert_eq!(
        (example.mode, example.fail_closed, example.rerank_top_k),
        (Mode::DecisionChain, true, Some(5))
    );
    example.validate().unwrap();
    let s = run(&twelve(), &example);
    assert_eq!(ids(&s), "c10 c2 c6 c5 c0");
    assert_eq!(
        reasons(&s),
        "retained injection retained failed_dropped not_relevant conflicting retained no_evidence beyond_top_k \
         beyond_top_k retained failed_dropped"
    );
    let c5 = &s.decisions[5];
    assert_eq!((c5.conflicting, c5.score, c5.rank), (true, Some(0.60), Some(4)));
    assert_eq!(
        s.decisions[4].score,
        Some(0.2),
        "a dropped passage keeps its deciding probability"
    );
    assert_eq!(s.decisions[8].score, None, "unscored by the reranker");

    // failClosed off: both failures are kept and reranked; the one with a score leads, the other goes last.
    let open = PolicyOptions {
        fail_closed: false,
        rerank_top_k: None,
        ..example.clone()
    };
    let s = run(&twelve(), &open);
    assert_eq!(ids(&s), "c11 c10 c2 c6 c5 c0 c9 c3 c8");
    assert_eq!(s.decisions[3].reason, FailedKept);
    assert_eq!(s.decisions[8].reason, UnscoredLast);
    let s = run(
        &twelve(),
        &PolicyOptions {
            rerank_top_k: Some(5),
            ..open
        },
    );
    assert_eq!(ids(&s), "c11 c10 c2 c6 c5");
    let toggled = diff(&run(&twelve(), &example), &s);
    let moved: Vec<&str> = toggled.iter().map(|c| c.chunk_id.as_str()).collect();
    assert_eq!(
        moved,
        ["c0", "c3", "c11"],
        "toggling failClosed changes exactly these decisions"
    );

    // The community chain fails open on every failure: as 2.1 with failClosed off.
    let community = PolicyOptions {
        rerank_top_k: Some(5),
        ..with_mode(Mode::JevChain)
    };
    assert_eq!(ids(&run(&twelve(), &community)), "c11 c10 c2 c6 c5");
    assert_ne!(community.policy_version(), example.policy_version());
}

#[test]
fn options_on_the_wire_validation_and_versions() {
    // `{}` and every options JSON stored before these options existed read as before, and write the same bytes.
    assert_eq!(options("{}"), PolicyOptions::default());
    let stored = r#"{"mode":"rerank","thresholds":{},"min_relevance":null,"top_n":3,"max_context_tokens":null,"shadow":false,"keep_groups_together":true,"pinned":[],"group_by":"none"}"#;
    assert_eq!(serde_json::to_string(&options(stored)).unwrap(), stored);
    let example = PolicyOptions::spring_decision_chain_example();
    let json = serde_json::to_value(&example).unwrap();
    assert_eq!(
        (&json["mode"], &json["fail_closed"], &json["rerank_top_k"]),
        (&"decision_chain".into(), &true.into(), &5.into())
    );
    assert_eq!(serde_json::from_value::<PolicyOptions>(json).unwrap(), example);
    for m in Mode::ALL {
        assert_eq!(serde_json::from_value::<Mode>(m.name().into()).unwrap(), m);
    }

    let cases: &[(&str, Option<&str>)] = &[
        (
            r#"{"mode":"decision_rerank","minimum_score":1.0,"rerank_top_k":1}"#,
            None,
        ),
        (r#"{"mode":"jev_rerank","minimum_score":0.0}"#, None),
        (
            r#"{"mode":"decision_rerank","minimum_score":1.5}"#,
            Some("minimum_score must be between 0 and 1"),
        ),
        (
            r#"{"mode":"decision_rerank","minimum_score":-0.1}"#,
            Some("minimum_score must be between 0 and 1"),
        ),
        (
            r#"{"mode":"decision_chain","rerank_top_k":0}"#,
            Some("rerank_top_k must be at least 1"),
        ),
        (r#"{"mode":"decision_filter","fail_closed":true}"#, None),
        (r#"{"fail_closed":true}"#, Some("fail_closed is Spring AI 2.1's")),
        (
            r#"{"mode":"jev_chain","fail_closed":true}"#,
            Some("fail_closed is Spring AI 2.1's"),
        ),
        (
            r#"{"mode":"rerank","rerank_top_k":3}"#,
            Some("rerank_top_k is the Spring reranker's"),
        ),
        (
            r#"{"mode":"decision_filter","minimum_score":0.2}"#,
            Some("minimum_score is the Spring reranker's"),
        ),
    ];
    for &(json, want) in cases {
        match (options(json).validate(), want) {
            (Ok(()), None) => {}
            (Err(e), Some(w)) => assert!(e.contains(w), "{e} lacks {w}"),
            (got, _) => panic!("{json} gave {got:?}"),
        }
    }
    let nan = PolicyOptions {
        minimum_score: Some(f64::NAN),
        ..with_mode(Mode::DecisionRerank)
    };
    assert!(nan.validate().is_err());

    // Each expected value is Python's sha256(json.dumps({"prompt": "useful-evidence-v1", **fields},
    // sort_keys=True))[:16]: classify's is as before, the Spring modes add only what they read.
    assert_eq!(PolicyOptions::default().policy_version(), "2d759fd965ea2ba5");
    assert_eq!(example.policy_version(), "bc8ddef365c6eee4");
    assert_eq!(
        options(r#"{"mode":"decision_rerank","minimum_score":0.5}"#).policy_version(),
        "238825aa8b87f2f5"
    );
    let versions: HashSet<String> = Mode::ALL.iter().map(|&m| with_mode(m).policy_version()).collect();
    assert_eq!(versions.len(), Mode::ALL.len(), "each mode versions apart");
}

/// The Spring reranker's minimum score is checked like any threshold: one no score comes near decides nothing.
#[test]
fn a_minimum_score_no_score_reaches_is_a_warning() {
    let o = options(r#"{"mode":"decision_rerank","minimum_score":0.05}"#);
    let s = run(&chunks("u.9 u.7 u.5"), &o);
    assert_eq!(
        kinds(&s),
        [(WarningKind::ThresholdDecidesNothing, "minimum_score".to_string())]
    );
    let s = run(&chunks("u.9 u.7 u.1"), &o);
    assert_eq!(kinds(&s), []);
}

//! The offline judge and answers on a fast subset of the labelled set (`fixtures/qa`): two real papers and a
//! software manual (option tables) with their questions, ingested into a fresh library with the real embedding model. Checks the figures issue #9 asks
//! for — discrimination above the retrieval score's, evidence kept at the judge's own default thresholds while
//! cutting retrieved text, answers that contain the labelled phrase and never echo the prompt — both with the
//! shipped fit and with models refitted on the other documents and scored on the one left out (out of fold). The full set is
//! measured by `ragsift-bench judge` and `ragsift-bench answers`.

mod common;

use common::{embedder, repo};
use ragsift_engine::eval::qa::{load_questions, locate_evidence, QaQuestion, QuestionKind};
use ragsift_engine::eval::spans::contains;
use ragsift_engine::judge::local::model::{auc, cross_validate};
use ragsift_engine::judge::local::signals::FEATURES;
use ragsift_engine::judge::local::{shipped_fit, LocalJudge};
use ragsift_engine::judge::{default_questions, Judge};
use ragsift_engine::pipeline::answer::{echoes_prompt, AnsweredBy};
use ragsift_engine::pipeline::support::{SupportBasis, SupportLevel};
use ragsift_engine::pipeline::{Pipeline, PipelineOptions};
use ragsift_engine::policy::{select, ChunkJudgment, PolicyOptions, CONTAINS_ANSWER_EVIDENCE, IS_RELEVANT};
use ragsift_engine::retrieve::Hit;
use ragsift_engine::{CancelToken, LibraryConfig, LibraryRetriever, Retriever, SearchRequest};

const PAPERS: [&str; 3] = ["TLSH_CTC_final.pdf", "bdb_usenix.pdf", "gputils.pdf"];
/// The least share of table-cell questions whose answer holds the phrase (8 of 15 measured with table chunks and
/// running headers in the text; 6 of 15 once the headers are set apart: see the answer rate below).
const TABLE_RATE: f64 = 0.40;
/// The offline defaults: hybrid search, 12 hits (the pipeline's and the library's).
fn retrieval_defaults() -> (usize, ragsift_engine::SearchMode) {
    (LibraryConfig::default().top_k, PipelineOptions::default().search_mode)
}

struct Case {
    question: QaQuestion,
    hits: Vec<Hit>,
    evidence: Vec<bool>,
}

struct Fixture {
    _home: tempfile::TempDir,
    _docs: tempfile::TempDir,
    library: ragsift_engine::Library,
    cases: Vec<Case>,
}

/// The library and labelled candidates, built once for both tests.
fn fixture() -> &'static Fixture {
    static F: std::sync::OnceLock<Fixture> = std::sync::OnceLock::new();
    F.get_or_init(build)
}

fn build() -> Fixture {
    let docs = common::temp_docs(&PAPERS.map(|p| repo().join("fixtures/qa/documents").join(p)));
    let home = tempfile::tempdir().unwrap();
    let library = ragsift_engine::Library::open(home.path(), LibraryConfig::default()).unwrap();
    let report = library
        .ingest(embedder(), &[docs.path().to_path_buf()], &|_| {})
        .unwrap();
    assert_eq!(report.failed(), 0, "{report:?}");
    let questions: Vec<QaQuestion> = load_questions(&repo().join("fixtures/qa/cases.json"))
        .unwrap()
        .into_iter()
        .filter(|q| q.evidence.iter().all(|e| PAPERS.contains(&e.document.as_str())))
        .filter(|q| PAPERS.iter().any(|p| q.family_id.as_deref() == p.strip_suffix(".pdf")))
        .collect();
    assert!(questions.len() >= 30, "{} questions", questions.len());
    let (located, missing) = locate_evidence(library.store(), &questions).unwrap();
    assert!(
        missing.is_empty(),
        "every labelled quote is found in the extracted text: {missing:#?}"
    );
    let retriever = LibraryRetriever {
        library: &library,
        embedder: embedder(),
    };
    let cases = questions
        .into_iter()
        .zip(located)
        .map(|(question, ev)| {
            let hits = retriever
                .retrieve(&SearchRequest {
                    top_k: retrieval_defaults().0,
                    search_mode: retrieval_defaults().1,
                    ..SearchRequest::new(question.query.clone())
                })
                .unwrap();
            let evidence = hits
                .iter()
                .map(|h| ev.holds(&h.chunk.document_id, &h.chunk.place()))
                .collect();
            Case {
                question,
                hits,
                evidence,
            }
        })
        .collect();
    Fixture {
        _home: home,
        _docs: docs,
        library,
        cases,
    }
}

#[test]
fn offline_judge_discriminates_keeps_evidence_and_answers() {
    let f = fixture();
    let judge = LocalJudge::new(embedder(), None, Some(f.library.store()));
    assert!(judge.not_assessed().contains(&"contradicts_query_premise".to_string()));
    let questions = default_questions();

    // 1. Discrimination of the shipped judge, against the chunk labels, beside the retrieval similarity.
    let (mut p_evi, mut p_rel, mut sim, mut labels) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut kept_evidence = (0, 0);
    let (mut chars_all, mut chars_kept) = (0usize, 0usize);
    let mut rows = Vec::new();
    for (ci, case) in f.cases.iter().enumerate() {
        let passages: Vec<String> = case.hits.iter().map(|h| h.chunk.text.clone()).collect();
        let judged = judge.judge(&case.question.query, &passages, &questions).unwrap();
        assert!(judged
            .iter()
            .all(|j| !j.scores.contains_key("contradicts_query_premise")));
        for ((h, j), &e) in case.hits.iter().zip(&judged).zip(&case.evidence) {
            p_evi.push(j.scores[CONTAINS_ANSWER_EVIDENCE]);
            p_rel.push(j.scores[IS_RELEVANT]);
            sim.push(f64::from(h.score));
            labels.push(e);
        }
        // 2. Selection at the judge's own defaults.
        let input: Vec<ChunkJudgment> = case
            .hits
            .iter()
            .zip(&judged)
            .enumerate()
            .map(|(i, (h, j))| ChunkJudgment {
                chunk_id: h.chunk.id.clone(),
                input_index: i,
                tokens: h.chunk.tokens,
                characters: h.chunk.text.chars().count() as u32,
                pinned: false,
                group: None,
                scores: j.scores.clone(),
                not_assessed: judge.not_assessed(),
            })
            .collect();
        let selection = select(&input, &PolicyOptions::default().resolved(&judge.defaults()));
        chars_all += input.iter().map(|c| c.characters as usize).sum::<usize>();
        chars_kept += selection.selected_characters.unwrap_or(0) as usize;
        if case.question.kind != QuestionKind::Unanswerable && case.evidence.iter().any(|&e| e) {
            kept_evidence.1 += 1;
            let kept = selection
                .decisions
                .iter()
                .any(|d| d.is_selected() && case.evidence[d.input_index]);
            kept_evidence.0 += usize::from(kept);
        }
        // Signals for the out-of-fold refit below.
        let signals = judge.signals(&case.question.query, &passages).unwrap();
        for (s, &e) in signals.iter().zip(&case.evidence) {
            rows.push((ci, s.values.clone(), e));
        }
    }
    let a_evi = auc(&p_evi, &labels).unwrap();
    let a_rel = auc(&p_rel, &labels).unwrap();
    let a_sim = auc(&sim, &labels).unwrap();
    eprintln!("AUC evidence {a_evi:.3}, relevance {a_rel:.3}, similarity {a_sim:.3}");
    assert!(
        a_evi >= 0.80 && a_evi > a_sim,
        "evidence AUC {a_evi:.3} vs similarity {a_sim:.3}"
    );
    assert!(
        a_rel >= 0.80 && a_rel > a_sim,
        "relevance AUC {a_rel:.3} vs similarity {a_sim:.3}"
    );
    let recall = kept_evidence.0 as f64 / kept_evidence.1 as f64;
    let cut = 1.0 - chars_kept as f64 / chars_all as f64;
    eprintln!("evidence kept for {recall:.2} of answerable questions, {cut:.2} of retrieved characters cut");
    assert!(
        recall >= 0.90,
        "evidence kept for {recall:.2} of the answerable questions"
    );
    assert!(cut >= 0.45, "only {cut:.2} of the retrieved characters cut");

    // 3. Out of fold: the shipped signals refitted on the other documents discriminate on the one left out.
    let fit = shipped_fit();
    let model = &fit.without_model[CONTAINS_ANSWER_EVIDENCE];
    let idx: Vec<usize> = model
        .features
        .iter()
        .map(|n| FEATURES.iter().position(|f| f == n).expect("a signal"))
        .collect();
    let x: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| idx.iter().map(|&i| f64::from(r.1[i])).collect())
        .collect();
    let y: Vec<bool> = rows.iter().map(|r| r.2).collect();
    let groups: Vec<usize> = rows
        .iter()
        .map(|r| {
            let family = f.cases[r.0].question.family_id.as_deref().unwrap_or_default();
            PAPERS
                .iter()
                .position(|p| p.strip_suffix(".pdf") == Some(family))
                .unwrap_or(0)
        })
        .collect();
    let oof = cross_validate(&model.features, &x, &y, &groups, 1.0);
    let a_oof = auc(&oof, &y).unwrap();
    eprintln!("out-of-fold evidence AUC {a_oof:.3}");
    assert!(a_oof >= 0.80, "out-of-fold evidence AUC {a_oof:.3}");
}

#[test]
fn extractive_answers_hold_the_phrase_and_never_echo() {
    let f = fixture();
    let judge = LocalJudge::new(embedder(), None, Some(f.library.store()));
    let retriever = LibraryRetriever {
        library: &f.library,
        embedder: embedder(),
    };
    let mut pipeline = Pipeline::new(f.library.store(), f.library.user(), &retriever, common::gemma());
    pipeline.judge = Some(&judge);
    pipeline.embedder = Some(embedder());
    assert_eq!(
        (pipeline.options.top_k, pipeline.options.search_mode),
        retrieval_defaults()
    );
    let (mut hits, mut answerable, mut abstained) = (0, 0, (0, 0));
    // Questions a table cell answers: (answer phrase found, asked).
    let mut table = (0, 0);
    let mut supported = (Vec::new(), Vec::new());
    for case in &f.cases {
        let trace = pipeline
            .ask(&case.question.query, &[], &mut |_| {}, &CancelToken::new())
            .unwrap();
        assert!(!echoes_prompt(&trace.answer), "{}: {}", case.question.id, trace.answer);
        assert_eq!(trace.prompt, "", "no model was asked");
        // Every judged answer says how well it is supported; an abstention says no passage supports one.
        let support = &trace.support;
        if trace.answered_by == AnsweredBy::NoEvidence {
            assert_eq!((support.level, support.probability), (SupportLevel::None, None));
        } else {
            let p = support.probability.expect("a judged answer has a support probability");
            assert!((0.0..=1.0).contains(&p) && support.level != SupportLevel::NotAssessed);
            assert_eq!(
                support.basis,
                SupportBasis::Fitted,
                "the local judge's quote uses the fitted model"
            );
        }
        if case.question.kind == QuestionKind::Unanswerable {
            abstained.1 += 1;
            abstained.0 += usize::from(trace.answered_by == AnsweredBy::NoEvidence);
            continue;
        }
        answerable += 1;
        let ok = case
            .question
            .answer_phrases()
            .iter()
            .any(|p| contains(&trace.answer, p));
        hits += usize::from(ok);
        if case.question.table {
            table.0 += usize::from(ok);
            table.1 += 1;
        }
        if let (Some(p), Some(n)) = (support.probability, support.source) {
            let quoted = &trace.sources[n - 1].chunk_id;
            let holds = case
                .hits
                .iter()
                .zip(&case.evidence)
                .any(|(h, &e)| e && &h.chunk.id == quoted);
            supported.0.push(p);
            supported.1.push(holds);
        }
        if trace.answered_by == AnsweredBy::NoEvidence {
            assert!(
                trace.sources.is_empty() && trace.citations.is_empty(),
                "an abstention cites nothing"
            );
        } else {
            assert_eq!(trace.answered_by, AnsweredBy::Extractive);
            assert!(
                !trace.citations.is_empty(),
                "a quote cites its source: {}",
                trace.answer
            );
        }
    }
    let rate = hits as f64 / answerable as f64;
    eprintln!(
        "answer phrase in {hits}/{answerable} answers ({rate:.2}); abstained on {}/{} unanswerable",
        abstained.0, abstained.1
    );
    // Measured 30/48 (0.62) while running headers stayed in the text, 28/48 (0.58) since they are set apart (issue
    // 55). The page text is the same apart from the header lines, but gputils' header "CHAPTER 2. GPASM" put the
    // word every gpasm question names into every chunk of the manual; without it, quotes flip on the questions that
    // lean on that word (gputils q01 and q03, TLSH q15 with its moved chunk boundaries).
    assert!(rate >= 0.55, "answer phrase in only {rate:.2} of the answers");
    // A table row is quoted with its header, so the cell a question asks for is in the answer.
    let table_rate = table.0 as f64 / table.1 as f64;
    eprintln!(
        "table-cell questions: answer phrase in {}/{} ({table_rate:.2})",
        table.0, table.1
    );
    assert!(
        table.1 >= 10 && table_rate >= TABLE_RATE,
        "table-cell answers {table_rate:.2}"
    );
    // The support probability says whether the quoted passage holds the answer (0.73 AUC on the full set).
    let a_support = auc(&supported.0, &supported.1).unwrap();
    eprintln!("support AUC {a_support:.3} over {} quoted answers", supported.0.len());
    assert!(a_support >= 0.60, "support AUC {a_support:.3}");
}

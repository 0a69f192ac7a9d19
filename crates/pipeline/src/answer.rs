//! The answer stage. Four ways to answer from the selected sources, chosen by [`AnswerMode`]:
//! - extractive: the sentence(s) of the kept passages that best answer the question, quoted with `[n]` and their
//!   page — what a small base model cannot get wrong, and the measured default for it;
//! - grounded: an instruction model answers from the kept passages' best sentences, numbered; each claim is held
//!   to the sentence it cites and dropped when that sentence does not support it (`grounded`), with the quotes as
//!   the fallback;
//! - completion: a plain-text prompt that a base model (no chat template) continues, cut at stop sequences;
//! - chat: Spring AI's contextual-augmenter prompt through the model's chat template (instruction models and
//!   OpenAI-compatible servers).
//!
//! With no kept passage, or none whose evidence probability reaches the judge's answer threshold, the answer
//! says the documents do not say, and cites nothing. No answer ever repeats the prompt's instructions.

use super::augment::Source;
use crate::Result;
use ragsift_interfaces::embed::Embedder;
use ragsift_judge::local::model::Logistic;
use ragsift_judge::local::signals::{rank_desc, Lexicon, TermStats};
use ragsift_judge::local::text::{answer_kind, content_stems, fits_kind, sentences};
use serde::{Deserialize, Serialize};

pub mod grounded;
mod quote;
pub use quote::{extractive, extractive_with, QuoteLayout, QuoteOrder, NOTHING_TO_QUOTE, QUOTE_LAYOUT};

/// How answers are produced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum AnswerMode {
    /// Extractive for base models (no chat template), chat for instruction models and servers.
    #[default]
    Auto,
    Extractive,
    /// Completion-style prompt for base models, chat otherwise.
    Generative,
    /// An instruction model's short answer from the kept sentences, each claim held to the sentence it cites
    /// (extractive with a base model).
    Grounded,
}

/// What actually produced an answer (recorded in the trace and shown beside it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum AnsweredBy {
    /// Quoted sentences from the kept passages.
    Extractive,
    /// A base model continuing a plain-text prompt.
    Completion,
    /// A model answering Spring's augmented prompt through its chat template.
    Chat,
    /// An instruction model's claims, each supported by the kept sentence it cites, with that sentence quoted.
    Grounded,
    /// No kept passage held evidence: the fixed "the documents do not say" answer, no model call.
    NoEvidence,
    /// Not answered: imported candidates are judged and selected, and answered only when regenerated.
    NotAnswered,
}

/// The answer when no kept passage holds evidence.
pub const NO_EVIDENCE_ANSWER: &str =
    "The documents do not say: none of the retrieved passages holds evidence that answers this question.";

/// The "documents do not say" answer with its reason, in agreement with what the Inspector shows: nothing was kept,
/// or passages were kept (as relevant) but none holds evidence at the judge's answer threshold.
pub fn no_evidence_answer(kept: usize, answer_threshold: f64) -> String {
    no_evidence_answer_with(kept, None, answer_threshold)
}

/// [`no_evidence_answer`] with the strongest kept passage's evidence probability: a passage the selection kept for
/// its (weak) evidence is never said to hold none — the answer says how strong the strongest is, against the
/// threshold an answer needs.
pub fn no_evidence_answer_with(kept: usize, best_evidence: Option<f64>, answer_threshold: f64) -> String {
    let strongest = |among: &str| match best_evidence {
        Some(e) if e > 0.0 => {
            format!("the strongest evidence{among} is {e:.2}, below the {answer_threshold:.2} an answer needs")
        }
        _ => format!("its evidence is below the answer threshold of {answer_threshold:.2}"),
    };
    match kept {
        0 => "The documents do not say: no retrieved passage was kept for this question.".to_string(),
        1 => format!(
            "The documents do not say: 1 passage was kept as relevant, but its evidence is too weak to answer this \
             question ({}).",
            strongest("")
        ),
        n => format!(
            "The documents do not say: {n} passages were kept as relevant, but none holds evidence strong enough to \
             answer this question ({}).",
            strongest(" among them").replace("its evidence is", "each one's evidence is")
        ),
    }
}

/// The completion prompt's instruction line (also checked for echoes).
pub const COMPLETION_INSTRUCTION: &str =
    "Answer the question with one sentence copied from the numbered passages above, followed by its number in brackets.";

/// Stops for the completion prompt: the model starting another question, passage or paragraph.
pub const COMPLETION_STOPS: &[&str] = &["\n\n", "\nQuestion:", "\n[", "\nPassage", "\nAnswer:"];

/// The plain-text prompt a base model continues.
pub fn completion_prompt(query: &str, sources: &[Source]) -> String {
    let mut p = String::new();
    for s in sources {
        p.push_str(&format!(
            "[{}] ({}, {})\n{}\n\n",
            s.number,
            s.title,
            s.pages(),
            one_line(&s.text)
        ));
    }
    p.push_str(COMPLETION_INSTRUCTION);
    p.push_str(&format!("\n\nQuestion: {}\nAnswer:", query.trim()));
    p
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lines of our own prompts that an answer must never repeat.
const PROMPT_LINES: &[&str] = &[
    "Context information is below",
    "Given the context information and no prior knowledge",
    "Follow these rules",
    "If the answer is not in the context",
    "Avoid statements like",
    "Cite the sources you use by their number",
    "The user query is outside your knowledge base",
    "Politely inform the user",
    COMPLETION_INSTRUCTION,
    grounded::GROUNDED_INSTRUCTION,
    "---------------------",
];

/// Whether `answer` repeats part of the prompt's instructions (a small model echoing its input).
pub fn echoes_prompt(answer: &str) -> bool {
    let a = answer.to_lowercase();
    PROMPT_LINES
        .iter()
        .any(|l| a.contains(&l.to_lowercase()[..l.len().min(40)]))
        || a.contains("query:") && a.contains("answer:")
}

/// One scored sentence of a source.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredSentence {
    pub source: usize,
    pub text: String,
    pub score: f64,
}

/// The fitted sentence model shipped with the local judge (`None` before one is fitted).
pub fn sentence_model() -> Option<&'static Logistic> {
    ragsift_judge::local::shipped_fit().sentence.as_ref()
}

/// The sentence model's signals, in [`SENTENCE_FEATURES`] order.
pub const SENTENCE_FEATURES: &[&str] = &[
    "s_cos",
    "s_cos_gap",
    "s_coverage",
    "s_coverage_window",
    "s_bm25",
    "s_kind",
    "s_evidence",
    "s_first",
    "s_length",
    "s_novel",
    "s_meta",
    "s_fragment",
    "s_coverage_gap",
    "s_window_gap",
    "s_bm25_gap",
    "s_evidence_gap",
    "s_source_rank",
    "s_position",
    "s_prev_coverage",
    "s_next_coverage",
    "s_table_row",
];

/// The features measured against the question's best sentence: (the feature, its gap), by index in
/// [`SENTENCE_FEATURES`]. A gap is the sentence's value less the best value among all the question's sentences,
/// so a fit can tell "the best of these" from "good in absolute terms".
const GAPS: [(usize, usize); 5] = [(0, 1), (2, 12), (3, 13), (4, 14), (6, 15)];

/// Sentences about the document rather than its content ("In this section we describe…").
const META_CUES: &[&str] = &[
    "in this section",
    "in this paper",
    "in this chapter",
    "this paper",
    "we describe",
    "we present",
    "we discuss",
    "is organized as follows",
    "is organised as follows",
    "as follows",
    "the following steps",
    "the rest of this",
    "see section",
    "see figure",
    "shown in figure",
    "table below",
];

/// Whether a sentence is about the document itself rather than its subject.
fn is_meta(sentence: &str) -> bool {
    let s = sentence.to_lowercase();
    META_CUES.iter().any(|c| s.contains(c))
}

/// Whether a "sentence" is a table row as the chunker writes it, its cells keyed by their headers ("Mode: Narrow;
/// Beamwidth: 0.75°"): a fact without a verb, which the fragment rule alone would hold against it.
fn is_table_row(sentence: &str) -> bool {
    let cells: Vec<&str> = sentence.split("; ").collect();
    cells.len() >= 2 && cells.iter().filter(|c| c.contains(": ")).count() >= 2
}

/// Whether a sentence is a fragment: a chunk that starts mid-sentence, a heading, a caption without a verb-length.
fn is_fragment(sentence: &str) -> bool {
    let t = sentence.trim();
    let starts_low = t.chars().next().is_some_and(|c| c.is_lowercase());
    let ends = t.ends_with(['.', '!', '?', ':', ';', ')', '"', '”']);
    starts_low || !ends || t.split_whitespace().count() < 6
}

/// Ranks every sentence of `sources` as an answer to `query`: its cosine to the question (and to the best
/// sentence's), the IDF-weighted share of the question's content words in it and in its neighbourhood, its
/// BM25, whether it has the expected answer's shape, its passage's evidence probability, whether it is its
/// passage's best match, its length; those measured against the question's best sentence (gaps), its passage's
/// rank and its place in the passage, its neighbours' coverage, and whether it is a table row — combined by the
/// fitted sentence model when there is one (a model fitted on fewer signals reads the first of them), else by
/// cosine (by word coverage without an embedder).
pub fn rank_sentences(
    query: &str,
    sources: &[Source],
    evidence: &[Option<f64>],
    embedder: Option<&dyn Embedder>,
    stats: Option<&dyn TermStats>,
) -> Result<Vec<(ScoredSentence, Vec<f64>)>> {
    rank_sentences_with(query, sources, evidence, embedder, stats, sentence_model())
}

/// [`rank_sentences`] with a given sentence model (the benchmark fits one).
pub fn rank_sentences_with(
    query: &str,
    sources: &[Source],
    evidence: &[Option<f64>],
    embedder: Option<&dyn Embedder>,
    stats: Option<&dyn TermStats>,
    model: Option<&Logistic>,
) -> Result<Vec<(ScoredSentence, Vec<f64>)>> {
    let split: Vec<Vec<String>> = sources
        .iter()
        .map(|s| sentences(&s.text).into_iter().map(|x| one_line(&x.text)).collect())
        .collect();
    let mut texts: Vec<&str> = vec![query];
    for s in &split {
        texts.extend(s.iter().map(String::as_str));
    }
    let vectors = match embedder {
        Some(e) => e.embed(&texts)?,
        None => vec![Vec::new(); texts.len()],
    };
    let q = &vectors[0];
    let passages: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
    let lexicon = Lexicon::new(query, &passages, stats);
    let q_stems: std::collections::BTreeSet<String> = content_stems(query).into_iter().collect();
    let kind = answer_kind(query);
    let mut rows = Vec::new();
    let mut at = 1;
    for (si, sents) in split.iter().enumerate() {
        let stems: Vec<Vec<String>> = sents.iter().map(|t| content_stems(t)).collect();
        let cosines: Vec<f32> = (0..sents.len())
            .map(|k| q.iter().zip(&vectors[at + k]).map(|(a, b)| a * b).sum())
            .collect();
        let first = rank_desc(&cosines).first().copied();
        let coverage: Vec<f64> = stems.iter().map(|st| f64::from(lexicon.coverage(st))).collect();
        for (k, text) in sents.iter().enumerate() {
            let window: Vec<String> = stems[k.saturating_sub(1)..(k + 2).min(sents.len())].concat();
            let novel = if stems[k].is_empty() {
                0.0
            } else {
                stems[k].iter().filter(|w| !q_stems.contains(*w)).count() as f64 / stems[k].len() as f64
            };
            let ev = evidence
                .get(si)
                .copied()
                .flatten()
                .unwrap_or(0.5)
                .clamp(1e-3, 1.0 - 1e-3);
            let x = vec![
                f64::from(cosines[k]),
                0.0, // s_cos_gap, below
                coverage[k],
                f64::from(lexicon.coverage(&window)),
                f64::from(lexicon.bm25(&stems[k])),
                f64::from(u8::from(fits_kind(text, kind))),
                (ev / (1.0 - ev)).ln(),
                f64::from(u8::from(first == Some(k))),
                (1.0 + text.split_whitespace().count() as f64).ln(),
                novel,
                f64::from(u8::from(is_meta(text))),
                f64::from(u8::from(is_fragment(text))),
                0.0, // the gaps, below
                0.0,
                0.0,
                0.0,
                (1.0 + si as f64).ln(),
                k as f64 / sents.len().max(1) as f64,
                k.checked_sub(1).map_or(0.0, |p| coverage[p]),
                coverage.get(k + 1).copied().unwrap_or(0.0),
                f64::from(u8::from(is_table_row(text))),
            ];
            rows.push((si, text.clone(), x));
        }
        at += sents.len();
    }
    let best = GAPS.map(|(of, _)| rows.iter().map(|r| r.2[of]).fold(f64::NEG_INFINITY, f64::max));
    let mut out: Vec<(ScoredSentence, Vec<f64>)> = rows
        .into_iter()
        .map(|(source, text, mut x)| {
            for ((of, gap), top) in GAPS.into_iter().zip(best) {
                x[gap] = x[of] - top;
            }
            let score = match model {
                Some(m) if embedder.is_some() => m.predict(&x),
                _ if embedder.is_some() => x[0],
                _ => x[3],
            };
            (ScoredSentence { source, text, score }, x)
        })
        .collect();
    out.sort_by(|a, b| b.0.score.total_cmp(&a.0.score));
    Ok(out)
}

/// The completion without lines that repeat the prompt's instructions (a small model echoing its input); an
/// answer that was nothing but echo says so instead.
pub fn without_echo(mut c: ragsift_interfaces::llm::Completion) -> ragsift_interfaces::llm::Completion {
    if !echoes_prompt(&c.text) {
        return c;
    }
    let kept: Vec<&str> = c
        .text
        .lines()
        .filter(|l| !echoes_prompt(l) && !PROMPT_LINES.iter().any(|p| l.trim() == *p))
        .collect();
    let text = kept.join("\n").trim().to_string();
    c.text = if text.is_empty() || echoes_prompt(&text) {
        "The model gave no usable answer (it repeated its instructions).".to_string()
    } else {
        text
    };
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documents_do_not_say_why() {
        // Nothing kept, one kept, several kept: the answer agrees with the Inspector's count.
        assert!(no_evidence_answer(0, 0.6).contains("no retrieved passage was kept"));
        let one = no_evidence_answer(1, 0.6);
        assert!(
            one.contains("1 passage was kept as relevant") && one.contains("0.60"),
            "{one}"
        );
        // Kept for weak evidence: the answer names its strength, never "holds no evidence".
        let weak = no_evidence_answer_with(3, Some(0.21), 0.3);
        assert!(
            weak.contains("3 passages were kept as relevant") && weak.contains("0.21, below the 0.30"),
            "{weak}"
        );
        assert!(!weak.contains("holds no evidence") && !weak.contains("none of the retrieved"));
        let three = no_evidence_answer(3, 0.55);
        assert!(
            three.contains("3 passages were kept as relevant") && three.contains("0.55"),
            "{three}"
        );
        assert!(
            !three.contains("none of the retrieved passages"),
            "never 'none retrieved' while passages are kept"
        );
    }

    fn source(n: usize, text: &str) -> Source {
        Source {
            number: n,
            chunk_id: format!("c{n}"),
            document: "/d.pdf".into(),
            title: "Paper".into(),
            page_start: 2,
            page_end: 2,
            text: text.into(),
        }
    }

    #[test]
    fn table_rows_are_told_from_sentences() {
        assert!(is_table_row("Mode: Narrow; Beamwidth: 0.75°; Range: 40 m"));
        assert!(is_table_row(
            "Implementation: Rcpp sugar; Time in millisec.: 145; Relative to R API: 0.67"
        ));
        assert!(!is_table_row(
            "The beamwidth is 0.75° in narrow mode; it widens to 2° otherwise."
        ));
        assert!(!is_table_row("Note: see the manual."));
    }

    #[test]
    fn every_sentence_has_every_feature() {
        let sources = [
            source(1, "The port is 8080. Mode: Narrow; Beamwidth: 0.75°"),
            source(2, "Nothing here."),
        ];
        let ranked = rank_sentences_with("Which port?", &sources, &[Some(0.9), Some(0.1)], None, None, None).unwrap();
        assert_eq!(ranked.len(), 3);
        for (c, x) in &ranked {
            assert_eq!(x.len(), SENTENCE_FEATURES.len(), "{}", c.text);
            assert!(x.iter().all(|v| v.is_finite()), "{}: {x:?}", c.text);
        }
        let row = ranked.iter().find(|(c, _)| c.text.starts_with("Mode")).unwrap();
        assert_eq!(row.1[SENTENCE_FEATURES.len() - 1], 1.0, "the table row is marked");
        let gap = |name: &str| SENTENCE_FEATURES.iter().position(|f| *f == name).unwrap();
        let best_evidence = ranked
            .iter()
            .map(|(_, x)| x[gap("s_evidence_gap")])
            .fold(f64::MIN, f64::max);
        assert_eq!(best_evidence, 0.0, "the best sentence's gap is zero");
    }

    #[test]
    fn echoes_are_detected() {
        assert!(echoes_prompt("Context information is below. ---"));
        assert!(echoes_prompt("The user query is outside your knowledge base."));
        assert!(!echoes_prompt("“The window is five bytes wide.” [1] (p. 2)"));
        let p = completion_prompt("How wide?", &[source(1, "The window\nis wide.")]);
        assert!(
            p.starts_with("[1] (Paper, p. 2)\nThe window is wide.\n\n") && p.ends_with("Question: How wide?\nAnswer:")
        );
    }
}

//! The labelled question set (`fixtures/qa/cases.json`): questions about real papers, each with the quoted
//! places that state its answer. The file is in the library-case format that `ragsift eval --from-library`
//! reads (rag-jev's case fields plus `kind` and `evidence`); here the quotes are located in a library's pages
//! and retrieved chunks are labelled by span overlap, so the labels survive re-chunking.

use super::spans::{locate, ChunkPlace, Covers, Span};
use crate::{Error, Result};
use ragsift_interfaces::store::LibraryStore;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What a question is, for scoring answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// The documents answer it.
    Answerable,
    /// On topic, but the documents do not answer it: the right answer says so.
    Unanswerable,
    /// It assumes something the documents contradict; the evidence states the correct fact.
    FalsePremise,
}

/// The kind of document a question is about: the labelled set's folds leave one kind out, to say how the judge
/// does on a kind it never saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// A single-column paper or article.
    Paper,
    /// A paper set in two columns.
    TwoColumnPaper,
    /// A product or software manual, with option and settings tables.
    Manual,
    /// A report, guide or handbook with figures and tables.
    Report,
    /// A semiconductor datasheet: tables of ratings, characteristics, registers and pins.
    Datasheet,
}

impl DocKind {
    pub const ALL: [DocKind; 5] = [
        DocKind::Paper,
        DocKind::TwoColumnPaper,
        DocKind::Manual,
        DocKind::Report,
        DocKind::Datasheet,
    ];

    pub fn label(self) -> &'static str {
        match self {
            DocKind::Paper => "single-column papers",
            DocKind::TwoColumnPaper => "two-column papers",
            DocKind::Manual => "manuals",
            DocKind::Report => "reports and guides",
            DocKind::Datasheet => "datasheets",
        }
    }
}

/// One quoted place that states the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceQuote {
    /// The document's file name.
    pub document: String,
    /// 1-based page.
    pub page: u32,
    /// Verbatim text of the page (up to case, whitespace, ligatures, hyphenation).
    pub quote: String,
    /// This place's wording of the answer when it differs from the question's `reference_answer`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_alt: Option<String>,
}

/// A labelled question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QaQuestion {
    pub id: String,
    pub query: String,
    pub kind: QuestionKind,
    /// The short phrase a correct answer contains (`None` when unanswerable).
    #[serde(default)]
    pub reference_answer: Option<String>,
    /// The document the question was written about (cross-validation folds are by family).
    #[serde(default)]
    pub family_id: Option<String>,
    #[serde(default)]
    pub evidence: Vec<EvidenceQuote>,
    /// rag-jev's labels; empty here (the library loader resolves them from `evidence`).
    #[serde(default)]
    pub relevant_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premise: Option<String>,
    /// A labeller's remark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The kind of document asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc_kind: Option<DocKind>,
    /// The answer is a table cell (the quote is its row).
    #[serde(default)]
    pub table: bool,
}

impl QaQuestion {
    /// The phrases that count as the answer: the reference and every place's own wording.
    pub fn answer_phrases(&self) -> Vec<String> {
        let mut out: Vec<String> = self.reference_answer.iter().cloned().collect();
        out.extend(self.evidence.iter().filter_map(|e| e.answer_alt.clone()));
        out.dedup();
        out
    }
}

/// Reads the labelled questions.
pub fn load_questions(path: &Path) -> Result<Vec<QaQuestion>> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))
}

/// A question's evidence located in a library: per document id, its spans.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocatedEvidence {
    pub spans: BTreeMap<String, Vec<Span>>,
}

impl LocatedEvidence {
    /// Whether a chunk of `document_id` at `extent` holds any of the evidence.
    pub fn holds(&self, document_id: &str, extent: &ChunkPlace) -> bool {
        self.spans
            .get(document_id)
            .is_some_and(|s| s.iter().any(|sp| extent.holds(sp)))
    }

    /// Whether the chunk lies on a page that states the answer (the coarser label: "answer page").
    pub fn on_answer_page(&self, document_id: &str, extent: &ChunkPlace) -> bool {
        self.spans
            .get(document_id)
            .is_some_and(|s| s.iter().any(|sp| extent.on_page(sp.page)))
    }
}

/// Finds each question's quotes in the library's page texts (documents matched by file name). A document
/// missing from the library is an error; a quote not found on its page is listed in the second result (named
/// with its question), so a caller can refuse or report it.
pub fn locate_evidence(
    store: &dyn LibraryStore,
    questions: &[QaQuestion],
) -> Result<(Vec<LocatedEvidence>, Vec<String>)> {
    let docs = store.documents()?;
    let by_name: BTreeMap<String, String> = docs
        .iter()
        .map(|d| {
            let name = Path::new(&d.path)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            (name, d.id.clone())
        })
        .collect();
    let mut out = Vec::with_capacity(questions.len());
    let mut missing = Vec::new();
    for q in questions {
        let mut located = LocatedEvidence::default();
        for e in &q.evidence {
            let id = by_name.get(&e.document).ok_or_else(|| {
                Error::Invalid(format!(
                    "question {}: document {} is not in the library",
                    q.id, e.document
                ))
            })?;
            let text = store.page(id, e.page)?.unwrap_or_default();
            let Some((start, end)) = locate(&text, &e.quote) else {
                missing.push(format!("{}: page {} of {}: {:?}", q.id, e.page, e.document, e.quote));
                continue;
            };
            located.spans.entry(id.clone()).or_default().push(Span {
                page: e.page,
                start,
                end,
            });
        }
        out.push(located);
    }
    Ok((out, missing))
}

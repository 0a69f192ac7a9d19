//! Evidence labels kept as spans (issue 14): per question (the run's query, normalised), a character range of one
//! page of one document version (its checksum), relevant evidence or not, with who labelled it and when. Chunks are
//! matched against the spans whenever a run is read, so the labels survive re-chunking:
//!
//! - a chunk is **relevant** when it shares with a relevant span at least half of the shorter of the two (so a
//!   quoted phrase marks the chunks holding most of it, and a labelled chunk's extent marks the new chunks mostly
//!   inside it, not the neighbours that share only the overlap tokens);
//! - **not relevant** when at least 60 % of it lies within a not-relevant span and it matches no relevant one;
//! - else unlabelled.
//!
//! A run's candidates are matched against the spans of their document's current version only (a run older than
//! the document's content has no labels here).
//!
//! Long because it is span labels end to end: matching, import, export and the report share their types.

use super::Workbench;
use crate::{Error, Result};
use ragsift_eval::ragjev::{Document, EvalCase};
use ragsift_eval::spans::{locate, Covers, Span};
use ragsift_pipeline::join::Candidate;
use ragsift_pipeline::labels::RunLabels;
use ragsift_pipeline::Trace;
use ragsift_store::LibraryStore;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

pub use ragsift_store::sqlite::{label_question_key, SpanLabel};

mod matching;

use matching::*;

/// A run's candidates as the spans of its question label them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SpanRunLabels {
    pub run_id: String,
    /// The run's question, normalised: the key of its labels.
    pub question: String,
    /// How many spans the question has.
    pub spans: u32,
    /// Candidates holding relevant evidence, in the run's order.
    pub relevant_ids: Vec<String>,
    /// Candidates lying within a not-relevant span (and holding no relevant one), in the run's order.
    pub not_relevant_ids: Vec<String>,
    /// Relevant spans no candidate holds: evidence the run's retrieval did not return.
    pub missed: Vec<String>,
}

impl SpanRunLabels {
    /// Whether any span matched a candidate of the run.
    pub fn matched(&self) -> bool {
        !self.relevant_ids.is_empty() || !self.not_relevant_ids.is_empty()
    }

    /// The run's labels with the span-derived relevant ids, when `existing` has none and the spans say something
    /// about this run's candidates: relevant ids when a candidate holds evidence, an empty list ("none relevant")
    /// only when candidates are labelled not relevant and the question has no relevant span the run missed.
    pub fn run_labels(&self, existing: &RunLabels) -> Option<RunLabels> {
        if existing.relevant_ids.is_some() || !self.matched() {
            return None;
        }
        if self.relevant_ids.is_empty() && !self.missed.is_empty() {
            return None;
        }
        Some(RunLabels {
            relevant_ids: Some(self.relevant_ids.clone()),
            ..existing.clone()
        })
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// What a new label is about, before it gets its id, author and time.
struct Draft<'a> {
    question: &'a str,
    document_id: &'a str,
    checksum: &'a str,
    page: u32,
    range: (u32, u32),
    text: String,
    relevant: bool,
    run_id: Option<&'a str>,
}

impl Workbench {
    fn put_span(&self, d: Draft<'_>) -> Result<SpanLabel> {
        let lib = self.library();
        let (start, end) = d.range;
        let label = SpanLabel {
            id: SpanLabel::make_id(d.question, d.checksum, d.page, start, end),
            question: d.question.to_string(),
            document_id: d.document_id.to_string(),
            checksum: d.checksum.to_string(),
            page: d.page,
            char_start: start,
            char_end: end,
            text: d.text,
            relevant: d.relevant,
            labelled_by: lib.user(),
            labelled_at: now(),
            run_id: d.run_id.map(str::to_string),
        };
        lib.store().put_label(&label)?;
        Ok(label)
    }

    /// Labels one of a run's candidates relevant or not: a span per page of the chunk's extent (by its id, or a
    /// prefix of at least six characters that names one candidate).
    pub fn label_chunk(&self, run_id: &str, chunk_id: &str, relevant: bool) -> Result<Vec<SpanLabel>> {
        ragsift_core::ids::check_id(ragsift_core::ids::IdKind::Chunk, chunk_id).map_err(Error::Invalid)?;
        let trace = self.run(run_id)?;
        // The exact id first; else a prefix of at least six characters that names one candidate.
        let exact: Vec<&Candidate> = trace.candidates.iter().filter(|c| c.chunk_id == chunk_id).collect();
        let matching: Vec<&Candidate> = if exact.is_empty() && chunk_id.len() >= ragsift_core::ids::MIN_PREFIX_LEN {
            (trace.candidates.iter())
                .filter(|c| c.chunk_id.starts_with(chunk_id))
                .collect()
        } else {
            exact
        };
        let c = match (matching.as_slice(), chunk_id.is_empty()) {
            ([c], false) => *c,
            ([], _) | (_, true) => {
                return Err(Error::NotFound(format!(
                    "run {} has no candidate '{chunk_id}' (see `ragsift runs show {}`)",
                    trace.run_id, trace.run_id
                )))
            }
            _ => {
                return Err(Error::Invalid(format!(
                    "'{chunk_id}' names {} candidates of run {}: give more of the id",
                    matching.len(),
                    trace.run_id
                )))
            }
        };
        let lib = self.library();
        let store = lib.store();
        let versions = candidate_versions(store, std::slice::from_ref(c))?;
        let checksum = versions.get(&c.chunk_id).ok_or_else(|| {
            Error::Invalid(format!(
                "chunk {} of run {} is not in the library's current version of {} (an imported run, or the file \
                 changed since): label it with `ragsift runs label`",
                c.chunk_id, trace.run_id, c.title
            ))
        })?;
        let question = label_question_key(&trace.query);
        let mut out = Vec::new();
        for page in c.page_start..=c.page_end {
            let text = store
                .page(&c.document_id, page)?
                .ok_or_else(|| Error::NotFound(format!("page {page} of {}", c.title)))?;
            let len = text.chars().count() as u32;
            let start = if page == c.page_start { c.char_start.min(len) } else { 0 };
            let end = if page == c.page_end { c.char_end.min(len) } else { len };
            if end > start {
                out.push(self.put_span(Draft {
                    question: &question,
                    document_id: &c.document_id,
                    checksum,
                    page,
                    range: (start, end),
                    text: slice(&text, start, end),
                    relevant,
                    run_id: Some(&trace.run_id),
                })?);
            }
        }
        if out.is_empty() {
            return Err(Error::Invalid(format!(
                "chunk {} covers no text of its pages",
                c.chunk_id
            )));
        }
        Ok(out)
    }

    /// Labels a quoted phrase as relevant evidence for a run's question: found (case- and whitespace-insensitive)
    /// on the library pages of the run's candidates; refused when it is nowhere there, or in more than one place.
    pub fn label_evidence(&self, run_id: &str, phrase: &str) -> Result<SpanLabel> {
        if phrase.trim().is_empty() {
            return Err(Error::Invalid("the evidence phrase is empty".into()));
        }
        let trace = self.run(run_id)?;
        let lib = self.library();
        let store = lib.store();
        let versions = candidate_versions(store, &trace.candidates)?;
        let mut searched = HashSet::new();
        let mut found = Vec::new();
        for c in &trace.candidates {
            let Some(checksum) = versions.get(&c.chunk_id) else {
                continue;
            };
            for page in c.page_start..=c.page_end {
                if !searched.insert((c.document_id.clone(), page)) {
                    continue;
                }
                let Some(text) = store.page(&c.document_id, page)? else {
                    continue;
                };
                for (s, e) in occurrences(&text, phrase) {
                    found.push((c, checksum, page, s, e, slice(&text, s, e)));
                }
            }
        }
        match found.len() {
            0 => Err(Error::NotFound(format!(
                "\"{}\" is not on the {} page(s) of run {}'s candidates{}",
                phrase.trim(),
                searched.len(),
                trace.run_id,
                if versions.is_empty() {
                    " (none of them is in the library's current documents)"
                } else {
                    ""
                }
            ))),
            1 => {
                let (c, checksum, page, s, e, text) = found.remove(0);
                self.put_span(Draft {
                    question: &label_question_key(&trace.query),
                    document_id: &c.document_id,
                    checksum,
                    page,
                    range: (s, e),
                    text,
                    relevant: true,
                    run_id: Some(&trace.run_id),
                })
            }
            n => {
                let places: Vec<String> = (found.iter())
                    .map(|(c, _, page, s, e, _)| format!("{} p. {page} chars {s}–{e}", c.title))
                    .collect();
                Err(Error::Invalid(format!(
                    "\"{}\" occurs {n} times on run {}'s pages ({}): quote more of it",
                    phrase.trim(),
                    trace.run_id,
                    places.join("; ")
                )))
            }
        }
    }

    /// Labels `[char_start, char_end)` of a page (characters of the page text, as [`crate::PageView`] has them) for
    /// a run's question (`run_or_question` a run id or prefix) or a question given as text: what the Page view's
    /// "mark selection as evidence" calls (`relevant` true).
    pub fn label_span(
        &self,
        run_or_question: &str,
        document_id: &str,
        page: u32,
        char_start: u32,
        char_end: u32,
        relevant: bool,
    ) -> Result<SpanLabel> {
        crate::page::check_document_id(document_id)?;
        let (question, run_id) = self.question_of(run_or_question)?;
        let lib = self.library();
        let store = lib.store();
        let doc = store
            .document(document_id)?
            .ok_or_else(|| Error::NotFound(format!("document {document_id}")))?;
        let text = store
            .page(document_id, page)?
            .ok_or_else(|| Error::NotFound(format!("page {page} of {}", doc.title)))?;
        let len = text.chars().count() as u32;
        if char_start >= char_end || char_end > len {
            return Err(Error::Invalid(format!(
                "characters {char_start}–{char_end} are not a range of page {page} of {} ({len} characters)",
                doc.title
            )));
        }
        self.put_span(Draft {
            question: &question,
            document_id,
            checksum: &doc.checksum,
            page,
            range: (char_start, char_end),
            text: slice(&text, char_start, char_end),
            relevant,
            run_id: run_id.as_deref(),
        })
    }

    /// (normalised question, run id) of a run id or prefix, else of the text as a question.
    fn question_of(&self, run_or_question: &str) -> Result<(String, Option<String>)> {
        let s = run_or_question.trim();
        if s.len() >= 4 && s.chars().all(|c| c.is_ascii_hexdigit()) {
            if let Ok(trace) = self.run(s) {
                return Ok((label_question_key(&trace.query), Some(trace.run_id.clone())));
            }
        }
        let question = label_question_key(s);
        if question.is_empty() {
            return Err(Error::Invalid("a label needs a run or a question".into()));
        }
        Ok((question, None))
    }

    /// The labels of one question (normalised here), or every label; oldest first.
    pub fn labels(&self, question: Option<&str>) -> Result<Vec<SpanLabel>> {
        let question = question.map(label_question_key);
        self.library().store().labels(question.as_deref())
    }

    fn label_by_id(&self, id: &str) -> Result<SpanLabel> {
        self.library().store().label(id)?.ok_or_else(|| {
            Error::NotFound(format!(
                "no label '{id}' (or the prefix names several): see `ragsift labels list`"
            ))
        })
    }

    /// Removes a label (by id or unique prefix); returns it.
    pub fn remove_label(&self, id: &str) -> Result<SpanLabel> {
        let label = self.label_by_id(id)?;
        self.library().store().remove_label(&label.id)?;
        Ok(label)
    }

    /// Sets a label's polarity (by id or unique prefix); it is then yours, as of now.
    pub fn update_label(&self, id: &str, relevant: bool) -> Result<SpanLabel> {
        let lib = self.library();
        let mut label = self.label_by_id(id)?;
        label.relevant = relevant;
        label.labelled_by = lib.user();
        label.labelled_at = now();
        lib.store().put_label(&label)?;
        Ok(label)
    }

    /// The candidates of `trace` (a run of this library) that hold one of the relevant `spans`, in the run's
    /// order: matched as the labels are, against the library's current document versions.
    pub(crate) fn span_evidence(&self, trace: &Trace, spans: &[SpanLabel]) -> Result<Vec<String>> {
        if !spans.iter().any(|l| l.relevant) {
            return Ok(Vec::new());
        }
        let versions = candidate_versions(self.library().store(), &trace.candidates)?;
        let question = label_question_key(&trace.query);
        Ok(match_spans(&trace.run_id, &question, &trace.candidates, &versions, spans).relevant_ids)
    }

    /// The run's candidates as its question's spans label them.
    pub fn run_span_labels(&self, trace: &Trace) -> Result<SpanRunLabels> {
        let lib = self.library();
        let store = lib.store();
        let question = label_question_key(&trace.query);
        let spans = store.labels(Some(&question))?;
        let versions = if spans.is_empty() {
            HashMap::new()
        } else {
            candidate_versions(store, &trace.candidates)?
        };
        Ok(match_spans(
            &trace.run_id,
            &question,
            &trace.candidates,
            &versions,
            &spans,
        ))
    }

    /// The run's labels from the labelled spans, when the run has no relevance labels of its own.
    pub(crate) fn span_labels(&self, trace: &Trace) -> Result<Option<RunLabels>> {
        if trace.labels.relevant_ids.is_some() {
            return Ok(None);
        }
        Ok(self.run_span_labels(trace)?.run_labels(&trace.labels))
    }

    /// The labelled questions (one, or all) as rag-jev eval cases: the latest run of each question gives the
    /// query and the documents (its candidates: id, text, metadata with `ragsift_spans`, the spans on the chunk),
    /// its spans the relevant ids. A question with labels but no stored run is left out (refused when asked for).
    ///
    /// The format (rag-jev's case, so `rag-jev eval`, `ragsift eval` with or without `--from-library` and
    /// `ragsift curves` read it as it is):
    ///
    /// - `id`: `label-` and 12 hex digits of the normalised question's sha256; `query`: the run's question;
    /// - `documents`: the run's candidates in rank order, `id` the chunk id, `metadata` the chunk's own metadata
    ///   plus where it lies (`document_id`, `document` (path), `title`, `page_start`, `page_end`, `char_start`,
    ///   `char_end`, `section`) and `ragsift_spans`: every labelled span the chunk overlaps, each `{id, checksum,
    ///   page, char_start, char_end, text, relevant, labelled_by, labelled_at}` (a character range of a page of
    ///   the document version `checksum`);
    /// - `relevant_ids`: the candidates holding a relevant span; `reference_answer`, `baseline_ids`: the run's.
    ///
    /// `ragsift compare` reads the spans back ([`spans_of_documents`]) as the case's evidence and matches them
    /// against the candidates it retrieves afresh, at any chunk size; a relevant span none of the run's candidates
    /// overlaps is not in the export.
    pub fn export_labels_as_cases(&self, question: Option<&str>) -> Result<Vec<EvalCase>> {
        let lib = self.library();
        let store = lib.store();
        let asked = question.map(label_question_key);
        let mut by_question: BTreeMap<String, Vec<SpanLabel>> = BTreeMap::new();
        for l in store.labels(asked.as_deref())? {
            by_question.entry(l.question.clone()).or_default().push(l);
        }
        if let Some(q) = &asked {
            if by_question.is_empty() {
                return Err(Error::NotFound(format!(
                    "no labels for \"{q}\" (see `ragsift labels list`)"
                )));
            }
        }
        let runs = store.runs(usize::MAX >> 1)?;
        let mut cases = Vec::new();
        for (q, spans) in by_question {
            let Some(latest) = runs.iter().find(|r| label_question_key(&r.query) == q) else {
                if asked.is_some() {
                    return Err(Error::NotFound(format!(
                        "\"{q}\" has labels but no stored run: ask it first"
                    )));
                }
                continue;
            };
            let trace = Trace::load(store, &latest.id)?;
            let versions = candidate_versions(store, &trace.candidates)?;
            let derived = match_spans(&trace.run_id, &q, &trace.candidates, &versions, &spans);
            let documents = (trace.candidates.iter())
                .map(|c| document(c, &versions, &spans))
                .collect();
            cases.push(EvalCase {
                id: format!("label-{}", &ragsift_core::ids::sha256_hex(q.as_bytes())[..12]),
                query: trace.query.clone(),
                documents,
                relevant_ids: derived.relevant_ids,
                reference_answer: trace.labels.reference_answer.clone(),
                baseline_ids: trace.labels.baseline_ids.clone(),
                retrieval_query: None,
                family_id: None,
                evidence_lost: !derived.missed.is_empty(),
            });
        }
        Ok(cases)
    }
}

/// The spans an exported case's documents carry in `metadata.ragsift_spans` (see
/// [`Workbench::export_labels_as_cases`]), once each, for `query`; `None` when no document carries the key (a
/// plain rag-jev case). A span's document is its document's `metadata.document_id`; only its `checksum`, page and
/// range take part in matching.
pub fn spans_of_documents(query: &str, documents: &[Value]) -> std::result::Result<Option<Vec<SpanLabel>>, String> {
    let question = label_question_key(query);
    let (mut found, mut seen, mut spans) = (false, HashSet::new(), Vec::new());
    for d in documents {
        let Some(list) = d.pointer("/metadata/ragsift_spans") else {
            continue;
        };
        found = true;
        let doc = d.get("id").and_then(Value::as_str).unwrap_or("?");
        let list = (list.as_array()).ok_or_else(|| format!("document `{doc}`: `ragsift_spans` is not a list"))?;
        let document_id = d
            .pointer("/metadata/document_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        for s in list {
            let bad = |what: &str| format!("document `{doc}`: a span in `ragsift_spans` has no {what}");
            let text = |k: &str| {
                s.get(k)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| bad(k))
            };
            let number = |k: &str| {
                (s.get(k).and_then(Value::as_u64))
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad(k))
            };
            let (checksum, page, start, end) = (
                text("checksum")?,
                number("page")?,
                number("char_start")?,
                number("char_end")?,
            );
            let id = text("id").unwrap_or_else(|_| SpanLabel::make_id(&question, &checksum, page, start, end));
            if !seen.insert(id.clone()) {
                continue;
            }
            spans.push(SpanLabel {
                id,
                question: question.clone(),
                document_id: document_id.to_string(),
                checksum,
                page,
                char_start: start,
                char_end: end,
                text: text("text").unwrap_or_default(),
                relevant: s
                    .get("relevant")
                    .and_then(Value::as_bool)
                    .ok_or_else(|| bad("relevant"))?,
                labelled_by: text("labelled_by").unwrap_or_default(),
                labelled_at: s.get("labelled_at").and_then(Value::as_i64).unwrap_or(0),
                run_id: None,
            });
        }
    }
    Ok(found.then_some(spans))
}

/// A candidate as a rag-jev document: its own metadata (when it has some), where it lies, and the spans on it.
fn document(c: &Candidate, versions: &HashMap<String, String>, spans: &[SpanLabel]) -> Document {
    let mut metadata: Map<String, Value> = (c.metadata.as_deref())
        .and_then(|m| serde_json::from_str::<Value>(m).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default();
    let place = serde_json::json!({
        "document_id": c.document_id,
        "document": c.document,
        "title": c.title,
        "page_start": c.page_start,
        "page_end": c.page_end,
        "char_start": c.char_start,
        "char_end": c.char_end,
    });
    if let Value::Object(place) = place {
        metadata.extend(place);
    }
    if !c.section.is_empty() {
        metadata.insert("section".into(), c.section.clone().into());
    }
    let on: Vec<Value> = (spans.iter())
        .filter(|l| versions.get(&c.chunk_id) == Some(&l.checksum) && overlap(c, l) > 0)
        .map(|l| {
            serde_json::json!({
                "id": l.id,
                "checksum": l.checksum,
                "page": l.page,
                "char_start": l.char_start,
                "char_end": l.char_end,
                "text": l.text,
                "relevant": l.relevant,
                "labelled_by": l.labelled_by,
                "labelled_at": l.labelled_at,
            })
        })
        .collect();
    metadata.insert("ragsift_spans".into(), Value::Array(on));
    Document {
        id: c.chunk_id.clone(),
        text: c.text.clone(),
        metadata,
        group_id: c.group_id.clone(),
        pinned: c.pinned,
    }
}

#[cfg(test)]
mod tests;

//! Candidates from any retriever, in rag-jev's request format (or an eval case, with its labels): scored and
//! selected as `rag-jev select` does, or imported as a run to inspect, replay, regenerate and label; labels on
//! runs; and runs carried between machines as integrity-checked files.

use super::Workbench;
use crate::settings::JudgeKind;
use crate::{Error, Result};
use ragsift_eval::select::{parse_request, select_with, Issue, OnError, SelectFailure, SelectRequest, SelectionResult};
use ragsift_judge::default_questions;
use ragsift_judge::jev::ragjev::cl100k_tokens;
use ragsift_pipeline::join::{Candidate, Provenance};
use ragsift_pipeline::judging::judge_candidates;
use ragsift_pipeline::labels::RunLabels;
use ragsift_pipeline::trace::{VariantHit, VariantHits};
use ragsift_pipeline::{portable, Trace};
use ragsift_policy::PolicyOptions;
use ragsift_store::sqlite::RunSummary;
use serde_json::{Map, Value};

/// Keys an eval case adds to a request: its labels, which never reach the judge.
const LABEL_KEYS: [&str; 5] = ["id", "relevant_ids", "baseline_ids", "reference_answer", "family_id"];
/// The request keys that make a policy; without any, an import takes the saved default policy.
const POLICY_KEYS: [&str; 5] = ["mode", "min_relevance", "top_n", "max_context_tokens", "shadow"];

/// An import, read: the request, its policy when it names one, and its labels.
struct Import {
    request: SelectRequest,
    policy: Option<PolicyOptions>,
    labels: RunLabels,
}

/// rag-jev's `invalid_input` issues as one readable error.
pub fn issues_error(issues: &[Issue]) -> Error {
    let lines: Vec<String> = issues
        .iter()
        .map(|i| {
            let loc: Vec<String> = i
                .loc
                .iter()
                .map(|l| l.to_string().trim_matches('"').to_string())
                .collect();
            if loc.is_empty() {
                i.message.clone()
            } else {
                format!("{}: {}", loc.join("."), i.message)
            }
        })
        .collect();
    Error::Invalid(format!("invalid candidates: {}", lines.join("; ")))
}

fn parse_import(json: &str) -> Result<Import> {
    let mut value: Value =
        serde_json::from_str(json).map_err(|e| Error::Invalid(format!("candidates are not JSON: {e}")))?;
    // A one-case eval file is accepted as the case itself.
    if let Value::Array(cases) = &value {
        match cases.as_slice() {
            [one] => value = one.clone(),
            _ => {
                return Err(Error::Invalid(format!(
                    "import one case at a time; this file holds {}",
                    cases.len()
                )))
            }
        }
    }
    let object = value
        .as_object_mut()
        .ok_or_else(|| Error::Invalid("candidates must be a JSON object with `query` and `documents`".into()))?;
    let mut labels: Map<String, Value> = Map::new();
    for key in LABEL_KEYS {
        if let Some(v) = object.remove(key) {
            labels.insert(key.into(), v);
        }
    }
    let names_policy = POLICY_KEYS.iter().any(|k| object.contains_key(*k));
    if !names_policy {
        // Validated as a rerank (no threshold needed); the saved default policy selects.
        object.insert("mode".into(), "rerank".into());
    }
    let request = parse_request(&value.to_string()).map_err(|issues| issues_error(&issues))?;
    let ids = |key: &str| -> Result<Option<Vec<String>>> {
        labels
            .get(key)
            .filter(|v| !v.is_null())
            .map(|v| serde_json::from_value(v.clone()).map_err(|e| Error::Invalid(format!("{key}: {e}"))))
            .transpose()
    };
    let labels = RunLabels {
        relevant_ids: ids("relevant_ids")?,
        baseline_ids: ids("baseline_ids")?,
        reference_answer: labels
            .get("reference_answer")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    Ok(Import {
        policy: names_policy.then(|| request.policy()),
        request,
        labels,
    })
}

/// The request's documents as candidates: their id, text, metadata (`source`/`title`/`page`/`section` shown when
/// present), group and pin; ranks are the input order.
pub(crate) fn candidates_of(request: &SelectRequest) -> (Vec<Candidate>, VariantHits) {
    let mut hits = Vec::new();
    let candidates = (request.documents.iter().enumerate())
        .map(|(i, d)| {
            let text_of = |key: &str| d.metadata.get(key).and_then(Value::as_str).map(str::to_string);
            let score = d.metadata.get("score").and_then(Value::as_f64).unwrap_or(0.0) as f32;
            let page = d.metadata.get("page").and_then(Value::as_u64).map_or(0, |p| p as u32);
            let source = text_of("source").unwrap_or_else(|| "imported".into());
            hits.push(VariantHit {
                chunk_id: d.id.clone(),
                rank: i + 1,
                score,
                similarity: None,
                bm25: None,
            });
            Candidate {
                chunk_id: d.id.clone(),
                document_id: source.clone(),
                title: text_of("title").unwrap_or_else(|| source.clone()),
                document: source,
                page_start: page,
                page_end: page,
                char_start: 0,
                char_end: d.text.chars().count() as u32,
                tokens: u32::try_from(cl100k_tokens(&d.text)).unwrap_or(u32::MAX),
                text: d.text.clone(),
                score,
                found_by: vec![Provenance {
                    variant: 0,
                    rank: i + 1,
                    score,
                }],
                metadata: (!d.metadata.is_empty()).then(|| Value::Object(d.metadata.clone()).to_string()),
                group_id: d.group_id.clone(),
                pinned: d.pinned,
                section: section_of(&d.metadata),
            }
        })
        .collect();
    let variant = VariantHits {
        query: request.judged_query().to_string(),
        hits,
    };
    (candidates, variant)
}

/// A document's heading path from its metadata's `section` (a list of headings, as a labelled run's export writes
/// it, or one heading); empty when it has none.
fn section_of(metadata: &Map<String, Value>) -> Vec<String> {
    match metadata.get("section") {
        Some(Value::Array(headings)) => headings.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        Some(Value::String(heading)) if !heading.is_empty() => vec![heading.clone()],
        _ => Vec::new(),
    }
}

/// A JSON file's text, refused above the one JSON limit ([`ragsift_core::read::JSON_MAX_MB`]).
fn read_text(path: &str) -> Result<String> {
    let p = std::path::Path::new(path.trim());
    ragsift_core::read::read_text(p, ragsift_core::read::JSON_MAX_MB)
}

impl Workbench {
    /// Everything a served selection loads on first use, loaded now, so the first request is as fast as the later
    /// ones: the cl100k tokenizer, the judge of `kind` and, for the local judge (which costs nothing per call), one
    /// judged selection of a throwaway request with its embedding model and fitted signals. Jev is never called.
    pub fn warm_served(&self, kind: JudgeKind) -> Result<()> {
        cl100k_tokens("warm");
        let request = parse_request(
            r#"{"query": "Which port does the service listen on?", "mode": "rerank", "documents": [
                {"id": "a", "text": "The service listens on port 8000 unless PORT is set."},
                {"id": "b", "text": "Orders ship within five business days."}]}"#,
        )
        .map_err(|issues| issues_error(&issues))?;
        let local = self.resolve_judge(kind)? == JudgeKind::Local;
        self.with_candidate_judge(kind, &request, |judge| {
            if local {
                let _ = select_with(judge, &request, OnError::Passthrough);
            }
            Ok(())
        })
    }

    /// rag-jev's `select`: the request's documents judged (no cache, as rag-jev) and selected. A judge failure
    /// is the inner error under [`OnError::Raise`], a `bypassed` result under [`OnError::Passthrough`].
    pub fn select_candidates(
        &self,
        request: &SelectRequest,
        kind: JudgeKind,
        on_error: OnError,
    ) -> Result<std::result::Result<SelectionResult, SelectFailure>> {
        self.with_candidate_judge(kind, request, |judge| Ok(select_with(judge, request, on_error)))
    }

    /// Imports another retriever's candidates — rag-jev's select request, or an eval case with its labels — as a
    /// run: judged through the judgment cache, selected with the request's policy (else the saved default),
    /// stored, and not answered (regenerate answers it).
    pub fn import_candidates(&self, json: &str, kind: JudgeKind) -> Result<Trace> {
        let import = parse_import(json)?;
        let (candidates, variant) = candidates_of(&import.request);
        let policy = import.policy.clone().unwrap_or_else(|| self.settings().policy);
        let lib = self.library();
        let mut trace = self.with_candidate_judge(kind, &import.request, |judge| {
            let query = import.request.judged_query();
            let outcome = judge_candidates(lib.store(), judge, query, &candidates, &default_questions(), false)?;
            Trace::imported(
                &import.request.query,
                variant,
                candidates,
                outcome,
                &policy,
                import.labels,
            )
        })?;
        trace.made_by = lib.user();
        trace.cost = trace.estimate_cost(&self.settings().rates);
        trace.save(lib.store())?;
        self.remember(trace.clone());
        Ok(trace)
    }

    /// [`Workbench::import_candidates`] from a JSON file.
    pub fn import_candidates_file(&self, path: &str, kind: JudgeKind) -> Result<Trace> {
        self.import_candidates(&read_text(path)?, kind)
    }

    /// Sets a run's labels (relevant and baseline ids, reference answer); they must name its candidates.
    pub fn set_run_labels(&self, run_id: &str, labels: RunLabels) -> Result<Trace> {
        let mut trace = (*self.run(run_id)?).clone();
        labels.validate(&trace.candidates).map_err(Error::Invalid)?;
        trace.labels = labels;
        trace.save(self.library().store())?;
        self.remember(trace.clone());
        Ok(trace)
    }

    /// A run as a portable, integrity-checked file.
    pub fn export_run(&self, run_id: &str) -> Result<String> {
        portable::export(self.run(run_id)?.as_ref())
    }

    /// Writes a run file to `path` (what the app's Export button does); returns the path.
    pub fn export_run_to(&self, run_id: &str, path: &str) -> Result<String> {
        let file = self.export_run(run_id)? + "\n";
        let p = std::path::Path::new(path);
        ragsift_core::fsx::write_atomic(p, file.as_bytes(), ragsift_core::fsx::Access::Shared)?;
        Ok(path.to_string())
    }

    /// [`Workbench::import_run`] from a file.
    pub fn import_run_file(&self, path: &str) -> Result<RunSummary> {
        self.import_run(read_text(path)?.as_bytes())
    }

    /// Stores a run exported elsewhere, after its checks; importing the same run twice is a no-op, a different run
    /// under an existing id is refused.
    pub fn import_run(&self, bytes: &[u8]) -> Result<RunSummary> {
        let trace = portable::read(bytes)?;
        let store = self.library();
        if let Ok(existing) = Trace::load(store.store(), &trace.run_id) {
            if existing.run_id == trace.run_id && existing != trace {
                return Err(Error::Invalid(format!(
                    "a different run {} is already stored here; not overwritten",
                    trace.run_id
                )));
            }
        }
        trace.save(store.store())?;
        let summary = store
            .store()
            .runs(usize::MAX)?
            .into_iter()
            .find(|r| r.id == trace.run_id)
            .ok_or_else(|| Error::NotFound(format!("run {} after import", trace.run_id)))?;
        Ok(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run stored (or exported) before notes existed carried a rule skipped as not assessed as a `not_applied`
    /// warning about the rule's question; read back, it is a note, and the run's other warnings stay.
    #[test]
    fn an_old_runs_skipped_rule_warning_reads_as_a_note() {
        use ragsift_pipeline::synthetic::{judged_run, SyntheticRun};
        use ragsift_policy::{NoteKind, WarningKind};

        let home = tempfile::tempdir().unwrap();
        let wb = Workbench::open(Some(home.path())).unwrap();
        let made = judged_run(4, &SyntheticRun::default()).unwrap();
        let mut old = serde_json::to_value(&made).unwrap();
        let selection = &mut old["selection"];
        selection["decisions"][1]["skipped_rules"] = serde_json::json!(["contradicts_query_premise"]);
        selection["decisions"][3]["skipped_rules"] = serde_json::json!(["contradicts_query_premise"]);
        let warning = |kind: &str, subject: &str, message: &str| serde_json::json!({"kind": kind, "subject": subject, "message": message});
        selection["warnings"] = serde_json::json!([
            warning("not_applied", "shadow", "shadow mode: the original context is sent"),
            warning(
                "not_applied",
                "contradicts_query_premise",
                "the `contradicts_query_premise` rule was skipped: the judge does not assess it"
            ),
            warning("flat_scores", "is_relevant", "is_relevant barely varies"),
        ]);
        selection.as_object_mut().unwrap().remove("notes");
        let old_trace: Trace = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(
            old_trace.selection.warnings.len(),
            3,
            "as stored, the skipped rule is a warning"
        );
        assert!(old_trace.selection.notes.is_empty());

        let read_as_today = |t: &Trace| {
            let kinds: Vec<_> = t
                .selection
                .warnings
                .iter()
                .map(|w| (w.kind, w.subject.as_str()))
                .collect();
            assert_eq!(
                kinds,
                [
                    (WarningKind::NotApplied, "shadow"),
                    (WarningKind::FlatScores, "is_relevant")
                ],
                "the other warnings stay, in order"
            );
            let notes: Vec<_> = t.selection.notes.iter().map(|n| (n.kind, n.subject.as_str())).collect();
            assert_eq!(notes, [(NoteKind::RuleNotAssessed, "contradicts_query_premise")]);
            assert!(t.selection.notes[0].message.contains("does not assess"));
        };

        // A run in the runs table, as an older ragsift stored it.
        let summary = RunSummary {
            id: made.run_id.clone(),
            created_at: made.created_at,
            query: made.query.clone(),
            judge: made.judge.judge.clone(),
            prompt_version: made.judge.prompt_version.clone(),
            made_by: made.made_by.clone(),
            origin: made.origin,
        };
        let store = wb.library();
        store
            .store()
            .put_run(&summary, &made.fingerprint, &old.to_string())
            .unwrap();
        let loaded = wb.run(&made.run_id).unwrap();
        read_as_today(&loaded);
        loaded.replay(&loaded.policy, None).unwrap();

        // A run file exported by an older ragsift: read as today's, and importing it over the same stored run is
        // the same run (not "a different run").
        let file = portable::export(&old_trace).unwrap();
        read_as_today(&portable::read(file.as_bytes()).unwrap());
        assert_eq!(wb.import_run(file.as_bytes()).unwrap().id, made.run_id);

        // Moving is idempotent, and a selection made today is unchanged.
        let mut again = loaded.selection.clone();
        again.move_skipped_rule_warnings_to_notes();
        assert_eq!(again, loaded.selection);
    }

    /// A labelled run's export writes the heading path as a list; another retriever may give one heading.
    #[test]
    fn an_imported_documents_section_is_read_from_its_metadata() {
        let section = |v: Value| section_of(&Map::from_iter([("section".to_string(), v)]));
        assert_eq!(
            section(serde_json::json!(["3 Method", "3.2 Training"])),
            ["3 Method", "3.2 Training"]
        );
        assert_eq!(section(serde_json::json!("Warranty")), ["Warranty"]);
        assert!(section(serde_json::json!("")).is_empty());
        assert!(section(serde_json::json!(3)).is_empty());
        assert!(section_of(&Map::new()).is_empty());
    }
}

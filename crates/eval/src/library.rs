//! Library-backed eval cases: a case without `documents` gets its candidates from the library (the query's
//! retrieval, in rank order); its `relevant_ids` may name chunk ids or documents (file name or path), which are
//! resolved to the retrieved chunks. The result is an ordinary rag-jev case, fingerprinted on what was retrieved.

use super::{EvalCase, EvalError};
use ragsift_interfaces::retrieve::{Retriever, SearchRequest};
use serde_json::{json, Value};
use std::path::Path;

/// Reads an eval-cases file in which cases may omit `documents`; those retrieve `top_k` chunks with `retriever`.
pub fn load_cases_from_library(
    path: impl AsRef<Path>,
    retriever: &dyn Retriever,
    top_k: usize,
) -> Result<Vec<EvalCase>, EvalError> {
    let path = path.as_ref();
    let bad = |message: String| EvalError::Format {
        path: path.to_path_buf(),
        message,
    };
    let items = super::ragjev::read_list(path, "cases")?;
    let mut cases = Vec::with_capacity(items.len());
    for mut item in items {
        let mut lost = false;
        if item
            .get("documents")
            .is_none_or(|d| d.as_array().is_some_and(|a| a.is_empty()))
        {
            lost = materialize(&mut item, retriever, top_k).map_err(&bad)?;
        }
        let mut case: EvalCase = serde_json::from_value(item).map_err(|e| bad(format!("case: {e}")))?;
        case.evidence_lost = lost;
        case.validate().map_err(|e| bad(format!("case `{}`: {e}", case.id)))?;
        cases.push(case);
    }
    Ok(cases)
}

/// Fills `documents` from the library and resolves `relevant_ids` to the retrieved chunk ids. Returns whether the
/// case named evidence of which retrieval returned none (lost evidence, not an unanswerable case).
fn materialize(item: &mut Value, retriever: &dyn Retriever, top_k: usize) -> Result<bool, String> {
    let id = item["id"].as_str().unwrap_or("?").to_string();
    let query = item["query"]
        .as_str()
        .ok_or_else(|| format!("case `{id}`: no query"))?
        .to_string();
    let wanted: Vec<String> = item["relevant_ids"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
        .unwrap_or_default();
    let hits = retriever
        .retrieve(&SearchRequest {
            top_k,
            ..SearchRequest::new(query)
        })
        .map_err(|e| format!("case `{id}`: retrieval failed: {e}"))?;
    let names = |path: &str| -> [String; 2] {
        let file = Path::new(path)
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        [path.to_string(), file]
    };
    let relevant: Vec<String> = hits
        .iter()
        .filter(|h| wanted.contains(&h.chunk.id) || names(&h.chunk.document_path).iter().any(|n| wanted.contains(n)))
        .map(|h| h.chunk.id.clone())
        .collect();
    item["documents"] = Value::Array(
        hits.iter()
            .map(|h| {
                let mut metadata = json!({"document": h.chunk.document_path, "page_start": h.chunk.page_start,
                    "page_end": h.chunk.page_end});
                // The heading path, when the chunk has one (an import reads it back for grouping by section).
                if !h.chunk.section.is_empty() {
                    metadata["section"] = json!(h.chunk.section);
                }
                json!({"id": h.chunk.id, "text": h.chunk.text, "metadata": metadata})
            })
            .collect(),
    );
    let lost = !wanted.is_empty() && relevant.is_empty();
    item["relevant_ids"] = json!(relevant);
    Ok(lost)
}

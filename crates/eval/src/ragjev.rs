//! rag-jev's evaluation files, read as rag-jev writes them, and its input fingerprint.
//!
//! Shapes follow rag-jev's pydantic models (`extra="forbid"`, so unknown fields are refused here too):
//! `Document` and `Judgment`/`Usage` in `src/rag_jev/models.py` @bd5d14ff, `EvalCase`, `Trace` (here
//! [`RagJevTrace`], not to be confused with the pipeline's `Trace`) and `fingerprint` in
//! `src/rag_jev/evaluation.py` @fa73e740. `rag-jev eval` reads both files as JSON arrays and
//! `--save-traces` writes an array; an object holding the array under `cases` / `traces` is accepted as well.
//!
//! The fingerprint is the sha256 hex of Python's `json.dumps(value, sort_keys=True)` where `value` is
//! `{"query", "documents", "retrieval_query" (only when set)}` and each document is pydantic's `model_dump()`:
//! `id`, `text`, `metadata` (`{}` when absent) and, unless `group_id` is null and `pinned` false, both
//! `group_id` and `pinned`. Labels (`relevant_ids`, `reference_answer`, `baseline_ids`, `family_id`) and
//! `relevance_guidance` are not part of it. [`python_json_dumps`] reproduces the default `json.dumps` output
//! (separators `", "` and `": "`, `ensure_ascii=True`, Python's float `repr`) for what serde_json can represent;
//! integers beyond 64 bits, `-0` and out-of-range floats such as `1e400` are read differently by Python, so a
//! case holding them in metadata is refused as mismatched rather than silently accepted.

use std::collections::HashSet;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::EvalError;

/// rag-jev's `PROMPT_VERSION`, expected on traces scored independently (one request per passage).
pub const PROMPT_VERSION: &str = "useful-evidence-v1";
/// rag-jev's `CONTEXTUAL_PROMPT_VERSION`, expected on traces scored with `scoring_strategy: "contextual"`.
pub const CONTEXTUAL_PROMPT_VERSION: &str = "contextual-evidence-v1";

/// A retrieved candidate passage.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    #[serde(default)]
    pub group_id: Option<String>,
    #[serde(default)]
    pub pinned: bool,
}

/// One labelled query with its retrieved candidates, in retrieval order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    pub id: String,
    pub query: String,
    pub documents: Vec<Document>,
    /// Candidates that contain useful evidence; empty for an unanswerable query.
    pub relevant_ids: Vec<String>,
    #[serde(default)]
    pub reference_answer: Option<String>,
    /// An explicit baseline context; without it the baseline is the first `top_n` candidates.
    #[serde(default)]
    pub baseline_ids: Option<Vec<String>>,
    /// The query the passages were scored against, when it differs from `query`.
    #[serde(default)]
    pub retrieval_query: Option<String>,
    #[serde(default)]
    pub family_id: Option<String>,
    /// The case names evidence that retrieval did not return (library cases): it is answerable, so its loss
    /// counts as `all_evidence_lost` and an empty selection is not "correctly empty". Not part of rag-jev's
    /// format (never read or written, not fingerprinted).
    #[serde(skip)]
    pub evidence_lost: bool,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum ScoringStrategy {
    #[default]
    Independent,
    Contextual,
}

/// Token usage; on a trace only for contextual scoring, where one request judged all passages.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub completed_documents: u64,
    #[serde(default = "yes")]
    pub complete: bool,
}

fn yes() -> bool {
    true
}

/// Jev's judgment of one passage: `relevance` is the probability that it is useful evidence.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct RagJevJudgment {
    pub relevance: f64,
    pub model: String,
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
}

/// Saved judgments for one case: one per document, in the case's document order. No passage text.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct RagJevTrace {
    pub case_id: String,
    /// [`fingerprint`] of the case when it was scored.
    pub input_hash: String,
    #[serde(default = "default_prompt_version")]
    pub prompt_version: String,
    #[serde(default)]
    pub relevance_guidance: Option<String>,
    pub judgments: Vec<RagJevJudgment>,
    pub elapsed_ms: f64,
    #[serde(default = "default_source")]
    pub source: String,
    #[serde(default)]
    pub scoring_strategy: ScoringStrategy,
    #[serde(default)]
    pub scoring_usage: Option<Usage>,
}

fn default_prompt_version() -> String {
    PROMPT_VERSION.to_string()
}

fn default_source() -> String {
    "live".to_string()
}

impl EvalCase {
    /// rag-jev's case checks: valid request (non-blank query, unique non-blank document ids and texts), labels
    /// and baseline ids unique and among the candidates, a non-blank `retrieval_query` when given. rag-jev's size
    /// limits (256 documents, 60,000 characters a passage, …) are not enforced here.
    pub fn validate(&self) -> Result<(), String> {
        if self.query.trim().is_empty() {
            return Err("query must contain non-whitespace text".into());
        }
        let mut ids = HashSet::new();
        for d in &self.documents {
            if d.id.trim().is_empty() || d.text.trim().is_empty() {
                return Err("document ids and texts must contain non-whitespace text".into());
            }
            if d.group_id.as_deref() == Some("") {
                return Err(format!("document `{}` has an empty group_id", d.id));
            }
            if !ids.insert(d.id.as_str()) {
                return Err(format!("document id `{}` appears twice", d.id));
            }
        }
        let labelled = [
            ("relevant_ids", Some(&self.relevant_ids)),
            ("baseline_ids", self.baseline_ids.as_ref()),
        ];
        for (name, list) in labelled {
            let list = list.map_or(&[][..], Vec::as_slice);
            if let Some(bad) = list.iter().find(|id| !ids.contains(id.as_str())) {
                return Err(format!("{name} names `{bad}`, which is not a candidate document"));
            }
            if list.iter().collect::<HashSet<_>>().len() != list.len() {
                return Err(format!("{name} must be unique"));
            }
        }
        if self.retrieval_query.as_ref().is_some_and(|q| q.trim().is_empty()) {
            return Err("retrieval_query cannot be blank".into());
        }
        Ok(())
    }
}

impl ScoringStrategy {
    /// The Jev request that scores this way: rag-jev's own, per passage or contextual.
    pub fn jev_request(self) -> ragsift_judge::JevRequest {
        match self {
            ScoringStrategy::Independent => ragsift_judge::JevRequest::RagJev,
            ScoringStrategy::Contextual => ragsift_judge::JevRequest::Contextual,
        }
    }
}

/// Whether `version` is one of rag-jev's prompt versions (then it must match the trace's scoring strategy).
pub fn is_rag_jev_version(version: &str) -> bool {
    version == PROMPT_VERSION || version == CONTEXTUAL_PROMPT_VERSION
}

/// Traces as rag-jev's JSON, refusing a set whose judgments were made with different prompt versions (one judge's
/// answers are never passed off as another's).
pub fn traces_json(traces: &[RagJevTrace]) -> Result<String, EvalError> {
    if let Some(first) = traces.first() {
        if let Some(other) = traces.iter().find(|t| t.prompt_version != first.prompt_version) {
            return Err(EvalError::Invalid(format!(
                "traces mix prompt versions `{}` and `{}`: write each judge's traces to its own file",
                first.prompt_version, other.prompt_version
            )));
        }
    }
    serde_json::to_string_pretty(traces).map_err(|e| EvalError::Invalid(e.to_string()))
}

impl RagJevTrace {
    /// The prompt version rag-jev expects for this trace's scoring strategy.
    pub fn expected_prompt_version(&self) -> &'static str {
        match self.scoring_strategy {
            ScoringStrategy::Independent => PROMPT_VERSION,
            ScoringStrategy::Contextual => CONTEXTUAL_PROMPT_VERSION,
        }
    }

    /// rag-jev's trace checks: probabilities in [0, 1], named models, a non-negative time, and shared usage
    /// exactly when scoring was contextual (complete, covering every judgment).
    pub fn validate(&self) -> Result<(), String> {
        if let Some(j) = self.judgments.iter().find(|j| !(0.0..=1.0).contains(&j.relevance)) {
            return Err(format!("relevance {} is outside [0, 1]", j.relevance));
        }
        if self.judgments.iter().any(|j| j.model.is_empty()) {
            return Err("every judgment needs a model name".into());
        }
        if !(self.elapsed_ms >= 0.0 && self.elapsed_ms.is_finite()) {
            return Err(format!(
                "elapsed_ms must be a non-negative number, got {}",
                self.elapsed_ms
            ));
        }
        match (self.scoring_strategy, &self.scoring_usage) {
            (ScoringStrategy::Contextual, Some(u))
                if u.complete && u.completed_documents == self.judgments.len() as u64 =>
            {
                Ok(())
            }
            (ScoringStrategy::Contextual, _) => Err("contextual trace requires complete shared usage".into()),
            (ScoringStrategy::Independent, Some(_)) => Err("independent trace uses per-passage usage".into()),
            (ScoringStrategy::Independent, None) => Ok(()),
        }
    }
}

/// rag-jev's input fingerprint of a case; see the module docs for exactly what it covers.
pub fn fingerprint(case: &EvalCase) -> String {
    let documents = case.documents.iter().map(|d| {
        let mut m = Map::new();
        m.insert("id".into(), Value::from(d.id.as_str()));
        m.insert("text".into(), Value::from(d.text.as_str()));
        m.insert("metadata".into(), Value::Object(d.metadata.clone()));
        if d.group_id.is_some() || d.pinned {
            m.insert(
                "group_id".into(),
                d.group_id.as_deref().map_or(Value::Null, Value::from),
            );
            m.insert("pinned".into(), Value::Bool(d.pinned));
        }
        Value::Object(m)
    });
    let mut value = Map::new();
    value.insert("query".into(), Value::from(case.query.as_str()));
    value.insert("documents".into(), Value::Array(documents.collect()));
    if let Some(q) = &case.retrieval_query {
        value.insert("retrieval_query".into(), Value::from(q.as_str()));
    }
    hex::encode(Sha256::digest(python_json_dumps(&Value::Object(value)).as_bytes()))
}

pub use ragsift_policy::{python_float_repr, python_json_dumps};

/// Reads a JSON array of `T` (or an object holding it under `key`), naming the file and item on failure.
pub(super) fn load_list<T: DeserializeOwned>(path: &Path, key: &str) -> Result<Vec<T>, EvalError> {
    let singular = key.trim_end_matches('s');
    read_list(path, key)?
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item).map_err(|e| EvalError::Format {
                path: path.to_path_buf(),
                message: format!("{singular} #{}: {e}", i + 1),
            })
        })
        .collect()
}

/// The items of a JSON array file (or of the array under `key` in an object), as raw JSON values.
pub(super) fn read_list(path: &Path, key: &str) -> Result<Vec<Value>, EvalError> {
    let bad = |message: String| EvalError::Format {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(mut map) => match map.remove(key) {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(bad(format!("expected a JSON array, or an object with a `{key}` array"))),
        },
        _ => Err(bad(format!("expected a JSON array of {key}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Value {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn float_repr_matches_python() {
        // Left: the f64; right: Python 3.11's repr of the same value.
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1e22, "1e+22"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (1234567890123456.7, "1234567890123456.8"),
            (0.0001, "0.0001"),
            (0.000123, "0.000123"),
            (1e-5, "1e-05"),
            (2.5e-7, "2.5e-07"),
            (1.5e300, "1.5e+300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
            (-123456789.123, "-123456789.123"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(x, want) in cases {
            assert_eq!(python_float_repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn strings_are_ascii_escaped_like_python() {
        let dumps = |s: &str| python_json_dumps(&Value::from(s));
        assert_eq!(
            dumps("plain / text ~"),
            r#""plain / text ~""#,
            "`/` and `~` stay as they are"
        );
        assert_eq!(dumps("q\"b\\"), r#""q\"b\\""#);
        assert_eq!(dumps("\t\n\r\u{8}\u{c}"), r#""\t\n\r\b\f""#);
        assert_eq!(
            dumps("\u{0}\u{1f}\u{7f}"),
            r#""\u0000\u001f\u007f""#,
            "controls and DEL, lowercase hex"
        );
        assert_eq!(dumps("café €"), r#""caf\u00e9 \u20ac""#);
        assert_eq!(
            dumps("𝄞\u{10ffff}"),
            r#""\ud834\udd1e\udbff\udfff""#,
            "surrogate pairs beyond the BMP"
        );
    }

    #[test]
    fn separators_and_sorted_keys_like_python() {
        let v = parse(r#"{"b": [1, {"y": null, "x": true}], "a": {}, "é": [], "Z": false, "n": -3}"#);
        assert_eq!(
            python_json_dumps(&v),
            r#"{"Z": false, "a": {}, "b": [1, {"x": true, "y": null}], "n": -3, "\u00e9": []}"#
        );
    }

    /// A fixed vector checked against the real thing on this machine:
    /// `python3 -c 'import json,hashlib; s=json.dumps(json.load(open("vec.json")), sort_keys=True);
    /// print(s); print(hashlib.sha256(s.encode()).hexdigest())'` with `VECTOR` as `vec.json` (Python 3.11.7).
    #[test]
    fn fixed_vector_matches_python_json_dumps() {
        const VECTOR: &str = r#"{"z": [1.0, -0.0, 0.1, 1e16, 1e15, 1e-05, 0.0001, 1.5e300, 123456789.123, 2.5e-7,
            0.30000000000000004, 100.0, 5e-324],
          "a": {"ä": "café ☕ 𝄞", "Z": "tab\tnl\nret\rbs\bff\fq\"back\\slash/ del\u007f c\u0001\u001f", "é": null},
          "ints": [0, -17, 9007199254740993, 18446744073709551615, -9223372036854775808],
          "misc": [true, false, null, [], {}, "", "\u2028\uffff\udbff\udfff"]}"#;
        const PYTHON: &str = concat!(
            r#"{"a": {"Z": "tab\tnl\nret\rbs\bff\fq\"back\\slash/ del\u007f c\u0001\u001f", "#,
            r#""\u00e4": "caf\u00e9 \u2615 \ud834\udd1e", "\u00e9": null}, "#,
            r#""ints": [0, -17, 9007199254740993, 18446744073709551615, -9223372036854775808], "#,
            r#""misc": [true, false, null, [], {}, "", "\u2028\uffff\udbff\udfff"], "#,
            r#""z": [1.0, -0.0, 0.1, 1e+16, 1000000000000000.0, 1e-05, 0.0001, 1.5e+300, 123456789.123, 2.5e-07, "#,
            r#"0.30000000000000004, 100.0, 5e-324]}"#
        );
        let dumped = python_json_dumps(&parse(VECTOR));
        assert_eq!(dumped, PYTHON);
        assert_eq!(
            hex::encode(Sha256::digest(dumped.as_bytes())),
            "876a0aad70fc5c7ea9c2e7feb5f591396230811d4da77505c8bac08acb85f422"
        );
    }

    #[test]
    fn fingerprint_covers_inputs_not_labels() {
        let case = |json: &str| -> EvalCase { serde_json::from_value(parse(json)).unwrap() };
        let base = case(r#"{"id": "c", "query": "q?", "documents": [{"id": "d", "text": "t"}], "relevant_ids": []}"#);
        // Python: hashlib.sha256(json.dumps({"query": "q?", "documents": [{"id": "d", "text": "t",
        //   "metadata": {}}]}, sort_keys=True).encode()).hexdigest(); model_dump always includes metadata.
        let dumped = r#"{"documents": [{"id": "d", "metadata": {}, "text": "t"}], "query": "q?"}"#;
        assert_eq!(fingerprint(&base), hex::encode(Sha256::digest(dumped)));
        assert_eq!(
            fingerprint(&base),
            "32f0ec856a0a00d73c7a752c24518202713361f78c7f5ac20581d16d754536dd"
        );

        // Labels, the reference answer and ids outside the documents leave it unchanged …
        let mut labelled = base.clone();
        (labelled.id, labelled.reference_answer, labelled.family_id) = ("x".into(), Some("a".into()), Some("f".into()));
        labelled.relevant_ids = vec!["d".into()];
        labelled.baseline_ids = Some(vec!["d".into()]);
        assert_eq!(fingerprint(&labelled), fingerprint(&base));
        // … explicit defaults too (`"group_id": null, "pinned": false, "metadata": {}` dump like absent fields) …
        let explicit = r#"[{"id": "d", "text": "t", "metadata": {}, "group_id": null, "pinned": false}]"#;
        let explicit = case(&format!(
            r#"{{"id": "c", "query": "q?", "documents": {explicit}, "relevant_ids": []}}"#
        ));
        assert_eq!(fingerprint(&explicit), fingerprint(&base));
        // … while every input changes it; pinning alone dumps both fields, `group_id` as null.
        let mut pinned = base.clone();
        pinned.documents[0].pinned = true;
        let dumped = concat!(
            r#"{"documents": [{"group_id": null, "id": "d", "metadata": {}, "pinned": true, "text": "t"}], "#,
            r#""query": "q?"}"#
        );
        assert_eq!(fingerprint(&pinned), hex::encode(Sha256::digest(dumped)));
        let mut rewritten = base.clone();
        rewritten.retrieval_query = Some("q2".into());
        let dumped =
            r#"{"documents": [{"id": "d", "metadata": {}, "text": "t"}], "query": "q?", "retrieval_query": "q2"}"#;
        assert_eq!(fingerprint(&rewritten), hex::encode(Sha256::digest(dumped)));
        let mut meta = base.clone();
        meta.documents[0].metadata.insert("page".into(), Value::from(2));
        assert_ne!(fingerprint(&meta), fingerprint(&base));
    }
}

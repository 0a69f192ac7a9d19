//! rag-jev's split checks (`validate_splits`): two separate sets of questions, so that what is chosen on one is
//! assessed on questions it has never seen.

use std::collections::{BTreeSet, HashMap};

use crate::{EvalCase, EvalError};

/// A question as rag-jev compares them: Python's `re.sub(r"\W+", " ", query.casefold()).strip()`. Case folding
/// is lower-casing plus the full folds Python applies beyond it (`ß` → `ss`, final `ς` → `σ`, the Latin `ﬁ`-style
/// ligatures, the Greek symbol variants); a word character is a letter, a digit or `_` (Rust's alphanumeric, which
/// differs from Python's `isalnum` only for a few combining marks of Indic scripts).
pub fn ragjev_question_key(query: &str) -> String {
    let mut folded = String::with_capacity(query.len());
    for c in query.chars() {
        match c {
            'ß' | 'ẞ' => folded.push_str("ss"),
            'ſ' => folded.push('s'),
            'ς' => folded.push('σ'),
            'µ' => folded.push('μ'),
            'ϐ' => folded.push('β'),
            'ϑ' => folded.push('θ'),
            'ϕ' => folded.push('φ'),
            'ϖ' => folded.push('π'),
            'ϰ' => folded.push('κ'),
            'ϱ' => folded.push('ρ'),
            'ϵ' => folded.push('ε'),
            '\u{345}' => folded.push('ι'),
            'ŉ' => folded.push_str("ʼn"),
            'ﬀ' => folded.push_str("ff"),
            'ﬁ' => folded.push_str("fi"),
            'ﬂ' => folded.push_str("fl"),
            'ﬃ' => folded.push_str("ffi"),
            'ﬄ' => folded.push_str("ffl"),
            'ﬅ' | 'ﬆ' => folded.push_str("st"),
            _ => folded.extend(c.to_lowercase()),
        }
    }
    let mut out = String::with_capacity(folded.len());
    let mut gap = false;
    for c in folded.chars() {
        if c.is_alphanumeric() || c == '_' {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    out
}

/// rag-jev's checks before calibrating, in its order: at least two questions per split; across both splits
/// together, unique case ids and unique non-empty [`ragjev_question_key`]s (a question repeated within one split
/// is refused too, as rag-jev does); no non-empty `family_id` in both splits; and at least one development case with
/// labelled relevant evidence (otherwise recall cannot be calibrated).
pub fn check_split(development: &[EvalCase], evaluation: &[EvalCase]) -> Result<(), EvalError> {
    let invalid = |m: String| Err(EvalError::Invalid(m));
    if development.len() < 2 || evaluation.len() < 2 {
        return invalid(format!(
            "each split needs at least two questions (development has {}, evaluation {})",
            development.len(),
            evaluation.len()
        ));
    }
    let mut ids: HashMap<&str, &str> = HashMap::new();
    let mut questions: HashMap<String, &str> = HashMap::new();
    let labelled = (development.iter().map(|c| ("development", c))).chain(evaluation.iter().map(|c| ("evaluation", c)));
    for (split, case) in labelled {
        let question = ragjev_question_key(&case.query);
        if question.is_empty() {
            return invalid(format!(
                "{split} case `{}` has no words in its question once normalised",
                case.id
            ));
        }
        if let Some(first) = ids.insert(&case.id, split) {
            return invalid(format!(
                "duplicate case id `{}` (in {first} and {split}): case ids must be unique across calibration inputs",
                case.id
            ));
        }
        if let Some(first) = questions.insert(question.clone(), &case.id) {
            return invalid(format!(
                "cases `{first}` and `{}` ask the same normalised question \"{question}\": duplicate questions \
                 are refused across and within the splits",
                case.id
            ));
        }
    }
    let families = |cases: &[EvalCase]| -> BTreeSet<String> {
        cases
            .iter()
            .filter_map(|c| c.family_id.clone())
            .filter(|f| !f.is_empty())
            .collect()
    };
    let shared: Vec<String> = families(development)
        .intersection(&families(evaluation))
        .cloned()
        .collect();
    if !shared.is_empty() {
        return invalid(format!(
            "related question families cross the development/evaluation split: {}",
            shared.join(", ")
        ));
    }
    if development.iter().all(|c| c.relevant_ids.is_empty()) {
        return invalid("development requires labelled relevant evidence for recall calibration".into());
    }
    Ok(())
}

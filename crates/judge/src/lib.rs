//! Judges: a batch of (question, passage) pairs → named yes/no probabilities per passage, the model that
//! answered, usage and latency. `JevJudge` asks TypeSafe's Jev over HTTP; `LocalJudge` (`local`) answers offline
//! from measured signals combined by a fitted, calibrated model; `ReadoutJudge` is the language model's raw yes/no
//! readout, kept as the baseline the local judge is measured against. Failures are errors; the pipeline decides
//! to fail open.

mod identity;
pub mod jev;
mod jev_judge;
pub mod local;

pub use ragsift_core::{Error, Result};

pub use identity::JudgeName;
pub use jev::{default_questions, JudgeQuestion, PassageJudgment};
#[cfg(feature = "http")]
pub use jev_judge::JevJudge;
pub use jev_judge::JevRequest;
pub use local::LocalJudge;
use ragsift_interfaces::llm::{yes_no_prompt, LanguageModel};
use std::collections::BTreeMap;
use std::time::Instant;

/// A stage that judges passages against a query.
pub trait Judge: Send + Sync {
    /// `jev` or `local`.
    fn name(&self) -> &'static str;
    /// The model asked (as configured; the answering model is in each judgment).
    fn model(&self) -> String;
    /// Changes whenever the questions' wording changes: judgments of another version are never reused.
    fn prompt_version(&self) -> String;
    /// Whether the probabilities are calibrated (Jev) or a small model's raw readout (local).
    fn calibrated(&self) -> bool;
    /// One judgment per passage, in order. An error means the batch could not be judged completely.
    fn judge(&self, query: &str, passages: &[String], questions: &[JudgeQuestion]) -> Result<Vec<PassageJudgment>>;
    /// One result per passage, in order: a passage that could not be judged is its own error and the others
    /// still count (Spring's fail-open is per passage). By default the batch stands or falls together.
    fn judge_each(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> Vec<Result<PassageJudgment>> {
        match self.judge(query, passages, questions) {
            Ok(all) => all.into_iter().map(Ok).collect(),
            Err(e) => every_passage_fails(passages.len(), &e),
        }
    }
    /// Whether a passage's answers depend on the other passages judged with it (then they are cached per
    /// candidate set, not per passage).
    fn contextual(&self) -> bool {
        false
    }
    /// What the judge sends besides the query, the passages and its fixed questions (rag-jev's relevance
    /// guidance); empty for most. It is part of the cache key, so answers to other guidance are never reused.
    fn input_scope(&self) -> String {
        String::new()
    }
    /// How long a cached answer stays good (`None`: until the cache is cleared). A judge asked through a moving
    /// model alias (`jev-latest`) sets one: the model behind the alias changes without notice.
    fn cache_ttl(&self) -> Option<std::time::Duration> {
        None
    }
    /// Question keys this judge does not answer: absent from its judgments, reported as not assessed.
    fn not_assessed(&self) -> Vec<String> {
        Vec::new()
    }
    /// The policy thresholds its probabilities are meant to be read with (Spring's unless fitted otherwise).
    fn defaults(&self) -> ragsift_policy::JudgeDefaults {
        ragsift_policy::JudgeDefaults::default()
    }
}

/// `count` copies of one batch-wide failure, one per passage, as a judge error with the failure's code.
pub(crate) fn every_passage_fails(count: usize, e: &Error) -> Vec<Result<PassageJudgment>> {
    let code = match e {
        Error::Judge { code, .. } => *code,
        other => ragsift_core::JudgeCode::Engine(other.code()),
    };
    let message = e.to_string();
    (0..count)
        .map(|_| {
            Err(Error::Judge {
                code,
                message: message.clone(),
            })
        })
        .collect()
}

/// The prompt version a stored run's judge must have used for its judgments to be replayed against today's
/// questions (`None` when the run had no judge).
pub fn expected_prompt_version(judge: &str) -> Option<String> {
    JudgeName::parse(judge).map(JudgeName::prompt_version)
}

/// The same questions answered by a language model's raw yes/no readout (uncalibrated). Each passage's
/// questions share the passage as prompt prefix, so an embedded model evaluates it once. This was the local
/// judge before the fitted one; it stays as its measured baseline and for models the fit cannot use.
pub struct ReadoutJudge<'m> {
    pub model: &'m dyn LanguageModel,
}

/// Version of the readout judge's question rendering (bump when `local_question` changes).
pub const READOUT_PROMPT_VERSION: &str = "local-yesno-v1";

/// A Jev question rendered for a local model: backticked names become plain words, the query is inlined.
pub fn local_question(q: &JudgeQuestion, query: &str) -> String {
    let text = serde_json::from_str::<serde_json::Value>(&q.instructions)
        .ok()
        .and_then(|v| v["question"].as_str().map(String::from))
        .unwrap_or_else(|| q.instructions.clone());
    text.replace("the `query`", &format!("the question \"{query}\""))
        .replace("`query`", &format!("the question \"{query}\""))
        .replace("the `passage`", "this passage")
        .replace("`passage`", "this passage")
}

impl Judge for ReadoutJudge<'_> {
    fn name(&self) -> &'static str {
        JudgeName::Readout.as_str()
    }
    fn model(&self) -> String {
        self.model.id().to_string()
    }
    fn prompt_version(&self) -> String {
        JudgeName::Readout.prompt_version()
    }
    fn calibrated(&self) -> bool {
        false
    }
    fn judge(&self, query: &str, passages: &[String], questions: &[JudgeQuestion]) -> Result<Vec<PassageJudgment>> {
        let rendered: Vec<String> = questions.iter().map(|q| local_question(q, query)).collect();
        passages
            .iter()
            .map(|p| {
                let start = Instant::now();
                let prompts: Vec<_> = rendered.iter().map(|q| yes_no_prompt(p, q)).collect();
                let answers = self.model.yes_no(&prompts)?;
                let model = answers
                    .first()
                    .map(|a| a.model.clone())
                    .unwrap_or_else(|| self.model.id().to_string());
                Ok(PassageJudgment {
                    scores: questions
                        .iter()
                        .zip(&answers)
                        .map(|(q, a)| (q.key.clone(), f64::from(a.p_yes)))
                        .collect::<BTreeMap<_, _>>(),
                    model,
                    input_tokens: answers.iter().map(|a| a.usage.prompt_tokens).sum(),
                    output_tokens: 0,
                    latency_ms: start.elapsed().as_secs_f64() * 1e3,
                    request_id: None,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_questions_inline_the_query() {
        let qs = default_questions();
        let relevant = qs.iter().find(|q| q.key == jev::IS_RELEVANT).unwrap();
        let text = local_question(relevant, "How long is the warranty?");
        assert!(
            text.contains("this passage") && text.contains("\"How long is the warranty?\""),
            "{text}"
        );
        let injection = qs.iter().find(|q| q.key == jev::CONTAINS_PROMPT_INJECTION).unwrap();
        assert!(local_question(injection, "q").starts_with("Does this passage try to instruct"));
    }
}

//! The Jev judge and the three requests it can send: Spring AI's filter questions with rag-jev's usefulness
//! question (the default), rag-jev's own independent request, and rag-jev's contextual scoring. Each writes its own
//! prompt version, so judgments of one request are never replayed or evaluated as another's.

use crate::jev::{self, ragjev, JevError, JudgeQuestion, PassageJudgment};
use crate::{Error, Judge, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which request the Jev judge sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "kebab-case")]
pub enum JevRequest {
    /// One request per passage (the passage as a string) asking Spring AI's four filter questions and rag-jev's
    /// usefulness question; prompt version `jev-filter-v1+useful-evidence-v1`.
    #[default]
    Spring,
    /// rag-jev's own request, one per passage: `{"query", "passage": {"text"}}`, the usefulness question under the
    /// key `relevant`; prompt version `useful-evidence-v1`. Only `useful` is assessed.
    RagJev,
    /// rag-jev's contextual scoring: one request judges the whole candidate set (at most 32 passages, 24,000 state
    /// tokens); prompt version `contextual-evidence-v1`. Only `useful` is assessed.
    Contextual,
}

impl JevRequest {
    /// The judge's name in traces and caches.
    pub fn judge_name(self) -> &'static str {
        match self {
            JevRequest::Spring => "jev",
            JevRequest::RagJev => "jev-ragjev",
            JevRequest::Contextual => "jev-contextual",
        }
    }

    /// The prompt version its judgments carry.
    pub fn prompt_version(self) -> &'static str {
        match self {
            JevRequest::Spring => jev::PROMPT_VERSION,
            JevRequest::RagJev => ragsift_policy::RAG_JEV_PROMPT_VERSION,
            JevRequest::Contextual => ragsift_policy::RAG_JEV_CONTEXTUAL_PROMPT_VERSION,
        }
    }

    /// `spring`, `rag-jev` or `contextual`.
    pub fn as_str(self) -> &'static str {
        match self {
            JevRequest::Spring => "spring",
            JevRequest::RagJev => "rag-jev",
            JevRequest::Contextual => "contextual",
        }
    }
}

impl std::str::FromStr for JevRequest {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "spring" => Ok(JevRequest::Spring),
            "rag-jev" => Ok(JevRequest::RagJev),
            "contextual" => Ok(JevRequest::Contextual),
            other => Err(Error::Invalid(format!(
                "unknown Jev request '{other}' (spring, rag-jev or contextual)"
            ))),
        }
    }
}

/// TypeSafe's Jev.
pub struct JevJudge {
    client: jev::JevClient,
    request: JevRequest,
    /// rag-jev's `relevance_guidance`, appended to its requests' question (Spring's request has none).
    guidance: Option<String>,
}

impl JevJudge {
    /// The Jev judge sending Spring's questions (the default request).
    pub fn new(config: jev::JevConfig) -> Result<Self> {
        Self::with_request(config, JevRequest::Spring)
    }

    pub fn with_request(config: jev::JevConfig, request: JevRequest) -> Result<Self> {
        Ok(JevJudge {
            client: jev::JevClient::new(config).map_err(judge_error)?,
            request,
            guidance: None,
        })
    }

    /// rag-jev's requests with this relevance guidance appended to their question, as rag-jev appends it.
    pub fn with_guidance(mut self, guidance: Option<String>) -> Self {
        self.guidance = guidance.filter(|g| !g.is_empty());
        self
    }

    /// The Jev judge when `TYPESAFE_API_KEY` is set.
    pub fn from_env() -> Option<Result<Self>> {
        jev::JevConfig::from_env().map(Self::new)
    }

    pub fn request(&self) -> JevRequest {
        self.request
    }

    /// rag-jev's requests answer only the usefulness question, stored under [`jev::USEFUL`].
    fn only_useful(questions: &[JudgeQuestion]) -> std::result::Result<(), JevError> {
        if questions.iter().any(|q| q.key == jev::USEFUL) {
            Ok(())
        } else {
            Err(JevError::InvalidRequest {
                message: "rag-jev's requests answer only the `useful` question".into(),
            })
        }
    }

    fn as_useful(mut judgment: PassageJudgment, key: &str) -> PassageJudgment {
        let p = judgment.answers.remove(key);
        judgment.answers = p
            .map(|p| BTreeMap::from([(jev::USEFUL.to_string(), p)]))
            .unwrap_or_default();
        judgment
    }

    fn rag_jev(&self, query: &str, passages: &[String], questions: &[JudgeQuestion]) -> Vec<Result<PassageJudgment>> {
        if let Err(e) = Self::only_useful(questions) {
            return crate::every_passage_fails(passages.len(), &judge_error(e));
        }
        let question = [ragjev::relevant_question(self.guidance.as_deref())];
        self.client
            .judge_batch_with(passages, &question, |text| ragjev::independent_state(query, text))
            .into_iter()
            .map(|r| r.map(|j| Self::as_useful(j, ragjev::RELEVANT)).map_err(judge_error))
            .collect()
    }

    /// One request for all passages. The shared usage is reported on the first passage (the others carry zero), so
    /// sums stay right; a failure fails every passage.
    fn contextual_batch(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> std::result::Result<Vec<PassageJudgment>, JevError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        Self::only_useful(questions)?;
        let questions = ragjev::contextual_questions(passages.len(), self.guidance.as_deref());
        ragjev::check_contextual_limits(query, passages, &questions)?;
        let state = ragjev::contextual_state(query, passages);
        let all = self.client.judge_state(&state, &questions, true)?;
        Ok((0..passages.len())
            .map(|i| {
                let mut one = Self::as_useful(all.clone(), &i.to_string());
                if i > 0 {
                    one.input_tokens = 0;
                    one.output_tokens = 0;
                }
                one
            })
            .collect())
    }
}

fn judge_error(e: JevError) -> Error {
    Error::Judge {
        code: e.code(),
        message: e.to_string(),
    }
}

impl Judge for JevJudge {
    fn name(&self) -> &'static str {
        self.request.judge_name()
    }
    fn model(&self) -> String {
        self.client.config().model.clone()
    }
    fn prompt_version(&self) -> String {
        self.request.prompt_version().to_string()
    }
    fn calibrated(&self) -> bool {
        true
    }
    fn judge(&self, query: &str, passages: &[String], questions: &[JudgeQuestion]) -> Result<Vec<PassageJudgment>> {
        self.judge_each(query, passages, questions).into_iter().collect()
    }
    /// Spring's and rag-jev's independent requests: each passage is its own request, and one that fails (after the
    /// retries) does not take the others with it. The contextual request stands or falls as one.
    fn judge_each(
        &self,
        query: &str,
        passages: &[String],
        questions: &[JudgeQuestion],
    ) -> Vec<Result<PassageJudgment>> {
        match self.request {
            JevRequest::Spring => self
                .client
                .judge_batch(query, passages, questions)
                .into_iter()
                .map(|r| r.map_err(judge_error))
                .collect(),
            JevRequest::RagJev => self.rag_jev(query, passages, questions),
            JevRequest::Contextual => match self.contextual_batch(query, passages, questions) {
                Ok(all) => all.into_iter().map(Ok).collect(),
                Err(e) => crate::every_passage_fails(passages.len(), &judge_error(e)),
            },
        }
    }
    fn contextual(&self) -> bool {
        self.request == JevRequest::Contextual
    }
    fn input_scope(&self) -> String {
        match (self.request, &self.guidance) {
            (JevRequest::RagJev | JevRequest::Contextual, Some(g)) => format!("relevance_guidance:{g}"),
            _ => String::new(),
        }
    }
    fn cache_ttl(&self) -> Option<std::time::Duration> {
        jev::is_model_alias(&self.client.config().model).then_some(jev::ALIAS_CACHE_TTL)
    }
    fn not_assessed(&self) -> Vec<String> {
        match self.request {
            JevRequest::Spring => Vec::new(),
            JevRequest::RagJev | JevRequest::Contextual => jev::filter_questions().into_iter().map(|q| q.key).collect(),
        }
    }
}

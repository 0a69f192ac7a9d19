//! The decision-model judge itself: [`JevJudge`] sends one of the [`JevRequest`]s over HTTP to the configured
//! backend (Jev, another System One server, Ollama or OpenAI's Decisions API; the `http` feature, which the
//! workbench turns on; the crates above the judge build without an HTTP stack).

use super::JevRequest;
use crate::jev::{self, ragjev, JevError, JudgeQuestion, PassageJudgment};
use crate::{Error, Judge, Result};
use std::collections::BTreeMap;

/// A decision model: TypeSafe's Jev by default, or the backend its configuration names.
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
            client: jev::JevClient::new(config.clone()).map_err(|e| judge_error(config.backend, e))?,
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

    /// Which judge this is: its backend and request.
    pub fn identity(&self) -> crate::JudgeName {
        crate::JudgeName::Decision(self.client.config().backend, self.request)
    }

    fn error(&self, e: JevError) -> Error {
        judge_error(self.client.config().backend, e)
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
        let p = judgment.scores.remove(key);
        judgment.scores = p
            .map(|p| BTreeMap::from([(jev::USEFUL.to_string(), p)]))
            .unwrap_or_default();
        judgment
    }

    fn rag_jev(&self, query: &str, passages: &[String], questions: &[JudgeQuestion]) -> Vec<Result<PassageJudgment>> {
        if let Err(e) = Self::only_useful(questions) {
            return crate::every_passage_fails(passages.len(), &self.error(e));
        }
        let question = [ragjev::relevant_question(self.guidance.as_deref())];
        self.client
            .judge_batch_with(passages, &question, |text| ragjev::independent_state(query, text))
            .into_iter()
            .map(|r| {
                r.map(|j| Self::as_useful(j, ragjev::RELEVANT))
                    .map_err(|e| self.error(e))
            })
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

fn judge_error(backend: jev::Backend, e: JevError) -> Error {
    Error::Judge {
        code: e.code(),
        message: e.message_for(backend),
    }
}

impl Judge for JevJudge {
    fn name(&self) -> &'static str {
        self.identity().as_str()
    }
    fn model(&self) -> String {
        self.client.config().model.clone()
    }
    fn prompt_version(&self) -> String {
        self.identity().prompt_version()
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
                .map(|r| r.map_err(|e| self.error(e)))
                .collect(),
            JevRequest::RagJev => self.rag_jev(query, passages, questions),
            JevRequest::Contextual => match self.contextual_batch(query, passages, questions) {
                Ok(all) => all.into_iter().map(Ok).collect(),
                Err(e) => crate::every_passage_fails(passages.len(), &self.error(e)),
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

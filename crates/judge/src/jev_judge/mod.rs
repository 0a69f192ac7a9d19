//! The Jev judge and the three requests it can send: Spring AI's filter questions with rag-jev's usefulness
//! question (the default), rag-jev's own independent request, and rag-jev's contextual scoring. Each writes its own
//! prompt version, so judgments of one request are never replayed or evaluated as another's.

use crate::jev;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

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
    /// TypeSafe's Jev judge's name in traces and caches when it sends this request.
    pub fn judge_name(self) -> &'static str {
        crate::JudgeName::jev(self).as_str()
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

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
pub use http::JevJudge;

//! Which judge made a run, as a type: the names stored in runs and caches (`jev`, `jev-ragjev`, `ollama`,
//! `openai-contextual`, `local`, `readout`, …) are parsed here once, and everything that branches on a judge
//! branches on [`JudgeName`].

use crate::jev::Backend;
use crate::jev_judge::JevRequest;
use crate::{jev, local, READOUT_PROMPT_VERSION};

/// A judge ragsift knows: a decision model on one backend sending one of the requests, the local judge, or a
/// language model's raw readout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeName {
    /// A decision model (TypeSafe's Jev, another System One server, Ollama or OpenAI), sending this request.
    Decision(Backend, JevRequest),
    /// The local judge (signals and a fitted combination).
    Local,
    /// A language model's uncalibrated yes/no readout.
    Readout,
}

/// Version of the predicate wording sent to OpenAI's Decisions API: the System One questions with their criteria
/// folded into the instructions, so their judgments never share a cache entry or a calibration with System One's.
pub const OPENAI_PREDICATE_VERSION: &str = "openai-predicate-v1";

const REQUESTS: [JevRequest; 3] = [JevRequest::Spring, JevRequest::RagJev, JevRequest::Contextual];

/// Every decision judge's stored name, by backend (in [`Backend::ALL`]'s order) and request (Spring, rag-jev,
/// contextual).
const DECISION_NAMES: [[&str; 3]; 4] = [
    ["jev", "jev-ragjev", "jev-contextual"],
    ["systemone", "systemone-ragjev", "systemone-contextual"],
    ["ollama", "ollama-ragjev", "ollama-contextual"],
    ["openai", "openai-ragjev", "openai-contextual"],
];

impl JudgeName {
    /// TypeSafe's Jev sending `request`.
    pub const fn jev(request: JevRequest) -> JudgeName {
        JudgeName::Decision(Backend::Jev, request)
    }

    /// Every judge, in the order they are listed.
    pub fn all() -> Vec<JudgeName> {
        let decisions = Backend::ALL
            .into_iter()
            .flat_map(|b| REQUESTS.into_iter().map(move |r| JudgeName::Decision(b, r)));
        decisions.chain([JudgeName::Local, JudgeName::Readout]).collect()
    }

    /// The judge of a stored name; `None` for a judge ragsift does not know (an imported run's own).
    pub fn parse(name: &str) -> Option<JudgeName> {
        JudgeName::all().into_iter().find(|j| j.as_str() == name)
    }

    /// The name stored in runs and caches.
    pub fn as_str(self) -> &'static str {
        match self {
            JudgeName::Decision(backend, request) => {
                let b = Backend::ALL.iter().position(|x| *x == backend).unwrap_or(0);
                let r = REQUESTS.iter().position(|x| *x == request).unwrap_or(0);
                DECISION_NAMES[b][r]
            }
            JudgeName::Local => "local",
            JudgeName::Readout => "readout",
        }
    }

    /// Whether it is a decision model, whichever backend and request.
    pub fn is_decision(self) -> bool {
        matches!(self, JudgeName::Decision(..))
    }

    /// The decision backend, if it is a decision model.
    pub fn backend(self) -> Option<Backend> {
        match self {
            JudgeName::Decision(backend, _) => Some(backend),
            _ => None,
        }
    }

    /// The prompt version its judgments carry today: a stored run's judgments replay only against it.
    pub fn prompt_version(self) -> String {
        match self {
            JudgeName::Decision(backend, request) => {
                let base = request.prompt_version();
                match backend.wire() {
                    jev::Wire::SystemOne => base.to_string(),
                    jev::Wire::OpenAi => format!("{base}+{OPENAI_PREDICATE_VERSION}"),
                }
            }
            JudgeName::Local => local::shipped_fit().version.clone(),
            JudgeName::Readout => format!("{READOUT_PROMPT_VERSION}+{}", jev::PROMPT_VERSION),
        }
    }
}

impl std::fmt::Display for JudgeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_and_unknown_names_do_not() {
        let all = JudgeName::all();
        assert_eq!(all.len(), 14);
        for j in &all {
            assert_eq!(JudgeName::parse(j.as_str()), Some(*j));
        }
        let names: std::collections::BTreeSet<&str> = all.iter().map(|j| j.as_str()).collect();
        assert_eq!(names.len(), all.len(), "every judge has its own name");
        assert_eq!(JudgeName::parse("jev-something-new"), None);
        assert_eq!(JudgeName::parse("Jev"), None);
        assert!(JudgeName::parse("jev-contextual").is_some_and(JudgeName::is_decision));
        assert_eq!(
            JudgeName::parse("ollama"),
            Some(JudgeName::Decision(Backend::Ollama, JevRequest::Spring))
        );
        assert!(!JudgeName::Local.is_decision());
    }

    #[test]
    fn a_judgment_belongs_to_its_backend_and_wording() {
        let jev = JudgeName::jev(JevRequest::Spring);
        let ollama = JudgeName::Decision(Backend::Ollama, JevRequest::Spring);
        let openai = JudgeName::Decision(Backend::OpenAi, JevRequest::Spring);
        // Ollama asks System One's questions word for word; OpenAI's predicates fold the criteria in.
        assert_eq!(jev.prompt_version(), ollama.prompt_version());
        assert_ne!(jev.prompt_version(), openai.prompt_version());
        assert!(openai.prompt_version().ends_with(OPENAI_PREDICATE_VERSION));
        assert_ne!(jev.as_str(), ollama.as_str());
    }
}

//! Which judge made a run, as a type: the names stored in runs and caches (`jev`, `jev-ragjev`, `jev-contextual`,
//! `local`, `readout`) are parsed here once, and everything that branches on a judge branches on [`JudgeName`].

use crate::jev_judge::JevRequest;
use crate::{jev, local, READOUT_PROMPT_VERSION};

/// A judge ragsift knows: Jev with one of its requests, the local judge, or a language model's raw readout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgeName {
    /// TypeSafe's Jev, sending this request.
    Jev(JevRequest),
    /// The local judge (signals and a fitted combination).
    Local,
    /// A language model's uncalibrated yes/no readout.
    Readout,
}

impl JudgeName {
    /// Every judge, in the order they are listed.
    pub const ALL: [JudgeName; 5] = [
        JudgeName::Jev(JevRequest::Spring),
        JudgeName::Jev(JevRequest::RagJev),
        JudgeName::Jev(JevRequest::Contextual),
        JudgeName::Local,
        JudgeName::Readout,
    ];

    /// The judge of a stored name; `None` for a judge ragsift does not know (an imported run's own).
    pub fn parse(name: &str) -> Option<JudgeName> {
        JudgeName::ALL.into_iter().find(|j| j.as_str() == name)
    }

    /// The name stored in runs and caches.
    pub fn as_str(self) -> &'static str {
        match self {
            JudgeName::Jev(JevRequest::Spring) => "jev",
            JudgeName::Jev(JevRequest::RagJev) => "jev-ragjev",
            JudgeName::Jev(JevRequest::Contextual) => "jev-contextual",
            JudgeName::Local => "local",
            JudgeName::Readout => "readout",
        }
    }

    /// Whether it is Jev, whichever request it sends.
    pub fn is_jev(self) -> bool {
        matches!(self, JudgeName::Jev(_))
    }

    /// The prompt version its judgments carry today: a stored run's judgments replay only against it.
    pub fn prompt_version(self) -> String {
        match self {
            JudgeName::Jev(JevRequest::Spring) => jev::PROMPT_VERSION.to_string(),
            JudgeName::Jev(JevRequest::RagJev) => ragsift_policy::RAG_JEV_PROMPT_VERSION.to_string(),
            JudgeName::Jev(JevRequest::Contextual) => ragsift_policy::RAG_JEV_CONTEXTUAL_PROMPT_VERSION.to_string(),
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
        for j in JudgeName::ALL {
            assert_eq!(JudgeName::parse(j.as_str()), Some(j));
        }
        assert_eq!(JudgeName::parse("jev-something-new"), None);
        assert_eq!(JudgeName::parse("Jev"), None);
        assert!(JudgeName::parse("jev-contextual").is_some_and(JudgeName::is_jev));
        assert!(!JudgeName::Local.is_jev());
    }
}

//! The first run: on an empty library the app offers the bundled samples, and once they are in, three questions
//! that show the loop (a passage the judge drops and why, a threshold that changes the selection, a question the
//! documents cannot answer). The questions are written for the samples and checked against them by the tests.

use super::Workbench;
use crate::Result;
use serde::Serialize;

/// What a suggestion shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SuggestionKind {
    /// The judge drops a retrieved passage, and says why.
    JudgeDrops,
    /// Dragging a threshold changes which passages are sent.
    ThresholdMatters,
    /// The documents do not hold the answer, and the answer says so.
    Unanswerable,
}

/// Where a suggestion's answer opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SuggestionOpens {
    Inspector,
    Replay,
}

/// One question to try on the samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Suggestion {
    pub kind: SuggestionKind,
    pub question: String,
    pub opens: SuggestionOpens,
    /// What to look at once it opens.
    pub hint: String,
}

/// What the app offers on its first run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct FirstRun {
    /// The sample files to ingest; empty when the library has documents (or no samples are installed).
    pub samples: Vec<String>,
    /// The questions to try once the samples are in.
    pub suggestions: Vec<Suggestion>,
}

/// The three questions, written for the bundled samples (`assets/samples`).
pub fn suggestions() -> Vec<Suggestion> {
    let s = |kind, question: &str, opens, hint: &str| Suggestion {
        kind,
        question: question.into(),
        opens,
        hint: hint.into(),
    };
    vec![
        s(
            SuggestionKind::JudgeDrops,
            "What was the water temperature in the upper pool?",
            SuggestionOpens::Inspector,
            "Retrieval finds several tide-pool passages; the judge keeps the one with the answer and drops the \
             others, each with its reason.",
        ),
        s(
            SuggestionKind::ThresholdMatters,
            "What does the hybrid retrieval mode do?",
            SuggestionOpens::Replay,
            "Drag the evidence threshold: passages join or leave the selection at once, from the cached judgments.",
        ),
        s(
            SuggestionKind::Unanswerable,
            "Who won the 1998 football World Cup?",
            SuggestionOpens::Inspector,
            "Nothing in the samples answers it: every passage is dropped, and the answer says the documents do not \
             say.",
        ),
    ]
}

impl Workbench {
    /// The samples to offer (only on a library without documents) and the questions to try.
    pub fn first_run(&self) -> Result<FirstRun> {
        let empty = self.library().documents()?.is_empty();
        let samples = match ragsift_core::paths::samples_dir().filter(|_| empty) {
            Some(dir) => {
                let mut files: Vec<String> = std::fs::read_dir(&dir)
                    .map_err(|e| crate::Error::io(&dir, e))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file())
                    .map(|p| p.display().to_string())
                    .collect();
                files.sort();
                files
            }
            None => Vec::new(),
        };
        Ok(FirstRun {
            samples,
            suggestions: suggestions(),
        })
    }
}

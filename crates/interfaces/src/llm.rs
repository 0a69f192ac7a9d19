//! The language-model interface: chat completion with token streaming and cancellation, and a yes/no readout
//! P(yes) = p_yes / (p_yes + p_no) from the next-token distribution, with the plain types they exchange. The
//! implementations (an embedded GGUF through llama.cpp, an OpenAI-compatible server) live in `ragsift-models`.

pub use ragsift_core::CancelToken;
use ragsift_core::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage {
            role: Role::User,
            content: content.into(),
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage {
            role: Role::System,
            content: content.into(),
        }
    }
}

/// How to generate. Temperature 0 is greedy (deterministic).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct GenerateOptions {
    pub max_tokens: u32,
    pub temperature: f32,
    pub seed: u32,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            max_tokens: 512,
            temperature: 0.0,
            seed: 42,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// The model ended its answer.
    Stop,
    /// `max_tokens` was reached.
    Length,
    /// The caller cancelled.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Completion {
    pub text: String,
    pub model: String,
    pub usage: Usage,
    pub finish_reason: FinishReason,
}

/// A yes/no answer as a probability. `calibrated` is false when it is not read from the model's token
/// distribution (a server that returns no logprobs: then it is 0 or 1 from the answer's text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct YesNo {
    pub p_yes: f32,
    pub model: String,
    pub usage: Usage,
    pub calibrated: bool,
}

/// A chat model that can also answer yes/no questions with a probability.
pub trait LanguageModel: Send + Sync {
    /// The model's id as reported to users and stored in traces.
    fn id(&self) -> &str;

    /// Generates an answer to `messages`, calling `on_token` with each piece of text as it is produced.
    fn chat(
        &self,
        messages: &[ChatMessage],
        options: &GenerateOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Completion>;

    /// Continues `prompt` as plain text (no chat template), stopping before the first of `stop`. This is how a
    /// base model (no instruction tuning) is asked; models that only chat answer [`Error::NotSupported`].
    fn complete(
        &self,
        prompt: &str,
        stop: &[&str],
        options: &GenerateOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Completion> {
        let _ = (prompt, stop, options, on_token, cancel);
        Err(Error::NotSupported(format!(
            "{} only chats; it cannot continue plain text",
            self.id()
        )))
    }

    /// P(yes) for each prompt (each a conversation whose answer is yes or no). Prompts that share a prefix
    /// (the same passage, different questions) may share its evaluation; the result is the same either way.
    fn yes_no(&self, prompts: &[Vec<ChatMessage>]) -> Result<Vec<YesNo>>;

    /// Reads plain text (no chat template): `shared` then, for each item, its `context`, measuring the
    /// log-probability of each token of `target`, then its `probe`, measuring P(yes) for the next token. This is
    /// what query-likelihood ranking needs; models that cannot return token probabilities for arbitrary text
    /// (most HTTP servers) answer [`Error::NotSupported`].
    fn score_text(&self, shared: &str, items: &[ScoreItem]) -> Result<Vec<TextScore>> {
        let _ = (shared, items);
        Err(Error::NotSupported(format!(
            "{} cannot score text (token log-probabilities of a given continuation)",
            self.id()
        )))
    }

    /// Whether the model follows a chat template (instruction-tuned), as opposed to a base model that only
    /// continues text. Base models get completion-style prompts.
    fn follows_instructions(&self) -> bool {
        true
    }
}

/// One text to score with [`LanguageModel::score_text`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreItem {
    pub context: String,
    pub target: String,
    pub probe: String,
}

/// What [`LanguageModel::score_text`] measured for one item.
#[derive(Debug, Clone, PartialEq)]
pub struct TextScore {
    /// ln P(token | everything before it), one per token of `target`.
    pub target_logprobs: Vec<f32>,
    /// P(yes) / (P(yes) + P(no)) for the token after `probe`.
    pub p_yes: f32,
    /// Tokens evaluated for this item (its context, target and probe).
    pub tokens: u32,
}

impl TextScore {
    /// The mean log-probability of the target's tokens (0 for an empty target).
    pub fn mean_logprob(&self) -> f32 {
        if self.target_logprobs.is_empty() {
            0.0
        } else {
            self.target_logprobs.iter().sum::<f32>() / self.target_logprobs.len() as f32
        }
    }
}

/// The user message of a yes/no question about a passage: the passage first (so several questions about one
/// passage share a prefix), then the question.
pub fn yes_no_prompt(passage: &str, question: &str) -> Vec<ChatMessage> {
    let mut content = String::new();
    if !passage.is_empty() {
        content.push_str("Passage:\n");
        content.push_str(passage);
        content.push_str("\n\n");
    }
    content.push_str("Question: ");
    content.push_str(question);
    content.push_str("\nAnswer with yes or no.");
    vec![ChatMessage::user(content)]
}

/// True when a (lower-cased, trimmed) token or answer means yes; `Some(false)` for no.
pub fn yes_or_no(text: &str) -> Option<bool> {
    let t = text.trim().trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    match t.as_str() {
        "yes" | "y" | "true" => Some(true),
        "no" | "n" | "false" => Some(false),
        _ => None,
    }
}

/// p_yes / (p_yes + p_no) from two summed probabilities; 0.5 when both are zero.
pub fn ratio(p_yes: f64, p_no: f64) -> f32 {
    if p_yes + p_no <= 0.0 {
        0.5
    } else {
        (p_yes / (p_yes + p_no)) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_no_words() {
        assert_eq!(yes_or_no(" Yes"), Some(true));
        assert_eq!(yes_or_no("no."), Some(false));
        assert_eq!(yes_or_no("maybe"), None);
        assert!((ratio(0.3, 0.1) - 0.75).abs() < 1e-6);
        assert_eq!(ratio(0.0, 0.0), 0.5);
    }
}

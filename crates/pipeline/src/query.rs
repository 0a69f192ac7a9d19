//! Pre-retrieval stages with Spring AI's prompts and fallbacks: query transformers (rewrite for search,
//! compression of chat history into a standalone query, translation) and the multi-query expander.

use crate::Result;
use ragsift_interfaces::llm::{CancelToken, ChatMessage, GenerateOptions, LanguageModel, Role};
use serde::{Deserialize, Serialize};

/// A query with the conversation it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Query {
    pub text: String,
    #[serde(default)]
    pub history: Vec<ChatMessage>,
}

impl Query {
    pub fn new(text: impl Into<String>) -> Self {
        Query {
            text: text.into(),
            history: Vec::new(),
        }
    }
}

/// A stage that rewrites a query before retrieval.
pub trait QueryTransformer: Send + Sync {
    fn name(&self) -> &'static str;
    fn transform(&self, query: &Query) -> Result<Query>;
}

/// A stage that turns one query into several.
pub trait QueryExpander: Send + Sync {
    fn name(&self) -> &'static str;
    fn expand(&self, query: &Query) -> Result<Vec<Query>>;
}

fn ask(model: &dyn LanguageModel, prompt: String, max_tokens: u32) -> Result<String> {
    let options = GenerateOptions {
        max_tokens,
        temperature: 0.0,
        seed: 0,
    };
    let done = model.chat(&[ChatMessage::user(prompt)], &options, &mut |_| {}, &CancelToken::new())?;
    Ok(done.text.trim().to_string())
}

/// Spring's RewriteQueryTransformer: "rewrite it to provide better results when querying a {target}"; an empty
/// answer keeps the original.
pub struct RewriteQueryTransformer<'m> {
    pub model: &'m dyn LanguageModel,
    pub target: String,
}

impl QueryTransformer for RewriteQueryTransformer<'_> {
    fn name(&self) -> &'static str {
        "rewrite"
    }
    fn transform(&self, query: &Query) -> Result<Query> {
        let prompt = format!(
            "Given a user query, rewrite it to provide better results when querying a {}.\n\
             Remove any irrelevant information, and ensure the query is concise and specific.\n\n\
             Original query:\n{}\n\nRewritten query:\n",
            self.target, query.text
        );
        Ok(or_original(query, first_line(&ask(self.model, prompt, 64)?)))
    }
}

/// Spring's CompressionQueryTransformer: history + follow-up → a standalone query; no history → unchanged.
pub struct CompressionQueryTransformer<'m> {
    pub model: &'m dyn LanguageModel,
}

impl QueryTransformer for CompressionQueryTransformer<'_> {
    fn name(&self) -> &'static str {
        "compression"
    }
    fn transform(&self, query: &Query) -> Result<Query> {
        let mut history = query.history.clone();
        // Spring drops the last history message when it repeats the query.
        if history
            .last()
            .is_some_and(|m| m.role == Role::User && m.content.trim() == query.text.trim())
        {
            history.pop();
        }
        let lines: Vec<String> = history
            .iter()
            .filter(|m| m.role != Role::System)
            .map(|m| format!("{}: {}", m.role.as_str().to_uppercase(), m.content))
            .collect();
        if lines.is_empty() {
            return Ok(query.clone());
        }
        let prompt = format!(
            "Given the following conversation history and a follow-up query, your task is to synthesize\n\
             a concise, standalone query that incorporates the context from the history.\n\
             Ensure the standalone query is clear, specific, and maintains the user's intent.\n\n\
             Conversation history:\n{}\n\nFollow-up query:\n{}\n\nStandalone query:\n",
            lines.join("\n"),
            query.text
        );
        Ok(or_original(query, first_line(&ask(self.model, prompt, 64)?)))
    }
}

/// Spring's TranslationQueryTransformer: into `target_language`, unchanged when already in it or unknown.
pub struct TranslationQueryTransformer<'m> {
    pub model: &'m dyn LanguageModel,
    pub target_language: String,
}

impl QueryTransformer for TranslationQueryTransformer<'_> {
    fn name(&self) -> &'static str {
        "translation"
    }
    fn transform(&self, query: &Query) -> Result<Query> {
        let prompt = format!(
            "Given a user query, translate it to {lang}.\n\
             If the query is already in {lang}, return it unchanged.\n\
             If you don't know the language of the query, return it unchanged.\n\
             Do not add explanations nor any other text.\n\n\
             Original query: {q}\n\nTranslated query:\n",
            lang = self.target_language,
            q = query.text
        );
        Ok(or_original(query, first_line(&ask(self.model, prompt, 64)?)))
    }
}

/// Spring's MultiQueryExpander: asks for `number` variants, one per line; when the model returns a different
/// count, falls back to the original query alone. The original comes first when `include_original`.
pub struct MultiQueryExpander<'m> {
    pub model: &'m dyn LanguageModel,
    pub number: usize,
    pub include_original: bool,
}

impl QueryExpander for MultiQueryExpander<'_> {
    fn name(&self) -> &'static str {
        "multi_query"
    }
    fn expand(&self, query: &Query) -> Result<Vec<Query>> {
        let prompt = format!(
            "You are an expert at information retrieval and search optimization.\n\
             Your task is to generate {n} different versions of the given query.\n\n\
             Each variant must cover different perspectives or aspects of the topic,\n\
             while maintaining the core intent of the original query. The goal is to\n\
             expand the search space and improve the chances of finding relevant information.\n\n\
             Do not explain your choices or add any other text.\n\
             Provide the query variants separated by newlines.\n\n\
             Original query: {q}\n\nQuery variants:\n",
            n = self.number,
            q = query.text
        );
        let answer = ask(self.model, prompt, 48 * self.number as u32)?;
        Ok(expansion(query, &answer, self.number, self.include_original))
    }
}

/// Spring's parsing: non-empty lines; the wrong count → the original only.
pub fn expansion(query: &Query, answer: &str, number: usize, include_original: bool) -> Vec<Query> {
    let variants: Vec<&str> = answer.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if variants.len() != number {
        return vec![query.clone()];
    }
    let mut out: Vec<Query> = variants
        .into_iter()
        .map(|v| Query {
            text: v.to_string(),
            history: query.history.clone(),
        })
        .collect();
    if include_original {
        out.insert(0, query.clone());
    }
    out
}

/// The transformed query, or the original when the model answered nothing (Spring's fallback).
fn or_original(query: &Query, text: String) -> Query {
    Query {
        text: if text.is_empty() { query.text.clone() } else { text },
        history: query.history.clone(),
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .trim_matches('"')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_follows_spring() {
        let q = Query::new("battery warranty");
        let three = expansion(&q, "a\n\nb\nc\n", 3, true);
        assert_eq!(
            three.iter().map(|q| q.text.as_str()).collect::<Vec<_>>(),
            ["battery warranty", "a", "b", "c"]
        );
        assert_eq!(
            expansion(&q, "a\nb", 3, true),
            vec![q.clone()],
            "wrong count → original only"
        );
        assert_eq!(expansion(&q, "a\nb\nc", 3, false).len(), 3);
    }
}

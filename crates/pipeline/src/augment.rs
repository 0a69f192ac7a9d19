//! Augmenter stage: Spring AI's ContextualQueryAugmenter templates, with numbered sources so an answer's [n]
//! leads back to a chunk, its document and its pages.

use serde::{Deserialize, Serialize};

/// Spring's default when the context is empty and empty context is not allowed.
pub const EMPTY_CONTEXT_PROMPT: &str =
    "The user query is outside your knowledge base.\nPolitely inform the user that you can't answer it.\n";

/// One numbered source in the prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Source {
    pub number: usize,
    pub chunk_id: String,
    pub document: String,
    pub title: String,
    pub page_start: u32,
    pub page_end: u32,
    pub text: String,
}

impl Source {
    pub fn pages(&self) -> String {
        ragsift_core::page_range(self.page_start, self.page_end)
    }
}

/// Builds the prompt: Spring's template around the numbered context; with no context, Spring's
/// "outside your knowledge base" prompt unless `allow_empty_context`, in which case the query goes alone.
pub fn augment(query: &str, sources: &[Source], allow_empty_context: bool) -> String {
    if sources.is_empty() {
        return if allow_empty_context {
            query.to_string()
        } else {
            EMPTY_CONTEXT_PROMPT.to_string()
        };
    }
    let context: Vec<String> = sources
        .iter()
        .map(|s| format!("[{}] {} ({})\n{}", s.number, s.title, s.pages(), s.text))
        .collect();
    format!(
        "Context information is below.\n\n---------------------\n{}\n---------------------\n\n\
         Given the context information and no prior knowledge, answer the query.\n\n\
         Follow these rules:\n\n\
         1. If the answer is not in the context, just say that you don't know.\n\
         2. Avoid statements like \"Based on the context...\" or \"The provided information...\".\n\
         3. Cite the sources you use by their number, like [1].\n\n\
         Query: {}\n\nAnswer:\n",
        context.join("\n\n"),
        query
    )
}

/// The source numbers an answer cites, in order of first citation, without duplicates.
pub fn citations(answer: &str, sources: usize) -> Vec<usize> {
    cited_numbers(answer)
        .into_iter()
        .filter(|n| (1..=sources).contains(n))
        .collect()
}

/// The `[n]` citations of `answer` that name no source (0, or above `sources`), in order of first appearance:
/// the model cited something it was not given.
pub fn unknown_citations(answer: &str, sources: usize) -> Vec<usize> {
    cited_numbers(answer)
        .into_iter()
        .filter(|n| !(1..=sources).contains(n))
        .collect()
}

/// Every distinct `[n]` in `answer`, in order of first appearance.
fn cited_numbers(answer: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let bytes = answer.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            let digits: String = answer[i + 1..].chars().take_while(|c| c.is_ascii_digit()).collect();
            if !digits.is_empty() && answer[i + 1 + digits.len()..].starts_with(']') {
                if let Ok(n) = digits.parse::<usize>() {
                    if !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize) -> Source {
        Source {
            number: n,
            chunk_id: format!("c{n}"),
            document: "/d.pdf".into(),
            title: "Guide".into(),
            page_start: 2,
            page_end: 3,
            text: format!("text {n}"),
        }
    }

    #[test]
    fn numbered_context_and_empty_context() {
        let p = augment("Why?", &[source(1), source(2)], false);
        assert!(
            p.contains("[1] Guide (pp. 2-3)\ntext 1")
                && p.contains("[2] Guide")
                && p.ends_with("Query: Why?\n\nAnswer:\n")
        );
        assert_eq!(augment("Why?", &[], false), EMPTY_CONTEXT_PROMPT);
        assert_eq!(augment("Why?", &[], true), "Why?");
    }

    #[test]
    fn finds_citations() {
        assert_eq!(citations("See [2] and [1], again [2]; not [9] or [x].", 3), vec![2, 1]);
        assert_eq!(unknown_citations("See [2] and [0], [9] and [9]; [x].", 3), vec![0, 9]);
        assert!(unknown_citations("See [1].", 1).is_empty());
    }
}

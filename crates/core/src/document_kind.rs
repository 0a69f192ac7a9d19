//! [`DocumentKind`]: what a library document was read from: a PDF or a text file (as its extractor says), or a
//! Spring AI application's vector store.

use serde::{Deserialize, Serialize};

/// What a document was read from: for a file, the loader that read it says so, and the library stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub enum DocumentKind {
    /// A PDF, read page by page (its pages can be drawn).
    Pdf,
    /// Plain text or Markdown.
    Text,
    /// Rows of a Spring AI application's vector store, read in place (no file here).
    Spring,
}

impl DocumentKind {
    /// The name stored and sent (`pdf`, `text`).
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Pdf => "pdf",
            DocumentKind::Text => "text",
            DocumentKind::Spring => "spring",
        }
    }

    /// The kind a stored name stands for. A name no version wrote reads as text, the kind that promises least
    /// (no page is drawn for it).
    pub fn from_stored(name: &str) -> DocumentKind {
        match name {
            "pdf" => DocumentKind::Pdf,
            "spring" => DocumentKind::Spring,
            _ => DocumentKind::Text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_names_round_trip_and_match_serde() {
        for kind in [DocumentKind::Pdf, DocumentKind::Text, DocumentKind::Spring] {
            assert_eq!(DocumentKind::from_stored(kind.as_str()), kind);
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{}\"", kind.as_str()));
        }
        assert_eq!(DocumentKind::from_stored("docx"), DocumentKind::Text);
    }
}

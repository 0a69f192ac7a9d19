//! The page view: one page's text with the chunks on it (character offsets into that text), and an optional
//! rendering of the page as a PNG (poppler's pdftoppm, when installed).

use super::Workbench;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::process::Command;

/// One page's text and where each chunk lies on it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PageView {
    pub document_id: String,
    pub title: String,
    pub path: String,
    pub page: u32,
    pub page_count: u32,
    pub text: String,
    /// The text was read by OCR from the page's image (a scanned page): expect recognition errors.
    pub ocr: bool,
    pub chunks: Vec<PageChunk>,
}

/// A chunk clipped to the page: `[char_start, char_end)` in characters (code points) of the page text.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PageChunk {
    pub chunk_id: String,
    pub index: u32,
    pub char_start: u32,
    pub char_end: u32,
}

impl Workbench {
    pub fn page(&self, document_id: &str, page: u32) -> Result<PageView> {
        let lib = self.library();
        let store = lib.store();
        let doc = store
            .document(document_id)?
            .ok_or_else(|| Error::NotFound(format!("document {document_id}")))?;
        let text = store
            .page(document_id, page)?
            .ok_or_else(|| Error::NotFound(format!("page {page} of {}", doc.title)))?;
        let len = text.chars().count() as u32;
        let chunks = store
            .chunks_of(document_id)?
            .into_iter()
            .filter(|c| c.page_start <= page && page <= c.page_end)
            .map(|c| PageChunk {
                chunk_id: c.id,
                index: c.index,
                char_start: if c.page_start == page { c.char_start.min(len) } else { 0 },
                char_end: if c.page_end == page { c.char_end.min(len) } else { len },
            })
            .collect();
        Ok(PageView {
            document_id: doc.id,
            title: doc.title,
            path: doc.path,
            page,
            page_count: doc.page_count,
            ocr: store.page_is_ocr(document_id, page)?,
            text,
            chunks,
        })
    }

    /// The page rendered at 96 dpi (pdftoppm writes the PNG to stdout when given no output root) as a `data:` URL, or `None` when it cannot be rendered here (not a PDF, file
    /// moved, pdftoppm missing).
    pub fn page_image(&self, document_id: &str, page: u32) -> Result<Option<String>> {
        let doc = self
            .library()
            .store()
            .document(document_id)?
            .ok_or_else(|| Error::NotFound(format!("document {document_id}")))?;
        if doc.kind != "pdf" || !std::path::Path::new(&doc.path).is_file() {
            return Ok(None);
        }
        let n = page.to_string();
        let out = Command::new("pdftoppm")
            .args(["-f", &n, "-l", &n, "-r", "96", "-png", "-singlefile", &doc.path])
            .output();
        match out {
            Ok(o) if o.status.success() && !o.stdout.is_empty() => {
                Ok(Some(format!("data:image/png;base64,{}", base64(&o.stdout))))
            }
            _ => Ok(None),
        }
    }
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(input.as_bytes()), want);
        }
    }
}

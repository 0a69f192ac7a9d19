//! The page view: one page's text with the chunks on it (character offsets into that text, their boxes on the page and
//! their heading paths), and an optional rendering of the page as a PNG (poppler's pdftoppm, when installed).

use super::Workbench;
use crate::{Error, Result};
use ragsift_store::sqlite::{ChunkRow, PageBox};
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
    /// Text on the page that is not its body, set apart at ingest and left out of chunks: running headers and
    /// footers, page numbers, stamps up the margin, watermarks.
    pub furniture: Vec<String>,
    pub chunks: Vec<PageChunk>,
}

/// A chunk clipped to the page: `[char_start, char_end)` in characters (code points) of the page text, and where
/// it lies on the page's rendering.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PageChunk {
    pub chunk_id: String,
    pub index: u32,
    pub char_start: u32,
    pub char_end: u32,
    /// The chunk's boxes on this page (fractions of the page's width and height from its top-left corner); empty
    /// when the loader knew no positions (plain text, OCR, chunks ingested before boxes were recorded).
    pub boxes: Vec<PageBox>,
    /// The heading path in force where the chunk starts; empty before the document's first heading.
    pub section: Vec<String>,
}

impl PageChunk {
    /// `chunk` clipped to page `page`, whose text is `len` characters long.
    fn clipped(chunk: ChunkRow, page: u32, len: u32) -> PageChunk {
        PageChunk {
            chunk_id: chunk.id,
            index: chunk.index,
            char_start: if chunk.page_start == page {
                chunk.char_start.min(len)
            } else {
                0
            },
            char_end: if chunk.page_end == page {
                chunk.char_end.min(len)
            } else {
                len
            },
            boxes: chunk.boxes.into_iter().filter(|b| b.page == page).collect(),
            section: chunk.section,
        }
    }
}

impl Workbench {
    pub fn page(&self, document_id: &str, page: u32) -> Result<PageView> {
        check_document_id(document_id)?;
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
            .map(|c| PageChunk::clipped(c, page, len))
            .collect();
        Ok(PageView {
            document_id: doc.id,
            title: doc.title,
            path: doc.path,
            page,
            page_count: doc.page_count,
            ocr: store.page_is_ocr(document_id, page)?,
            furniture: store.page_furniture(document_id, page)?,
            text,
            chunks,
        })
    }

    /// The page rendered by pdftoppm (its longer side 1,200 pixels; the PNG on stdout) as a `data:` URL, or
    /// `None` when it cannot be rendered here (not a PDF, file moved, pdftoppm missing). pdftoppm runs with a
    /// deadline, a memory limit and a cap on its output, so a hostile page costs its image, not the app.
    pub fn page_image(&self, document_id: &str, page: u32) -> Result<Option<String>> {
        check_document_id(document_id)?;
        let doc = self
            .library()
            .store()
            .document(document_id)?
            .ok_or_else(|| Error::NotFound(format!("document {document_id}")))?;
        if doc.kind != ragsift_core::DocumentKind::Pdf || !std::path::Path::new(&doc.path).is_file() {
            return Ok(None);
        }
        let n = page.to_string();
        let mut cmd = Command::new("pdftoppm");
        cmd.args([
            "-f",
            &n,
            "-l",
            &n,
            "-scale-to",
            "1200",
            "-png",
            "-singlefile",
            &doc.path,
        ]);
        match ragsift_core::bounded::output(cmd, RENDER_BOUNDS) {
            Ok(png) if !png.is_empty() => Ok(Some(format!("data:image/png;base64,{}", base64(&png)))),
            _ => Ok(None),
        }
    }
}

/// What rendering one page may use.
const RENDER_BOUNDS: ragsift_core::bounded::Bounds = ragsift_core::bounded::Bounds {
    timeout: std::time::Duration::from_secs(10),
    memory: 1 << 30,
    max_output: 32 << 20,
};

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

/// Refuses a document id outside the one grammar of document ids, before any lookup.
pub(crate) fn check_document_id(id: &str) -> Result<()> {
    ragsift_core::ids::check_id(ragsift_core::ids::IdKind::Document, id).map_err(Error::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk from the foot of page 1 to the top of page 2 shows on each page with that page's boxes only.
    #[test]
    fn a_chunk_on_a_page_carries_its_boxes_there_and_its_section() {
        let at = |page: u32, y0: f32| PageBox {
            page,
            x0: 0.1,
            y0,
            x1: 0.9,
            y1: y0 + 0.1,
        };
        let chunk = ChunkRow {
            key: 1,
            id: "c".into(),
            document_id: "d".into(),
            document_path: "/d.pdf".into(),
            document_title: "d".into(),
            index: 4,
            text: "across the page break".into(),
            page_start: 1,
            page_end: 2,
            char_start: 90,
            char_end: 12,
            tokens: 5,
            metadata: None,
            section: vec!["2 Method".into()],
            boxes: vec![at(1, 0.85), at(2, 0.05), at(2, 0.5)],
        };
        let first = PageChunk::clipped(chunk.clone(), 1, 100);
        assert_eq!((first.char_start, first.char_end), (90, 100));
        assert_eq!(first.boxes, [at(1, 0.85)]);
        assert_eq!(first.section, ["2 Method"]);
        let second = PageChunk::clipped(chunk, 2, 50);
        assert_eq!((second.char_start, second.char_end), (0, 12));
        assert_eq!(second.boxes, [at(2, 0.05), at(2, 0.5)]);
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want);
        }
    }
}

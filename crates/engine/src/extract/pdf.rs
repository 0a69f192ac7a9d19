//! PDF loader: opens with lopdf (trying the empty password on encrypted files), decodes glyphs per page
//! through pdf-extract, and hands positioned glyphs to the layout module. A page that fails is reported, not fatal.

use super::layout::{page_text, Glyph};
use super::PageText;
use crate::{Error, Result};
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Extracts the text of every page of a PDF held in memory, in page order.
pub fn extract_pdf(path: &Path, bytes: &[u8]) -> Result<Vec<PageText>> {
    let doc = open(path, bytes)?;
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(corrupt(path, "the document has no pages"));
    }
    let mut out = Vec::with_capacity(pages.len());
    for &number in pages.keys() {
        let mut dev = GlyphCollector::default();
        let run = catch_unwind(AssertUnwindSafe(|| {
            pdf_extract::output_doc_page(&doc, &mut dev, number)
        }));
        let (text, failed) = match run {
            Ok(Ok(())) => (page_text(&dev.glyphs, dev.width), false),
            // A page whose content stream cannot be read keeps whatever was decoded before the fault.
            Ok(Err(_)) | Err(_) => (page_text(&dev.glyphs, dev.width), true),
        };
        out.push(PageText { number, text, failed });
    }
    Ok(out)
}

fn open(path: &Path, bytes: &[u8]) -> Result<lopdf::Document> {
    if !bytes.starts_with(b"%PDF") && !bytes[..bytes.len().min(1024)].windows(5).any(|w| w == b"%PDF-") {
        return Err(corrupt(path, "no PDF header"));
    }
    let loaded = catch_unwind(|| lopdf::Document::load_mem(bytes));
    let mut doc = match loaded {
        Ok(Ok(doc)) => doc,
        Ok(Err(lopdf::Error::Decryption(_))) => return Err(Error::Encrypted { path: path.into() }),
        Ok(Err(e)) => return Err(corrupt(path, &e.to_string())),
        Err(_) => return Err(corrupt(path, "the PDF parser failed on this file")),
    };
    if doc.is_encrypted() {
        // lopdf leaves a document encrypted when the empty password did not open it.
        let decrypted = catch_unwind(AssertUnwindSafe(|| doc.decrypt("")));
        if !matches!(decrypted, Ok(Ok(()))) || doc.is_encrypted() {
            return Err(Error::Encrypted { path: path.into() });
        }
    }
    Ok(doc)
}

fn corrupt(path: &Path, detail: &str) -> Error {
    Error::Corrupt {
        path: path.into(),
        kind: "PDF",
        detail: detail.to_string(),
    }
}

/// Collects every decoded glyph with its position, size and advance.
#[derive(Default)]
struct GlyphCollector {
    glyphs: Vec<Glyph>,
    width: f64,
}

impl OutputDev for GlyphCollector {
    fn begin_page(
        &mut self,
        _n: u32,
        media_box: &MediaBox,
        _art: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.width = (media_box.urx - media_box.llx).abs();
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _sp: f64,
        font_size: f64,
        ch: &str,
    ) -> Result<(), OutputError> {
        let scale = (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
        let size = (font_size * scale).abs();
        if size.is_finite() && trm.m31.is_finite() && trm.m32.is_finite() {
            let width = if width.is_finite() { width * size } else { 0.0 };
            self.glyphs.push(Glyph {
                x: trm.m31,
                y: trm.m32,
                size,
                width,
                text: ch.to_string(),
            });
        }
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

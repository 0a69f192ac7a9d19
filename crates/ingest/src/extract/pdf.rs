//! PDF loader: opens with lopdf (trying the empty password on encrypted files), decodes glyphs per page
//! through pdf-extract, and hands positioned glyphs to the layout module. A page that fails part way or comes out
//! garbled is read again by poppler; one that still fails is reported, not fatal.
//!
//! Long because it is the PDF loader's one pass over a document: open, decode each page, read again, lay out.

use super::furniture::{key, page_number_key, Furniture, Mark, BAND};
use super::garble::looks_garbled;
use super::hidden::{keep_seen, read_marker, Seen, Visibility};
use super::layout::{band_text, page_layout, page_layout_apart, Glyph, Laid};
use super::one_page::OnePage;
use super::place::{place, Frame};
use super::{Decoding, PageText};
use crate::{Error, Result};
use pdf_extract::{ColorSpace, MediaBox, OutputDev, OutputError, Path as Shape, Transform};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

/// Extracts the text of every page of a PDF held in memory, in page order, with the title its metadata gives.
pub fn extract_pdf(path: &Path, bytes: &[u8]) -> Result<(Vec<PageText>, Option<String>)> {
    let mut doc = open(path, bytes)?;
    let title = metadata_title(&doc);
    let cut = prepare(path, &mut doc)?;
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(corrupt(path, "the document has no pages"));
    }
    let mut out = Vec::with_capacity(pages.len());
    // Pages are decoded first and laid out once the document's running headers and footers are known (from the
    // pages decoded so far, when their glyphs grow past what is held).
    let (mut held, mut held_glyphs, mut marks) = (Vec::new(), 0, Vec::new());
    let mut learned: Option<Furniture> = None;
    let mut one = OnePage::new(&mut doc);
    for (&number, &id) in &pages {
        crate::progress::at_page(number);
        let page = decode(&mut one, number, id);
        match &learned {
            Some(furniture) => out.push(lay_page(page, furniture)),
            None => {
                marks.push(marks_of(&page.glyphs, page.frame, page.number));
                held_glyphs += page.glyphs.len();
                held.push(page);
                if held_glyphs > HELD_GLYPHS {
                    let furniture = Furniture::learn(&marks);
                    out.extend(held.drain(..).map(|p| lay_page(p, &furniture)));
                    learned = Some(furniture);
                }
            }
        }
    }
    drop(one);
    let furniture = learned.unwrap_or_else(|| Furniture::learn(&marks));
    out.extend(held.drain(..).map(|p| lay_page(p, &furniture)));
    for page in out.iter_mut().filter(|p| cut.contains(&p.number)) {
        page.nesting_cut = true;
    }
    second_reading(bytes, &mut out, &furniture);
    if !super::outline::apply(&doc, &mut out) {
        crate::structure::assign_levels(&mut out.iter_mut().flat_map(|p| p.headings.iter_mut()).collect::<Vec<_>>());
    }
    Ok((out, title))
}

/// Makes an opened document safe and fit for decoding: guarded against cycles and bombs, forms drawn where their
/// callers place them, fonts, widths and quote operators put in the forms pdf-extract reads, invisible text marked. Gives the pages whose nested forms were cut.
fn prepare(path: &Path, doc: &mut lopdf::Document) -> Result<Vec<u32>> {
    // First: the later passes decode page content, and pdf-extract must not meet a cycle or a bomb.
    let cut = super::guard::guard(doc).map_err(|detail| corrupt(path, &detail))?;
    super::forms::place_forms(doc);
    super::fonts::separate_font_names(doc);
    scale_type3_widths(doc);
    expand_cid_width_ranges(doc);
    expand_quote_operators(doc);
    super::hidden::mark_hidden_text(doc);
    super::type1::cut_to_encodings(doc);
    Ok(cut)
}

/// The visible glyphs of one page (1-based), prepared as [`extract_pdf`] prepares them.
pub(super) fn page_glyphs(path: &Path, bytes: &[u8], number: u32) -> Result<Vec<Glyph>> {
    let mut doc = open(path, bytes)?;
    prepare(path, &mut doc)?;
    let id = *doc
        .get_pages()
        .get(&number)
        .ok_or_else(|| corrupt(path, &format!("the document has no page {number}")))?;
    let glyphs = decode(&mut OnePage::new(&mut doc), number, id).glyphs;
    Ok(glyphs)
}

/// At most about this many glyphs are held between decoding and layout (some 100 MB), so that the
/// running headers and footers found over the document are set apart before its pages are laid out; pages decoded
/// after that are laid out at once with what was learned by then.
const HELD_GLYPHS: usize = 1_000_000;

/// One page decoded: its visible glyphs, whether decoding failed part way, its visible box and how many invisible
/// glyphs were kept.
struct Decoded {
    number: u32,
    glyphs: Vec<Glyph>,
    failed: bool,
    frame: Option<Frame>,
    hidden_kept: u32,
}

/// Decodes one page's glyphs; a page whose content stream cannot be read keeps whatever was decoded before the fault.
fn decode(one: &mut OnePage, number: u32, id: lopdf::ObjectId) -> Decoded {
    let mut dev = GlyphCollector::default();
    let run = catch_unwind(AssertUnwindSafe(|| one.output(number, id, &mut dev)));
    let failed = !matches!(run, Ok(Ok(())));
    let frame = frame(one.doc(), id, dev.media);
    // Text outside the visible box (cropped away) is not on the page a reader sees.
    let seen: Vec<Seen> = (dev.glyphs.iter().zip(&dev.seen))
        .map(|(g, s)| match frame {
            Some(f) if !f.holds(g.x, g.y) => Seen::Clipped,
            _ => *s,
        })
        .collect();
    let (glyphs, hidden_kept) = keep_seen(std::mem::take(&mut dev.glyphs), &seen);
    Decoded {
        number,
        glyphs,
        failed,
        frame,
        hidden_kept,
    }
}

/// The text near the top and the bottom of a page that may be running text (none without a page box).
fn marks_of(glyphs: &[Glyph], frame: Option<Frame>, page: u32) -> Vec<Mark> {
    let Some(f) = frame else {
        return Vec::new();
    };
    let h = f.ury - f.lly;
    let (top, bottom) = (f.ury - BAND * h, f.lly + BAND * h);
    let mut marks = Vec::new();
    for (text, y, size) in band_text(glyphs, top, bottom) {
        let at = (f.ury - y) / h;
        let keys = [key(&text), page_number_key(&text, page)];
        marks.extend(keys.into_iter().flatten().map(|key| Mark { key, at, size }));
    }
    marks
}

/// Lays out glyphs, setting the document's running text apart.
fn lay_out(glyphs: &[Glyph], frame: Option<Frame>, furniture: &Furniture) -> Laid {
    match frame {
        Some(f) if !furniture.is_empty() => {
            let h = f.ury - f.lly;
            let apart = |text: &str, y: f64, size: f64| {
                let at = (f.ury - y) / h;
                (at <= BAND + 0.02 || at >= 1.0 - BAND - 0.02)
                    && key(text).is_some_and(|k| furniture.holds(&k, at, size))
            };
            page_layout_apart(glyphs, &apart)
        }
        _ => page_layout(glyphs),
    }
}

/// A decoded page laid out as a [`PageText`].
fn lay_page(page: Decoded, furniture: &Furniture) -> PageText {
    let placed = place(lay_out(&page.glyphs, page.frame, furniture), page.number, page.frame);
    let garbled = looks_garbled(&placed.text);
    PageText {
        number: page.number,
        text: placed.text,
        failed: page.failed,
        ocr: false,
        decoding: if garbled { Decoding::Garbled } else { Decoding::Fonts },
        lines: placed.lines,
        headings: placed.headings,
        tables: placed.tables,
        hidden_kept: page.hidden_kept,
        furniture: placed.furniture,
        nesting_cut: false,
    }
}

/// The `/Title` of the document's Info dictionary, decoded (PDFDocEncoding or UTF-16BE).
fn metadata_title(doc: &lopdf::Document) -> Option<String> {
    let info = doc.trailer.get(b"Info").ok()?;
    let (_, info) = doc.dereference(info).ok()?;
    let title = info.as_dict().ok()?.get(b"Title").ok()?;
    let (_, title) = doc.dereference(title).ok()?;
    Some(crate::extract::title::decode_pdf_string(title.as_str().ok()?))
}

/// How long poppler may take to read the pages again.
const REREAD_TIMEOUT: Duration = Duration::from_secs(10);

/// Pages that failed part way, or whose text looks garbled, are read again by poppler (when it is installed), in
/// one run over the pages from the first to the last of them; its reading replaces ours where it has text and is
/// not garbled itself. A page still garbled stays marked so.
fn second_reading(bytes: &[u8], pages: &mut [PageText], furniture: &Furniture) {
    let wanted = |p: &PageText| p.failed || p.decoding == Decoding::Garbled;
    let numbers: Vec<u32> = pages.iter().filter(|p| wanted(p)).map(|p| p.number).collect();
    let (Some(&first), Some(&last)) = (numbers.first(), numbers.last()) else {
        return;
    };
    let Some(read) = super::poppler::pages_words(bytes, first, last, REREAD_TIMEOUT) else {
        return;
    };
    for page in pages.iter_mut().filter(|p| wanted(p)) {
        let Some(words) = read.get((page.number - first) as usize) else {
            continue;
        };
        let placed = place(lay_out(&words.glyphs, words.frame, furniture), page.number, words.frame);
        if placed.text.trim().is_empty() || looks_garbled(&placed.text) {
            continue;
        }
        page.text = placed.text;
        page.lines = placed.lines;
        page.headings = placed.headings;
        page.tables = placed.tables;
        page.furniture = placed.furniture;
        page.failed = false;
        page.decoding = Decoding::Poppler;
    }
}

fn open(path: &Path, bytes: &[u8]) -> Result<lopdf::Document> {
    if !bytes.starts_with(b"%PDF") && !bytes[..bytes.len().min(1024)].windows(5).any(|w| w == b"%PDF-") {
        return Err(corrupt(path, "no PDF header"));
    }
    let load = |b: &[u8]| catch_unwind(|| lopdf::Document::load_mem(b));
    let mut doc = match load(bytes) {
        Ok(Ok(doc)) => doc,
        Ok(Err(lopdf::Error::Decryption(_))) => return Err(Error::Encrypted { path: path.into() }),
        failed => {
            let first = match failed {
                Ok(Err(e)) => e.to_string(),
                _ => "the PDF parser failed on this file".to_string(),
            };
            // A broken cross-reference table or trailer: rebuild it from the objects in the file, as poppler does,
            // and call the file damaged only when that recovers nothing.
            match super::repair::rebuild_xref(bytes).map(|rebuilt| load(&rebuilt)) {
                Some(Ok(Ok(doc))) if !doc.get_pages().is_empty() => doc,
                Some(Ok(Err(lopdf::Error::Decryption(_)))) => return Err(Error::Encrypted { path: path.into() }),
                _ => return Err(corrupt(path, &first)),
            }
        }
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

/// A Type3 font gives its glyph widths in its own glyph space (scaled by `/FontMatrix`, e.g. 0.00697 for the
/// bitmap fonts of dvips), but pdf-extract reads every width as thousandths of text space, which squeezes each
/// run of such text to a fraction of its real width and breaks the geometry the layout relies on. Rescaling
/// the widths to thousandths before extraction keeps the glyph positions honest.
fn scale_type3_widths(doc: &mut lopdf::Document) {
    use lopdf::Object;
    let mut scaled = std::collections::HashSet::new();
    let fonts: Vec<(lopdf::ObjectId, f32)> = doc
        .objects
        .iter()
        .filter_map(|(&id, obj)| {
            let dict = obj.as_dict().ok()?;
            (dict.get(b"Subtype").and_then(Object::as_name).ok()? == b"Type3").then_some(())?;
            let matrix = dict.get(b"FontMatrix").and_then(Object::as_array).ok()?;
            let scale = matrix.first()?.as_float().ok()? * 1000.0;
            (scale.is_finite() && scale > 0.0 && (scale - 1.0).abs() > 1e-4).then_some((id, scale))
        })
        .collect();
    for (font, scale) in fonts {
        let target = match doc
            .get_object(font)
            .and_then(Object::as_dict)
            .and_then(|d| d.get(b"Widths"))
        {
            Ok(Object::Reference(r)) => *r,
            Ok(Object::Array(_)) => font,
            _ => continue,
        };
        if !scaled.insert(target) {
            continue;
        }
        let widths = match doc.get_object_mut(target) {
            Ok(Object::Array(a)) => a,
            Ok(Object::Dictionary(d)) => match d.get_mut(b"Widths") {
                Ok(Object::Array(a)) => a,
                _ => continue,
            },
            _ => continue,
        };
        for w in widths.iter_mut() {
            if let Ok(v) = w.as_float() {
                *w = Object::Real(v * scale);
            }
        }
    }
}

/// The most glyphs one `/W` range may cover (a CID is 16 bits).
const MAX_CID_RANGE: i64 = 65_536;

/// A CID font's `/W` array lists widths as `c [w1 w2 …]` or as a range `c_first c_last w`. pdf-extract reads only
/// the first form right: every glyph of a range gets the default width (often 0), so the glyph after it starts
/// a "gap" the width of the glyph and words split into fragments — Skia (Chrome's "Save as PDF", Google Docs)
/// writes ranges for runs of equal widths such as digits and punctuation. Each range is rewritten into the list
/// form, which means the same, before extraction.
fn expand_cid_width_ranges(doc: &mut lopdf::Document) {
    use lopdf::Object;
    let targets: Vec<lopdf::ObjectId> = doc
        .objects
        .iter()
        .filter_map(|(&id, obj)| {
            let dict = obj.as_dict().ok()?;
            let subtype = dict.get(b"Subtype").and_then(Object::as_name).ok()?;
            if subtype != b"CIDFontType0" && subtype != b"CIDFontType2" {
                return None;
            }
            match dict.get(b"W").ok()? {
                Object::Reference(r) => Some(*r),
                Object::Array(_) => Some(id),
                _ => None,
            }
        })
        .collect();
    for target in targets {
        let widths = match doc.get_object_mut(target) {
            Ok(Object::Array(a)) => a,
            Ok(Object::Dictionary(d)) => match d.get_mut(b"W") {
                Ok(Object::Array(a)) => a,
                _ => continue,
            },
            _ => continue,
        };
        if let Some(listed) = widths_as_lists(widths) {
            *widths = listed;
        }
    }
}

/// `/W` with every `c_first c_last w` range written as `c_first [w … w]`; `None` when there is no range or the
/// array is malformed (then it is left as it is).
fn widths_as_lists(w: &[lopdf::Object]) -> Option<Vec<lopdf::Object>> {
    use lopdf::Object;
    let number = |o: &Object| {
        o.as_float()
            .ok()
            .map(f64::from)
            .or_else(|| o.as_i64().ok().map(|i| i as f64))
    };
    let mut out = Vec::with_capacity(w.len());
    let mut changed = false;
    let mut i = 0;
    while i < w.len() {
        let first = w[i].as_i64().ok()?;
        match w.get(i + 1)? {
            Object::Array(list) => {
                out.push(Object::Integer(first));
                out.push(Object::Array(list.clone()));
                i += 2;
            }
            last => {
                let last = last.as_i64().ok()?;
                let width = number(w.get(i + 2)?)?;
                if last < first || last - first >= MAX_CID_RANGE {
                    return None;
                }
                out.push(Object::Integer(first));
                out.push(Object::Array(vec![
                    Object::Real(width as f32);
                    (last - first + 1) as usize
                ]));
                changed = true;
                i += 3;
            }
        }
    }
    changed.then_some(out)
}

/// pdf-extract ignores the `'` and `"` text operators (next line, then show a string), so their text is lost
/// and every later `Td` on the page lands one line off, on top of other text (groff through Ghostscript uses
/// them for every line). Each is rewritten into the equivalent `Tw`/`Tc`, `T*` and `Tj` before extraction.
fn expand_quote_operators(doc: &mut lopdf::Document) {
    use lopdf::content::{Content, Operation};
    let pages: Vec<lopdf::ObjectId> = doc.get_pages().into_values().collect();
    for page in pages {
        let Ok(bytes) = doc.get_page_content(page) else {
            continue;
        };
        // An apostrophe inside a string is not the operator: only a page that uses one is decoded and rewritten.
        if !bytes.iter().any(|&b| b == b'\'' || b == b'"')
            || !super::hidden::scan_ops(&bytes, |op, _, _| op == "'" || op == "\"")
        {
            continue;
        }
        let Ok(content) = Content::decode(&bytes) else {
            continue;
        };
        if !content
            .operations
            .iter()
            .any(|op| op.operator == "'" || op.operator == "\"")
        {
            continue;
        }
        let mut operations = Vec::with_capacity(content.operations.len());
        for mut op in content.operations {
            let quote = op.operator == "'" && op.operands.len() == 1;
            let double = op.operator == "\"" && op.operands.len() == 3;
            if double {
                let text = op.operands.pop();
                let spacing = op.operands.pop();
                let words = op.operands.pop();
                operations.push(Operation::new("Tw", words.into_iter().collect()));
                operations.push(Operation::new("Tc", spacing.into_iter().collect()));
                op.operands = text.into_iter().collect();
            }
            if quote || double {
                operations.push(Operation::new("T*", Vec::new()));
                op.operator = "Tj".into();
            }
            operations.push(op);
        }
        if let Ok(encoded) = (Content { operations }).encode() {
            super::hidden::set_page_content(doc, page, encoded);
        }
    }
}

fn corrupt(path: &Path, detail: &str) -> Error {
    Error::Corrupt {
        path: path.into(),
        kind: "PDF",
        detail: detail.to_string(),
    }
}

/// The visible box of a page: its `/CropBox` when it has one, else the media box pdf-extract reports (inherited);
/// `None` for a rotated page, whose boxes would need turning.
fn frame(doc: &lopdf::Document, id: lopdf::ObjectId, media: Option<Frame>) -> Option<Frame> {
    let dict = doc.get_dictionary(id).ok()?;
    let rotate = dict.get(b"Rotate").ok().and_then(|r| r.as_i64().ok()).unwrap_or(0);
    if rotate.rem_euclid(360) != 0 {
        return None;
    }
    let number = |o: &lopdf::Object| o.as_float().map(f64::from).or_else(|_| o.as_i64().map(|i| i as f64));
    let crop = dict
        .get(b"CropBox")
        .ok()
        .and_then(|o| doc.dereference(o).ok())
        .and_then(|(_, o)| o.as_array().ok())
        .and_then(|a| {
            let v: Vec<f64> = a.iter().filter_map(|o| number(o).ok()).collect();
            (v.len() == 4).then(|| Frame::new(v[0], v[1], v[2], v[3])).flatten()
        });
    crop.or(media)
}

/// Collects every decoded glyph with its position, size and advance, how it is seen (from the markers of
/// [`super::hidden`]), and the page's media box.
#[derive(Default)]
struct GlyphCollector {
    glyphs: Vec<Glyph>,
    seen: Vec<Seen>,
    visibility: Visibility,
    media: Option<Frame>,
}

impl OutputDev for GlyphCollector {
    fn begin_page(
        &mut self,
        _n: u32,
        media_box: &MediaBox,
        _art: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.media = Frame::new(media_box.llx, media_box.lly, media_box.urx, media_box.ury);
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
            self.seen.push(self.visibility.seen(trm.m31, trm.m32, width, size));
            self.glyphs.push(Glyph {
                x: trm.m31,
                y: trm.m32,
                size,
                width,
                text: ch.to_string(),
                turn: super::layout::turn_of(trm.m11, trm.m12),
            });
        }
        Ok(())
    }

    fn fill(&mut self, _ctm: &Transform, _cs: &ColorSpace, _color: &[f64], path: &Shape) -> Result<(), OutputError> {
        if let Some(v) = read_marker(path) {
            self.visibility = v;
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

#[cfg(test)]
mod tests {
    use super::widths_as_lists;
    use lopdf::Object::{Array, Integer, Real};

    #[test]
    fn width_ranges_become_lists_and_lists_stay() {
        // Skia's `/W [0 [600] 15 17 317.87 20 [274.9]]`.
        let w = vec![
            Integer(0),
            Array(vec![Real(600.0)]),
            Integer(15),
            Integer(17),
            Real(317.87),
            Integer(20),
            Array(vec![Real(274.9)]),
        ];
        let listed = widths_as_lists(&w).unwrap();
        assert_eq!(listed.len(), 6);
        assert_eq!(listed[2], Integer(15));
        assert_eq!(listed[3], Array(vec![Real(317.87); 3]));
        assert_eq!(listed[5], Array(vec![Real(274.9)]));
        // Nothing to do, or malformed (a range backwards, a dangling entry): left alone.
        assert!(widths_as_lists(&[Integer(0), Array(vec![Real(1.0)])]).is_none());
        assert!(widths_as_lists(&[Integer(9), Integer(3), Real(1.0)]).is_none());
        assert!(widths_as_lists(&[Integer(1), Integer(2)]).is_none());
    }
}

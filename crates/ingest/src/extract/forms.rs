//! Forms drawn where the page draws them. pdf-extract decodes the content of a form XObject (`Do`) with a fresh
//! graphics state: the matrix in force where the form is drawn and the form's own `/Matrix` are both dropped, so
//! the text of an included figure (a PDF figure scaled into a column, a logo moved to a corner) lands at the form's
//! own coordinates, spread over the page and onto its body lines. Before extraction, each form that holds text and
//! is drawn under another matrix than the identity is drawn instead through a copy of its own whose content begins
//! with that whole matrix (`a b c d e f cm`), the form's matrix and every matrix of the streams that draw it
//! composed; the `Do` that draws it is renamed to the copy, in the caller's own copy of its resources. Copies are
//! made once per form and matrix, within bounds; a form without text, or one drawn where it already lies, is left
//! as it is. Only the in-memory copy given to pdf-extract changes.

use super::fonts::{form_resources, inherited_resources, resolve, sub_dict};
use super::hidden::{multiply, scan_ops};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};
use std::collections::HashMap;
use std::rc::Rc;

/// A PDF matrix `[a b c d e f]`, applied to row vectors `[x y 1]`.
type Matrix = [f64; 6];

const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// The most copies made for one document, and the most content bytes they hold together.
const MAX_COPIES: usize = 8_192;
const MAX_COPIED_BYTES: usize = 64 << 20;
/// The deepest nesting followed (the guard has already cut deeper ones).
const MAX_DEPTH: usize = super::guard::MAX_FORM_DEPTH;
/// The most decoded bytes of one content stream looked at.
const MAX_CONTENT_BYTES: u64 = 8 << 20;

fn is_identity(m: &Matrix) -> bool {
    m[..4].iter().zip(&IDENTITY[..4]).all(|(a, b)| (a - b).abs() < 1e-6) && m[4].abs() < 1e-3 && m[5].abs() < 1e-3
}

/// A matrix as a key: rounded so that the same placement written twice finds one copy.
fn key(m: &Matrix) -> [i64; 6] {
    let scaled = |v: f64, by: f64| (v * by).round() as i64;
    [
        scaled(m[0], 1e6),
        scaled(m[1], 1e6),
        scaled(m[2], 1e6),
        scaled(m[3], 1e6),
        scaled(m[4], 1e3),
        scaled(m[5], 1e3),
    ]
}

/// A `Do` of a content stream: where its name lies in the stream's bytes, the name, and the matrix in force there
/// relative to the stream's start.
struct Draw {
    at: usize,
    len: usize,
    name: Vec<u8>,
    ctm: Matrix,
}

/// What a content stream draws, and whether it shows text itself.
struct Scan {
    draws: Vec<Draw>,
    text: bool,
}

fn scan(bytes: &[u8]) -> Scan {
    let (mut ctm, mut stack, mut draws, mut text) = (IDENTITY, Vec::new(), Vec::new(), false);
    scan_ops(bytes, |op, nums, name| {
        match op {
            "q" => stack.push(ctm),
            "Q" => ctm = stack.pop().unwrap_or(IDENTITY),
            "cm" if nums.len() >= 6 => {
                let m: Matrix = nums[nums.len() - 6..].try_into().unwrap_or(IDENTITY);
                if m.iter().all(|v| v.is_finite()) {
                    ctm = multiply(&m, &ctm);
                }
            }
            "Tj" | "TJ" | "'" | "\"" => text = true,
            "Do" => {
                if let Some(name) = name {
                    // The name is a slice of `bytes`: its offset is where the `Do`'s operand is written.
                    let at = name.as_ptr() as usize - bytes.as_ptr() as usize;
                    draws.push(Draw {
                        at,
                        len: name.len(),
                        name: unescape(name),
                        ctm,
                    });
                }
            }
            _ => {}
        }
        false
    });
    Scan { draws, text }
}

/// A name token's bytes as the name it stands for (`#xx` escapes decoded).
fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'#' && i + 2 < raw.len() {
            if let Ok(v) = u8::from_str_radix(std::str::from_utf8(&raw[i + 1..i + 3]).unwrap_or("zz"), 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

/// The form XObject a resource name draws, if it is one.
fn form_named(doc: &Document, res: &Dictionary, name: &[u8]) -> Option<ObjectId> {
    let id = sub_dict(doc, res, b"XObject")?.get(name).ok()?.as_reference().ok()?;
    let stream = doc.get_object(id).ok()?.as_stream().ok()?;
    (stream.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Form")).then_some(id)
}

fn form_matrix(doc: &Document, form: ObjectId) -> Matrix {
    let number = |o: &Object| match o {
        Object::Integer(i) => Some(*i as f64),
        Object::Real(r) => Some(f64::from(*r)),
        _ => None,
    };
    (|| {
        let stream = doc.get_object(form).ok()?.as_stream().ok()?;
        let array = resolve(doc, stream.dict.get(b"Matrix").ok()?).ok()?.as_array().ok()?;
        let v: Vec<f64> = array.iter().filter_map(number).collect();
        let m: Matrix = v.try_into().ok()?;
        m.iter().all(|x| x.is_finite()).then_some(m)
    })()
    .unwrap_or(IDENTITY)
}

/// A form's decoded content and what it draws.
type Scanned = (Rc<[u8]>, Rc<Scan>);

#[derive(Default)]
struct Placer {
    /// Each form's decoded content and what it draws (`None`: unreadable).
    scans: HashMap<ObjectId, Option<Scanned>>,
    /// The copy drawn for a form under a matrix (`None`: the form itself will do).
    copies: HashMap<(ObjectId, [i64; 6]), Option<ObjectId>>,
    made: usize,
    copied_bytes: usize,
}

impl Placer {
    fn scanned(&mut self, doc: &Document, form: ObjectId) -> Option<Scanned> {
        self.scans
            .entry(form)
            .or_insert_with(|| {
                let stream = doc.get_object(form).ok()?.as_stream().ok()?;
                let bytes: Rc<[u8]> = super::inflate::decode(stream, MAX_CONTENT_BYTES).ok()?.into();
                let scan = Rc::new(scan(&bytes));
                Some((bytes, scan))
            })
            .clone()
    }

    /// The stream `bytes` (drawn under `start`, what it draws in `found`) with its `Do`s renamed to placed copies,
    /// and its resources `res` with the copies added; `None` when every form it draws will do as it is.
    fn rewrite(
        &mut self,
        doc: &mut Document,
        bytes: &[u8],
        found: &Scan,
        start: &Matrix,
        res: &Dictionary,
        depth: usize,
    ) -> Option<(Vec<u8>, Dictionary)> {
        let mut renames: Vec<(&Draw, Vec<u8>, ObjectId)> = Vec::new();
        for draw in &found.draws {
            let Some(form) = form_named(doc, res, &draw.name) else {
                continue;
            };
            let whole = multiply(&form_matrix(doc, form), &multiply(&draw.ctm, start));
            if let Some(copy) = self.place(doc, form, &whole, res, depth + 1) {
                let mut name = draw.name.clone();
                name.extend(format!("_rsP{}", copy.0).bytes());
                renames.push((draw, name, copy));
            }
        }
        if renames.is_empty() {
            return None;
        }
        let mut out = Vec::with_capacity(bytes.len() + renames.len() * 12);
        let mut from = 0;
        let mut xobjects = sub_dict(doc, res, b"XObject").cloned().unwrap_or_default();
        for (draw, name, copy) in renames {
            out.extend_from_slice(&bytes[from..draw.at]);
            // The raw token (escapes and all) plus the suffix, so the written name is the resource's new name.
            out.extend_from_slice(&bytes[draw.at..draw.at + draw.len]);
            out.extend_from_slice(&name[draw.name.len()..]);
            from = draw.at + draw.len;
            xobjects.set(name, Object::Reference(copy));
        }
        out.extend_from_slice(&bytes[from..]);
        let mut res = res.clone();
        res.set("XObject", Object::Dictionary(xobjects));
        Some((out, res))
    }

    /// The copy of `form` to draw under the whole matrix `whole`, made if needed; `None` when the form itself
    /// draws its text where it lies (or a bound is reached).
    fn place(
        &mut self,
        doc: &mut Document,
        form: ObjectId,
        whole: &Matrix,
        caller: &Dictionary,
        depth: usize,
    ) -> Option<ObjectId> {
        if depth > MAX_DEPTH || !whole.iter().all(|v| v.is_finite()) {
            return None;
        }
        let k = (form, key(whole));
        if let Some(known) = self.copies.get(&k) {
            return *known;
        }
        // While this form is being placed, drawing it again inside itself draws the form as it is.
        self.copies.insert(k, None);
        let (bytes, found) = self.scanned(doc, form)?;
        if !found.text && found.draws.is_empty() {
            return None;
        }
        // pdf-extract reads a form with its own resources, else with those of the stream that draws it.
        let res = form_resources(doc, form).cloned().unwrap_or_else(|| caller.clone());
        let nested = self.rewrite(doc, &bytes, &found, whole, &res, depth);
        if nested.is_none() && (is_identity(whole) || !found.text) {
            return None;
        }
        if self.made >= MAX_COPIES || self.copied_bytes + bytes.len() > MAX_COPIED_BYTES {
            return None;
        }
        let (body, res) = nested.unwrap_or_else(|| (bytes.to_vec(), res));
        let mut content = format!(
            "{} {} {} {} {} {} cm\n",
            whole[0], whole[1], whole[2], whole[3], whole[4], whole[5]
        )
        .into_bytes();
        content.extend_from_slice(&body);
        let mut dict = doc.get_object(form).ok()?.as_stream().ok()?.dict.clone();
        for gone in [&b"Filter"[..], b"DecodeParms", b"Length", b"DL", b"Matrix"] {
            dict.remove(gone);
        }
        dict.set("Resources", Object::Dictionary(res));
        self.made += 1;
        self.copied_bytes += content.len();
        let copy = doc.add_object(Stream::new(dict, content));
        self.copies.insert(k, Some(copy));
        Some(copy)
    }
}

/// Draws every form holding text where its callers place it (see the module's text); a page or form that cannot
/// be read is left as it is.
pub fn place_forms(doc: &mut Document) {
    let mut placer = Placer::default();
    for page in doc.get_pages().into_values() {
        let Ok(page_dict) = doc.get_dictionary(page) else {
            continue;
        };
        let Some(res) = inherited_resources(doc, page_dict).cloned() else {
            continue;
        };
        if super::fonts::forms(doc, &res).is_empty() {
            continue;
        }
        let Some(bytes) = super::hidden::page_content(doc, page) else {
            continue;
        };
        let found = scan(&bytes);
        if found.draws.is_empty() {
            continue;
        }
        if let Some((content, res)) = placer.rewrite(doc, &bytes, &found, &IDENTITY, &res, 0) {
            if super::hidden::set_page_content(doc, page, content) {
                if let Ok(dict) = doc.get_dictionary_mut(page) {
                    dict.set("Resources", Object::Dictionary(res));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_compose_as_pdf_draws_them() {
        // Scale by a half, then move by (100, 200): a point (10, 10) of the form lands at (105, 205).
        let m = multiply(&[0.5, 0.0, 0.0, 0.5, 0.0, 0.0], &[1.0, 0.0, 0.0, 1.0, 100.0, 200.0]);
        let (x, y) = (10.0 * m[0] + 10.0 * m[2] + m[4], 10.0 * m[1] + 10.0 * m[3] + m[5]);
        assert_eq!((x, y), (105.0, 205.0));
        assert!(is_identity(&multiply(&IDENTITY, &IDENTITY)));
    }

    #[test]
    fn the_scan_finds_each_do_under_its_matrix_and_where_its_name_is() {
        let bytes = b"q 2 0 0 2 10 20 cm /Fm#31 Do Q BT (x) Tj ET /Im2 Do";
        let found = scan(bytes);
        assert!(found.text);
        assert_eq!(found.draws.len(), 2);
        let d = &found.draws[0];
        assert_eq!(d.name, b"Fm1");
        assert_eq!(&bytes[d.at..d.at + d.len], b"Fm#31");
        assert_eq!(d.ctm, [2.0, 0.0, 0.0, 2.0, 10.0, 20.0]);
        assert_eq!(found.draws[1].ctm, IDENTITY);
    }
}

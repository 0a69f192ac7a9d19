//! Hostile-structure guard, run on the lopdf document before pdf-extract sees it. pdf-extract recurses into every
//! form XObject a `Do` names and up every `/Parent`, with no bound, and inflates every stream whole; here, without
//! recursion of our own: the page tree lists each page once, `/Parent` chains end, a `Do` that would draw a form
//! already being drawn, or nest deeper than [`MAX_FORM_DEPTH`], is pointed at an empty form, and every stream the
//! extraction decodes is measured first ([`super::inflate`]), so a decompression bomb fails its file in plain words.
//! The fonts' and colour spaces' streams measured are kept decoded (within [`KEEP_STREAM_BYTES`] a stream,
//! [`KEEP_DECODED_BYTES`] a document): pdf-extract builds a page's fonts and colour spaces again on every page and
//! inflates their streams each time (a datasheet's ICC profile at every colour change), so each is inflated once
//! here instead; an ICC profile, which text never reads, is kept empty. Content and forms are read once a page
//! anyway, and stay as they are.

use super::inflate::{self, MAX_DOCUMENT_BYTES, MAX_STREAM_BYTES};
use lopdf::{dictionary, Dictionary, Document, Object, ObjectId, Stream};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use tree::inherited;

mod tree;

/// The deepest a form XObject may be drawn inside others (the page's own content is level 0).
pub const MAX_FORM_DEPTH: usize = 32;

/// The most form XObjects drawn for one page, nested ones included; past it, nested `Do`s draw nothing.
pub const MAX_FORM_CALLS_PER_PAGE: usize = 10_000;

/// The deepest the page tree may go (lopdf stops there too), and the longest `/Parent` chain followed.
pub const MAX_TREE_DEPTH: usize = 256;

/// The most decoded bytes kept in place of their compressed streams, for the whole document; past it, streams stay
/// as they are (and are inflated where they are used).
pub const KEEP_DECODED_BYTES: u64 = 64 << 20;

/// The largest stream kept decoded: fonts, CMaps and functions are far smaller, and a stream near the bomb bound is
/// not held twice while the document is measured.
pub const KEEP_STREAM_BYTES: u64 = 4 << 20;

/// Makes `doc` safe for pdf-extract; `Err` with a plain-words reason when a stream decompresses past a bound. `Ok`
/// holds the pages where nested forms past [`MAX_FORM_DEPTH`] or [`MAX_FORM_CALLS_PER_PAGE`] were cut.
pub fn guard(doc: &mut Document) -> Result<Vec<u32>, String> {
    tree::repair(doc);
    let mut walk = Walk::default();
    for (number, page) in doc.get_pages() {
        walk.page(doc, number, page)?;
    }
    Ok(walk.cut_pages)
}

/// Whose resources a `Do` is resolved against: a page's (inherited up the tree) or a form's own.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Res {
    Page(ObjectId),
    Form(ObjectId),
}

fn deref<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

fn dict_at<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    dict.get(key)
        .ok()
        .and_then(|o| deref(doc, o))
        .and_then(|o| o.as_dict().ok())
}

fn resources(doc: &Document, res: Res) -> Option<&Dictionary> {
    match res {
        Res::Form(id) => own_resources(doc, id),
        Res::Page(page) => inherited(doc, page, b"Resources", |o| o.as_dict().ok()),
    }
}

/// The `/Resources` of the stream `id`, as pdf-extract picks them (else it keeps the caller's).
fn own_resources(doc: &Document, id: ObjectId) -> Option<&Dictionary> {
    let stream = doc.get_object(id).and_then(Object::as_stream).ok()?;
    dict_at(doc, &stream.dict, b"Resources")
}

/// The stream a `Do` of `name` draws.
fn xobject(doc: &Document, res: Res, name: &[u8]) -> Option<ObjectId> {
    let xobjects = dict_at(doc, resources(doc, res)?, b"XObject")?;
    match doc.dereference(xobjects.get(name).ok()?) {
        // Only a form draws text: an image's stream (a 600 dpi scan decodes to hundreds of MiB) is never inflated.
        Ok((Some(id), Object::Stream(s))) if !is_image(s) => Some(id),
        _ => None,
    }
}

/// An image XObject (`/Subtype /Image`), which holds pixels and never text.
fn is_image(stream: &Stream) -> bool {
    stream
        .dict
        .get(b"Subtype")
        .and_then(Object::as_name)
        .is_ok_and(|n| n == b"Image")
}

/// The names of the XObjects a content stream draws, in order.
fn drawn(content: &[u8]) -> Rc<[Vec<u8>]> {
    // Parsing content is most of extraction's own cost: a stream without the bytes "Do" draws nothing. (memchr's
    // search, not `windows(2)`: a page of hundreds of MiB is scanned in a fraction of a second, in a debug build too.)
    if memchr::memmem::find(content, b"Do").is_none() {
        return Rc::from([]);
    }
    // Read by the raw scan, not decoded into objects.
    let mut names = Vec::new();
    super::hidden::scan_ops(content, |op, _, name| {
        if let Some(name) = name.filter(|_| op == "Do") {
            names.push(name.to_vec());
        }
        false
    });
    names.into()
}

/// What a side stream holds: an ICC profile (which text never reads) or anything else pdf-extract decodes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Icc,
    Other,
}

/// The streams beside content that pdf-extract decodes for these resources: fonts' ToUnicode and CMaps, font
/// programs, and colour spaces' ICC profiles and tint functions (those of a separation's or an indexed space's
/// base too).
fn side_streams(doc: &Document, res: &Dictionary) -> Vec<(ObjectId, Side)> {
    let stream_id = |o: &Object| match doc.dereference(o) {
        Ok((Some(id), Object::Stream(_))) => Some((id, Side::Other)),
        _ => None,
    };
    let mut out = Vec::new();
    if let Some(fonts) = dict_at(doc, res, b"Font") {
        for font in fonts.iter().filter_map(|(_, f)| deref(doc, f)?.as_dict().ok()) {
            let mut dicts = vec![font];
            if let Some(Object::Array(descendants)) = font.get(b"DescendantFonts").ok().and_then(|o| deref(doc, o)) {
                dicts.extend(descendants.iter().filter_map(|d| deref(doc, d)?.as_dict().ok()));
            }
            for dict in dicts {
                out.extend(
                    ["ToUnicode", "Encoding"]
                        .iter()
                        .filter_map(|k| stream_id(dict.get(k.as_bytes()).ok()?)),
                );
                if let Some(descriptor) = dict_at(doc, dict, b"FontDescriptor") {
                    let files = ["FontFile", "FontFile2", "FontFile3"].iter();
                    out.extend(files.filter_map(|k| stream_id(descriptor.get(k.as_bytes()).ok()?)));
                }
            }
        }
    }
    if let Some(spaces) = dict_at(doc, res, b"ColorSpace") {
        for space in spaces.iter().filter_map(|(_, s)| deref(doc, s)) {
            colour_streams(doc, space, 0, &mut out);
        }
    }
    out
}

/// The streams of a colour space array, and of the arrays inside it (a separation's alternate space), two deep.
fn colour_streams(doc: &Document, space: &Object, depth: usize, out: &mut Vec<(ObjectId, Side)>) {
    let Object::Array(parts) = space else { return };
    let icc = parts.first().and_then(|p| p.as_name().ok()) == Some(b"ICCBased".as_slice());
    for part in parts {
        match doc.dereference(part) {
            Ok((Some(id), Object::Stream(_))) => out.push((id, if icc { Side::Icc } else { Side::Other })),
            Ok((_, inner @ Object::Array(_))) if depth < 2 => colour_streams(doc, inner, depth + 1, out),
            _ => {}
        }
    }
}

/// One form being drawn (or the page, `id: None`), and where it is in its list of `Do`s.
struct Frame {
    id: Option<ObjectId>,
    res: Res,
    names: Rc<[Vec<u8>]>,
    next: usize,
}

#[derive(Default)]
struct Walk {
    /// Decoded bytes of the streams measured so far, each counted once.
    used: u64,
    /// Decoded bytes kept in place of their streams so far.
    kept: u64,
    measured: HashSet<ObjectId>,
    resources_seen: HashSet<Res>,
    drawn: HashMap<ObjectId, Rc<[Vec<u8>]>>,
    empty_form: Option<ObjectId>,
    /// Pages where forms nested too deep or drawn too often were cut (their text may be missing), in order.
    cut_pages: Vec<u32>,
}

impl Walk {
    /// Walks what page `number` draws, measuring each stream and cutting cycles and deep nesting.
    fn page(&mut self, doc: &mut Document, number: u32, page: ObjectId) -> Result<(), String> {
        let mut content = Vec::new();
        for id in doc.get_page_contents(page) {
            if let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) {
                content.extend(self.measure(stream, id, number, "content")?);
                content.push(b'\n');
            }
        }
        let names = drawn(&content);
        drop(content);
        self.side(doc, Res::Page(page), number)?;
        let mut stack = vec![Frame {
            id: None,
            res: Res::Page(page),
            names,
            next: 0,
        }];
        let mut calls = 0;
        while let Some(top) = stack.last_mut() {
            let Some(name) = top.names.get(top.next).cloned() else {
                stack.pop();
                continue;
            };
            top.next += 1;
            let (from, res) = (top.id, top.res);
            let Some(target) = xobject(doc, res, &name) else {
                continue;
            };
            calls += 1;
            if let Some(from) = from {
                let cycle = stack.iter().any(|f| f.id == Some(target));
                if cycle || stack.len() > MAX_FORM_DEPTH || calls > MAX_FORM_CALLS_PER_PAGE {
                    // A cycle draws nothing new; a chain cut at the bounds may have held text.
                    if !cycle && self.cut_pages.last() != Some(&number) {
                        self.cut_pages.push(number);
                    }
                    self.cut(doc, from, res, &name);
                    if let Some(top) = stack.last_mut() {
                        top.res = Res::Form(from);
                    }
                    continue;
                }
            }
            let names = match self.drawn.get(&target) {
                Some(names) => names.clone(),
                None => {
                    let Ok(stream) = doc.get_object(target).and_then(Object::as_stream) else {
                        continue;
                    };
                    let names = drawn(&self.measure(stream, target, number, "form XObject")?);
                    self.drawn.insert(target, names.clone());
                    names
                }
            };
            let res = if own_resources(doc, target).is_some() {
                Res::Form(target)
            } else {
                res
            };
            self.side(doc, res, number)?;
            stack.push(Frame {
                id: Some(target),
                res,
                names,
                next: 0,
            });
        }
        Ok(())
    }

    /// Measures the side streams of resources not met before, and keeps them decoded (an ICC profile empty).
    fn side(&mut self, doc: &mut Document, res: Res, number: u32) -> Result<(), String> {
        if !self.resources_seen.insert(res) {
            return Ok(());
        }
        let Some(dict) = resources(doc, res) else { return Ok(()) };
        for (id, side) in side_streams(doc, dict) {
            if !self.measured.contains(&id) {
                if let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) {
                    let bytes = self.measure(stream, id, number, "font or colour data")?;
                    self.keep(doc, id, if side == Side::Icc { Vec::new() } else { bytes });
                }
            }
        }
        Ok(())
    }

    /// Puts `decoded` in place of stream `id`'s encoded bytes while the document's budget lasts, so that
    /// pdf-extract, which inflates a stream at every use, copies it instead. A stream without a filter is left.
    fn keep(&mut self, doc: &mut Document, id: ObjectId, decoded: Vec<u8>) {
        let size = decoded.len() as u64;
        if size > KEEP_STREAM_BYTES || self.kept + size > KEEP_DECODED_BYTES {
            return;
        }
        if let Ok(Object::Stream(stream)) = doc.get_object_mut(id) {
            if stream.dict.has(b"Filter") {
                stream.set_plain_content(decoded);
                self.kept += size;
            }
        }
    }

    /// The decoded bytes of `stream`, or the reason they are refused.
    fn measure(&mut self, stream: &Stream, id: ObjectId, page: u32, what: &str) -> Result<Vec<u8>, String> {
        let bytes = inflate::decode(stream, MAX_STREAM_BYTES).map_err(|_| {
            format!(
                "the PDF's page {page} {what} decompresses to more than {} MiB (a decompression bomb)",
                MAX_STREAM_BYTES >> 20
            )
        })?;
        if self.measured.insert(id) {
            self.used += bytes.len() as u64;
            if self.used > MAX_DOCUMENT_BYTES {
                return Err(format!(
                    "the PDF's streams decompress to more than {} MiB in total by page {page} (a decompression bomb)",
                    MAX_DOCUMENT_BYTES >> 20
                ));
            }
        }
        Ok(bytes)
    }

    /// Points `name` in the resources of the form `from` at an empty form, copying the resources it used (maybe
    /// inherited or shared) into its own, so nothing else changes.
    fn cut(&mut self, doc: &mut Document, from: ObjectId, res: Res, name: &[u8]) {
        let empty = *self.empty_form.get_or_insert_with(|| {
            let bbox: Vec<Object> = vec![0.into(), 0.into(), 0.into(), 0.into()];
            let dict = dictionary! { "Type" => "XObject", "Subtype" => "Form", "BBox" => bbox };
            doc.add_object(Stream::new(dict, Vec::new()))
        });
        let mut own = resources(doc, res).cloned().unwrap_or_default();
        let mut xobjects = dict_at(doc, &own, b"XObject").cloned().unwrap_or_default();
        xobjects.set(name.to_vec(), Object::Reference(empty));
        own.set("XObject", Object::Dictionary(xobjects));
        if let Ok(Object::Stream(stream)) = doc.get_object_mut(from) {
            stream.dict.set("Resources", Object::Dictionary(own));
        }
        self.resources_seen.insert(Res::Form(from));
    }
}

#[cfg(test)]
mod tests;

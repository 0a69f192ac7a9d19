//! Text a reader never sees, told apart before layout. pdf-extract ignores the text render mode, the fill colour,
//! soft transparency and clipping paths, so invisible text (render modes 3 and 7, a fill alpha of 0), white ink
//! and text outside its clip reach the layout like any other, and merge letter by letter into the visible line
//! they overlap. Each content stream is walked once with the graphics state pdf-extract leaves out; before each
//! text-showing operator whose visibility differs from the last one, a marker is written: a painted path of
//! sentinel numbers no content draws, which the glyph collector reads in its `fill` callback. Only the in-memory
//! copy given to pdf-extract changes; poppler renders the file itself.

use super::layout::Glyph;
mod walk;
pub(super) use walk::{multiply, scan_ops};

use lopdf::{Dictionary, Document, Object, ObjectId};
use pdf_extract::{Path, PathOp};
use std::collections::{HashMap, HashSet};
use walk::Walker;

/// The first number of a marker path: no real content paints a rectangle at this x with zero size.
const MARK: i64 = -7_250_011;
/// Marker flags.
const INVISIBLE: i64 = 1;
const WHITE: i64 = 2;
/// The most streams rewritten per document (the guard bounds what pdf-extract will draw anyway).
const MAX_STREAMS: usize = 65_536;

/// How the text drawn next is seen: not at all, in white ink, or only inside a clip rectangle (in the same user
/// space as pdf-extract's glyph positions).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Visibility {
    pub invisible: bool,
    pub white: bool,
    pub clip: Option<[f64; 4]>,
}

/// Why a glyph is not seen, if it is not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    Plain,
    /// Not drawn at all (render mode 3 or 7, no opacity): dropped where it overlaps visible text, kept and
    /// reported elsewhere.
    Invisible,
    /// In white ink: dropped where it overlaps visible text, kept silently elsewhere (white on a dark band, a
    /// page number on a coloured header, is text a reader sees; the page's fills are not known here).
    White,
    /// Outside its clip: never on the page.
    Clipped,
}

impl Visibility {
    /// How a glyph at `(x, y)` of `width` and `size` is seen under this state.
    pub fn seen(&self, x: f64, y: f64, width: f64, size: f64) -> Seen {
        if let Some([x0, y0, x1, y1]) = self.clip {
            const SLACK: f64 = 1.0;
            let (cx, cy) = (x + width / 2.0, y + 0.3 * size);
            if cx < x0 - SLACK || cx > x1 + SLACK || cy < y0 - SLACK || cy > y1 + SLACK {
                return Seen::Clipped;
            }
        }
        if self.invisible {
            Seen::Invisible
        } else if self.white {
            Seen::White
        } else {
            Seen::Plain
        }
    }
}

/// The state a marker path carries, or `None` for a path that is not a marker. pdf-extract leaves some paths
/// unpainted (`f*`, `B`), so a marker may follow their rectangles in the path it reports: the last mark counts.
pub fn read_marker(path: &Path) -> Option<Visibility> {
    let at = path
        .ops
        .iter()
        .rposition(|op| matches!(*op, PathOp::Rect(mark, _, w, h) if mark == MARK as f64 && w == 0.0 && h == 0.0))?;
    let PathOp::Rect(_, flags, _, _) = path.ops[at] else {
        return None;
    };
    let flags = flags as i64;
    let clip = match path.ops.get(at + 1) {
        Some(PathOp::Rect(x0, y0, x1, y1)) => Some([*x0, *y0, *x1, *y1]),
        _ => None,
    };
    Some(Visibility {
        invisible: flags & INVISIBLE != 0,
        white: flags & WHITE != 0,
        clip,
    })
}

/// The most decoded bytes of one page's or form's content the pass looks at; a larger stream (a bomb the guard
/// let through, or a page of millions of operators) is left unmarked rather than decoded a second time.
const MAX_CONTENT_BYTES: u64 = 8 << 20;

/// A page's content streams decoded and joined, or `None` when they are unreadable or past
/// [`MAX_CONTENT_BYTES`] together.
pub(super) fn page_content(doc: &Document, page: ObjectId) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for id in doc.get_page_contents(page) {
        let stream = doc.get_object(id).ok()?.as_stream().ok()?;
        let left = MAX_CONTENT_BYTES.saturating_sub(out.len() as u64);
        out.extend(super::inflate::decode(stream, left).ok()?);
        out.push(b'\n');
    }
    Some(out)
}

/// Gives a page new content: one stream of its own, stored plain (lopdf's `change_page_content` compresses it,
/// only for pdf-extract to inflate it again a moment later; and a stream shared with another page stays as it is).
pub(super) fn set_page_content(doc: &mut Document, page: ObjectId, content: Vec<u8>) -> bool {
    let id = doc.add_object(lopdf::Stream::new(Dictionary::new(), content));
    match doc.get_dictionary_mut(page) {
        Ok(dict) => {
            dict.set("Contents", Object::Reference(id));
            true
        }
        Err(_) => {
            doc.objects.remove(&id);
            false
        }
    }
}

/// Marks hidden text in every page's content and every form it draws; a stream without hidden text is left as
/// it is, and so is one that cannot be decoded.
pub fn mark_hidden_text(doc: &mut Document) {
    let mut done: HashSet<ObjectId> = HashSet::new();
    for page in doc.get_pages().into_values() {
        let Ok(page_dict) = doc.get_dictionary(page) else {
            continue;
        };
        let resources = super::fonts::inherited_resources(doc, page_dict).cloned();
        let alphas = resources.as_ref().map(|r| fill_alphas(doc, r)).unwrap_or_default();
        if let Some(bytes) = page_content(doc, page) {
            if let Some(marked) = marked_stream(&bytes, &alphas) {
                set_page_content(doc, page, marked);
            }
        }
        let mut queue: Vec<ObjectId> = resources.map(|r| super::fonts::forms(doc, &r)).unwrap_or_default();
        while let Some(form) = queue.pop() {
            if done.len() >= MAX_STREAMS || !done.insert(form) {
                continue;
            }
            let res = super::fonts::form_resources(doc, form).cloned();
            if let Some(res) = &res {
                queue.extend(super::fonts::forms(doc, res));
            }
            let alphas = res.as_ref().map(|r| fill_alphas(doc, r)).unwrap_or_default();
            let Some(plain) = doc
                .get_object(form)
                .ok()
                .and_then(|o| o.as_stream().ok())
                .and_then(|s| super::inflate::decode(s, MAX_CONTENT_BYTES).ok())
            else {
                continue;
            };
            if let Some(marked) = marked_stream(&plain, &alphas) {
                if let Ok(stream) = doc.get_object_mut(form).and_then(Object::as_stream_mut) {
                    stream.set_plain_content(marked);
                }
            }
        }
    }
}

/// The fill alpha (`/ca`) of each named graphics state of a resource dictionary that sets one.
fn fill_alphas(doc: &Document, res: &Dictionary) -> HashMap<Vec<u8>, f64> {
    let Some(states) = super::fonts::sub_dict(doc, res, b"ExtGState") else {
        return HashMap::new();
    };
    states
        .iter()
        .filter_map(|(name, v)| {
            let dict = super::fonts::resolve(doc, v).ok()?.as_dict().ok()?;
            Some((name.clone(), number(dict.get(b"ca").ok()?)?))
        })
        .collect()
}

fn number(o: &Object) -> Option<f64> {
    match o {
        Object::Integer(i) => Some(*i as f64),
        Object::Real(r) => Some(f64::from(*r)),
        _ => None,
    }
}

/// The stream with markers before text whose visibility changes, or `None` when all its text is plainly seen.
/// A fast scan of the raw bytes decides first; a stream that needs markers gets them written into its bytes,
/// before the operations they precede (decoding it into objects and encoding it again took a third of the time
/// of a Word document's extraction, where every text block is clipped).
fn marked_stream(bytes: &[u8], alphas: &HashMap<Vec<u8>, f64>) -> Option<Vec<u8>> {
    if !walk::might_hide(bytes) {
        return None;
    }
    let mut scout = Walker::new(alphas);
    if !walk::scan_ops(bytes, |op, nums, name| scout.step(op, nums, name).is_some()) {
        return None;
    }
    let mut walker = Walker::new(alphas);
    let mut out = Vec::with_capacity(bytes.len() + 1024);
    let mut copied = 0;
    walk::scan_ops_at(bytes, |at, op, nums, name| {
        if let Some(v) = walker.step(op, nums, name) {
            out.extend_from_slice(&bytes[copied..at]);
            copied = at;
            push_marker(&mut out, v);
        }
        false
    });
    out.extend_from_slice(&bytes[copied..]);
    if let Some(v) = walker.finish() {
        push_marker(&mut out, v);
    }
    Some(out)
}

/// Writes `n MARK flags 0 0 re [x0 y0 x1 y1 re] f`, on a line of its own: a painted path pdf-extract hands to the
/// collector's `fill` with its numbers as written (the clip's corners, not a width and height, held to ±10⁷ so
/// they stay finite as `f32`); the `n` first drops whatever path pdf-extract left unpainted.
fn push_marker(out: &mut Vec<u8>, v: Visibility) {
    use std::io::Write;
    let flags = i64::from(v.invisible) * INVISIBLE + i64::from(v.white) * WHITE;
    let _ = write!(out, "\nn {MARK} {flags} 0 0 re");
    if let Some(c) = v.clip {
        for x in c {
            let _ = write!(out, " {:.4}", x.clamp(-1e7, 1e7));
        }
        out.extend_from_slice(b" re");
    }
    out.extend_from_slice(b" f\n");
}

/// Cell side of the grid that finds the visible glyphs near a hidden one (points).
const CELL: f64 = 16.0;
/// A visible glyph box spanning more cells than this is not indexed (a huge glyph overlaps everything).
const MAX_CELLS: i64 = 64;

/// The glyphs a reader sees, and how many invisible characters were kept because they overlap nothing visible.
/// Clipped glyphs go; invisible or white glyphs go where they overlap visible text. A page with no visible text
/// keeps its invisible text: it is an OCR layer over a scanned image, the page's only text.
pub fn keep_seen(glyphs: Vec<Glyph>, seen: &[Seen]) -> (Vec<Glyph>, u32) {
    if seen.iter().all(|s| *s == Seen::Plain) || seen.len() != glyphs.len() {
        return (glyphs, 0);
    }
    let plain = |i: usize| seen[i] == Seen::Plain;
    let boxed = |g: &Glyph| {
        let pad = 0.15 * g.size;
        [
            g.x - pad,
            g.y - 0.25 * g.size,
            g.x + g.width.max(0.0) + pad,
            g.y + 0.85 * g.size,
        ]
    };
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, g) in glyphs.iter().enumerate().filter(|(i, _)| plain(*i)) {
        let [x0, y0, x1, y1] = boxed(g).map(|v| (v / CELL).floor() as i64);
        if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_CELLS {
            continue;
        }
        for cx in x0..=x1 {
            for cy in y0..=y1 {
                grid.entry((cx, cy)).or_default().push(i);
            }
        }
    }
    let any_plain = (0..glyphs.len()).any(plain);
    let mut kept_hidden = 0;
    let mut out = Vec::with_capacity(glyphs.len());
    for (i, g) in glyphs.iter().enumerate() {
        let keep = match seen[i] {
            Seen::Plain => true,
            Seen::Clipped => false,
            Seen::Invisible | Seen::White if !any_plain => true,
            hidden @ (Seen::Invisible | Seen::White) => {
                let (cx, cy) = (g.x + g.width.max(0.0) / 2.0, g.y + 0.3 * g.size);
                let cell = ((cx / CELL).floor() as i64, (cy / CELL).floor() as i64);
                let over = grid.get(&cell).is_some_and(|near| {
                    near.iter().any(|&j| {
                        let [x0, y0, x1, y1] = boxed(&glyphs[j]);
                        (x0..=x1).contains(&cx) && (y0..=y1).contains(&cy)
                    })
                });
                if !over && hidden == Seen::Invisible && !g.text.trim().is_empty() {
                    kept_hidden += 1;
                }
                !over
            }
        };
        if keep {
            out.push(g.clone());
        }
    }
    (out, kept_hidden)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markers(content: &[u8]) -> Vec<Visibility> {
        let Some(marked) = marked_stream(content, &HashMap::from([(b"Clear".to_vec(), 0.0)])) else {
            return Vec::new();
        };
        let ops = lopdf::content::Content::decode(&marked).unwrap().operations;
        let mut out = Vec::new();
        let mut path = Path { ops: Vec::new() };
        for op in ops {
            let n: Vec<f64> = op.operands.iter().filter_map(number).collect();
            match op.operator.as_str() {
                "re" => path.ops.push(PathOp::Rect(n[0], n[1], n[2], n[3])),
                "f" => out.extend(read_marker(&std::mem::replace(&mut path, Path { ops: Vec::new() }))),
                "n" => path.ops.clear(),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn markers_are_written_into_the_stream_before_their_operation_and_the_rest_is_kept_as_it_was() {
        // A string holding an apostrophe and a parenthesis, and an operator lopdf's content parser does not know:
        // all kept byte for byte, the marker on a line of its own before the text it concerns.
        let content = b"q 10 10 50 50 re W n BT /F1 9 Tf (it\\'s \\() Tj 3 Tz ET Q BT (out) Tj ET";
        let marked = marked_stream(content, &HashMap::new()).unwrap();
        let text = String::from_utf8(marked).unwrap();
        let kept: String = text
            .lines()
            .filter(|l| !l.contains(&MARK.to_string()))
            .collect::<Vec<_>>()
            .join("");
        assert_eq!(kept, String::from_utf8(content.to_vec()).unwrap());
        let marker = text.find(&MARK.to_string()).unwrap();
        assert!(
            marker > text.find(" W n").unwrap() && marker < text.find("(it").unwrap(),
            "{text}"
        );
    }

    #[test]
    fn a_clip_is_taken_in_page_space_and_plain_text_needs_no_marker() {
        assert!(markers(b"BT /F1 12 Tf 72 700 Td (seen) Tj ET").is_empty());
        let m = markers(b"q 2 0 0 2 5 0 cm 10 10 50 50 re W n BT (in) Tj ET Q BT (out) Tj ET");
        let clip = m[0].clip.unwrap();
        assert_eq!(clip.map(|v| v.round()), [25.0, 20.0, 125.0, 120.0]);
        // After Q the clip is gone again: the last marker says plain.
        assert_eq!(*m.last().unwrap(), Visibility::default());
        assert_eq!(m[0].seen(30.0, 30.0, 5.0, 10.0), Seen::Plain);
        assert_eq!(m[0].seen(300.0, 30.0, 5.0, 10.0), Seen::Clipped);
    }

    #[test]
    fn render_modes_white_ink_and_zero_alpha_are_hidden_and_colour_resets() {
        let m = markers(b"BT 3 Tr (a) Tj 0 Tr (b) Tj 1 1 1 rg (c) Tj 0 g (d) Tj /Clear gs (e) Tj ET");
        let flags: Vec<(bool, bool)> = m.iter().map(|v| (v.invisible, v.white)).collect();
        assert_eq!(
            flags,
            [
                (true, false),
                (false, false),
                (false, true),
                (false, false),
                (true, false),
                (false, false)
            ]
        );
        // White ink stroked only (mode 1) is seen; CMYK white is white.
        assert!(markers(b"BT 1 1 1 rg 1 Tr (s) Tj ET").is_empty());
        assert!(markers(b"BT 0 0 0 0 k (w) Tj ET")[0].white);
    }

    #[test]
    fn a_huge_clip_stays_a_finite_marker() {
        let m = markers(b"q 1000000000.0 0 0 1000000000.0 0 0 cm 0 0 1 1 re W n BT -5 -5 Td (far) Tj ET Q");
        let clip = m.first().and_then(|v| v.clip).expect("a clip marker");
        assert!(clip.iter().all(|v| v.is_finite() && v.abs() <= 1e7), "{clip:?}");
    }
}

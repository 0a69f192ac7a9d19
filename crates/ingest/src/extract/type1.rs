//! Type 1 font programs cut to their encoding. pdf-extract reads a Type 1 font's built-in encoding by parsing its
//! whole program (`/FontFile`) on every page that uses the font, which was half of a LaTeX manual's extraction time,
//! and uses it only when the font dictionary has no `/Encoding` of its own. Here each program is parsed once, with
//! pdf-extract's own parser, and replaced by the few lines that state the same encoding, or by none: when every font
//! using it has its own `/Encoding`, or when each is an object of its own without a `/ToUnicode` and is given the
//! encoding as `/Differences` (from which pdf-extract builds the same table). The replacement is parsed again and
//! kept only when it gives the map that pdf-extract will use. Nothing else of a Type 1 program is read for text
//! (widths come from the font dictionary).

use super::inflate::{self, MAX_STREAM_BYTES};
use lopdf::{dictionary, Document, Object, ObjectId};
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Replaces the program of every Type 1 font with its encoding alone; gives how many programs were cut.
pub fn cut_to_encodings(doc: &mut Document) -> usize {
    let mut cut = 0;
    for (id, readers) in type1_programs(doc) {
        let Some(map) = doc.get_object(id).and_then(Object::as_stream).ok().and_then(|stream| {
            let program = inflate::decode(stream, MAX_STREAM_BYTES).ok()?;
            encoding_map(&program)
        }) else {
            continue;
        };
        let used = match &readers {
            Readers::None => HashMap::new(),
            Readers::Movable(fonts) if map.keys().all(|&code| code < 256) => {
                // The fonts state the encoding themselves, as pdf-extract reads a font's own (below).
                for &font in fonts {
                    if let Ok(Object::Dictionary(dict)) = doc.get_object_mut(font) {
                        dict.set("Encoding", dictionary! { "Differences" => differences(&map) });
                    }
                }
                HashMap::new()
            }
            Readers::Movable(_) | Readers::Kept => map,
        };
        let short = program_of(&used);
        if encoding_map(&short).as_ref() != Some(&used) {
            continue;
        }
        if let Ok(Object::Stream(stream)) = doc.get_object_mut(id) {
            stream.set_plain_content(short);
            cut += 1;
        }
    }
    cut
}

/// `map` as an encoding's `/Differences`: each code, then its glyph name. Over a font without a `/ToUnicode`,
/// pdf-extract builds the same table from these as from the program's encoding: PDFDocEncoding with each named
/// glyph's character at its code.
fn differences(map: &HashMap<u32, Vec<u8>>) -> Vec<Object> {
    (map.iter().collect::<BTreeMap<_, _>>())
        .into_iter()
        .flat_map(|(&code, name)| [Object::Integer(i64::from(code)), Object::Name(name.clone())])
        .collect()
}

/// Who reads a program's encoding: no font (each has its own `/Encoding`); only fonts that are objects of their
/// own and have no `/ToUnicode`, which can be given the encoding as `/Differences`; or some other font, which keeps
/// reading it from the program.
#[derive(Debug, PartialEq)]
enum Readers {
    None,
    Movable(Vec<ObjectId>),
    Kept,
}

impl Readers {
    fn add(&mut self, font: Option<ObjectId>) {
        *self = match (std::mem::replace(self, Readers::None), font) {
            (Readers::Kept, _) | (_, None) => Readers::Kept,
            (Readers::None, Some(id)) => Readers::Movable(vec![id]),
            (Readers::Movable(mut ids), Some(id)) => {
                ids.push(id);
                Readers::Movable(ids)
            }
        };
    }
}

/// The `/FontFile` streams of fonts whose `/Subtype` is `/Type1` (the only ones pdf-extract parses this way), each
/// with the fonts that read its encoding: those without an `/Encoding` name or dictionary of their own. Font
/// dictionaries written inline (inside a resource dictionary) count too.
fn type1_programs(doc: &Document) -> BTreeMap<ObjectId, Readers> {
    let mut programs = BTreeMap::new();
    for (&id, object) in &doc.objects {
        visit(doc, object, Some(id), 0, &mut programs);
    }
    programs
}

/// How deep [`type1_programs`] looks inside an object for inline dictionaries.
const MAX_DEPTH: usize = 8;

/// `at`: the object's id when it is an object of its own (not inline in another).
fn visit(
    doc: &Document,
    object: &Object,
    at: Option<ObjectId>,
    depth: usize,
    programs: &mut BTreeMap<ObjectId, Readers>,
) {
    let dict = match object {
        Object::Dictionary(d) => d,
        Object::Stream(s) => &s.dict,
        Object::Array(items) if depth < MAX_DEPTH => {
            items.iter().for_each(|o| visit(doc, o, None, depth + 1, programs));
            return;
        }
        _ => return,
    };
    if dict
        .get(b"Subtype")
        .and_then(Object::as_name)
        .is_ok_and(|n| n == b"Type1")
    {
        if let Some((id, fontfile3)) = program_of_font(doc, dict) {
            let own = dict.get(b"Encoding").ok().and_then(|o| doc.dereference(o).ok());
            let readers = programs.entry(id).or_insert(Readers::None);
            if !matches!(own, Some((_, Object::Name(_) | Object::Dictionary(_)))) {
                let movable = matches!(object, Object::Dictionary(_)) && !fontfile3 && !dict.has(b"ToUnicode");
                readers.add(at.filter(|_| movable));
            }
        }
    }
    if depth < MAX_DEPTH {
        dict.iter().for_each(|(_, o)| visit(doc, o, None, depth + 1, programs));
    }
}

/// The font's `/FontDescriptor`'s `/FontFile` stream, and whether the descriptor also has a `/FontFile3`.
fn program_of_font(doc: &Document, font: &lopdf::Dictionary) -> Option<(ObjectId, bool)> {
    let (_, descriptor) = doc.dereference(font.get(b"FontDescriptor").ok()?).ok()?;
    let descriptor = descriptor.as_dict().ok()?;
    match doc.dereference(descriptor.get(b"FontFile").ok()?).ok()? {
        (Some(id), Object::Stream(_)) => Some((id, descriptor.has(b"FontFile3"))),
        _ => None,
    }
}

/// The encoding pdf-extract reads from a program (`None` where its parser fails or panics).
fn encoding_map(program: &[u8]) -> Option<HashMap<u32, Vec<u8>>> {
    catch_unwind(AssertUnwindSafe(|| type1_encoding_parser::get_encoding_map(program)))
        .ok()?
        .ok()
}

/// A program that states `map` as its encoding, as Type 1 programs do (`/Encoding 256 array … def`).
fn program_of(map: &HashMap<u32, Vec<u8>>) -> Vec<u8> {
    if map.is_empty() {
        return b"/Encoding StandardEncoding def\n".to_vec();
    }
    let mut out = b"/Encoding 256 array\n".to_vec();
    for (code, name) in map.iter().collect::<BTreeMap<_, _>>() {
        out.extend(format!("dup {code} /").as_bytes());
        out.extend(name);
        out.extend(b" put\n");
    }
    out.extend(b"readonly def\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{dictionary, Stream};

    const PROGRAM: &[u8] = b"%!PS-AdobeFont-1.0: CMR10 003.002\n/FontName /CMR10 def\n/PaintType 0 def\n\
        /Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 65 /A put\ndup 66 /B put\n\
        dup 123 /endash put\nreadonly def\ncurrentfile eexec\n\x8f\x01\x22binary";

    #[test]
    fn a_type1_program_becomes_its_encoding_and_reads_the_same() {
        let mut doc = Document::with_version("1.5");
        let file = doc.add_object(Stream::new(dictionary! {}, PROGRAM.to_vec()));
        let descriptor = doc.add_object(dictionary! { "Type" => "FontDescriptor", "FontFile" => file });
        let moved =
            doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type1", "FontDescriptor" => descriptor });
        // A font with a /ToUnicode reads the program's encoding where it is.
        let mapped = doc.add_object(Stream::new(dictionary! {}, PROGRAM.to_vec()));
        let mapped_descriptor = doc.add_object(dictionary! { "Type" => "FontDescriptor", "FontFile" => mapped });
        let cmap = doc.add_object(Stream::new(dictionary! {}, b"begincmap endcmap".to_vec()));
        doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "FontDescriptor" => mapped_descriptor, "ToUnicode" => cmap,
        });
        // A font with its own /Encoding: its program's encoding is never read, so it becomes none.
        let own = doc.add_object(Stream::new(dictionary! {}, PROGRAM.to_vec()));
        let own_descriptor = doc.add_object(dictionary! { "Type" => "FontDescriptor", "FontFile" => own });
        doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "FontDescriptor" => own_descriptor, "Encoding" => "WinAnsiEncoding",
        });
        // An inline font (in a resource dictionary) without its own /Encoding reads its program's.
        let shared = doc.add_object(Stream::new(dictionary! {}, PROGRAM.to_vec()));
        let shared_descriptor = doc.add_object(dictionary! { "Type" => "FontDescriptor", "FontFile" => shared });
        doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "FontDescriptor" => shared_descriptor, "Encoding" => "WinAnsiEncoding",
        });
        let inline = dictionary! { "Type" => "Font", "Subtype" => "Type1", "FontDescriptor" => shared_descriptor };
        doc.add_object(dictionary! { "Font" => dictionary! { "F1" => inline } });
        // A TrueType font's program is never touched.
        let other = doc.add_object(Stream::new(dictionary! {}, b"true type bytes".to_vec()));
        let tt = doc.add_object(dictionary! { "Type" => "FontDescriptor", "FontFile" => other });
        doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "TrueType", "FontDescriptor" => tt });

        let before = encoding_map(PROGRAM).unwrap();
        assert_eq!(before.len(), 3);
        assert_eq!(cut_to_encodings(&mut doc), 4);
        let kept = &doc.get_object(shared).unwrap().as_stream().unwrap().content;
        assert_eq!(
            encoding_map(kept).map(|m| m.len()),
            Some(3),
            "the inline font still reads its encoding"
        );
        let short = doc.get_object(mapped).unwrap().as_stream().unwrap().content.clone();
        assert!(short.len() < PROGRAM.len() / 2, "{}", String::from_utf8_lossy(&short));
        assert_eq!(encoding_map(&short), Some(before));
        // The font of its own without a /ToUnicode states the encoding as /Differences; its program states none.
        let font = doc.get_dictionary(moved).unwrap();
        let encoding = font.get(b"Encoding").unwrap().as_dict().unwrap();
        let names: Vec<String> = (encoding.get(b"Differences").unwrap().as_array().unwrap().iter())
            .map(|o| match o {
                Object::Integer(i) => i.to_string(),
                Object::Name(n) => format!("/{}", String::from_utf8_lossy(n)),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(names, ["65", "/A", "66", "/B", "123", "/endash"]);
        let program = &doc.get_object(file).unwrap().as_stream().unwrap().content;
        assert_eq!(encoding_map(program), Some(HashMap::new()));
        let none = &doc.get_object(own).unwrap().as_stream().unwrap().content;
        assert_eq!(encoding_map(none), Some(HashMap::new()));
        let untouched = doc.get_object(other).unwrap().as_stream().unwrap();
        assert_eq!(untouched.content, b"true type bytes");
    }

    #[test]
    fn a_program_without_an_encoding_array_states_the_standard_one() {
        let program = b"%!PS-AdobeFont-1.0\n/Encoding StandardEncoding def\ncurrentfile eexec\n";
        assert_eq!(encoding_map(program).unwrap().len(), 0);
        assert_eq!(encoding_map(&program_of(&HashMap::new())), Some(HashMap::new()));
    }
}

//! Type 1 font programs cut to their encoding. pdf-extract reads a Type 1 font's built-in encoding by parsing its
//! whole program (`/FontFile`) on every page that uses the font, which was half of a LaTeX manual's extraction time,
//! and uses it only when the font dictionary has no `/Encoding` of its own. Here each program is parsed once, with
//! pdf-extract's own parser, and replaced by the few lines that state the same encoding (or none, when every font
//! using it has its own `/Encoding`); the replacement is parsed again and kept only when it gives the map that
//! pdf-extract uses. Nothing else of a Type 1 program is read for text (widths come from the font dictionary).

use super::inflate::{self, MAX_STREAM_BYTES};
use lopdf::{Document, Object, ObjectId};
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Replaces the program of every Type 1 font with its encoding alone; gives how many programs were cut.
pub fn cut_to_encodings(doc: &mut Document) -> usize {
    let mut cut = 0;
    for (id, read) in type1_programs(doc) {
        let Some(short) = doc.get_object(id).and_then(Object::as_stream).ok().and_then(|stream| {
            let program = inflate::decode(stream, MAX_STREAM_BYTES).ok()?;
            let map = encoding_map(&program)?;
            let used = if read { map } else { HashMap::new() };
            let short = program_of(&used);
            (encoding_map(&short).as_ref() == Some(&used)).then_some(short)
        }) else {
            continue;
        };
        if let Ok(Object::Stream(stream)) = doc.get_object_mut(id) {
            stream.set_plain_content(short);
            cut += 1;
        }
    }
    cut
}

/// The `/FontFile` streams of fonts whose `/Subtype` is `/Type1` (the only ones pdf-extract parses this way), each
/// with whether its encoding is read: by a font that has no `/Encoding` name or dictionary of its own. Font
/// dictionaries written inline (inside a resource dictionary) count too.
fn type1_programs(doc: &Document) -> BTreeMap<ObjectId, bool> {
    let mut programs = BTreeMap::new();
    for object in doc.objects.values() {
        visit(doc, object, 0, &mut programs);
    }
    programs
}

/// How deep [`type1_programs`] looks inside an object for inline dictionaries.
const MAX_DEPTH: usize = 8;

fn visit(doc: &Document, object: &Object, depth: usize, programs: &mut BTreeMap<ObjectId, bool>) {
    let dict = match object {
        Object::Dictionary(d) => d,
        Object::Stream(s) => &s.dict,
        Object::Array(items) if depth < MAX_DEPTH => {
            items.iter().for_each(|o| visit(doc, o, depth + 1, programs));
            return;
        }
        _ => return,
    };
    if dict
        .get(b"Subtype")
        .and_then(Object::as_name)
        .is_ok_and(|n| n == b"Type1")
    {
        if let Some(id) = program_of_font(doc, dict) {
            let own = dict.get(b"Encoding").ok().and_then(|o| doc.dereference(o).ok());
            let read = !matches!(own, Some((_, Object::Name(_) | Object::Dictionary(_))));
            *programs.entry(id).or_insert(false) |= read;
        }
    }
    if depth < MAX_DEPTH {
        dict.iter().for_each(|(_, o)| visit(doc, o, depth + 1, programs));
    }
}

/// The font's `/FontDescriptor`'s `/FontFile` stream.
fn program_of_font(doc: &Document, font: &lopdf::Dictionary) -> Option<ObjectId> {
    let (_, descriptor) = doc.dereference(font.get(b"FontDescriptor").ok()?).ok()?;
    let file = descriptor.as_dict().ok()?.get(b"FontFile").ok()?;
    match doc.dereference(file).ok()? {
        (Some(id), Object::Stream(_)) => Some(id),
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
        doc.add_object(dictionary! { "Type" => "Font", "Subtype" => "Type1", "FontDescriptor" => descriptor });
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
        assert_eq!(cut_to_encodings(&mut doc), 3);
        let kept = &doc.get_object(shared).unwrap().as_stream().unwrap().content;
        assert_eq!(
            encoding_map(kept).map(|m| m.len()),
            Some(3),
            "the inline font still reads its encoding"
        );
        let short = doc.get_object(file).unwrap().as_stream().unwrap().content.clone();
        assert!(short.len() < PROGRAM.len() / 2, "{}", String::from_utf8_lossy(&short));
        assert_eq!(encoding_map(&short), Some(before));
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

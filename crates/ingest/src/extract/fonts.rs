//! Fonts resolved by their objects, not by their resource names. pdf-extract keeps one font per resource name for
//! a whole page, forms included, so a form XObject whose `/F1` is another font than the page's `/F1` (Typst and
//! other producers reuse names in every form) is decoded with the wrong font: silently wrong letters. Before
//! extraction, every form name that means another font somewhere else on its page is renamed in that form, in its
//! resources and in its content stream, to a name of its own.

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId};
use std::collections::{HashMap, HashSet, VecDeque};

/// The most forms looked at per page (the guard already bounds what pdf-extract will draw).
const MAX_FORMS_PER_PAGE: usize = 4_096;

/// What a font resource name stands for: a font object, or a dictionary written inline under a name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum FontKey {
    Object(ObjectId),
    Inline(Option<ObjectId>, usize),
}

/// Renames clashing font names in forms; a form that cannot be rewritten is left as it was.
pub fn separate_font_names(doc: &mut Document) {
    let mut renames: HashMap<ObjectId, HashSet<Vec<u8>>> = HashMap::new();
    for page in doc.get_pages().into_values() {
        let Ok(page_dict) = doc.get_dictionary(page) else {
            continue;
        };
        let resources = inherited_resources(doc, page_dict);
        let mut seen: HashMap<Vec<u8>, FontKey> = HashMap::new();
        if let Some(res) = resources {
            for (name, key) in font_map(doc, res, None) {
                seen.entry(name).or_insert(key);
            }
        }
        // Forms reachable from the page, breadth first, each once.
        let mut queue: VecDeque<ObjectId> = resources.map(|r| forms(doc, r)).unwrap_or_default().into();
        let mut visited = HashSet::new();
        while let Some(form) = queue.pop_front() {
            if !visited.insert(form) || visited.len() > MAX_FORMS_PER_PAGE {
                continue;
            }
            let Some(res) = form_resources(doc, form) else {
                continue;
            };
            for (name, key) in font_map(doc, res, Some(form)) {
                match seen.get(&name) {
                    Some(k) if *k != key => {
                        renames.entry(form).or_default().insert(name);
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(name, key);
                    }
                }
            }
            queue.extend(forms(doc, res));
        }
    }
    for (form, names) in renames {
        rename_in_form(doc, form, &names);
    }
}

pub(super) fn inherited_resources<'a>(doc: &'a Document, page: &'a Dictionary) -> Option<&'a Dictionary> {
    let mut node = page;
    for _ in 0..64 {
        if let Ok(res) = node
            .get(b"Resources")
            .and_then(|o| resolve(doc, o))
            .and_then(Object::as_dict)
        {
            return Some(res);
        }
        let parent = node.get(b"Parent").and_then(Object::as_reference).ok()?;
        node = doc.get_dictionary(parent).ok()?;
    }
    None
}

pub(super) fn resolve<'a>(doc: &'a Document, o: &'a Object) -> lopdf::Result<&'a Object> {
    match o {
        Object::Reference(id) => doc.get_object(*id),
        other => Ok(other),
    }
}

/// A dictionary of a resource dictionary (`/Font`, `/XObject`), written inline or referenced.
pub(super) fn sub_dict<'a>(doc: &'a Document, res: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    resolve(doc, res.get(key).ok()?).ok()?.as_dict().ok()
}

pub(super) fn form_resources(doc: &Document, form: ObjectId) -> Option<&Dictionary> {
    let stream = doc.get_object(form).ok()?.as_stream().ok()?;
    let res = stream.dict.get(b"Resources").ok()?;
    resolve(doc, res).ok()?.as_dict().ok()
}

/// The font names of a resource dictionary and what each stands for.
fn font_map(doc: &Document, res: &Dictionary, owner: Option<ObjectId>) -> Vec<(Vec<u8>, FontKey)> {
    let Some(fonts) = sub_dict(doc, res, b"Font") else {
        return Vec::new();
    };
    fonts
        .iter()
        .enumerate()
        .map(|(i, (name, value))| {
            let key = match value {
                Object::Reference(id) => FontKey::Object(*id),
                _ => FontKey::Inline(owner, i),
            };
            (name.clone(), key)
        })
        .collect()
}

/// The form XObjects a resource dictionary names.
pub(super) fn forms(doc: &Document, res: &Dictionary) -> Vec<ObjectId> {
    let Some(xobjects) = sub_dict(doc, res, b"XObject") else {
        return Vec::new();
    };
    xobjects
        .iter()
        .filter_map(|(_, v)| v.as_reference().ok())
        .filter(|&id| {
            doc.get_object(id)
                .and_then(Object::as_stream)
                .is_ok_and(|s| s.dict.get(b"Subtype").and_then(Object::as_name).ok() == Some(b"Form"))
        })
        .collect()
}

/// The new name of `name` in form `form`: unique to the form, and a valid PDF name.
fn renamed(name: &[u8], form: ObjectId) -> Vec<u8> {
    let mut out = b"RsF".to_vec();
    out.extend(format!("{}x{}", form.0, form.1).bytes());
    out.push(b'_');
    out.extend(name.iter().filter(|b| b.is_ascii_alphanumeric()));
    out
}

fn rename_in_form(doc: &mut Document, form: ObjectId, names: &HashSet<Vec<u8>>) {
    // The form's own copy of its resources and font dictionary, so that nothing shared with others changes.
    let Some(mut res) = form_resources(doc, form).cloned() else {
        return;
    };
    let Some(mut fonts) = sub_dict(doc, &res, b"Font").cloned() else {
        return;
    };
    let Ok(stream) = doc.get_object(form).and_then(Object::as_stream) else {
        return;
    };
    let Ok(plain) = stream.get_plain_content() else {
        return;
    };
    let Ok(mut content) = Content::decode(&plain) else {
        return;
    };
    for op in content.operations.iter_mut().filter(|op| op.operator == "Tf") {
        if let Some(Object::Name(n)) = op.operands.first_mut() {
            if names.contains(n.as_slice()) {
                *n = renamed(n, form);
            }
        }
    }
    let Ok(encoded) = content.encode() else {
        return;
    };
    for name in names {
        if let Some(value) = fonts.remove(name) {
            fonts.set(renamed(name, form), value);
        }
    }
    res.set("Font", Object::Dictionary(fonts));
    if let Ok(stream) = doc.get_object_mut(form).and_then(Object::as_stream_mut) {
        stream.dict.set("Resources", Object::Dictionary(res));
        stream.set_plain_content(encoded);
    }
}

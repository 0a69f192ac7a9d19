//! The page tree made finite for pdf-extract: each page listed once, every `/Parent` chain ending, and a page with
//! no usable `/MediaBox` anywhere up its tree given US Letter (pdf-extract panics without one, viewers assume it).

use super::{deref, MAX_TREE_DEPTH};
use lopdf::{Dictionary, Document, Object, ObjectId};
use std::collections::HashSet;

/// Untangles the tree, then ends the `/Parent` chain and settles the media box of every page.
pub(super) fn repair(doc: &mut Document) {
    untangle_page_tree(doc);
    for page in doc.get_pages().into_values() {
        end_parent_chain(doc, page);
        if !has_media_box(doc, page) {
            let letter: Vec<Object> = vec![0.into(), 0.into(), 612.into(), 792.into()];
            if let Ok(dict) = doc.get_dictionary_mut(page) {
                dict.set("MediaBox", letter);
            }
        }
    }
}

/// Drops every `/Kids` entry that names a node already met (a cycle back to an ancestor, or a page listed twice),
/// so lopdf's page list holds each page object once.
fn untangle_page_tree(doc: &mut Document) {
    let Ok(root) = doc
        .catalog()
        .and_then(|c| c.get(b"Pages"))
        .and_then(Object::as_reference)
    else {
        return;
    };
    let mut seen = HashSet::from([root]);
    let mut stack = vec![(root, 0)];
    while let Some((node, depth)) = stack.pop() {
        let Ok(dict) = doc.get_dictionary(node) else { continue };
        let Ok(kids_obj) = dict.get(b"Kids") else { continue };
        let (holder, kids) = match doc.dereference(kids_obj) {
            Ok((holder, Object::Array(kids))) => (holder, kids),
            _ => continue,
        };
        let mut kept = Vec::with_capacity(kids.len());
        for kid in kids {
            let Ok(id) = kid.as_reference() else {
                kept.push(kid.clone());
                continue;
            };
            if !seen.insert(id) {
                continue;
            }
            let is_tree = doc
                .get_dictionary(id)
                .and_then(Dictionary::get_type)
                .is_ok_and(|t| t == b"Pages");
            if is_tree && depth + 1 < MAX_TREE_DEPTH {
                stack.push((id, depth + 1));
            }
            kept.push(kid.clone());
        }
        if kept.len() == kids.len() {
            continue;
        }
        let kept = Object::Array(kept);
        match holder {
            Some(array) => _ = doc.objects.insert(array, kept),
            None => {
                if let Ok(dict) = doc.get_dictionary_mut(node) {
                    dict.set("Kids", kept);
                }
            }
        }
    }
}

/// Removes the `/Parent` that closes a cycle or goes past [`MAX_TREE_DEPTH`] on the way up from `page`
/// (pdf-extract looks up inherited `/Resources` and `/MediaBox` by recursion).
fn end_parent_chain(doc: &mut Document, page: ObjectId) {
    let mut seen = HashSet::from([page]);
    let mut node = page;
    loop {
        let Ok(parent) = doc
            .get_dictionary(node)
            .and_then(|d| d.get(b"Parent"))
            .and_then(Object::as_reference)
        else {
            return;
        };
        if seen.len() > MAX_TREE_DEPTH || !seen.insert(parent) {
            if let Ok(dict) = doc.get_dictionary_mut(node) {
                dict.remove(b"Parent");
            }
            return;
        }
        node = parent;
    }
}

/// The first `key` up the page tree from `node` that `valid` accepts, as pdf-extract looks it up.
pub(super) fn inherited<'a, T>(
    doc: &'a Document,
    mut node: ObjectId,
    key: &[u8],
    valid: impl Fn(&'a Object) -> Option<T>,
) -> Option<T> {
    for _ in 0..=MAX_TREE_DEPTH {
        let dict = doc.get_dictionary(node).ok()?;
        if let Some(found) = dict.get(key).ok().and_then(|o| deref(doc, o)).and_then(&valid) {
            return Some(found);
        }
        node = dict.get(b"Parent").and_then(Object::as_reference).ok()?;
    }
    None
}

fn has_media_box(doc: &Document, page: ObjectId) -> bool {
    let four_numbers = |o: &Object| {
        let a = o.as_array().ok()?;
        (a.len() >= 4 && a.iter().all(|n| n.as_float().is_ok())).then_some(())
    };
    inherited(doc, page, b"MediaBox", four_numbers).is_some()
}

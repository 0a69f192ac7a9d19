//! Headings from the document's own outline (its bookmarks), when it has one: each entry's title, level and
//! target page, found again in that page's text. An outline is what the author meant by sections, so it beats
//! the layout's guesses from font sizes. The walk is bounded (entries, depth, a visited set), as a hostile file
//! may make its outline or name tree a cycle.

use super::normalize::words;
use super::PageText;
use crate::structure::Heading;
use lopdf::{Dictionary, Document, Object, ObjectId};
use std::collections::{BTreeMap, HashMap, HashSet};

/// At most this many outline entries and name-tree nodes are read.
const MAX_ENTRIES: usize = 10_000;
/// Outline and name-tree nesting is followed this deep.
const MAX_DEPTH: usize = 16;
/// A title is matched against the words at a line start by at most this many of its words.
const MATCH_WORDS: usize = 12;

/// One outline entry: its title, level (1 = top) and 1-based page number.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub title: String,
    pub level: u8,
    pub page: u32,
}

/// The outline's entries in order; empty when the document has none or it cannot be read.
pub fn entries(doc: &Document) -> Vec<Entry> {
    let Ok(catalog) = doc.catalog() else {
        return Vec::new();
    };
    let Some(root) = dict(doc, catalog.get(b"Outlines").ok()) else {
        return Vec::new();
    };
    let pages: HashMap<ObjectId, u32> = doc.get_pages().into_iter().map(|(n, id)| (id, n)).collect();
    let mut walk = Walk {
        doc,
        pages,
        names: named_destinations(doc, catalog),
        seen: HashSet::new(),
        out: Vec::new(),
    };
    walk.children(root, 1);
    walk.out
}

/// Replaces the pages' detected headings with the outline's when at least three of its entries are found on
/// their pages; returns whether it did.
pub fn apply(doc: &Document, pages: &mut [PageText]) -> bool {
    let entries = entries(doc);
    let mut found: BTreeMap<u32, Vec<Heading>> = BTreeMap::new();
    for e in &entries {
        let Some(page) = pages.iter().find(|p| p.number == e.page) else {
            continue;
        };
        if let Some(start) = locate(page, &e.title) {
            found.entry(e.page).or_default().push(Heading {
                start,
                level: e.level,
                title: e.title.clone(),
                size: 0.0,
                depth: None,
            });
        }
    }
    if found.values().map(Vec::len).sum::<usize>() < 3 {
        return false;
    }
    for page in pages.iter_mut() {
        let mut headings = found.remove(&page.number).unwrap_or_default();
        headings.sort_by_key(|h| h.start);
        headings.dedup_by_key(|h| h.start);
        page.headings = headings;
    }
    true
}

/// Where a title starts in a page's text: the start of the first laid-out line (or paragraph, without line
/// boxes) whose words begin with the title's words.
fn locate(page: &PageText, title: &str) -> Option<usize> {
    let want: Vec<String> = words(title).into_iter().take(MATCH_WORDS).collect();
    if want.is_empty() {
        return None;
    }
    let starts: Vec<usize> = if page.lines.is_empty() {
        std::iter::once(0)
            .chain(page.text.match_indices("\n\n").map(|(i, _)| i + 2))
            .collect()
    } else {
        page.lines.iter().map(|l| l.start).collect()
    };
    starts.into_iter().find(|&s| {
        let end = page.text[s..]
            .char_indices()
            .nth(8 * title.len() + 16)
            .map_or(page.text.len(), |(i, _)| s + i);
        let got = words(&page.text[s..end]);
        got.len() >= want.len() && got[..want.len()] == want[..]
    })
}

struct Walk<'a> {
    doc: &'a Document,
    pages: HashMap<ObjectId, u32>,
    names: HashMap<Vec<u8>, &'a Object>,
    seen: HashSet<ObjectId>,
    out: Vec<Entry>,
}

impl<'a> Walk<'a> {
    /// The entries under `parent` (its `/First`, then each `/Next`).
    fn children(&mut self, parent: &'a Dictionary, level: usize) {
        if level > MAX_DEPTH {
            return;
        }
        let mut next = parent.get(b"First").ok();
        while let Some(Object::Reference(id)) = next {
            if self.out.len() >= MAX_ENTRIES || !self.seen.insert(*id) {
                return;
            }
            let Ok(item) = self.doc.get_dictionary(*id) else {
                return;
            };
            let title = item.get(b"Title").ok().and_then(|t| self.text(t));
            let page = self.target(item);
            if let (Some(title), Some(page)) = (title, page) {
                let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                if !title.is_empty() {
                    self.out.push(Entry {
                        title,
                        level: u8::try_from(level).unwrap_or(u8::MAX),
                        page,
                    });
                }
            }
            self.children(item, level + 1);
            next = item.get(b"Next").ok();
        }
    }

    /// The page an entry goes to: its `/Dest`, or its `/A` GoTo action's `/D`.
    fn target(&self, item: &Dictionary) -> Option<u32> {
        let dest = item.get(b"Dest").ok().or_else(|| {
            let action = dict(self.doc, item.get(b"A").ok())?;
            let goto = action.get(b"S").ok()?.as_name().ok()? == b"GoTo";
            goto.then(|| action.get(b"D").ok()).flatten()
        })?;
        self.page_of(dest, 0)
    }

    fn page_of(&self, dest: &Object, depth: usize) -> Option<u32> {
        if depth > 4 {
            return None;
        }
        let (_, dest) = self.doc.dereference(dest).ok()?;
        match dest {
            Object::Array(a) => match a.first()? {
                Object::Reference(id) => self.pages.get(id).copied(),
                // A page given by its index (remote-style destinations in some producers).
                Object::Integer(i) => u32::try_from(*i).ok().map(|i| i + 1),
                _ => None,
            },
            Object::String(name, _) | Object::Name(name) => self.page_of(self.names.get(name)?, depth + 1),
            Object::Dictionary(d) => self.page_of(d.get(b"D").ok()?, depth + 1),
            _ => None,
        }
    }

    /// A text string: UTF-16BE with its byte-order mark, else PDFDocEncoding (read as Latin-1).
    fn text(&self, o: &Object) -> Option<String> {
        let (_, o) = self.doc.dereference(o).ok()?;
        let bytes = o.as_str().ok()?;
        Some(match bytes {
            [0xFE, 0xFF, rest @ ..] => {
                let units: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
                String::from_utf16_lossy(&units)
            }
            _ => bytes.iter().map(|&b| b as char).collect(),
        })
    }
}

/// A dictionary, following a reference.
fn dict<'a>(doc: &'a Document, o: Option<&'a Object>) -> Option<&'a Dictionary> {
    doc.dereference(o?).ok()?.1.as_dict().ok()
}

/// Named destinations: the catalog's `/Dests` dictionary (PDF 1.1) and its `/Names` `/Dests` name tree.
fn named_destinations<'a>(doc: &'a Document, catalog: &'a Dictionary) -> HashMap<Vec<u8>, &'a Object> {
    let mut out = HashMap::new();
    if let Some(d) = dict(doc, catalog.get(b"Dests").ok()) {
        for (k, v) in d.iter() {
            out.insert(k.clone(), v);
        }
    }
    let tree = dict(doc, catalog.get(b"Names").ok()).and_then(|n| dict(doc, n.get(b"Dests").ok()));
    if let Some(tree) = tree {
        let (mut seen, mut budget) = (HashSet::new(), MAX_ENTRIES * 10);
        name_tree(doc, tree, 0, &mut seen, &mut budget, &mut out);
    }
    out
}

fn name_tree<'a>(
    doc: &'a Document,
    node: &'a Dictionary,
    depth: usize,
    seen: &mut HashSet<ObjectId>,
    budget: &mut usize,
    out: &mut HashMap<Vec<u8>, &'a Object>,
) {
    if depth > MAX_DEPTH || *budget == 0 {
        return;
    }
    *budget -= 1;
    if let Some(Object::Array(names)) = node
        .get(b"Names")
        .ok()
        .and_then(|o| doc.dereference(o).ok())
        .map(|r| r.1)
    {
        for pair in names.chunks_exact(2) {
            if let Ok(key) = pair[0].as_str() {
                out.insert(key.to_vec(), &pair[1]);
            }
        }
    }
    if let Some(Object::Array(kids)) = node
        .get(b"Kids")
        .ok()
        .and_then(|o| doc.dereference(o).ok())
        .map(|r| r.1)
    {
        for kid in kids {
            if let Object::Reference(id) = kid {
                if !seen.insert(*id) {
                    continue;
                }
            }
            if let Some(d) = dict(doc, Some(kid)) {
                name_tree(doc, d, depth + 1, seen, budget, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::entries;
    use lopdf::{dictionary, Document, Object, StringFormat};

    /// A one-page document whose outline holds `items` (each built from the page's id and the item ids).
    fn doc_with(build: impl Fn(&mut Document, lopdf::ObjectId, lopdf::ObjectId)) -> Document {
        let mut doc = Document::with_version("1.7");
        let pages_id = doc.new_object_id();
        let page_id = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id});
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {"Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1}),
        );
        let outlines_id = doc.new_object_id();
        build(&mut doc, page_id, outlines_id);
        let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id, "Outlines" => outlines_id});
        doc.trailer.set("Root", catalog);
        doc
    }

    fn title(s: &str) -> Object {
        Object::String(s.as_bytes().to_vec(), StringFormat::Literal)
    }

    #[test]
    fn a_cyclic_outline_is_read_once_and_named_destinations_resolve() {
        let doc = doc_with(|doc, page, outlines| {
            let (a, b) = (doc.new_object_id(), doc.new_object_id());
            // b's /Next points back at a, and b is its own first child: both cycles.
            doc.objects.insert(
                a,
                Object::Dictionary(dictionary! {"Title" => title("1 Intro"), "Dest" => vec![page.into()], "Next" => b}),
            );
            doc.objects.insert(
                b,
                Object::Dictionary(
                    dictionary! {"Title" => title("2 Method"), "Dest" => title("sec.2"), "Next" => a, "First" => b},
                ),
            );
            doc.objects
                .insert(outlines, Object::Dictionary(dictionary! {"First" => a}));
            let names = doc.add_object(dictionary! {"Names" => vec![title("sec.2"), vec![page.into()].into()]});
            doc.add_object(dictionary! {"Dests" => names});
        });
        // The name tree is looked up from the catalog's /Names; add it after the catalog exists.
        let mut doc = doc;
        let names_root = doc
            .objects
            .iter()
            .find(|(_, o)| o.as_dict().is_ok_and(|d| d.has(b"Dests")))
            .map(|(id, _)| *id)
            .expect("names root");
        doc.catalog_mut().expect("catalog").set("Names", names_root);
        let got = entries(&doc);
        let titles: Vec<(&str, u8, u32)> = got.iter().map(|e| (e.title.as_str(), e.level, e.page)).collect();
        assert_eq!(titles, vec![("1 Intro", 1, 1), ("2 Method", 1, 1)]);
    }
}

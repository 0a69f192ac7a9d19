//! Unit tests of the guard on documents built in memory.

use super::*;
use lopdf::Object::Reference;

/// A one-page document whose page draws `/F0`; `forms[i]` is the content of form `Fi`, and each form names the
/// forms `links[i]` in its own resources (`None`: no resources of its own, the page's are inherited).
fn document(forms: &[&str], links: &[Option<Vec<usize>>]) -> (Document, Vec<ObjectId>) {
    let mut doc = Document::with_version("1.7");
    let ids: Vec<ObjectId> = forms.iter().map(|_| doc.new_object_id()).collect();
    let names = |targets: &[usize]| {
        let mut d = Dictionary::new();
        for &t in targets {
            d.set(format!("F{t}"), Reference(ids[t]));
        }
        d
    };
    for (i, content) in forms.iter().enumerate() {
        let mut dict = dictionary! { "Type" => "XObject", "Subtype" => "Form" };
        if let Some(targets) = &links[i] {
            dict.set("Resources", dictionary! { "XObject" => names(targets) });
        }
        doc.objects
            .insert(ids[i], Object::Stream(Stream::new(dict, content.as_bytes().to_vec())));
    }
    let pages_id = doc.new_object_id();
    let content = doc.add_object(Stream::new(Dictionary::new(), b"/F0 Do".to_vec()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "Resources" => dictionary! { "XObject" => names(&[0]) },
    });
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    (doc, ids)
}

/// The stream form `from`'s `Do name` draws after the guard.
fn target(doc: &Document, from: ObjectId, name: &str) -> Option<ObjectId> {
    xobject(doc, Res::Form(from), name.as_bytes())
}

fn is_empty_form(doc: &Document, id: Option<ObjectId>) -> bool {
    id.and_then(|id| doc.get_object(id).ok()?.as_stream().ok().map(|s| s.content.is_empty())) == Some(true)
}

#[test]
fn a_self_drawing_form_draws_an_empty_form_instead() {
    let (mut doc, ids) = document(&["/F0 Do"], &[Some(vec![0])]);
    guard(&mut doc).unwrap();
    assert!(is_empty_form(&doc, target(&doc, ids[0], "F0")));
    // The page still draws the form itself.
    assert_eq!(xobject(&doc, Res::Page(doc.get_pages()[&1]), b"F0"), Some(ids[0]));
}

#[test]
fn a_cycle_through_inherited_resources_is_cut_without_touching_the_page() {
    // F0 and F1 have no resources: each resolves `Do` against the page's, which names only F0.
    let (mut doc, ids) = document(&["/F0 Do"], &[None]);
    guard(&mut doc).unwrap();
    assert!(is_empty_form(&doc, target(&doc, ids[0], "F0")));
    assert_eq!(xobject(&doc, Res::Page(doc.get_pages()[&1]), b"F0"), Some(ids[0]));
}

#[test]
fn a_two_form_cycle_is_cut_where_it_closes() {
    let (mut doc, ids) = document(&["/F1 Do", "/F0 Do"], &[Some(vec![1]), Some(vec![0])]);
    guard(&mut doc).unwrap();
    assert_eq!(target(&doc, ids[0], "F1"), Some(ids[1]));
    assert!(is_empty_form(&doc, target(&doc, ids[1], "F0")));
}

#[test]
fn a_deep_chain_is_cut_at_the_depth_bound() {
    let n = 200;
    let contents: Vec<String> = (0..n).map(|i| format!("/F{} Do", i + 1)).collect();
    let forms: Vec<&str> = contents.iter().map(String::as_str).collect();
    let links: Vec<Option<Vec<usize>>> = (0..n)
        .map(|i| Some(if i + 1 < n { vec![i + 1] } else { vec![] }))
        .collect();
    let (mut doc, ids) = document(&forms, &links);
    // The cut is said: page 1 may miss text.
    assert_eq!(guard(&mut doc).unwrap(), vec![1]);
    // The page draws F0 at level 1, so F(k) is at level k + 1: F(MAX - 1) may draw, F(MAX - 1)'s child may not.
    assert_eq!(
        target(&doc, ids[MAX_FORM_DEPTH - 2], &format!("F{}", MAX_FORM_DEPTH - 1)),
        Some(ids[MAX_FORM_DEPTH - 1])
    );
    assert!(is_empty_form(
        &doc,
        target(&doc, ids[MAX_FORM_DEPTH - 1], &format!("F{MAX_FORM_DEPTH}"))
    ));
}

#[test]
fn shared_resources_that_name_every_form_are_left_alone() {
    // Both forms share resources naming both, but neither draws a cycle: nothing is cut.
    let (mut doc, ids) = document(&["/F1 Do", "BT ET"], &[Some(vec![0, 1]), Some(vec![0, 1])]);
    guard(&mut doc).unwrap();
    assert_eq!(target(&doc, ids[0], "F1"), Some(ids[1]));
    assert_eq!(target(&doc, ids[1], "F0"), Some(ids[0]));
}

#[test]
fn a_page_tree_cycle_lists_each_page_once_and_parent_cycles_end() {
    let (mut doc, _) = document(&["BT ET"], &[None]);
    let root = doc.catalog().unwrap().get(b"Pages").unwrap().as_reference().unwrap();
    let page = doc.get_pages()[&1];
    // The root lists itself and the page twice; the page's parent is its own child.
    let kids = vec![page.into(), root.into(), page.into()];
    doc.get_dictionary_mut(root).unwrap().set("Kids", kids);
    doc.get_dictionary_mut(root).unwrap().set("Parent", page);
    assert!(doc.get_pages().len() > 1);
    guard(&mut doc).unwrap();
    assert_eq!(doc.get_pages().len(), 1);
    let up = |id: ObjectId| {
        doc.get_dictionary(id)
            .unwrap()
            .get(b"Parent")
            .and_then(Object::as_reference)
            .ok()
    };
    assert_eq!(up(page), Some(root));
    assert_eq!(up(root), None);
}

/// `bytes` as a FlateDecode stream.
fn zipped(bytes: &[u8]) -> Stream {
    use std::io::Write;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(bytes).unwrap();
    Stream::new(dictionary! { "Filter" => "FlateDecode" }, z.finish().unwrap())
}

#[test]
fn measured_streams_are_kept_decoded_and_icc_profiles_empty() {
    let (mut doc, ids) = document(&["BT /Fa 12 Tf (hi) Tj ET"], &[None]);
    let cmap = doc.add_object(zipped(b"begincmap 1 beginbfchar <01> <0041> endbfchar endcmap"));
    let icc = doc.add_object(zipped(&[7u8; 3000]));
    let function = doc.add_object(zipped(b"{ 0 0 0 }"));
    let font = dictionary! { "Type" => "Font", "Subtype" => "Type1", "ToUnicode" => cmap };
    let separation: Vec<Object> = vec![
        Object::Name(b"Separation".to_vec()),
        Object::Name(b"Spot".to_vec()),
        vec![Object::Name(b"ICCBased".to_vec()), Reference(icc)].into(),
        Reference(function),
    ];
    let page = doc.get_pages()[&1];
    let resources = dictionary! {
        "XObject" => dictionary! { "F0" => Reference(ids[0]) },
        "Font" => dictionary! { "Fa" => font },
        "ColorSpace" => dictionary! { "CS0" => separation },
    };
    doc.get_dictionary_mut(page).unwrap().set("Resources", resources);
    guard(&mut doc).unwrap();
    let stream = |id| doc.get_object(id).unwrap().as_stream().unwrap().clone();
    let (cmap, icc, function) = (stream(cmap), stream(icc), stream(function));
    assert_eq!(cmap.content, b"begincmap 1 beginbfchar <01> <0041> endbfchar endcmap");
    assert!(!cmap.dict.has(b"Filter"), "decoded once, kept decoded");
    assert_eq!(function.content, b"{ 0 0 0 }", "a separation's tint function too");
    assert!(
        icc.content.is_empty() && !icc.dict.has(b"Filter"),
        "the ICC profile inside the separation"
    );
}

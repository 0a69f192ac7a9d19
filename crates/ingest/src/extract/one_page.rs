//! One page at a time for pdf-extract, at a constant cost per page. `pdf_extract::output_doc_page` lists the whole
//! page tree to find the page it is asked for, which makes a document of n pages cost n² (100,000 empty pages: more
//! than 120 s, where pdftotext takes 4 s). Here the catalog's `/Pages` points, while pages are decoded, at a page
//! tree node of our own that holds only the page being decoded, so that pdf-extract's listing finds one page. The
//! page keeps its own `/Parent`, so what it inherits (resources, media box) is unchanged; the catalog gets its tree
//! back when [`OnePage`] is dropped.

use lopdf::{dictionary, Document, Object, ObjectId};
use pdf_extract::{OutputDev, OutputError};

/// The catalog's own page tree, set aside while pages are decoded one at a time.
pub(super) struct OnePage<'a> {
    doc: &'a mut Document,
    /// The catalog's id, its own `/Pages` value and the node standing in for it; `None` when the catalog is not
    /// an indirect object (then each page is found by pdf-extract's own listing).
    swap: Option<(ObjectId, Object, ObjectId)>,
}

impl<'a> OnePage<'a> {
    pub(super) fn new(doc: &'a mut Document) -> Self {
        let swap = (|| {
            let catalog = doc.trailer.get(b"Root").ok()?.as_reference().ok()?;
            let own = doc.get_dictionary(catalog).ok()?.get(b"Pages").ok()?.clone();
            let node = doc.add_object(dictionary! {
                "Type" => "Pages",
                "Kids" => Vec::<Object>::new(),
                "Count" => 1,
            });
            doc.get_dictionary_mut(catalog)
                .ok()?
                .set("Pages", Object::Reference(node));
            Some((catalog, own, node))
        })();
        OnePage { doc, swap }
    }

    /// The document (its catalog pointing at the stand-in node while this lives).
    pub(super) fn doc(&self) -> &Document {
        self.doc
    }

    /// Decodes page `number`, object `id`, into `dev`, as `pdf_extract::output_doc_page(doc, dev, number)` does.
    pub(super) fn output(&mut self, number: u32, id: ObjectId, dev: &mut dyn OutputDev) -> Result<(), OutputError> {
        let Some((_, _, node)) = self.swap else {
            return pdf_extract::output_doc_page(self.doc, dev, number);
        };
        if let Ok(dict) = self.doc.get_dictionary_mut(node) {
            dict.set("Kids", vec![Object::Reference(id)]);
        }
        pdf_extract::output_doc_page(self.doc, dev, 1)
    }
}

impl Drop for OnePage<'_> {
    fn drop(&mut self) {
        if let Some((catalog, own, node)) = self.swap.take() {
            if let Ok(dict) = self.doc.get_dictionary_mut(catalog) {
                dict.set("Pages", own);
            }
            self.doc.objects.remove(&node);
        }
    }
}

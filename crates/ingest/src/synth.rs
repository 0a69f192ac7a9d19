//! PDFs written byte by byte for tests and benchmarks of large files: many empty pages sharing one content
//! stream, under a balanced page tree (or a flat one), as a scanner driver or a mail-merge tool writes them.

/// The line page 1 of [`empty_pages_pdf`] draws.
pub const FIRST_PAGE_TEXT: &str = "Only the first page of this document has text.";

/// A PDF of `pages` pages (US Letter, inherited from the root) under a page tree whose nodes hold at most `fan_out`
/// kids (`fan_out >= pages`: one flat `/Kids` array). Page 1 draws [`FIRST_PAGE_TEXT`] in Helvetica; every other
/// page draws one shared empty content stream.
pub fn empty_pages_pdf(pages: usize, fan_out: usize) -> Vec<u8> {
    assert!(pages >= 1 && fan_out >= 2);
    // Objects: 1 catalog, 2 the shared empty content stream, 3 page 1's content, 4 the font, then the pages, then
    // the tree's inner nodes bottom up.
    let first = format!("BT /F1 12 Tf 72 720 Td ({FIRST_PAGE_TEXT}) Tj ET");
    let mut bodies: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"<< /Length 0 >>\nstream\n\nendstream".to_vec(),
        format!("<< /Length {} >>\nstream\n{first}\nendstream", first.len()).into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
    ];
    let first_page = 5;
    let mut level: Vec<usize> = (0..pages).map(|i| first_page + i).collect();
    bodies.extend((0..pages).map(|_| Vec::new()));
    // parent[i]: the parent object of object i + 1.
    let mut parent = vec![0usize; first_page - 1 + pages];
    let mut counts = vec![1usize; first_page - 1 + pages];
    loop {
        let mut next = Vec::new();
        for group in level.chunks(fan_out) {
            let id = bodies.len() + 1;
            let count: usize = group.iter().map(|&k| counts[k - 1]).sum();
            let kids: String = group.iter().map(|k| format!("{k} 0 R ")).collect();
            bodies.push(format!("<< /Type /Pages /Kids [{kids}] /Count {count} /PARENT >>").into_bytes());
            parent.push(0);
            counts.push(count);
            for &k in group {
                parent[k - 1] = id;
            }
            next.push(id);
        }
        level = next;
        if level.len() == 1 {
            break;
        }
    }
    let root = level[0];
    bodies[0] = format!("<< /Type /Catalog /Pages {root} 0 R >>").into_bytes();
    for (i, body) in bodies.iter_mut().enumerate().skip(first_page - 1) {
        let id = i + 1;
        if id == first_page {
            *body = format!(
                "<< /Type /Page /Parent {} 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
                parent[i]
            )
            .into_bytes();
        } else if id < first_page + pages {
            *body = format!("<< /Type /Page /Parent {} 0 R /Contents 2 0 R >>", parent[i]).into_bytes();
        } else {
            let up = if id == root {
                "/MediaBox [0 0 612 792] /Resources << >>".to_string()
            } else {
                format!("/Parent {} 0 R", parent[i])
            };
            let text = String::from_utf8_lossy(body).replace("/PARENT", &up);
            *body = text.into_bytes();
        }
    }
    assemble(&bodies)
}

/// A PDF file of these object bodies, numbered from 1 in order (object 1 the catalog), with its cross-reference
/// table and trailer: how every hand-written PDF of the tests and benches is put together.
pub fn assemble<B: AsRef<[u8]>>(bodies: &[B]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::with_capacity(bodies.len());
    for (i, body) in bodies.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body.as_ref());
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", bodies.len() + 1).as_bytes());
    for at in offsets {
        out.extend_from_slice(format!("{at:010} 00000 n \n").as_bytes());
    }
    let trailer = format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        bodies.len() + 1
    );
    out.extend_from_slice(trailer.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::empty_pages_pdf;

    #[test]
    fn the_page_tree_lists_every_page_once_in_order() {
        for (pages, fan_out) in [(1, 2), (7, 2), (100, 10), (1000, 32), (50, 1000)] {
            let doc = lopdf::Document::load_mem(&empty_pages_pdf(pages, fan_out)).unwrap();
            let listed = doc.get_pages();
            assert_eq!(listed.len(), pages, "{pages} pages, fan-out {fan_out}");
            let ids: Vec<u32> = listed.values().map(|id| id.0).collect();
            assert_eq!(ids, (5..5 + pages as u32).collect::<Vec<_>>());
        }
    }
}

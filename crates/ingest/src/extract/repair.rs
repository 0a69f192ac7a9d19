//! Recovery of PDFs whose cross-reference table or trailer is broken, as poppler recovers them: scan the file for
//! `N G obj` headers, take the catalog from the last trailer (or from the object typed `/Catalog`), and append a
//! fresh cross-reference table and trailer, so the parser reads the objects that are actually there. Objects kept
//! only inside compressed object streams are not found by the scan; files that need them stay unrecoverable.

/// The file with a rebuilt cross-reference table appended, or `None` when no object or no catalog was found.
pub fn rebuild_xref(bytes: &[u8]) -> Option<Vec<u8>> {
    let objects = scan_objects(bytes);
    if objects.is_empty() {
        return None;
    }
    let root = trailer_root(bytes).or_else(|| catalog(bytes, &objects))?;
    let max_id = objects.iter().map(|o| o.0).max()?;
    // The last definition of an object wins (incremental updates append newer versions).
    let mut offsets: Vec<Option<(u32, usize)>> = vec![None; max_id as usize + 1];
    for &(id, generation, offset) in &objects {
        offsets[id as usize] = Some((generation, offset));
    }
    let mut out = bytes.to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let xref_at = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", max_id + 1).as_bytes());
    for entry in offsets.iter().skip(1) {
        let line = match entry {
            Some((generation, offset)) => format!("{offset:010} {generation:05} n \n"),
            None => "0000000000 65535 f \n".to_string(),
        };
        out.extend_from_slice(line.as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root {} {} R >>\nstartxref\n{xref_at}\n%%EOF\n",
            max_id + 1,
            root.0,
            root.1
        )
        .as_bytes(),
    );
    Some(out)
}

/// `(id, generation, offset)` of every `N G obj` that starts a line (or the file).
fn scan_objects(bytes: &[u8]) -> Vec<(u32, u32, usize)> {
    let mut found = Vec::new();
    let mut i = 0;
    while let Some(pos) = find(&bytes[i..], b"obj").map(|p| p + i) {
        i = pos + 3;
        if let Some((id, generation, start)) = header_before(bytes, pos) {
            found.push((id, generation, start));
        }
    }
    found
}

/// Parses `N G ` right before `obj` at `pos`, requiring it to start a line; returns the header's offset.
fn header_before(bytes: &[u8], pos: usize) -> Option<(u32, u32, usize)> {
    let mut j = pos;
    let mut numbers = [0u32; 2];
    for slot in (0..2).rev() {
        let end = skip_space_back(bytes, j)?;
        let mut start = end;
        while start > 0 && bytes[start - 1].is_ascii_digit() {
            start -= 1;
        }
        if start == end || end - start > 10 {
            return None;
        }
        numbers[slot] = std::str::from_utf8(&bytes[start..end]).ok()?.parse().ok()?;
        j = start;
    }
    let line_start = j == 0 || matches!(bytes[j - 1], b'\n' | b'\r');
    (line_start && numbers[0] > 0 && numbers[0] < 2_000_000).then_some((numbers[0], numbers[1], j))
}

/// The end of the digits before `j`, after at least one space.
fn skip_space_back(bytes: &[u8], j: usize) -> Option<usize> {
    let mut k = j;
    while k > 0 && matches!(bytes[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    (k < j).then_some(k)
}

/// `/Root N G R` in the last `trailer` dictionary.
fn trailer_root(bytes: &[u8]) -> Option<(u32, u32)> {
    let at = rfind(bytes, b"trailer")?;
    reference_after(&bytes[at..], b"/Root")
}

/// The object whose dictionary says `/Type /Catalog`.
fn catalog(bytes: &[u8], objects: &[(u32, u32, usize)]) -> Option<(u32, u32)> {
    objects.iter().rev().find_map(|&(id, generation, offset)| {
        let body = &bytes[offset..bytes.len().min(offset + 4096)];
        let end = find(body, b"endobj").unwrap_or(body.len());
        let body = &body[..end];
        let compact: Vec<u8> = body.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
        find(&compact, b"/Type/Catalog").map(|_| (id, generation))
    })
}

/// `N G R` after `key` in `text`.
fn reference_after(text: &[u8], key: &[u8]) -> Option<(u32, u32)> {
    let at = find(text, key)? + key.len();
    let rest = std::str::from_utf8(&text[at..text.len().min(at + 40)]).ok()?;
    let mut parts = rest.split_whitespace();
    let id = parts.next()?.parse().ok()?;
    let generation = parts.next()?.parse().ok()?;
    (parts.next()?.starts_with('R')).then_some((id, generation))
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_found_at_line_starts_only() {
        let pdf = b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] \
                    /Count 0 >>\nendobj\n(not 3 0 obj here)\n";
        let found = scan_objects(pdf);
        assert_eq!(found.iter().map(|o| (o.0, o.1)).collect::<Vec<_>>(), [(1, 0), (2, 0)]);
        assert_eq!(catalog(pdf, &found), Some((1, 0)));
        let rebuilt = rebuild_xref(pdf).unwrap();
        let tail = String::from_utf8_lossy(&rebuilt[pdf.len()..]).to_string();
        assert!(tail.contains("xref\n0 3\n") && tail.contains("/Root 1 0 R"), "{tail}");
        assert_eq!(
            reference_after(b"trailer << /Size 9 /Root 7 0 R >>", b"/Root"),
            Some((7, 0))
        );
        assert!(rebuild_xref(b"%PDF-1.4\nnothing at all\n").is_none());
    }
}

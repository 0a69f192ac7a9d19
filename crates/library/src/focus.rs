//! Named-part focus for hybrid search: a question that names a part or product by an identifier ("BMP280",
//! "KSZ8081RNA", "DS18B20") is about the documents that contain it, so hits from documents that never mention
//! it go after theirs. In a library of several datasheets, "the BMP280's sleep current" otherwise retrieves the
//! sleep-current rows of every other sensor beside its own.

use ragsift_core::Result;
use ragsift_interfaces::store::LibraryStore;
use std::collections::BTreeSet;

/// The identifiers a question names: words of letters and digits, four characters or more, with at least two
/// letters and two digits, that are neither a hexadecimal literal ("0x58", "FC90h") nor a figure with its unit
/// ("100ms", "3200Hz"). Lower case, as the keyword index holds words.
pub fn identifiers(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in query.split(|c: char| !c.is_alphanumeric()) {
        let w = word.to_lowercase();
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        let digits = w.chars().filter(|c| c.is_ascii_digit()).count();
        if w.chars().count() < 4 || letters < 2 || digits < 2 || hexadecimal(&w) || figure_with_unit(&w) {
            continue;
        }
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// "0x58", "0xd7", "fc90h", "0022h": a register value, not a name.
fn hexadecimal(w: &str) -> bool {
    let hex = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit());
    w.strip_prefix("0x").is_some_and(hex) || w.strip_suffix('h').is_some_and(hex)
}

/// Digits then letters only ("100ms", "3200hz", "12bit"): a figure and its unit.
fn figure_with_unit(w: &str) -> bool {
    let rest = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    rest.len() < w.len() && rest.chars().all(char::is_alphabetic)
}

/// The documents the question's identifiers name, or `None` when it names none that the library holds (then
/// nothing is focused).
pub fn named_documents(store: &dyn LibraryStore, query: &str) -> Result<Option<BTreeSet<String>>> {
    let mut docs = BTreeSet::new();
    for w in identifiers(query) {
        docs.extend(store.documents_with_word(&w)?);
    }
    Ok((!docs.is_empty()).then_some(docs))
}

/// Puts the hits of the named documents first, each group in its own order.
pub fn focus<T>(hits: Vec<T>, named: impl Fn(&T) -> bool) -> Vec<T> {
    let (mut first, rest): (Vec<T>, Vec<T>) = hits.into_iter().partition(|h| named(h));
    first.extend(rest);
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_names_are_identifiers_and_values_are_not() {
        assert_eq!(
            identifiers("What is the BMP280's sleep current, and does the KSZ8081RNA/RND need it?"),
            ["bmp280", "ksz8081rna"]
        );
        assert_eq!(
            identifiers("DS18B20 at 100ms, 3200Hz, 0x58, FC90h, 0022h, 12bit"),
            ["ds18b20"]
        );
        // Too short, or one letter or one digit only: not a name.
        assert!(identifiers("x86 IDD2 A2 tHD 3V3 USB2").is_empty());
        assert_eq!(identifiers("RFC2119 and SHA256"), ["rfc2119", "sha256"]);
    }

    #[test]
    fn focus_keeps_each_group_in_order() {
        let hits = vec![("b", 1), ("a", 2), ("c", 3), ("a", 4)];
        assert_eq!(focus(hits, |h| h.0 == "a"), [("a", 2), ("a", 4), ("b", 1), ("c", 3)]);
    }
}

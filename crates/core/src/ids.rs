//! Content-derived identities: document ids from library paths, checksums from bytes, chunk ids and vector keys.

use sha2::{Digest, Sha256};

/// Hex sha256 of some bytes (a document's checksum, a text hash).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// A document's id: its identity in the library (the canonical path), not its content, so that two files with
/// the same bytes stay two documents and an edited file keeps its id.
pub fn document_id(canonical_path: &str) -> String {
    sha256_hex(canonical_path.as_bytes())[..16].to_string()
}

/// A chunk's id: the document, the version of its content (its checksum, with the chunk settings when they are
/// not the defaults: the store's `LibraryConfig::chunk_version`) and the chunk's position. An unchanged file
/// yields the same ids on every ingest; a changed file, or one chunked anew, yields new ones, so stale vectors can
/// never pass for fresh.
pub fn chunk_id(document_id: &str, checksum: &str, index: usize) -> String {
    let mut h = Sha256::new();
    h.update(document_id.as_bytes());
    h.update([0]);
    h.update(checksum.as_bytes());
    h.update([0]);
    h.update((index as u64).to_le_bytes());
    hex::encode(h.finalize())[..24].to_string()
}

/// The usearch key of a chunk: the first 63 bits of its id (kept positive so it also fits SQLite's INTEGER).
pub fn vector_key(chunk_id: &str) -> u64 {
    let n = u64::from_str_radix(&chunk_id[..16], 16).unwrap_or(0);
    n & (u64::MAX >> 1)
}

/// The longest run id accepted from outside (ragsift's own are 12 hex digits; rag-jev's are UUIDs).
pub const MAX_RUN_ID_LEN: usize = 64;

/// The shortest prefix that names a run (when exactly one run's id starts with it).
pub const MIN_PREFIX_LEN: usize = 6;

/// Checks a run id that came from outside (an imported file): 1 to 64 ASCII letters, digits, `-`, `_` or `.`,
/// starting with a letter or digit — so it can never be a path (`../`), a SQL wildcard (`%`, `_` alone), empty,
/// or carry a terminal escape.
pub fn check_run_id(id: &str) -> Result<(), String> {
    let shown: String = id.chars().take(MAX_RUN_ID_LEN).flat_map(char::escape_default).collect();
    if id.is_empty() || id.len() > MAX_RUN_ID_LEN {
        return Err(format!("run id '{shown}' must be 1 to {MAX_RUN_ID_LEN} characters"));
    }
    let ok = id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "run id '{shown}' may hold only letters, digits, '-', '_' and '.', and must start with a letter or digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_run_ids_are_checked() {
        for good in ["b8ced99fe37c", "3f2a-4b1c_x.1", "A"] {
            assert!(check_run_id(good).is_ok(), "{good}");
        }
        let long = "a".repeat(MAX_RUN_ID_LEN + 1);
        for bad in [
            "",
            "%",
            "_",
            "../x",
            ".hidden",
            "-x",
            "a b",
            "run\u{1b}[31m",
            "é",
            long.as_str(),
        ] {
            assert!(check_run_id(bad).is_err(), "{bad:?}");
        }
        assert!(
            check_run_id("x\u{1b}[2J").unwrap_err().contains("\\u{1b}"),
            "escapes are shown, not sent"
        );
    }

    #[test]
    fn ids_are_deterministic_and_change_with_content() {
        let d = document_id("/lib/a.pdf");
        assert_eq!(d, document_id("/lib/a.pdf"));
        assert_ne!(d, document_id("/lib/b.pdf"));
        let c0 = chunk_id(&d, "sum1", 0);
        assert_eq!(c0, chunk_id(&d, "sum1", 0));
        assert_ne!(c0, chunk_id(&d, "sum2", 0));
        assert_ne!(c0, chunk_id(&d, "sum1", 1));
        assert!(vector_key(&c0) <= i64::MAX as u64);
    }
}

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

/// The most characters a chunk id from outside may have (rag-jev's `Document.id`: a string of 1 to 256).
pub const MAX_CHUNK_ID_CHARS: usize = 256;

/// What an identifier names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// A run: ragsift's 12 hex digits, or an imported id (rag-jev's UUIDs).
    Run,
    /// A library document: ragsift's 16 hex digits (from its path).
    Document,
    /// A chunk or candidate: ragsift's 24 hex digits, or another retriever's document id.
    Chunk,
}

impl IdKind {
    fn name(self) -> &'static str {
        match self {
            IdKind::Run => "run id",
            IdKind::Document => "document id",
            IdKind::Chunk => "chunk id",
        }
    }
}

/// Checks an id from outside (an imported file, a command-line argument, the app), the one grammar of each kind:
/// run and document ids as [`check_run_id`] says; chunk ids as rag-jev's document ids, 1 to 256 characters and not
/// blank (another retriever's ids are its own; they are only ever compared exactly, and escaped when printed).
pub fn check_id(kind: IdKind, id: &str) -> Result<(), String> {
    let shown: String = id.chars().take(MAX_RUN_ID_LEN).flat_map(char::escape_default).collect();
    let what = kind.name();
    if kind == IdKind::Chunk {
        let n = id.chars().count();
        return if n == 0 || n > MAX_CHUNK_ID_CHARS || id.trim().is_empty() {
            Err(format!(
                "{what} '{shown}' must be 1 to {MAX_CHUNK_ID_CHARS} characters, not blank"
            ))
        } else {
            Ok(())
        };
    }
    if id.is_empty() || id.len() > MAX_RUN_ID_LEN {
        return Err(format!("{what} '{shown}' must be 1 to {MAX_RUN_ID_LEN} characters"));
    }
    let ok = id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} '{shown}' may hold only letters, digits, '-', '_' and '.', and must start with a letter or digit"
        ))
    }
}

/// Checks a run id that came from outside (an imported file): 1 to 64 ASCII letters, digits, `-`, `_` or `.`,
/// starting with a letter or digit — so it can never be a path (`../`), a SQL wildcard (`%`, `_` alone), empty,
/// or carry a terminal escape.
pub fn check_run_id(id: &str) -> Result<(), String> {
    check_id(IdKind::Run, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_and_document_ids_have_their_grammar() {
        for good in [
            "6616dd122a240207db56b13c",
            "doc-1#page 3",
            "s3://bucket/a.pdf",
            &"x".repeat(256),
        ] {
            assert!(check_id(IdKind::Chunk, good).is_ok(), "{good}");
        }
        for bad in ["", "   ", &"x".repeat(257)] {
            assert!(check_id(IdKind::Chunk, bad).is_err(), "{bad:?}");
        }
        assert!(check_id(IdKind::Document, "3f2a9c0d1e2b4a5c").is_ok());
        for bad in ["", "../etc", "a%", "x\u{1b}[2J", "a b"] {
            let e = check_id(IdKind::Document, bad).unwrap_err();
            assert!(e.starts_with("document id"), "{e}");
        }
    }

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

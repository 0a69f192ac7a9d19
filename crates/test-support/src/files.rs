//! Where the repository's files are, for tests run by cargo from any crate: the repository root, a fixture under
//! `fixtures/`, and the words of a text for comparing texts regardless of spacing and case.

use std::path::{Path, PathBuf};

/// The repository root: two folders above the crate under test (`CARGO_MANIFEST_DIR`, as cargo sets it when it
/// runs a test), else above this crate.
pub fn repo() -> PathBuf {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    Path::new(&manifest)
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}

/// A file under the repository's `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    repo().join("fixtures").join(rel)
}

/// Lower-cased alphanumeric words.
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_is_the_workspace_root_and_fixtures_sit_under_it() {
        let root = repo();
        assert!(root.join("Cargo.toml").is_file(), "{}", root.display());
        assert!(root.join("crates/test-support").is_dir());
        assert_eq!(fixture("qa"), root.join("fixtures/qa"));
        assert!(fixture("qa").is_dir());
    }

    #[test]
    fn words_ignore_case_spacing_and_punctuation() {
        assert_eq!(
            words("  Beamwidth:\n0.75°, Narrow "),
            ["beamwidth", "0", "75", "narrow"]
        );
        assert!(words(" -- ").is_empty());
        assert_eq!(words("Über-Größe"), ["über", "größe"]);
    }
}

//! Shared test helpers: paths to the fixtures, and words for comparing texts.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into()))
        .join("../..")
        .canonicalize()
        .unwrap()
}

pub fn fixture(rel: &str) -> PathBuf {
    repo().join("fixtures").join(rel)
}

/// Lower-cased alphanumeric words, for comparing texts regardless of spacing.
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect()
}

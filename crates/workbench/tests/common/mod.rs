//! Shared test helpers: paths to the fixtures, and words for comparing texts.
#![allow(dead_code)]

#[allow(unused_imports)]
pub use ragsift_test_support::files::{fixture, repo, words};

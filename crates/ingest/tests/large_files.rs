//! Large files (issue 55, "ingest no file can take down"): page trees of a hundred thousand empty pages, written
//! by `ragsift_ingest::synth`, are read whole, every page counted, in a flat and in a balanced tree.

use ragsift_ingest::extract::{extract_file, Limits};
use ragsift_ingest::synth::{empty_pages_pdf, FIRST_PAGE_TEXT};
use std::time::Duration;

/// A deadline far above what reading takes (about 0.05 ms a page in release): the tests check what is read, and
/// `examples/many_pages.rs` measures the pace.
const LIMITS: Limits = Limits {
    max_file_mb: 200,
    timeout: Duration::from_secs(600),
};

fn read_all(pages: usize, fan_out: usize) {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("empty_pages.pdf");
    std::fs::write(&pdf, empty_pages_pdf(pages, fan_out)).unwrap();
    let ex = extract_file(&pdf, LIMITS).unwrap_or_else(|e| panic!("{pages} pages, fan-out {fan_out}: {e}"));
    assert_eq!(ex.pages.len(), pages);
    assert!(ex.pages.iter().enumerate().all(|(i, p)| p.number as usize == i + 1));
    assert_eq!(ex.pages[0].text, FIRST_PAGE_TEXT);
    assert_eq!(ex.empty_pages.len(), pages - 1);
    assert_eq!((ex.empty_pages[0], ex.empty_pages[pages - 2]), (2, pages as u32));
    assert!(ex.failed_pages.is_empty() && ex.garbled_pages.is_empty());
    let warning = ex.warning().unwrap();
    assert_eq!(warning, format!("no extractable text on pages 2–{pages}"));
}

#[test]
fn a_hundred_thousand_empty_pages_are_all_read() {
    read_all(100_000, 32);
    read_all(100_000, 100_000);
}

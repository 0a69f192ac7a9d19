//! Which page extraction is working on: the PDF loader and OCR mark each page as they start it, and a worker
//! process has it told to its parent at once (through the reporter it sets), so that the parent knows the page if
//! the worker dies on it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// The page being decoded in this process (0 while the file is opened), for a worker's last words.
static CURRENT_PAGE: AtomicU32 = AtomicU32::new(0);
/// Who hears of each page as it starts (set once, by a worker process).
static REPORTER: OnceLock<fn(u32)> = OnceLock::new();

/// Marks the page extraction is working on, and tells the reporter, if one is set.
pub fn at_page(number: u32) {
    CURRENT_PAGE.store(number, Ordering::Relaxed);
    if let Some(report) = REPORTER.get() {
        report(number);
    }
}

/// The page extraction is working on (0: opening the file).
pub fn current_page() -> u32 {
    CURRENT_PAGE.load(Ordering::Relaxed)
}

/// Has every page [`at_page`] marks from now on told to `report` (the first reporter set stays).
pub fn report_pages_to(report: fn(u32)) {
    let _ = REPORTER.set(report);
}

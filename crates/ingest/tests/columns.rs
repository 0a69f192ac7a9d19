//! Multi-column reading order against known truth: every page of `fixtures/multicolumn/` (LaTeX, LibreOffice,
//! Chromium and more; `fixtures/multicolumn/make.sh` made them from text it holds) is compared with its source
//! text by word-sequence similarity.

mod common;

use ragsift_ingest::extract::{extract_file, Limits};
use ragsift_ingest::quality::word_similarity;
use std::time::Duration;

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(60),
};

/// The mean over all pages must reach this, and no page may fall below `PAGE_FLOOR` (measured when the fixtures
/// landed: mean 0.981, worst page 0.936; pdftotext on the same pages: mean 0.834, worst 0.536).
const MEAN_FLOOR: f64 = 0.97;
const PAGE_FLOOR: f64 = 0.90;

#[test]
fn multi_column_pages_read_in_the_order_of_their_source_text() {
    let all = common::multicolumn();
    assert!(all.len() >= 4, "the multi-column fixtures are missing");
    let mut scores = Vec::new();
    let mut report = String::new();
    for (pdf, truth) in &all {
        let ex = extract_file(pdf, LIMITS).unwrap_or_else(|e| panic!("{}: {e}", pdf.display()));
        assert_eq!(ex.pages.len(), truth.len(), "{}: page count", pdf.display());
        for (page, want) in ex.pages.iter().zip(truth) {
            let sim = word_similarity(&page.text, want);
            report.push_str(&format!(
                "{} p{}: {sim:.3}\n",
                pdf.file_name().unwrap_or_default().to_string_lossy(),
                page.number
            ));
            scores.push(sim);
        }
    }
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    let worst = scores.iter().copied().fold(1.0, f64::min);
    println!("{report}mean {mean:.3} over {} pages, worst {worst:.3}", scores.len());
    assert!(scores.len() >= 20, "at least 20 pages: {}", scores.len());
    assert!(mean >= MEAN_FLOOR, "mean {mean:.3} < {MEAN_FLOOR}\n{report}");
    assert!(worst >= PAGE_FLOOR, "worst page {worst:.3} < {PAGE_FLOOR}\n{report}");
}

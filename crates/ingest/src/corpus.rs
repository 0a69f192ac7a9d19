//! A generated corpus for benchmarks: document `i` is a PDF of 1–24 pages about one of [`TOPICS`], with numbered
//! units and measured values, the same on every machine (seeded by `i`); written to a temp dir, never to git.

use std::path::{Path, PathBuf};

/// The documents' topics (document `i` is about `TOPICS[i % TOPICS.len()]`).
pub const TOPICS: &[&str] = &[
    "battery",
    "warranty",
    "replication",
    "checkpoint",
    "compression",
    "index",
    "latency",
    "firmware",
    "sensor",
    "calibration",
    "throughput",
    "encryption",
    "scheduler",
    "cache",
    "storage",
    "network",
    "license",
    "backup",
    "migration",
    "telemetry",
];
const WORDS: &[&str] = &[
    "the", "system", "records", "each", "value", "after", "before", "during", "a", "test", "of", "with", "under",
    "load", "and", "reports", "measured", "every", "hour", "when", "its", "limit", "is", "reached", "operator",
    "setting", "default", "changes", "because", "module", "version", "stores", "reads", "writes", "page",
];

/// Document `i`: 1–24 pages (sizes vary), a topic, numbered units and measured values.
pub fn write_doc(dir: &Path, i: usize) -> std::io::Result<PathBuf> {
    let mut rng = ragsift_core::rng::SplitMix64::new(i as u64 + 1);
    let mut next = move || rng.next_u64();
    let pages = 1 + (next() % 24) as usize;
    let topic = TOPICS[i % TOPICS.len()];
    let mut texts = Vec::with_capacity(pages);
    for p in 0..pages {
        let mut lines = vec![format!("Report {i} on {topic}, page {}", p + 1)];
        for l in 0..25 {
            let mut line = format!(
                "Unit {} {topic} limit is {} after the test.",
                (i + l) % 1000,
                next() % 997
            );
            for _ in 0..6 {
                line.push(' ');
                line.push_str(WORDS[(next() % WORDS.len() as u64) as usize]);
            }
            line.push('.');
            lines.push(line);
        }
        texts.push(lines);
    }
    let path = dir.join(format!("doc-{i:04}.pdf"));
    std::fs::write(&path, pdf(&texts))?;
    Ok(path)
}

/// A minimal valid PDF: one Helvetica text stream per page, a correct cross-reference table.
fn pdf(pages: &[Vec<String>]) -> Vec<u8> {
    let n = pages.len();
    let mut objects: Vec<String> = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".into(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {n} >>",
            (0..n)
                .map(|k| format!("{} 0 R", 4 + 2 * k))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".into(),
    ];
    for (k, lines) in pages.iter().enumerate() {
        let mut content = String::from("BT /F1 9 Tf 11 TL 40 800 Td\n");
        for l in lines {
            content.push_str(&format!("({}) Tj T*\n", l.replace(['(', ')', '\\'], "")));
        }
        content.push_str("ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            5 + 2 * k
        ));
        objects.push(format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()));
    }
    crate::synth::assemble(&objects)
}

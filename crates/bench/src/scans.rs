//! Hard pages: Skia / Google-Docs-style PDFs (word-sequence similarity to their source text, ours vs pdftotext's)
//! and scanned pages (OCR pages per second and character accuracy against the text they were rendered from;
//! the baseline, extraction without OCR, reads nothing from them).

use ragsift_engine::extract::{extract_file, extract_file_with_ocr, ocr_available, Limits, OcrOptions};
use ragsift_engine::quality::{char_accuracy, word_similarity};
use std::process::Command;
use std::time::{Duration, Instant};

const LIMITS: Limits = Limits {
    max_file_mb: 200,
    timeout: Duration::from_secs(300),
};

pub fn run() -> ragsift_engine::Result<()> {
    let root = crate::repo_root().join("fixtures");
    println!("\n## Skia and Google-Docs-style pages: word-sequence similarity to the source text");
    println!("{:<22} {:>8} {:>10}", "file", "ragsift", "pdftotext");
    let mut pdfs: Vec<_> = std::fs::read_dir(root.join("skia"))
        .map_err(|e| ragsift_engine::Error::io(root.join("skia"), e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    pdfs.sort();
    for pdf in &pdfs {
        let source = std::fs::read_to_string(pdf.with_extension("source.txt")).unwrap_or_default();
        let ours: String = extract_file(pdf, LIMITS)?
            .pages
            .into_iter()
            .map(|p| p.text + "\n")
            .collect();
        let theirs = Command::new("pdftotext")
            .arg(pdf)
            .arg("-")
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default();
        println!(
            "{:<22} {:>8.3} {:>10.3}",
            pdf.file_name().unwrap_or_default().to_string_lossy(),
            word_similarity(&ours, &source),
            word_similarity(&String::from_utf8_lossy(&theirs), &source)
        );
    }

    let options = OcrOptions::default();
    println!(
        "\n## OCR of scanned pages (Tesseract, {} dpi, {})",
        options.dpi, options.languages
    );
    if !ocr_available(&options.languages) {
        println!("tesseract is not installed: run ./scripts/setup.sh");
        return Ok(());
    }
    let scanned = root.join("scanned/scanned.pdf");
    let truth: Vec<String> = std::fs::read_to_string(root.join("pdf/multipage.expected"))
        .unwrap_or_default()
        .split("=== page ")
        .skip(1)
        .map(|p| {
            p.split_once('\n')
                .map(|(_, t)| t.trim().to_string())
                .unwrap_or_default()
        })
        .collect();
    let baseline = extract_file(&scanned, LIMITS).map(|e| e.pages.len()).unwrap_or(0);
    let start = Instant::now();
    let ex = extract_file_with_ocr(&scanned, LIMITS, Some(&options), &|_, _| {})?;
    let seconds = start.elapsed().as_secs_f64();
    let accuracy: Vec<f64> = ex
        .pages
        .iter()
        .zip(&truth)
        .map(|(p, t)| char_accuracy(&p.text, t))
        .collect();
    println!(
        "{} pages in {seconds:.1} s: {:.2} pages/s; character accuracy {} (mean {:.3}); without OCR: {baseline} \
         pages of text",
        ex.pages.len(),
        ex.pages.len() as f64 / seconds,
        accuracy
            .iter()
            .map(|a| format!("{a:.3}"))
            .collect::<Vec<_>>()
            .join(", "),
        accuracy.iter().sum::<f64>() / accuracy.len().max(1) as f64
    );
    Ok(())
}

//! Multi-column reading order: every page of `fixtures/multicolumn/` against its source text (word-sequence
//! similarity), ragsift beside poppler's `pdftotext` on the same pages, and extraction speed for both.

use ragsift_engine::extract::{extract_file, Limits};
use ragsift_engine::quality::word_similarity;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const LIMITS: Limits = Limits {
    max_file_mb: 200,
    timeout: Duration::from_secs(300),
};
const REPEATS: usize = 3;

pub fn run() -> ragsift_engine::Result<()> {
    let dir = crate::repo_root().join("fixtures/multicolumn");
    let mut pdfs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| ragsift_engine::Error::io(dir.clone(), e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    pdfs.sort();
    println!("\n## Multi-column pages: word-sequence similarity to the source text, per page");
    println!("{:<28} {:>4} {:>8} {:>10}", "file", "page", "ragsift", "pdftotext");
    let (mut ours_all, mut theirs_all) = (Vec::new(), Vec::new());
    let (mut ours_time, mut theirs_time) = (0.0f64, 0.0f64);
    for pdf in &pdfs {
        let truth = std::fs::read_to_string(pdf.with_extension("truth.json")).unwrap_or_default();
        let truth: serde_json::Value = serde_json::from_str(&truth).unwrap_or_default();
        let truth: Vec<String> = truth["pages"]
            .as_array()
            .map(|a| a.iter().filter_map(|p| p.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let (mut best_ours, mut best_theirs) = (f64::MAX, f64::MAX);
        let mut ours = Vec::new();
        let mut theirs = String::new();
        for _ in 0..REPEATS {
            let t = Instant::now();
            ours = extract_file(pdf, LIMITS)?.pages.into_iter().map(|p| p.text).collect();
            best_ours = best_ours.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let out = Command::new("pdftotext").arg("-q").arg(pdf).arg("-").output();
            best_theirs = best_theirs.min(t.elapsed().as_secs_f64());
            theirs = out
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
        }
        ours_time += best_ours;
        theirs_time += best_theirs;
        let theirs: Vec<&str> = theirs.split('\u{c}').collect();
        let name = pdf.file_name().unwrap_or_default().to_string_lossy().to_string();
        for (i, want) in truth.iter().enumerate() {
            let o = word_similarity(ours.get(i).map_or("", String::as_str), want);
            let t = word_similarity(theirs.get(i).copied().unwrap_or(""), want);
            println!("{name:<28} {:>4} {o:>8.3} {t:>10.3}", i + 1);
            ours_all.push(o);
            theirs_all.push(t);
        }
    }
    let stats = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
        (
            mean,
            v.iter().copied().fold(1.0, f64::min),
            v.iter().filter(|&&s| s < 0.9).count(),
        )
    };
    let (om, ow, ob) = stats(&ours_all);
    let (tm, tw, tb) = stats(&theirs_all);
    println!(
        "TOTAL {} pages: ragsift mean {om:.3}, worst {ow:.3}, {ob} below 0.90; pdftotext mean {tm:.3}, worst {tw:.3}, {tb} below 0.90",
        ours_all.len()
    );
    println!(
        "speed: ragsift {:.0} pages/s, pdftotext {:.0} pages/s (a process per file), best of {REPEATS}",
        ours_all.len() as f64 / ours_time,
        theirs_all.len() as f64 / theirs_time
    );
    scaling(&dir.join("latex_twocolumn.pdf"))
}

/// Extraction time of one two-column paper repeated to 30, 100 and 300 pages (qpdf joins the copies): the time
/// per page must stay flat.
fn scaling(paper: &std::path::Path) -> ragsift_engine::Result<()> {
    let tmp = tempfile::tempdir().map_err(|e| ragsift_engine::Error::io(std::env::temp_dir(), e))?;
    println!("\n## Long two-column files: extraction time by length (latex_twocolumn.pdf repeated, best of {REPEATS})");
    println!("{:>6} {:>10} {:>12}", "pages", "ms", "ms per page");
    for pages in [32usize, 100, 300] {
        let copies = pages.div_ceil(4);
        let out = tmp.path().join(format!("long-{pages}.pdf"));
        let mut args: Vec<std::ffi::OsString> = vec!["--empty".into(), "--pages".into()];
        for _ in 0..copies {
            args.push(paper.into());
        }
        args.push("--".into());
        args.push(out.clone().into());
        let made = Command::new("qpdf").args(&args).status();
        if !made.is_ok_and(|s| s.success() || s.code() == Some(3)) {
            println!("qpdf is not installed: run ./scripts/setup.sh");
            return Ok(());
        }
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..REPEATS {
            let t = Instant::now();
            n = extract_file(&out, LIMITS)?.pages.len();
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{n:>6} {:>10.0} {:>12.2}", best * 1e3, best * 1e3 / n as f64);
    }
    Ok(())
}

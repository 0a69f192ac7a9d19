//! Extraction benchmark: our pages/s vs `pdftotext` on the same files, and how close the two texts are.

use ragsift_engine::extract::{extract_file, Limits};
use ragsift_engine::quality::word_similarity;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const REPEATS: usize = 3;

pub fn run(paths: &[PathBuf]) -> ragsift_engine::Result<()> {
    let mut roots = paths.to_vec();
    if roots.is_empty() {
        let root = crate::repo_root();
        roots = vec![
            root.join("fixtures/pdf"),
            root.join("assets/samples"),
            PathBuf::from("/usr/share/doc"),
        ];
    }
    let files = pdfs(&roots);
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(120),
    };
    println!("\n## extraction: {} PDFs, best of {REPEATS}", files.len());
    println!(
        "{:<48} {:>5} {:>10} {:>10} {:>8}",
        "file", "pages", "ours ms", "pdftotext", "sim"
    );
    let (mut pages, mut ours_total, mut base_total, mut sim_weighted) = (0usize, 0f64, 0f64, 0f64);
    for f in &files {
        let (mut best_ours, mut best_base) = (f64::MAX, f64::MAX);
        let mut ours_text = None;
        for _ in 0..REPEATS {
            let t = Instant::now();
            let r = extract_file(f, limits);
            best_ours = best_ours.min(t.elapsed().as_secs_f64());
            ours_text = Some(r);
        }
        let Some(Ok(ex)) = ours_text else { continue };
        let mut base_text = String::new();
        for _ in 0..REPEATS {
            let t = Instant::now();
            let out = Command::new("pdftotext").arg("-q").arg(f).arg("-").output();
            best_base = best_base.min(t.elapsed().as_secs_f64());
            match out {
                Ok(o) if o.status.success() => base_text = String::from_utf8_lossy(&o.stdout).to_string(),
                _ => {}
            }
        }
        if base_text.trim().is_empty() {
            continue;
        }
        let ours: String = ex.pages.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n");
        let sim = word_similarity(&ours, &base_text);
        let n = ex.pages.len();
        pages += n;
        ours_total += best_ours;
        base_total += best_base;
        sim_weighted += sim * n as f64;
        let name = f.strip_prefix(crate::repo_root()).unwrap_or(f).display().to_string();
        println!(
            "{:<48} {:>5} {:>10.1} {:>10.1} {:>8.3}",
            short(&name),
            n,
            best_ours * 1e3,
            best_base * 1e3,
            sim
        );
    }
    if pages > 0 {
        println!(
            "TOTAL {pages} pages: ours {:.0} pages/s, pdftotext {:.0} pages/s (process per file), word-sequence similarity {:.3}",
            pages as f64 / ours_total,
            pages as f64 / base_total,
            sim_weighted / pages as f64
        );
    }
    Ok(())
}

fn short(s: &str) -> String {
    let n = s.chars().count();
    if n <= 48 {
        s.to_string()
    } else {
        format!("…{}", s.chars().skip(n - 47).collect::<String>())
    }
}

fn pdfs(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = roots
        .iter()
        .flat_map(|r| walk(r))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf")))
        .collect();
    out.sort();
    out
}

fn walk(p: &Path) -> Vec<PathBuf> {
    if p.is_file() {
        return vec![p.to_path_buf()];
    }
    std::fs::read_dir(p)
        .map(|rd| rd.filter_map(|e| e.ok()).flat_map(|e| walk(&e.path())).collect())
        .unwrap_or_default()
}

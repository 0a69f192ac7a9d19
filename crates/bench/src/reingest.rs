//! Re-ingest benchmark: a library's first ingest vs ingesting the same unchanged files again.

use ragsift_engine::progress::IngestStatus;
use ragsift_engine::{Library, LibraryConfig, Result};
use std::time::Instant;

pub fn run(copies: usize) -> Result<()> {
    let root = crate::repo_root();
    let tmp = tempfile::tempdir().map_err(|e| ragsift_engine::Error::Invalid(e.to_string()))?;
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).map_err(|e| ragsift_engine::Error::Invalid(e.to_string()))?;
    let mut n = 0;
    for src in ["assets/samples", "fixtures/pdf"] {
        for entry in std::fs::read_dir(root.join(src)).into_iter().flatten().flatten() {
            let p = entry.path();
            if !ragsift_engine::extract::is_supported(&p) {
                continue;
            }
            for c in 0..copies {
                let name = format!("{c}-{}", p.file_name().unwrap_or_default().to_string_lossy());
                if std::fs::copy(&p, docs.join(name)).is_ok() {
                    n += 1;
                }
            }
        }
    }
    let embedder = crate::embedder(0)?;
    let lib = Library::open(&tmp.path().join("home"), LibraryConfig::default())?;
    let inputs = [docs.clone()];
    let t = Instant::now();
    let first = lib.ingest(&embedder, &inputs, &|_| {})?;
    let first_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let again = lib.ingest(&embedder, &inputs, &|_| {})?;
    let again_s = t.elapsed().as_secs_f64();
    let chunks: u32 = first.files.iter().map(|f| f.chunks).sum();
    let unchanged = again
        .files
        .iter()
        .filter(|f| f.status == IngestStatus::Unchanged)
        .count();
    println!(
        "\n## re-ingest: {n} files ({} ingested, {} failed as intended, {chunks} chunks)",
        n - first.failed(),
        first.failed()
    );
    println!("first ingest (baseline):  {first_s:.2} s");
    println!(
        "re-ingest, unchanged:     {again_s:.3} s ({unchanged} unchanged) — {:.0}× faster",
        first_s / again_s.max(1e-9)
    );
    Ok(())
}

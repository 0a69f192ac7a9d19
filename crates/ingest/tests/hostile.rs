//! Hostile inputs (issue 31): the PDFs `fixtures/hostile/make.py` writes, a FIFO, a device and a file too large to
//! read each end promptly in their legitimate text or a typed error, and never take the process down.

use ragsift_ingest::extract::{extract_file, Extracted, Limits};
use ragsift_ingest::Error;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(60),
};

fn fixture(name: &str) -> PathBuf {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    Path::new(&root).join("../../fixtures/hostile").join(name)
}

/// `f` on its own thread; the test fails instead of hanging when it has not returned after `secs` seconds.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("did not return within {secs} s"))
}

fn extract(path: PathBuf, limits: Limits) -> ragsift_ingest::Result<Extracted> {
    within(90, move || extract_file(&path, limits))
}

fn text(ex: &Extracted) -> String {
    ex.pages.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn self_drawing_cyclic_and_deep_forms_keep_their_text_and_draw_it_once() {
    for name in ["self_form.pdf", "form_cycle.pdf", "deep_forms.pdf"] {
        let ex = extract(fixture(name), LIMITS).unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = text(&ex);
        assert_eq!(ex.pages.len(), 1, "{name}");
        assert!(text.contains("Visible text survives"), "{name}: {text:?}");
        assert_eq!(text.matches("Drawn by the form").count(), 1, "{name}: {text:?}");
        assert!(ex.failed_pages.is_empty(), "{name}: pages {:?} failed", ex.failed_pages);
        // A cycle draws nothing new when cut; a chain cut at the depth bound may have held text, and says so.
        let warning = ex.warning().unwrap_or_default();
        if name == "deep_forms.pdf" {
            assert_eq!(ex.cut_pages, vec![1], "{name}");
            assert!(
                warning.contains("pages 1 draw forms nested deeper than 32"),
                "{name}: {warning}"
            );
        } else {
            assert!(
                ex.cut_pages.is_empty() && !warning.contains("nested"),
                "{name}: {warning}"
            );
        }
    }
}

#[test]
fn a_page_tree_cycle_reads_the_one_page_once() {
    let ex = extract(fixture("page_cycle.pdf"), LIMITS).unwrap();
    assert_eq!(ex.pages.len(), 1);
    assert!(text(&ex).contains("Visible text survives"));
}

#[test]
fn a_parent_cycle_ends_and_the_page_is_read() {
    let ex = extract(fixture("parent_cycle.pdf"), LIMITS).unwrap();
    assert_eq!(ex.pages.len(), 1);
    assert!(text(&ex).contains("Visible text survives"));
}

/// The process's peak resident memory so far, in bytes (Linux).
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn decompression_bombs_fail_their_file_quickly_in_bounded_memory() {
    let cases = [
        ("bomb.pdf", "page 1 content decompresses to more than 256 MiB"),
        ("bomb_nested.pdf", "page 1 content decompresses to more than 256 MiB"),
        ("bomb_total.pdf", "decompress to more than 1024 MiB in total"),
    ];
    for (name, want) in cases {
        let start = Instant::now();
        match extract(fixture(name), LIMITS) {
            Err(Error::Corrupt { detail, .. }) => assert!(detail.contains(want), "{name}: {detail}"),
            other => panic!("{name}: {other:?}"),
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{name} took {:?}",
            start.elapsed()
        );
    }
    // Each bomb inflates past 1 GiB; refusing it must not have come near that.
    if let Some(peak) = peak_memory() {
        assert!(peak < 900 << 20, "peak memory {} MiB", peak >> 20);
    }
}

/// The error of a file refused as not regular.
fn assert_not_regular(result: ragsift_ingest::Result<Extracted>) {
    match result {
        Err(Error::Io { source, .. }) => assert!(source.to_string().contains("not a regular file"), "{source}"),
        other => panic!("{other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.pdf");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    assert_not_regular(extract(fifo.clone(), LIMITS));
    let ocr = ragsift_ingest::extract::OcrOptions::default();
    assert_not_regular(within(10, move || {
        ragsift_ingest::extract::extract_file_with_ocr(&fifo, LIMITS, Some(&ocr), &|_, _| {})
    }));
}

#[cfg(unix)]
#[test]
fn devices_and_folders_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join("zero.pdf");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    assert_not_regular(extract(zero, LIMITS));
    let folder = dir.path().join("folder.txt");
    std::fs::create_dir(&folder).unwrap();
    assert_not_regular(extract(folder, LIMITS));
}

#[test]
fn a_file_over_the_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("sparse.pdf");
    std::fs::File::create(&big).unwrap().set_len(3 << 30).unwrap();
    let start = Instant::now();
    match extract(
        big,
        Limits {
            max_file_mb: 1,
            ..LIMITS
        },
    ) {
        Err(Error::TooLarge {
            limit_mb: 1, size_mb, ..
        }) => assert!(size_mb > 3000.0),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed() < Duration::from_secs(2));
}

//! OCR as a user meets it: `ragsift extract` reads scanned pages as `ingest` does, messages say what OCR did (or
//! why it did not run), and a file without text even by OCR is remembered by its checksum, so that the next ingest
//! of the unchanged file does not run Tesseract again unless `--retry-failed` asks for it.
//!
//! Tesseract's page reads are counted with a `tesseract` on PATH that logs its arguments and runs the real one.
//! The tests skip (with a note) where tesseract-ocr with English or poppler-utils is not installed.

mod common;

use common::{ragsift, repo};
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

fn ocr_installed() -> bool {
    let ok = ragsift_engine::extract::ocr_available("eng");
    if !ok {
        eprintln!(
            "skipped: tesseract-ocr (with English) or poppler-utils is not installed; scripts/setup.sh installs them"
        );
    }
    ok
}

/// The program `name` as found on PATH.
fn which(name: &str) -> PathBuf {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// A PATH whose `tesseract` appends its arguments to `log` (one call a line) and then runs the real one.
fn logging_tesseract(dir: &Path, log: &Path) -> OsString {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("tesseract");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            which("tesseract").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = OsString::from(bin.as_os_str());
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}

/// Pages Tesseract read since the log was last taken (its `--list-langs` checks do not count); empties the log.
fn take_page_reads(log: &Path) -> usize {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let _ = std::fs::remove_file(log);
    text.lines().filter(|l| !l.contains("--list-langs")).count()
}

/// Runs `cmd`: (exit code, stdout as JSON, stderr).
fn run(cmd: &mut Command) -> (i32, Value, String) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (out.status.code().unwrap_or(-1), v, stderr)
}

#[test]
fn extract_reads_scanned_pages_by_ocr_as_ingest_does_and_says_why_when_it_cannot() {
    if !ocr_installed() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let scanned = repo().join("fixtures/scanned/scanned.pdf");
    let (code, v, stderr) = run(ragsift(home.path()).args(["extract", "--json"]).arg(&scanned));
    assert_eq!(code, 0, "{v}\n{stderr}");
    let pages = v["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 3, "{v}");
    assert!(pages.iter().all(|p| p["ocr"] == true), "{v}");
    let text: String = pages
        .iter()
        .map(|p| p["text"].as_str().unwrap().to_lowercase())
        .collect();
    assert!(text.contains("warranty"), "{text}");
    assert!(
        stderr.contains("OCR page 1/3") && stderr.contains("OCR page 3/3"),
        "{stderr}"
    );
    assert_eq!(v["warning"], "pages 1–3 read by OCR");

    // The plain output: the OCR'd text, page by page.
    let out = ragsift(home.path()).arg("extract").arg(&scanned).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        stdout.contains("=== page 2 ===") && stdout.contains("warranty"),
        "{stdout}"
    );

    // Images without text: OCR ran and found nothing, and the message says so.
    let (code, v, stderr) = run(ragsift(home.path())
        .args(["extract", "--json"])
        .arg(repo().join("fixtures/pdf/image_only.pdf")));
    assert_eq!((code, v["code"].as_str()), (1, Some("no_text")));
    let error = v["error"].as_str().unwrap();
    assert!(
        error.ends_with("no text found on pages 1–2, also not by OCR"),
        "{error}"
    );
    assert!(!stderr.contains("not supported"), "{stderr}");

    // Tesseract missing (pdftoppm alone on PATH): the message says what to install.
    let bin = home.path().join("no-tesseract");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(which("pdftoppm"), bin.join("pdftoppm")).unwrap();
    let (code, v, _) = run(ragsift(home.path())
        .env("PATH", &bin)
        .args(["extract", "--json"])
        .arg(&scanned));
    assert_eq!((code, v["code"].as_str()), (1, Some("no_text")));
    let error = v["error"].as_str().unwrap();
    assert!(
        error.ends_with("no extractable text on pages 1–3 (scanned or image-only; install tesseract-ocr for OCR)"),
        "{error}"
    );

    // OCR turned off in the settings: the message says so, not that it is missing.
    std::fs::write(home.path().join("settings.json"), r#"{"ocr": false}"#).unwrap();
    let (code, v, stderr) = run(ragsift(home.path()).args(["extract", "--json"]).arg(&scanned));
    assert_eq!((code, v["code"].as_str()), (1, Some("no_text")), "{stderr}");
    let error = v["error"].as_str().unwrap();
    assert!(error.contains("OCR is turned off in the settings"), "{error}");
    assert!(!stderr.contains("OCR page"), "{stderr}");
}

#[test]
fn a_file_without_text_even_by_ocr_is_not_read_again_until_retry_failed() {
    if !ocr_installed() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let photo = work.path().join("photo.pdf");
    std::fs::copy(repo().join("fixtures/pdf/image_only.pdf"), &photo).unwrap();
    let log = work.path().join("tesseract.log");
    let path = logging_tesseract(work.path(), &log);
    let ingest = |extra: &[&str]| {
        let mut c = ragsift(home.path());
        c.env("PATH", &path).arg("ingest").args(extra).arg(&photo);
        c
    };

    // First ingest: both pages go through Tesseract, which finds nothing; the message says so.
    let started = std::time::Instant::now();
    let (code, v, stderr) = run(&mut ingest(&["--json"]));
    let first = started.elapsed();
    assert_eq!(code, 1, "{v}\n{stderr}");
    let file = &v["files"][0];
    assert_eq!(
        (file["status"].as_str(), file["error_code"].as_str()),
        (Some("failed"), Some("no_text"))
    );
    let error = file["error"].as_str().unwrap();
    assert!(
        error.ends_with("no text found on pages 1–2, also not by OCR"),
        "{error}"
    );
    assert!(!error.contains("not supported"), "{error}");
    assert_eq!(take_page_reads(&log), 2);

    // Unchanged: reported from memory, without reading it (no Tesseract run on its pages).
    let started = std::time::Instant::now();
    let out = ingest(&[]).output().unwrap();
    let again = started.elapsed();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("failed     failed before (unchanged): ")
            && stderr.contains("no text found on pages 1–2, also not by OCR"),
        "{stderr}"
    );
    assert!(stdout.contains("ragsift ingest --retry-failed"), "{stdout}");
    assert_eq!(take_page_reads(&log), 0, "{stderr}");
    eprintln!("first ingest {first:?}, unchanged again {again:?}");

    let (code, v, _) = run(&mut ingest(&["--json"]));
    let file = &v["files"][0];
    assert_eq!((code, file["error_code"].as_str()), (1, Some("no_text")));
    assert!(
        file["error"]
            .as_str()
            .unwrap()
            .starts_with("failed before (unchanged): "),
        "{file}"
    );
    assert_eq!(take_page_reads(&log), 0);

    // Asked to retry: read again, OCR and all.
    let (code, v, _) = run(&mut ingest(&["--retry-failed", "--json"]));
    let error = v["files"][0]["error"].as_str().unwrap().to_string();
    assert_eq!(code, 1);
    assert!(
        !error.starts_with("failed before") && error.ends_with("also not by OCR"),
        "{error}"
    );
    assert_eq!(take_page_reads(&log), 2);

    // Changed bytes: read again without being asked.
    let mut bytes = std::fs::read(&photo).unwrap();
    bytes.extend_from_slice(b"\n% edited\n");
    std::fs::write(&photo, bytes).unwrap();
    let (_, v, _) = run(&mut ingest(&["--json"]));
    assert!(
        !v["files"][0]["error"].as_str().unwrap().starts_with("failed before"),
        "{v}"
    );
    assert_eq!(take_page_reads(&log), 2);
}

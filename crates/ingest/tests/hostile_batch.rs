//! A hostile batch through extraction workers (issue 55, "ingest no file can take down"): a 10000×10000 photo page,
//! 2,000 blank pages, 100,000 empty pages, a file whose name holds terminal escapes, a damaged PDF, and in the heavy
//! tier a 150 MB text file of one line; and OCR within its budgets, in a worker. Each file ends in its text or a clear error of its own, the batch goes on,
//! its JSON report holds every file, and no worker's peak memory reaches the workers' ceiling.
//!
//! This test program is its own worker (`harness = false`: its `main` first serves when started as one). It takes
//! libtest's filters as `cargo test` passes them: `-- heavy_` runs the heavy case alone, `-- --skip heavy_` the rest.

use ragsift_ingest::extract::Limits;
use ragsift_ingest::synth::empty_pages_pdf;
use ragsift_ingest::worker::{self, Isolation};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const LIMITS: Limits = Limits {
    max_file_mb: 200,
    timeout: Duration::from_secs(120),
};

fn main() {
    if let Some(code) = worker::serve_if_asked() {
        std::process::exit(code);
    }
    let exe = std::env::current_exe().expect("this program");
    worker::install(Isolation {
        exe,
        memory_mb: worker::DEFAULT_MEMORY_MB,
    });
    let cases: [(&str, fn()); 3] = [
        ("a_hostile_batch_ends_each_file_in_text_or_its_own_error", batch),
        ("ocr_in_a_worker_returns_the_pages_read_within_its_budget", ocr_budget),
        ("heavy_a_150_mb_one_line_text_file_is_read_under_the_ceiling", long_line),
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut ran = 0;
    for (name, case) in cases {
        if !wanted(&args, name) {
            continue;
        }
        let started = Instant::now();
        case();
        println!("test {name} ... ok ({:.1} s)", started.elapsed().as_secs_f64());
        ran += 1;
    }
    worker::retire_idle();
    let peak = children_peak_mb();
    let own = own_peak_mb();
    println!(
        "peak resident memory: workers {peak} MiB, this process {own} MiB (the workers' ceiling {} MiB)",
        worker::DEFAULT_MEMORY_MB
    );
    assert!(ran == 0 || peak > 0, "the workers ran");
    assert!(peak < worker::DEFAULT_MEMORY_MB, "a worker reached {peak} MiB");
    assert!(own < worker::DEFAULT_MEMORY_MB, "this process reached {own} MiB");
    println!("test result: ok. {ran} passed");
}

/// libtest's filters: names given must be in the case's name, names after `--skip` must not.
fn wanted(args: &[String], name: &str) -> bool {
    let (mut filters, mut skips, mut it): (Vec<&str>, Vec<&str>, _) = (Vec::new(), Vec::new(), args.iter());
    while let Some(a) = it.next() {
        match a.as_str() {
            "--skip" => skips.extend(it.next().map(String::as_str)),
            flag if flag.starts_with('-') => {}
            filter => filters.push(filter),
        }
    }
    (filters.is_empty() || filters.iter().any(|f| name.contains(f))) && !skips.iter().any(|s| name.contains(s))
}

/// The largest resident set of the workers that have ended (MiB).
#[allow(unsafe_code)] // getrusage has no safe wrapper in std
fn children_peak_mb() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct when it returns 0.
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) } != 0 {
        return 0;
    }
    // SAFETY: filled above; ru_maxrss is in KiB on Linux.
    (unsafe { usage.assume_init() }.ru_maxrss as u64) >> 10
}

/// This process's peak resident memory (MiB), from `/proc/self/status`.
fn own_peak_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb >> 10)
}

/// One line of the batch's report, as `ingest --json` gives it: the file, and its pages or its error.
fn report_line(path: &Path) -> serde_json::Value {
    let started = Instant::now();
    let line = match worker::extract_isolated(path, LIMITS, None, &|_, _| {}) {
        Ok(ex) => serde_json::json!({
            "path": path,
            "pages": ex.pages.len(),
            "empty_pages": ex.empty_pages.len(),
            "text": ex.pages.iter().map(|p| p.text.chars().take(80).collect::<String>()).collect::<Vec<_>>().concat(),
            "warning": ex.warning(),
        }),
        Err(e) => serde_json::json!({ "path": path, "error": e.to_string() }),
    };
    let name = path.file_name().map(|n| format!("{n:?}")).unwrap_or_default();
    let outcome = match line["error"].as_str() {
        Some(error) => format!("error: {error:?}"),
        None => format!("{} pages", line["pages"]),
    };
    println!("  {name}: {outcome} ({:.1} s)", started.elapsed().as_secs_f64());
    line
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn batch() {
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("two_thousand_blank.pdf");
    std::fs::write(&blank, empty_pages_pdf(2_000, 32)).unwrap();
    let many = dir.path().join("a_hundred_thousand_empty.pdf");
    std::fs::write(&many, empty_pages_pdf(100_000, 32)).unwrap();
    let escapes = dir
        .path()
        .join("notes\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[31mred\nline.txt");
    std::fs::write(&escapes, "Notes on the battery: it keeps its charge for two days.").unwrap();
    let damaged = dir.path().join("damaged.pdf");
    std::fs::write(
        &damaged,
        b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer garbage",
    )
    .unwrap();
    let photo = repo().join("fixtures/hostile/big_image.pdf");
    let files = [photo, blank, many, escapes.clone(), damaged];
    let report: Vec<serde_json::Value> = files.iter().map(|f| report_line(f)).collect();
    let json = serde_json::to_string(&report).unwrap();
    // The report holds every file, in order; the names' escapes are escaped in it, never raw.
    assert_eq!(report.len(), files.len());
    assert!(!json.contains('\u{1b}') && !json.contains('\u{7}'), "{json}");
    let text = |i: usize| report[i]["text"].as_str().unwrap_or_default().to_string();
    assert!(text(0).contains("Visible text survives"), "photo page: {}", report[0]);
    assert_eq!(
        (report[1]["pages"].as_u64(), report[1]["empty_pages"].as_u64()),
        (Some(2_000), Some(1_999))
    );
    assert_eq!(report[2]["pages"].as_u64(), Some(100_000), "{}", report[2]);
    assert!(text(3).contains("keeps its charge"), "{}", report[3]);
    let error = report[4]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("damaged") || error.contains("not a valid PDF"),
        "{}",
        report[4]
    );
    assert!(!error.contains("worker"), "a clear error, not a dead worker: {error}");
}

/// OCR's budgets reach the worker, and what it read within them comes back: a page budget of one on a
/// three-page scan, and a time budget spent on the first page of a scan beside a text page (the worker stops OCR
/// and answers, well before its parent's deadline would kill it).
fn ocr_budget() {
    use ragsift_ingest::extract::{OcrLimit, OcrOptions};
    let scanned = repo().join("fixtures/scanned/scanned.pdf");
    let one_page = OcrOptions {
        max_pages: 1,
        ..OcrOptions::default()
    };
    let ex = worker::extract_isolated(&scanned, LIMITS, Some(&one_page), &|_, _| {}).unwrap();
    assert_eq!(ex.ocr_pages, [1]);
    assert!(ex.pages[0].text.split_whitespace().count() > 20, "{}", ex.pages[0].text);
    let stop = ex.ocr_stop.clone().expect("OCR stopped");
    assert_eq!(
        (stop.done, stop.left.as_slice(), stop.why),
        (1, &[2, 3][..], OcrLimit::Pages(1))
    );
    assert!(ex.warning().unwrap().contains("pages 2–3 have no text from OCR"));
    let spent = OcrOptions {
        total_timeout: Duration::from_millis(50),
        ..OcrOptions::default()
    };
    let mixed = repo().join("fixtures/pdf/mixed_scanned.pdf");
    let started = Instant::now();
    let ex = worker::extract_isolated(&mixed, LIMITS, Some(&spent), &|_, _| {}).unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(
        ex.ocr_stop.map(|s| (s.left, s.why)),
        Some((vec![2], OcrLimit::Seconds(0)))
    );
    assert!(!ex.pages[0].text.is_empty() && ex.pages[1].text.is_empty());
}

fn long_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one_line.txt");
    {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let piece = "the battery keeps its charge for two full days of use ".repeat(1 << 10);
        let mut written = 0;
        while written < 150 << 20 {
            out.write_all(piece.as_bytes()).unwrap();
            written += piece.len();
        }
    }
    let line = report_line(&path);
    match line["error"].as_str() {
        None => assert!(line["text"].as_str().unwrap().starts_with("the battery"), "{line}"),
        Some(error) => assert!(!error.contains("worker"), "a clear error, not a dead worker: {error}"),
    }
}

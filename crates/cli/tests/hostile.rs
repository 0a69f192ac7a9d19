//! The hostile-input suite through the real CLI, whose extraction runs in workers: one batch holds every hostile
//! file of `fixtures/hostile/` (made by its `make.py`; a 10000x10000 image among them), a 3 GB sparse file, a FIFO
//! and `/dev/zero` beside a good PDF. Each hostile file fails alone with a clear error (or is read, where its text
//! survives the attack), the batch exits 1 with the good file ingested, no process dies, every process stays under
//! the memory limit, and the library is consistent afterwards. A worker that runs out of memory fails only its file, saying so.

mod common;

use common::{ragsift, repo, run_json};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The worker's address-space limit in these tests (MiB).
const LIMIT_MB: u64 = 1024;

fn hostile(name: &str) -> PathBuf {
    repo().join("fixtures/hostile").join(name)
}

fn by_name<'a>(files: &'a [Value], name: &str) -> &'a Value {
    files
        .iter()
        .find(|f| f["path"].as_str().unwrap_or_default().ends_with(name))
        .unwrap_or_else(|| panic!("{name} not in the report: {files:?}"))
}

/// The largest resident set of any child this test process has waited for (with their own children), in bytes.
#[allow(unsafe_code)] // getrusage has no safe wrapper in std
fn children_peak_rss() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct when it returns 0.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) }, 0);
    // SAFETY: filled above.
    (unsafe { usage.assume_init() }.ru_maxrss as u64) << 10
}

fn doctor_ok(home: &Path) {
    let (code, v) = run_json(ragsift(home).args(["doctor", "--json"]));
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "doctor: {v}");
}

#[test]
fn every_hostile_file_fails_alone_and_the_batch_goes_on() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "self_form.pdf",
        "form_cycle.pdf",
        "deep_forms.pdf",
        "page_cycle.pdf",
        "parent_cycle.pdf",
        "bomb.pdf",
        "bomb_nested.pdf",
        "bomb_total.pdf",
        "big_image.pdf",
    ];
    let mut inputs: Vec<PathBuf> = names.iter().map(|n| hostile(n)).collect();
    inputs.push(repo().join("fixtures/pdf/multipage.pdf"));
    let sparse = dir.path().join("sparse-3gb.pdf");
    std::fs::File::create(&sparse).unwrap().set_len(3 << 30).unwrap();
    let fifo = dir.path().join("pipe.pdf");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    inputs.extend([sparse, fifo, PathBuf::from("/dev/zero")]);

    let (code, v) = run_json(
        ragsift(home.path())
            .env("RAGSIFT_WORKER_MEMORY_MB", LIMIT_MB.to_string())
            .args(["ingest", "--json"])
            .args(&inputs),
    );
    assert_eq!(code, 1, "a batch with failures exits 1: {v}");
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), inputs.len(), "every input has its line: {v}");
    assert_eq!(by_name(files, "multipage.pdf")["status"], "ingested", "{v}");
    // Attacks on the structure, and a photo of 300 MB decoded: the legitimate text survives, drawn once.
    for name in [
        "big_image.pdf",
        "self_form.pdf",
        "form_cycle.pdf",
        "deep_forms.pdf",
        "page_cycle.pdf",
        "parent_cycle.pdf",
    ] {
        let f = by_name(files, name);
        assert_eq!(f["status"], "ingested", "{name}: {f}");
        assert_eq!(f["pages"], 1, "{name}: a cycle does not multiply pages: {f}");
    }
    // Bombs: refused by the bound on decompressed bytes, before memory runs out.
    for name in ["bomb.pdf", "bomb_nested.pdf", "bomb_total.pdf"] {
        let f = by_name(files, name);
        assert_eq!(
            (f["status"].as_str(), f["error_code"].as_str()),
            (Some("failed"), Some("corrupt")),
            "{name}: {f}"
        );
        assert!(f["error"].as_str().unwrap().contains("decompress"), "{name}: {f}");
    }
    let sparse = by_name(files, "sparse-3gb.pdf");
    assert_eq!(sparse["error_code"], "too_large", "{sparse}");
    for name in ["pipe.pdf", "/dev/zero"] {
        let f = by_name(files, name);
        assert_eq!(f["status"], "failed", "{f}");
        assert!(
            f["error"].as_str().unwrap().contains("not a regular file"),
            "{name}: {f}"
        );
    }
    let peak = children_peak_rss();
    assert!(peak < LIMIT_MB << 20, "a process peaked at {} MiB", peak >> 20);
    doctor_ok(home.path());
}

#[test]
fn a_worker_out_of_memory_fails_only_its_file_and_says_where() {
    let home = tempfile::tempdir().unwrap();
    // Tight enough that inflating bomb.pdf's 256 MiB of page content cannot fit.
    let (code, v) = run_json(
        ragsift(home.path())
            .env("RAGSIFT_WORKER_MEMORY_MB", "256")
            .args(["ingest", "--json"])
            .arg(hostile("bomb.pdf"))
            .arg(repo().join("fixtures/pdf/multipage.pdf")),
    );
    assert_eq!(code, 1, "{v}");
    let files = v["files"].as_array().unwrap();
    let bomb = by_name(files, "bomb.pdf");
    assert_eq!(bomb["error_code"], "extraction_stopped", "{bomb}");
    let error = bomb["error"].as_str().unwrap();
    assert!(
        error.contains("exhausted the 256 MiB memory limit while") && error.contains("only this file failed"),
        "{error}"
    );
    assert_eq!(
        by_name(files, "multipage.pdf")["status"],
        "ingested",
        "the next worker read it: {v}"
    );
    doctor_ok(home.path());
}

#[test]
fn extract_runs_in_a_worker_with_the_same_text() {
    let pdf = repo().join("fixtures/pdf/multipage.pdf");
    let home = tempfile::tempdir().unwrap();
    let run = |worker: &str| {
        let out = ragsift(home.path())
            .env("RAGSIFT_WORKER", worker)
            .args(["extract", "--json"])
            .arg(&pdf)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let (isolated, here) = (run("on"), run("off"));
    assert!(!isolated["pages"].as_array().unwrap().is_empty());
    assert_eq!(
        isolated, here,
        "a worker returns what extraction in the process returns"
    );
}

/// A file name holding a newline, colour codes, a window-title escape and a clear-screen escape reaches the terminal
/// escaped in `ingest`, `library list` and `search`: no control byte is printed.
#[test]
fn file_names_with_escapes_never_reach_the_terminal_raw() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let name = "evil\n\u{1b}[31mred\u{1b}]0;title\u{7}\u{1b}[2J.md";
    let file = dir.path().join(name);
    std::fs::write(
        &file,
        "# Sourdough\n\nFeed the starter once a day with flour and water.\n",
    )
    .unwrap();
    let raw = |out: &std::process::Output| {
        let all = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
        all.iter().any(|b| *b == 0x1b || *b == 0x07)
    };
    let ingest = ragsift(&home).args(["ingest"]).arg(&file).output().unwrap();
    assert!(ingest.status.success(), "{}", String::from_utf8_lossy(&ingest.stderr));
    assert!(!raw(&ingest), "ingest: {:?}", String::from_utf8_lossy(&ingest.stdout));
    let shown = String::from_utf8_lossy(&ingest.stdout);
    assert!(shown.contains("evil\\u{a}\\u{1b}[31mred"), "{shown}");
    let list = ragsift(&home).args(["library", "list"]).output().unwrap();
    assert!(
        list.status.success() && !raw(&list),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
    let search = ragsift(&home).args(["search", "feed the starter"]).output().unwrap();
    assert!(
        search.status.success() && !raw(&search),
        "{}",
        String::from_utf8_lossy(&search.stdout)
    );
}

//! A full disk, for real: a library on a small tmpfs that is then filled to the last byte. Reading commands still
//! work (`library list`, `doctor`), and every write says the disk is full, keeps the old file whole and leaves no
//! temp file: an ingest that fills the disk (its per-file report printed) and one on the full disk, a settings
//! save, a run export and a new file as the review packet writes it. Needs permission to mount a tmpfs (root, as on CI); elsewhere it says so and passes.

mod common;

use ragsift_test_support::http;

use common::{ragsift, repo, run_json, walk};
use ragsift_engine::fsx;
use ragsift_engine::workbench::Settings;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs mounted for the test, unmounted when dropped.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size},mode=0755"), "tmpfs"])
            .arg(at)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system holding `dir` up to `leave` free bytes (to the last byte with 0), in `name`.
fn fill(dir: &Path, name: &str, leave: u64) {
    let mut f = std::fs::File::create(dir.join(name)).unwrap();
    for size in [1 << 20, 4096, 1] {
        let block = vec![7u8; size];
        while fsx::free_bytes(dir).unwrap() >= leave + size as u64 && f.write_all(&block).is_ok() {}
    }
    if leave == 0 {
        while f.write_all(&[7]).is_ok() {}
    }
    let _ = f.sync_all();
}

fn temp_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in walk(dir) {
        let name = e
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".tmp") {
            found.push(e.display().to_string());
        }
    }
    found
}

fn imported_run(home: &Path) -> String {
    let server = http::Server::with_handler(|_: &http::Request| {
        let body = json!({"model": "jev-1.13.0", "answers": {"relevant": {"type": "noul", "noul": 0.7}},
            "usage": {"input_tokens": 12, "output_tokens": 1}});
        http::Reply::Json(200, vec![], body.to_string())
    });
    let docs: Vec<Value> = (0..3)
        .map(|i| json!({"id": format!("d{i}"), "text": format!("Passage {i} about refunds.")}))
        .collect();
    let case = json!({"id": "c", "query": "refunds?", "documents": docs, "relevant_ids": ["d1"],
        "mode": "filter", "min_relevance": 0.5});
    let file = home.join("case.json");
    std::fs::write(&file, case.to_string()).unwrap();
    let (code, trace) = run_json(
        ragsift(home)
            .args(["runs", "import-candidates"])
            .arg(&file)
            .args(["--judge", "jev", "--json"])
            .env("TYPESAFE_API_KEY", "sk-test")
            .env("TYPESAFE_BASE_URL", &server.url),
    );
    assert_eq!(code, 0, "{trace}");
    trace["run_id"].as_str().unwrap().to_string()
}

#[test]
fn a_full_disk_is_named_loses_nothing_and_leaves_the_library_readable() {
    let dir = tempfile::tempdir().unwrap();
    let Some(fs) = Tmpfs::mount(&dir.path().join("mnt"), "64m") else {
        eprintln!("skipped: mounting a tmpfs needs root (CI runs as root)");
        return;
    };
    let mnt = fs.0.clone();
    let home = mnt.join("home");
    let pdf = repo().join("fixtures/pdf/multipage.pdf");
    let (code, v) = run_json(ragsift(&home).args(["ingest", "--json"]).arg(&pdf));
    assert_eq!(code, 0, "{v}");
    let run = imported_run(&home);
    let export = mnt.join("run.json");
    let out = ragsift(&home)
        .args(["runs", "export", &run, "--output"])
        .arg(&export)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let exported = std::fs::read(&export).unwrap();
    let settings_before = std::fs::read(home.join("settings.json")).ok();
    let other = mnt.join("other.txt");
    std::fs::write(
        &other,
        "A second document about warranties and refunds, long enough to chunk. ".repeat(2000),
    )
    .unwrap();

    // The disk fills during an ingest: the file fails as disk-full, the report is printed, nothing half-stored.
    fill(&mnt, "filler-1", 192 << 10);
    let (code, v) = run_json(ragsift(&home).args(["ingest", "--json"]).arg(&other));
    assert_eq!(code, 1, "{v}");
    let f = &v["files"][0];
    assert_eq!(
        (f["status"].as_str(), f["error_code"].as_str()),
        (Some("failed"), Some("disk_full")),
        "{v}"
    );
    assert!(f["error"].as_str().unwrap().contains("full"), "{f}");

    fill(&mnt, "filler-2", 0);

    // Reading works on the full disk.
    let (code, v) = run_json(ragsift(&home).args(["library", "list", "--json"]));
    assert_eq!(code, 0, "library list on a full disk: {v}");
    let (code, v) = run_json(ragsift(&home).args(["doctor", "--json"]));
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "doctor on a full disk: {v}");

    let (code, v) = run_json(ragsift(&home).args(["library", "list", "--json"]));
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["documents"].as_array().map(Vec::len),
        Some(1),
        "the first file only: {v}"
    );

    // An ingest on the full disk says so before it starts.
    let out = ragsift(&home).args(["ingest"]).arg(&other).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("the disk is full"), "{stderr}");

    // A settings save.
    let mut s = Settings::default();
    s.library.top_k = 9;
    let err = s.save(&home).unwrap_err();
    assert!(err.to_string().contains("the disk is full"), "{err}");
    assert_eq!(
        std::fs::read(home.join("settings.json")).ok(),
        settings_before,
        "the old settings are whole"
    );

    // An export over the old file.
    let out = ragsift(&home)
        .args(["runs", "export", &run, "--output"])
        .arg(&export)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("the disk is full"), "{stderr}");
    assert!(
        stderr.contains(&export.display().to_string()),
        "the path is named: {stderr}"
    );
    assert_eq!(std::fs::read(&export).unwrap(), exported, "the old export is whole");

    // A new file, as the review packet and its key are written.
    let packet = mnt.join("packet.json");
    let err = fsx::write_new(&packet, &vec![b'x'; 1 << 20], fsx::Access::Shared).unwrap_err();
    assert!(err.to_string().contains("the disk is full"), "{err}");
    assert!(!packet.exists());

    assert_eq!(temp_files(&mnt), Vec::<String>::new(), "no temp file is left");
    // Space again: the library is consistent and takes the file.
    std::fs::remove_file(mnt.join("filler-1")).unwrap();
    std::fs::remove_file(mnt.join("filler-2")).unwrap();
    let (code, v) = run_json(ragsift(&home).args(["doctor", "--json"]));
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "doctor after: {v}");
    let (code, v) = run_json(ragsift(&home).args(["ingest", "--json"]).arg(&other));
    assert_eq!((code, v["files"][0]["status"].as_str()), (0, Some("ingested")), "{v}");
}

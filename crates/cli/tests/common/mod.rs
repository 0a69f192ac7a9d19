//! Shared helpers of the CLI tests: the repository root and a `ragsift` command on a given library home.
#![allow(dead_code)]

pub mod ragjev;
pub mod service;

#[allow(unused_imports)]
pub use ragsift_test_support::files::repo;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `ragsift --home HOME`, with no library or Jev key inherited from the environment.
pub fn ragsift(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ragsift"));
    c.arg("--home")
        .arg(home)
        .env_remove("RAGSIFT_HOME")
        .env_remove("TYPESAFE_API_KEY");
    c
}

/// Runs `cmd` and reads its stdout as JSON: (exit code, value). Panics with both outputs when it is not JSON.
pub fn run_json(cmd: &mut Command) -> (i32, Value) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

/// A fresh library home with the multipage fixture ingested through the CLI.
pub fn ingested_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let out = ragsift(home.path())
        .arg("ingest")
        .arg(repo().join("fixtures/pdf/multipage.pdf"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    home
}

/// Every file under `dir`, at any depth.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

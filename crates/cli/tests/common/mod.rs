//! Shared helpers of the CLI tests: the repository root and a `ragsift` command on a given library home.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into()))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `ragsift --home HOME`, with no library or Jev key inherited from the environment.
pub fn ragsift(home: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ragsift"));
    c.arg("--home")
        .arg(home)
        .env_remove("RAGSIFT_HOME")
        .env_remove("TYPESAFE_API_KEY");
    c
}

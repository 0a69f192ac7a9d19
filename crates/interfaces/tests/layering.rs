//! The crate graph as ARCHITECTURE.md draws it: every dependency between ragsift's crates (read from `cargo
//! metadata`) must be one the architecture allows, and the logic crates must build no native code (read from
//! `cargo tree`, which resolves each crate's features on its own).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

mod common;
use common::allowed;

/// Crates that build C or C++ (or wrap a native library), which the logic crates must not pull in.
const NATIVE: &[&str] = &[
    "llama-cpp-2",
    "llama-cpp-sys-2",
    "ort",
    "ort-sys",
    "fastembed",
    "usearch",
    "libsqlite3-sys",
    "rusqlite",
    "tokenizers",
    "onig_sys",
    "esaxx-rs",
    "ring",
    "aws-lc-sys",
    "openssl-sys",
    "cmake",
    "cc",
];

/// The logic crates: their normal dependency tree holds nothing of [`NATIVE`].
const PURE: &[&str] = &[
    "ragsift-core",
    "ragsift-policy",
    "ragsift-interfaces",
    "ragsift-judge",
    "ragsift-pipeline",
    "ragsift-eval",
];

fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The workspace's edges between its own crates: crate → the ragsift crates it depends on (normal kind).
fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let meta: serde_json::Value =
        serde_json::from_str(&cargo(&["metadata", "--format-version", "1", "--no-deps"])).unwrap();
    let packages = meta["packages"].as_array().unwrap();
    let ours: BTreeSet<&str> = packages.iter().map(|p| p["name"].as_str().unwrap()).collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].is_null() && ours.contains(d["name"].as_str().unwrap()))
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

/// Every edge the architecture does not allow, and every crate it does not know, as readable lines.
fn violations(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let allowed = allowed();
    let mut out = Vec::new();
    for (krate, deps) in edges {
        let Some(ok) = allowed.get(krate.as_str()) else {
            out.push(format!(
                "{krate} is not in the architecture (add it to allowed() and ARCHITECTURE.md)"
            ));
            continue;
        };
        for d in deps.iter().filter(|d| !ok.contains(&d.as_str())) {
            out.push(format!("{krate} → {d} is not allowed"));
        }
    }
    out
}

#[test]
fn every_edge_between_our_crates_is_one_the_architecture_allows() {
    let edges = edges();
    assert!(edges.len() >= 14, "{edges:?}");
    let found = violations(&edges);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_forbidden_edge_is_caught() {
    let mut edges = edges();
    edges
        .get_mut("ragsift-pipeline")
        .unwrap()
        .insert("ragsift-store".into());
    edges
        .get_mut("ragsift-interfaces")
        .unwrap()
        .insert("ragsift-models".into());
    // The CLI reaching around its one door.
    edges.get_mut("ragsift").unwrap().insert("ragsift-engine".into());
    edges.insert("ragsift-new".into(), BTreeSet::new());
    let found = violations(&edges);
    assert_eq!(
        found,
        [
            "ragsift → ragsift-engine is not allowed",
            "ragsift-interfaces → ragsift-models is not allowed",
            "ragsift-new is not in the architecture (add it to allowed() and ARCHITECTURE.md)",
            "ragsift-pipeline → ragsift-store is not allowed",
        ]
    );
}

#[test]
fn the_logic_crates_build_no_native_code() {
    for krate in PURE {
        let tree = cargo(&[
            "tree",
            "-p",
            krate,
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ]);
        let native: BTreeSet<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|name| NATIVE.contains(name))
            .collect();
        assert!(native.is_empty(), "{krate} builds native code through {native:?}");
    }
}

/// Every crate of the workspace opts in to the workspace's lints (`[lints] workspace = true`).
#[test]
fn every_crate_opts_in_to_the_workspace_lints() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut manifests: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("Cargo.toml"))
        .filter(|p| p.exists())
        .collect();
    manifests.extend(["src-tauri", "xtask"].iter().map(|d| root.join(d).join("Cargo.toml")));
    let missing: Vec<String> = manifests
        .iter()
        .filter(|p| {
            !std::fs::read_to_string(p)
                .unwrap()
                .contains("[lints]\nworkspace = true")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "crates without `[lints] workspace = true`: {missing:?}"
    );
}

/// The programs a user runs carry no test scaffolding: the `test-support` feature (clusters, fuzzers, synthetic
/// runs and corpora) is on only for tests and benchmarks.
#[test]
fn the_programs_carry_no_test_scaffolding() {
    for krate in ["ragsift", "ragsift-app"] {
        let tree = cargo(&[
            "tree",
            "-p",
            krate,
            "-e",
            "normal,features",
            "--prefix",
            "none",
            "--format",
            "{p} {f}",
        ]);
        let with: Vec<&str> = tree.lines().filter(|l| l.contains("test-support")).collect();
        assert!(with.is_empty(), "{krate} builds test scaffolding: {with:?}");
    }
}

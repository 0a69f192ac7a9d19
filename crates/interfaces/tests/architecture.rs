//! ARCHITECTURE.md stays true and short: at most 150 lines, every path it writes in backticks exists, and its
//! crate table's "may use" column is exactly the graph the layering test allows.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap()
}

/// Every piece of text between backticks.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// A backticked piece names a path when it holds a `/` and reads as one (no spaces, no URL, no placeholder).
fn is_path(piece: &str) -> bool {
    piece.contains('/')
        && piece.chars().any(char::is_alphanumeric)
        && !piece.contains(char::is_whitespace)
        && !piece.contains("://")
        && !piece.contains(['<', '*', '='])
}

/// The package a short name in the "may use" column stands for.
fn package(short: &str) -> String {
    match short {
        "cli" => "ragsift".into(),
        "xtask" => "xtask".into(),
        other => format!("ragsift-{other}"),
    }
}

/// The crate table: each package with the packages its "may use" cell lists.
fn table(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let name = cells[0].trim_matches('`').to_string();
        let uses: BTreeSet<String> = backticked(cells[2]).into_iter().map(package).collect();
        out.insert(name, uses);
    }
    out
}

#[test]
fn architecture_md_is_a_five_minute_read() {
    let lines = architecture().lines().count();
    assert!(
        lines <= 150,
        "ARCHITECTURE.md has {lines} lines; the map holds at most 150"
    );
}

#[test]
fn every_path_architecture_md_names_exists() {
    let text = architecture();
    let missing: Vec<&str> = backticked(&text)
        .into_iter()
        .filter(|p| is_path(p))
        .filter(|p| !root().join(p).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}

#[test]
fn the_may_use_column_is_the_layering_tests_graph() {
    let written = table(&architecture());
    let allowed: BTreeMap<String, BTreeSet<String>> = common::allowed()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_iter().map(str::to_string).collect()))
        .collect();
    assert_eq!(
        written, allowed,
        "ARCHITECTURE.md's crate table against layering.rs's allowed()"
    );
}

#[test]
fn the_checks_catch_what_they_are_for() {
    assert!(is_path("crates/core/src/lib.rs") && !is_path("a b/c") && !is_path("https://x/y"));
    let t = table("| `ragsift-a` | `crates/a/src/lib.rs` | `core`, `cli` | job |\n| `xtask` | `x` | — | j |");
    assert_eq!(
        t["ragsift-a"],
        BTreeSet::from(["ragsift-core".to_string(), "ragsift".to_string()])
    );
    assert!(t["xtask"].is_empty());
}

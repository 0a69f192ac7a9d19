//! The allowed crate graph, shared by the layering test and the ARCHITECTURE.md test.

use std::collections::BTreeMap;

/// Everything the workbench assembles: the logic crates and the heavy implementations.
const UNDER_WORKBENCH: &[&str] = &[
    "ragsift-core",
    "ragsift-interfaces",
    "ragsift-policy",
    "ragsift-ingest",
    "ragsift-models",
    "ragsift-store",
    "ragsift-library",
    "ragsift-judge",
    "ragsift-pipeline",
    "ragsift-eval",
];

/// Which ragsift crates each ragsift crate may depend on (normal dependencies; dev-dependencies are free). The
/// front ends (the CLI and the app) have one door, the workbench; the engine facade re-exports everything for
/// the benchmarks and the tests.
pub fn allowed() -> BTreeMap<&'static str, Vec<&'static str>> {
    let engine: Vec<&str> = UNDER_WORKBENCH.iter().copied().chain(["ragsift-workbench"]).collect();
    BTreeMap::from([
        ("ragsift-core", vec![]),
        ("ragsift-policy", vec![]),
        ("ragsift-interfaces", vec!["ragsift-core"]),
        ("ragsift-ingest", vec!["ragsift-core"]),
        ("ragsift-models", vec!["ragsift-core", "ragsift-interfaces"]),
        ("ragsift-store", vec!["ragsift-core", "ragsift-interfaces"]),
        (
            "ragsift-library",
            vec!["ragsift-core", "ragsift-interfaces", "ragsift-ingest", "ragsift-store"],
        ),
        (
            "ragsift-judge",
            vec!["ragsift-core", "ragsift-interfaces", "ragsift-policy"],
        ),
        (
            "ragsift-pipeline",
            vec!["ragsift-core", "ragsift-interfaces", "ragsift-policy", "ragsift-judge"],
        ),
        (
            "ragsift-eval",
            vec!["ragsift-core", "ragsift-interfaces", "ragsift-policy", "ragsift-judge"],
        ),
        ("ragsift-workbench", UNDER_WORKBENCH.to_vec()),
        ("ragsift-engine", engine),
        ("ragsift-serve", vec!["ragsift-workbench"]),
        ("ragsift", vec!["ragsift-workbench", "ragsift-serve"]),
        ("ragsift-bench", vec!["ragsift-engine"]),
        ("ragsift-app", vec!["ragsift-workbench"]),
        ("ragsift-test-support", vec![]),
        ("xtask", vec![]),
    ])
}

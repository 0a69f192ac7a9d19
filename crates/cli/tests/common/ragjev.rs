//! rag-jev 0.2.0 (the Python project `ragsift serve` implements) as scripts/setup.sh installs it for the tests: its
//! venv at `<data dir>/runtime/ragjev-venv` and tiktoken's cl100k_base in `<data dir>/runtime/tiktoken-cache` (the
//! data dir is `$RAGSIFT_DATA`, by default `~/.local/share/ragsift`).

use std::path::PathBuf;

/// tiktoken's cache name for cl100k_base: the sha1 of the URL it downloads it from (tiktoken/load.py).
pub const CL100K_CACHE_NAME: &str = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4";

/// Where rag-jev is installed.
pub struct Installed {
    /// The venv (`bin/python`, `bin/rag-jev`).
    pub venv: PathBuf,
    /// The directory to give rag-jev as `TIKTOKEN_CACHE_DIR`, so it never downloads cl100k_base.
    pub tiktoken_cache: PathBuf,
}

/// rag-jev's venv and tiktoken's cache; panics, naming scripts/setup.sh, when either is missing.
pub fn installed() -> Installed {
    let data = ragsift_engine::paths::data_dir().unwrap();
    let venv = data.join("runtime/ragjev-venv");
    let tiktoken_cache = data.join("runtime/tiktoken-cache");
    for file in [venv.join("bin/python"), venv.join("bin/rag-jev")] {
        assert!(
            file.is_file(),
            "rag-jev 0.2.0 is not installed ({} is missing): run scripts/setup.sh",
            file.display()
        );
    }
    assert!(
        tiktoken_cache.join(CL100K_CACHE_NAME).is_file(),
        "tiktoken's cl100k_base is not in {}: run scripts/setup.sh",
        tiktoken_cache.display()
    );
    Installed { venv, tiktoken_cache }
}

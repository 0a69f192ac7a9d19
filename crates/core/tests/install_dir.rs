//! Where an installed package's runtime, models and samples are found, and that a user's own copy wins: the install
//! dir is searched after the library home and the data dir. One test in its own binary, as it sets the process's
//! environment.

use ragsift_core::paths::{install_dir, model_folder, samples_dir, RuntimePaths};
use std::fs;
use std::path::Path;

fn model(root: &Path, id: &str) {
    fs::create_dir_all(root.join("models").join(id)).unwrap();
    fs::write(root.join("models").join(id).join("manifest.json"), "{}").unwrap();
}

#[test]
fn packaged_files_are_found_after_the_users_own() {
    let (install, data, home) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    std::env::set_var("RAGSIFT_INSTALL_DIR", install.path());
    std::env::set_var("RAGSIFT_DATA", data.path());
    for v in ["RAGSIFT_MODELS", "ORT_DYLIB_PATH", "RAGSIFT_SAMPLES"] {
        std::env::remove_var(v);
    }
    assert_eq!(install_dir().as_deref(), Some(install.path()));
    // Only the package has a runtime and the two models.
    fs::create_dir_all(install.path().join("runtime")).unwrap();
    fs::write(install.path().join("runtime/libonnxruntime.so"), b"").unwrap();
    model(install.path(), "all-minilm-l6-v2-int8");
    model(install.path(), "gemma-3-270m-q4_k_m");
    fs::create_dir_all(install.path().join("samples")).unwrap();
    let rt = RuntimePaths::discover(home.path()).unwrap();
    assert_eq!(rt.onnxruntime, install.path().join("runtime/libonnxruntime.so"));
    assert_eq!(
        rt.model_dir("all-minilm-l6-v2-int8").unwrap(),
        install.path().join("models/all-minilm-l6-v2-int8")
    );
    assert_eq!(
        model_folder(home.path(), "gemma-3-270m-q4_k_m").unwrap(),
        install.path().join("models/gemma-3-270m-q4_k_m")
    );
    assert_eq!(samples_dir().as_deref(), Some(install.path().join("samples").as_path()));

    // A user's own model in the data dir wins; the packaged embedding model is still found beside it.
    model(data.path(), "gemma-3-270m-q4_k_m");
    model(data.path(), "my-bigger-model");
    let rt = RuntimePaths::discover(home.path()).unwrap();
    assert_eq!(
        model_folder(home.path(), "gemma-3-270m-q4_k_m").unwrap(),
        data.path().join("models/gemma-3-270m-q4_k_m")
    );
    assert_eq!(
        rt.model_dir("my-bigger-model").unwrap(),
        data.path().join("models/my-bigger-model")
    );
    assert_eq!(
        rt.model_dir("all-minilm-l6-v2-int8").unwrap(),
        install.path().join("models/all-minilm-l6-v2-int8")
    );
    assert!(rt.model_dir("absent").is_err());
}

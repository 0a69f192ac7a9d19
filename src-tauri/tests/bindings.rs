//! The committed TypeScript bindings must be what the Rust commands generate; `RAGSIFT_UPDATE_BINDINGS=1`
//! rewrites them.

#[test]
fn committed_bindings_match_the_commands() {
    let committed = ragsift_app::bindings_path();
    if std::env::var_os("RAGSIFT_UPDATE_BINDINGS").is_some() {
        ragsift_app::export_bindings(&committed).unwrap();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("bindings.ts");
    ragsift_app::export_bindings(&fresh).unwrap();
    let want = std::fs::read_to_string(&fresh).unwrap();
    let have = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        want == have,
        "ui/src/bindings.ts is out of date with the Rust commands: run \
         `RAGSIFT_UPDATE_BINDINGS=1 cargo test -p ragsift-app --test bindings` and commit it"
    );
}

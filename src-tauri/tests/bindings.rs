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

/// The UI's walk of a threshold sweep (`ui/src/logic/replaySweep.test.ts`) is checked against Rust's replays at
/// each value, read from `ui/src/logic/fixtures/sweep.json`: a run, its sweep and its replay delta at every value.
/// Here the fixture's sweep and deltas must be what Rust makes from the fixture's run (`RAGSIFT_UPDATE_BINDINGS=1`
/// writes a new fixture).
#[test]
fn the_ui_sweep_fixture_is_what_rust_makes_of_its_run() {
    use ragsift_engine::pipeline::replay_delta::{ReplayDelta, ReplaySweep};
    use ragsift_engine::pipeline::synthetic::{judged_run, SyntheticRun};
    use ragsift_engine::pipeline::Trace;
    use serde_json::{json, Value};

    let path = ragsift_app::bindings_path().with_file_name("logic/fixtures/sweep.json");
    let update = std::env::var_os("RAGSIFT_UPDATE_BINDINGS").is_some();
    let trace: Trace = if update {
        let spec = SyntheticRun {
            relevant: vec![1, 4],
            ..SyntheticRun::default()
        };
        judged_run(24, &spec).unwrap()
    } else {
        let committed: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        serde_json::from_value(committed["trace"].clone()).unwrap()
    };
    let key = "is_relevant";
    let values: Vec<f64> = (0..=10).map(|i| f64::from(i) / 10.0).collect();
    let at = |v: f64| {
        let mut o = trace.policy.clone();
        o.thresholds.insert(key.into(), v);
        trace.replay(&o, None).unwrap()
    };
    let replays: Vec<_> = values.iter().map(|&v| at(v)).collect();
    let deltas: Vec<ReplayDelta> = (replays.iter().cloned())
        .map(|r| ReplayDelta::new(&trace, r).unwrap())
        .collect();
    let sweep = ReplaySweep::new(&trace, key, values, 4, replays).unwrap();
    let fixture = json!({"trace": trace, "sweep": sweep, "deltas": deltas});
    if update {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_string(&fixture).unwrap() + "\n").unwrap();
        return;
    }
    let committed: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert!(
        committed == fixture,
        "ui/src/logic/fixtures/sweep.json is out of date with Rust's sweep: run \
         `RAGSIFT_UPDATE_BINDINGS=1 cargo test -p ragsift-app --test bindings` and commit it"
    );
}

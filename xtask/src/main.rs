//! ragsift's task runner: `cargo xtask TASK [ARGS…]`. Each task names one of the project's commands, so the
//! README, `.ci/run` and a developer call the same thing. The work itself lives in `scripts/` (shell, because
//! setup must run before anything else is installed); this is the one list of them.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One task: its name, what it does, and how it runs.
struct Task {
    name: &'static str,
    about: &'static str,
    run: fn(&Path, &[String]) -> Result<(), String>,
}

const TASKS: &[Task] = &[
    Task {
        name: "setup",
        about: "install what ragsift needs: Debian packages, ONNX Runtime, the models, PostgreSQL (scripts/setup.sh)",
        run: |root, args| script(root, "scripts/setup.sh", args),
    },
    Task {
        name: "start",
        about: "set everything up, build, ingest the samples and open the app (scripts/quickstart.sh)",
        run: |root, args| script(root, "scripts/quickstart.sh", args),
    },
    Task {
        name: "test",
        about: "every test (scripts/test.sh); --fast: the fast tier alone, --heavy: the heavy tier alone",
        run: |root, args| script(root, "scripts/test.sh", args),
    },
    Task {
        name: "generated",
        about: "regenerate the UI's bindings from Rust and fail when the committed ones differ",
        run: generated,
    },
    Task {
        name: "bench",
        about: "ragsift-bench in a release build (arguments go to it; BENCHMARKS.md names the commands)",
        run: |root, args| {
            let mut cmd = cargo(root);
            cmd.args(["run", "--release", "-p", "ragsift-bench", "--"]).args(args);
            status(cmd)
        },
    },
    Task {
        name: "package",
        about: "the Debian package: build it (scripts/package.sh), or prove it on a clean system (--prove)",
        run: |root, args| match args.first().map(String::as_str) {
            Some("--prove") => script(root, "scripts/test-package.sh", &args[1..]),
            _ => script(root, "scripts/package.sh", args),
        },
    },
    Task {
        name: "ci",
        about: "what CI runs on a clean clone: setup, every test, and the package proof when its inputs changed",
        run: |root, args| script(root, ".ci/run", args),
    },
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ sits in the repository");
    let Some(name) = args.first() else {
        print!("{}", usage());
        return ExitCode::from(2);
    };
    if matches!(name.as_str(), "help" | "-h" | "--help") {
        print!("{}", usage());
        return ExitCode::SUCCESS;
    }
    let Some(task) = TASKS.iter().find(|t| t.name == name) else {
        eprint!("unknown task `{name}`\n\n{}", usage());
        return ExitCode::from(2);
    };
    match (task.run)(root, &args[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cargo xtask {name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The list of tasks, for `cargo xtask help`.
fn usage() -> String {
    let mut out = String::from("usage: cargo xtask TASK [ARGS…]\n\ntasks:\n");
    for t in TASKS {
        out.push_str(&format!("  {:<10} {}\n", t.name, t.about));
    }
    out
}

/// The cargo target dir the scripts and CI share (`$HOME/.cache/ragsift/target` unless set).
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/ragsift/target"),
        PathBuf::from,
    )
}

fn cargo(root: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root).env("CARGO_TARGET_DIR", target_dir());
    cmd
}

/// Runs `bash SCRIPT ARGS…` from the repository's root.
fn script(root: &Path, path: &str, args: &[String]) -> Result<(), String> {
    let mut cmd = Command::new("bash");
    cmd.current_dir(root)
        .env("CARGO_TARGET_DIR", target_dir())
        .arg(path)
        .args(args);
    status(cmd)
}

fn status(mut cmd: Command) -> Result<(), String> {
    let s = cmd.status().map_err(|e| format!("could not start {cmd:?}: {e}"))?;
    s.success().then_some(()).ok_or_else(|| format!("{s}"))
}

/// The files the bindings test writes: generated from Rust, committed, and never edited by hand.
const GENERATED: &[&str] = &["ui/src/bindings.ts"];

/// Regenerates the bindings (`RAGSIFT_UPDATE_BINDINGS=1`, the bindings test) and fails when git sees a change: the
/// committed bindings are what Rust makes. (The sweep fixture holds a run as data; the same test checks Rust's
/// sweep of it.)
fn generated(root: &Path, _args: &[String]) -> Result<(), String> {
    let mut cmd = cargo(root);
    // `--workspace`, as scripts/test.sh builds: the same features, so the same artifacts (`-p ragsift-app` alone
    // would unify features differently and rebuild llama.cpp).
    cmd.args(["test", "--workspace", "--test", "bindings", "--", "committed_bindings"])
        .env("RAGSIFT_UPDATE_BINDINGS", "1");
    status(cmd)?;
    let mut diff = Command::new("git");
    diff.current_dir(root)
        .args(["diff", "--exit-code", "--stat", "--"])
        .args(GENERATED);
    status(diff).map_err(|_| {
        format!(
            "{} differ from what Rust generates: commit the regenerated files",
            GENERATED.join(", ")
        )
    })
}

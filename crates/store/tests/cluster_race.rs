//! Throwaway PostgreSQL clusters started together from a fresh temp dir, as on a new machine: four at once in one
//! process (threads), and four at once from two processes. Under root each start needs the world-readable copy of
//! the server that the first start makes, so this is the race a warm temp dir hides.

use ragsift_store::pg::cluster::TestCluster;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};

/// Set in a child: how many clusters it starts at once.
const CHILD: &str = "RAGSIFT_CLUSTER_RACE_CHILD";

#[test]
fn four_clusters_start_at_once_from_a_fresh_temp_dir() {
    for per_process in [&[4][..], &[2, 2][..]] {
        let tmp = fresh_temp_dir();
        let children: Vec<_> = per_process
            .iter()
            .map(|n| {
                Command::new(std::env::current_exe().unwrap())
                    .args([
                        "clusters_in_a_child",
                        "--exact",
                        "--ignored",
                        "--nocapture",
                        "--test-threads=1",
                    ])
                    .env("TMPDIR", tmp.path())
                    .env(CHILD, n.to_string())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{per_process:?}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
        }
        let left: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("ragsift-"))
            .collect();
        if is_root() {
            // One finished copy; no staging folder and no cluster folder left behind.
            assert_eq!(left, ["ragsift-postgresql-16"], "{per_process:?}");
            assert!(tmp.path().join("ragsift-postgresql-16/complete").is_file());
        } else {
            assert!(left.is_empty(), "{left:?}");
        }
    }
}

/// The child's part: starts `$RAGSIFT_CLUSTER_RACE_CHILD` clusters at once and queries each.
#[test]
#[ignore = "run in a child process by four_clusters_start_at_once_from_a_fresh_temp_dir"]
fn clusters_in_a_child() {
    let n: usize = std::env::var(CHILD).expect("run by the parent test").parse().unwrap();
    let start = Arc::new(Barrier::new(n));
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                let cluster = TestCluster::start().unwrap();
                let name = format!("race{i}");
                cluster.create_database(&name).unwrap();
                cluster.psql(&name, "SELECT '[1,2]'::vector").unwrap()
            })
        })
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), "[1,2]");
    }
}

/// A new, empty temp dir that `nobody` may enter (as `/tmp`), under the current one.
fn fresh_temp_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new().prefix("race-tmp-").tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(Path::new(dir.path()).read_dir().unwrap().next().is_none());
    dir
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

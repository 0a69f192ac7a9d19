//! Concurrent settings saves, across processes: two processes save `settings.json` 1,000 times each while a third
//! reads it; no save fails and no read sees a torn file. The processes are this test binary started again with a
//! role (`RAGSIFT_RACE_ROLE`), each running only this test.

use ragsift_workbench::Settings;
use std::path::Path;
use std::process::Command;

const SAVES: usize = 1000;

/// Runs this process's role when it was started as one; returns whether it was.
fn role(home: &Path) -> bool {
    match std::env::var("RAGSIFT_RACE_ROLE").as_deref() {
        Ok("saver") => {
            let mut failed = 0;
            for i in 0..SAVES {
                let mut s = Settings::default();
                s.library.top_k = 5 + i % 20;
                if let Err(e) = s.save(home) {
                    eprintln!("save {i}: {e}");
                    failed += 1;
                }
            }
            println!("failed saves: {failed}");
            true
        }
        Ok("reader") => {
            let (mut reads, mut torn) = (0, 0);
            let stop = home.join("stop");
            while !stop.exists() {
                match Settings::load(home) {
                    Ok(s) if (5..25).contains(&s.library.top_k) => {}
                    Ok(s) => {
                        eprintln!("read top_k {}", s.library.top_k);
                        torn += 1;
                    }
                    Err(e) => {
                        eprintln!("read: {e}");
                        torn += 1;
                    }
                }
                reads += 1;
            }
            println!("reads: {reads} torn: {torn}");
            true
        }
        _ => false,
    }
}

fn started(role: &str, home: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "two_processes_save_while_a_third_reads",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RAGSIFT_RACE_ROLE", role)
        .env("RAGSIFT_RACE_HOME", home)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// The number after `label` in a role's output.
fn count(out: &str, label: &str) -> usize {
    out.lines()
        .find_map(|l| l.split(label).nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no '{label}' in: {out}"))
}

#[test]
fn two_processes_save_while_a_third_reads() {
    if let Ok(home) = std::env::var("RAGSIFT_RACE_HOME") {
        assert!(role(Path::new(&home)));
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let mut first = Settings::default();
    first.library.top_k = 5;
    first.save(home).unwrap();
    let reader = started("reader", home);
    let savers = [started("saver", home), started("saver", home)];
    for saver in savers {
        let out = saver.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert_eq!(count(&text, "failed saves:"), 0, "{text}");
    }
    std::fs::write(home.join("stop"), "").unwrap();
    let out = reader.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(count(&text, "reads:") > 100, "the reader read while they saved: {text}");
    assert_eq!(count(&text, "torn:"), 0, "{text}");
    // No temp file is left behind.
    let left: Vec<String> = std::fs::read_dir(home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

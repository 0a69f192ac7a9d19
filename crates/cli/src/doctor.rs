//! `ragsift doctor`: the workbench's checks (runtime, models, library consistency), printed.

use crate::{print_json, term};
use ragsift_workbench::doctor;
use ragsift_workbench::Error;
use std::path::Path;
use std::process::ExitCode;

pub fn run(home: &Path, json: bool) -> Result<ExitCode, Error> {
    let report = doctor(home);
    if json {
        print_json(&report);
    } else {
        for c in &report.checks {
            let state = if c.ok { "ok  " } else { "FAIL" };
            println!("{state} {:<16} {}", c.name.as_str(), term::plain(&c.detail));
        }
    }
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

//! What workers cost: the same files extracted in this process and in a reused worker, alternated per round, wall
//! time of each (median over rounds). `ragsift-bench worker` and the `worker_overhead` example report it.

use super::{extract_isolated, set_enabled};
use crate::extract::Limits;
use crate::Result;
use std::path::PathBuf;
use std::time::Instant;

/// Median seconds to extract `files` in this process and in a worker, and the pages read.
#[derive(Debug, Clone, Copy)]
pub struct Overhead {
    pub in_process: f64,
    pub in_worker: f64,
    pub pages: usize,
}

/// Extracts `files` both ways `rounds` times (worker first or second in turn). Needs [`super::install`].
pub fn measure(files: &[PathBuf], rounds: usize, limits: Limits) -> Result<Overhead> {
    let pass = |isolated: bool| -> Result<(f64, usize)> {
        set_enabled(isolated);
        let t = Instant::now();
        let mut pages = 0;
        for f in files {
            pages += extract_isolated(f, limits, None, &|_, _| {})?.pages.len();
        }
        Ok((t.elapsed().as_secs_f64(), pages))
    };
    let (mut here, mut there, mut pages) = (Vec::new(), Vec::new(), 0);
    for round in 0..rounds.max(1) {
        let order = if round % 2 == 0 { [false, true] } else { [true, false] };
        for isolated in order {
            let (s, p) = pass(isolated)?;
            pages = p;
            if isolated {
                there.push(s);
            } else {
                here.push(s);
            }
        }
    }
    set_enabled(true);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok(Overhead {
        in_process: median(here),
        in_worker: median(there),
        pages,
    })
}

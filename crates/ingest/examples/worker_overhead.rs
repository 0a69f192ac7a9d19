//! Extraction in a reused worker process against extraction in this process, on the generated corpus of the
//! 1,000-document benchmark, built without the models (fast to build in release): `cargo run --release -p
//! ragsift-ingest --example worker_overhead -- [DOCS] [ROUNDS]`. `ragsift-bench worker` reports the same.

use ragsift_ingest::extract::Limits;
use ragsift_ingest::{corpus, worker};
use std::time::Duration;

fn main() {
    if let Some(code) = worker::serve_if_asked() {
        std::process::exit(code);
    }
    let mut args = std::env::args().skip(1);
    let docs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3);
    worker::install_current_exe();
    let tmp = tempfile::tempdir().expect("temp dir");
    let files: Vec<_> = (0..docs)
        .map(|i| corpus::write_doc(tmp.path(), i).expect("corpus"))
        .collect();
    let limits = Limits {
        max_file_mb: 200,
        timeout: Duration::from_secs(120),
    };
    let o = worker::overhead::measure(&files, rounds, limits).expect("extraction");
    println!(
        "{docs} files, {} pages, {rounds} rounds: in process {:.2} s, in a worker {:.2} s, overhead {:+.1}%",
        o.pages,
        o.in_process,
        o.in_worker,
        (o.in_worker / o.in_process - 1.0) * 100.0
    );
}

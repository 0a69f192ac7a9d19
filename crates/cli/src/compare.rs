//! `ragsift compare`: two configurations side by side.

use ragsift_engine::Error;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CompareArgs {}

pub fn run(_home: &Path, _args: CompareArgs) -> Result<ExitCode, Error> {
    Err(Error::Invalid("compare: not built yet".into()))
}

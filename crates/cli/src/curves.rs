//! `ragsift curves`: operating curves.

use ragsift_engine::Error;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CurvesArgs {}

pub fn run(_home: &Path, _args: CurvesArgs) -> Result<ExitCode, Error> {
    Err(Error::Invalid("curves: not built yet".into()))
}

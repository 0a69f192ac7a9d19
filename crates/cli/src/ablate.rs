//! `ragsift ablate`: variant ablation.

use ragsift_engine::Error;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct AblateArgs {}

pub fn run(_home: &Path, _args: AblateArgs) -> Result<ExitCode, Error> {
    Err(Error::Invalid("ablate: not built yet".into()))
}

//! `ragsift label` and `ragsift labels`: evidence labels kept as spans.

use ragsift_engine::Error;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct LabelArgs {}

#[derive(clap::Subcommand)]
pub enum LabelsAction {}

pub fn run(_home: &Path, _args: LabelArgs) -> Result<ExitCode, Error> {
    Err(Error::Invalid("label: not built yet".into()))
}

pub fn labels(_home: &Path, action: LabelsAction) -> Result<ExitCode, Error> {
    match action {}
}

//! `ragsift ablate`: variant ablation — per query variant of a stored run, the candidates and the labelled
//! evidence it alone found, and the tokens it cost, from the run's cached hits and judgments.

use crate::print_json;
use ragsift_workbench::Error;
use ragsift_workbench::Workbench;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct AblateArgs {
    /// The run (id or unique prefix, see `ragsift runs list`).
    run_id: String,
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Path, args: AblateArgs) -> Result<ExitCode, Error> {
    let ablation = Workbench::open(Some(home))?.ablate(&args.run_id)?;
    if args.json {
        print_json(&ablation);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "run {}: {} ({} candidates)",
        ablation.run_id, ablation.query, ablation.candidates
    );
    println!(
        "{:>3} {:>6} {:>6} {:>8} {:>8} {:>8} {:>11} {:>12}  query",
        "#", "found", "alone", "evidence", "alone", "tokens", "alone tok.", "context tok."
    );
    for v in &ablation.variants {
        let count = |n: Option<usize>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
        println!(
            "{:>3} {:>6} {:>6} {:>8} {:>8} {:>8} {:>11} {:>12}  {}",
            v.variant,
            v.candidates,
            v.unique_ids.len(),
            count(v.relevant_found),
            count(v.unique_relevant_ids.as_ref().map(Vec::len)),
            v.tokens,
            v.unique_tokens,
            v.unique_selected_tokens,
            v.query
        );
    }
    if !ablation.labelled {
        println!("(no relevance labels on this run: evidence columns are empty; label it with `ragsift label`)");
    }
    Ok(ExitCode::SUCCESS)
}

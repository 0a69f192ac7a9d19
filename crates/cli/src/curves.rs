//! `ragsift curves`: operating curves — evidence recall, precision and context tokens per policy mode as one
//! parameter (a threshold, `min_relevance`, top-N, the token budget) sweeps, from cached judgments only: rag-jev
//! cases with their saved traces, or stored runs with relevance labels (`--run`).

use crate::print_json;
use ragsift_workbench::eval::curves::Curve;
use ragsift_workbench::tuning::curves_over_cases;
use ragsift_workbench::Error;
use ragsift_workbench::Workbench;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CurvesArgs {
    /// rag-jev eval cases (JSON), with their saved traces in --from-traces.
    cases: Option<PathBuf>,
    /// Saved rag-jev traces of CASES (no judge call).
    #[arg(long = "from-traces", alias = "replay", value_name = "TRACES.json")]
    from_traces: Option<PathBuf>,
    /// Stored runs with relevance labels instead of cases (repeatable); the first run's policy is the base.
    #[arg(long = "run", value_name = "RUN_ID", conflicts_with_all = ["cases", "from_traces"])]
    runs: Vec<String>,
    /// The filter modes' threshold while another parameter sweeps (cases only; default 0.5, as eval's).
    #[arg(long)]
    min_relevance: Option<f64>,
    /// The passage cap while another parameter sweeps (cases only).
    #[arg(long)]
    top_n: Option<usize>,
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Path, args: CurvesArgs) -> Result<ExitCode, Error> {
    let curves: Vec<Curve> = match (&args.cases, &args.from_traces) {
        (Some(cases), Some(traces)) => curves_over_cases(cases, traces, args.min_relevance, args.top_n)?,
        (Some(_), None) => {
            return Err(Error::Invalid(
                "curves sweeps cached judgments only: give the cases' saved traces with --from-traces TRACES \
                 (ragsift eval CASES --save-traces TRACES writes them)"
                    .into(),
            ))
        }
        _ if !args.runs.is_empty() => Workbench::open(Some(home))?.run_curves(&args.runs)?,
        _ => {
            return Err(Error::Invalid(
                "give CASES --from-traces TRACES, or --run RUN_ID".into(),
            ))
        }
    };
    if args.json {
        print_json(&crate::out::Curves { curves: &curves });
        return Ok(ExitCode::SUCCESS);
    }
    let f = |x: Option<f64>| x.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
    for c in &curves {
        println!("{} × {}", c.mode.name(), c.parameter);
        println!(
            "  {:>10} {:>9} {:>9} {:>9} {:>8}",
            "value", "recall", "precision", "tokens", "passages"
        );
        for (i, p) in c.points.iter().enumerate() {
            let mark = if c.current == Some(i) { "*" } else { " " };
            println!(
                "{mark} {:>10} {:>9} {:>9} {:>9.1} {:>8.2}",
                format!("{}", p.value),
                f(p.evidence_recall),
                f(p.precision),
                p.context_tokens,
                p.documents
            );
        }
        println!();
    }
    println!("* the settings in force");
    Ok(ExitCode::SUCCESS)
}

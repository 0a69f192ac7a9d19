//! `ragsift eval`: rag-jev's evaluation — cases scored live (Jev or the local judge) or replayed from saved
//! traces, metrics per policy, and an optional threshold sweep as JSON and CSV.

use crate::chat::ModelArgs;
use crate::{print_json, write_json};
use ragsift_workbench::eval;
use ragsift_workbench::Error;
use ragsift_workbench::{EvalRequest, EvalView, JudgeKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct EvalArgs {
    /// rag-jev eval cases (JSON).
    cases: PathBuf,
    /// Saved rag-jev traces to replay instead of scoring (no judge call).
    #[arg(long = "from-traces", alias = "replay", value_name = "TRACES.json")]
    from_traces: Option<PathBuf>,
    /// Cases without `documents` retrieve their candidates from the library (top-k chunks); their
    /// `relevant_ids` may name chunk ids or document file names.
    #[arg(long)]
    from_library: bool,
    /// Candidates per case from the library (default 10, as in the app).
    #[arg(long)]
    top_k: Option<u32>,
    /// Write the cases as evaluated (with retrieved documents) here, to --from-traces their traces later.
    #[arg(long, value_name = "FILE")]
    save_cases: Option<PathBuf>,
    /// When scoring live: local, jev (a key in the home or TYPESAFE_API_KEY), or auto (the default: Jev with a
    /// key, else local, as answers choose).
    #[arg(long)]
    judge: Option<JudgeKind>,
    /// How Jev scores live: independent (rag-jev's request, one per passage) or contextual (one per case).
    #[arg(long, value_parser = parse_scoring)]
    scoring: Option<eval::ScoringStrategy>,
    /// The filter policies' relevance floor (default 0.5, as in the app).
    #[arg(long)]
    min_relevance: Option<f64>,
    #[arg(long)]
    top_n: Option<u32>,
    /// Add a threshold sweep (precision and recall per threshold).
    #[arg(long)]
    sweep: bool,
    /// Write the live traces here (rag-jev format) for later --from-traces.
    #[arg(long, value_name = "FILE")]
    save_traces: Option<PathBuf>,
    /// Write the report JSON here.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write the sweep as CSV here.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Path, args: EvalArgs) -> Result<ExitCode, Error> {
    let defaults = EvalRequest::default();
    let request = EvalRequest {
        cases_path: args.cases.display().to_string(),
        traces_path: args.from_traces.as_ref().map(|p| p.display().to_string()),
        from_library: args.from_library,
        top_k: args.top_k.unwrap_or(defaults.top_k),
        judge: args.judge.unwrap_or(defaults.judge),
        scoring: args.scoring.unwrap_or(defaults.scoring),
        min_relevance: args.min_relevance.unwrap_or(defaults.min_relevance),
        top_n: args.top_n,
    };
    let wb = args.model.workbench(home)?;
    if request.traces_path.is_none() {
        // Load the model with its progress bar before scoring (the workbench keeps it).
        args.model.open(&wb)?;
    }
    let evaluation = wb.evaluation(&request, "eval")?;
    if let Some(path) = &args.save_cases {
        write_json(path, &evaluation.cases)?;
    }
    if let Some(path) = &args.save_traces {
        write(path, &eval::traces_json(&evaluation.traces)?)?;
    }
    let EvalView { mut report, sweep } = evaluation.view;
    if args.sweep || args.csv.is_some() {
        if let Some(path) = &args.csv {
            write(path, &sweep.to_csv())?;
        }
        report.sweep = Some(sweep);
    }
    if let Some(path) = &args.output {
        write_json(path, &report)?;
    }
    if args.json {
        print_json(&report);
    } else {
        println!(
            "{:<18} {:>9} {:>9} {:>7} {:>9} {:>10}",
            "policy", "precision", "recall", "nDCG", "empty ok", "characters"
        );
        let s = &report.summary;
        let rows = [
            ("baseline", &s.baseline),
            ("filter", &s.filter),
            ("rerank", &s.rerank),
            ("filter_and_rerank", &s.filter_and_rerank),
            ("fusion", &s.fusion),
        ];
        let f = |x: Option<f64>| x.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
        for (p, s) in rows {
            println!(
                "{p:<18} {:>9} {:>9} {:>7} {:>9} {:>10}",
                f(s.precision),
                f(s.evidence_recall),
                f(s.ndcg),
                f(s.correctly_empty),
                s.characters.map(|x| format!("{x:.0}")).unwrap_or_default()
            );
        }
        if let Some(sweep) = &report.sweep {
            println!("\n{}", sweep.to_csv());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_scoring(s: &str) -> Result<eval::ScoringStrategy, String> {
    match s {
        "independent" => Ok(eval::ScoringStrategy::Independent),
        "contextual" => Ok(eval::ScoringStrategy::Contextual),
        other => Err(format!("unknown scoring '{other}' (independent or contextual)")),
    }
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    ragsift_workbench::fsx::write_atomic(path, text.as_bytes(), ragsift_workbench::fsx::Access::Shared)
}

//! `ragsift eval`: rag-jev's evaluation — cases scored live (Jev or the local judge) or replayed from saved
//! traces, metrics per policy, and an optional threshold sweep as JSON and CSV.

use crate::chat::ModelArgs;
use crate::print_json;
use ragsift_engine::eval::{self, EvalOptions};
use ragsift_engine::workbench::JudgeKind;
use ragsift_engine::{CancelToken, Error, LibraryRetriever};
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
    #[arg(long, default_value_t = 8)]
    top_k: usize,
    /// Write the cases as evaluated (with retrieved documents) here, to --from-traces their traces later.
    #[arg(long, value_name = "FILE")]
    save_cases: Option<PathBuf>,
    /// When scoring live: local, jev (a key in the home or TYPESAFE_API_KEY), or auto (Jev with a key).
    #[arg(long, default_value = "local")]
    judge: JudgeKind,
    /// How Jev scores live: independent (rag-jev's request, one per passage) or contextual (one per case).
    #[arg(long, default_value = "independent", value_parser = parse_scoring)]
    scoring: eval::ScoringStrategy,
    #[arg(long, default_value_t = 0.0)]
    min_relevance: f64,
    #[arg(long)]
    top_n: Option<usize>,
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

fn invalid(e: impl std::fmt::Display) -> Error {
    Error::Invalid(e.to_string())
}

pub fn run(home: &Path, args: EvalArgs) -> Result<ExitCode, Error> {
    let cases = if args.from_library {
        let lib = crate::open_library(home)?;
        let embedder = crate::load_query_embedder(home, lib.settings())?;
        let retriever = LibraryRetriever {
            library: &lib,
            embedder: embedder.as_ref(),
        };
        eval::library::load_cases_from_library(&args.cases, &retriever, args.top_k).map_err(invalid)?
    } else {
        eval::load_cases(&args.cases).map_err(invalid)?
    };
    if let Some(path) = &args.save_cases {
        write(path, &serde_json::to_string_pretty(&cases).map_err(invalid)?)?;
    }
    let traces = match &args.from_traces {
        Some(path) => eval::load_traces(path).map_err(invalid)?,
        None => score(home, &args, &cases)?,
    };
    if let Some(path) = &args.save_traces {
        write(path, &eval::traces_json(&traces).map_err(invalid)?)?;
    }
    let options = EvalOptions {
        min_relevance: args.min_relevance,
        top_n: args.top_n,
    };
    let mut report = eval::evaluate(&cases, &traces, &options).map_err(invalid)?;
    if args.sweep || args.csv.is_some() {
        let sweep = eval::sweep(&cases, &traces, &options, &eval::threshold_grid(eval::SWEEP_STEP)).map_err(invalid)?;
        if let Some(path) = &args.csv {
            write(path, &sweep.to_csv())?;
        }
        report.sweep = Some(sweep);
    }
    let value = serde_json::to_value(&report).map_err(invalid)?;
    if let Some(path) = &args.output {
        write(path, &serde_json::to_string_pretty(&value).map_err(invalid)?)?;
    }
    if args.json {
        print_json(&value);
    } else {
        println!(
            "{:<18} {:>9} {:>9} {:>7} {:>9} {:>10}",
            "policy", "precision", "recall", "nDCG", "empty ok", "characters"
        );
        for p in ["baseline", "filter", "rerank", "filter_and_rerank", "fusion"] {
            let s = &value["summary"][p];
            let f = |k: &str| s[k].as_f64().map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
            println!(
                "{p:<18} {:>9} {:>9} {:>7} {:>9} {:>10}",
                f("precision"),
                f("evidence_recall"),
                f("ndcg"),
                f("correctly_empty"),
                s["characters"].as_f64().map(|x| format!("{x:.0}")).unwrap_or_default()
            );
        }
        if let Some(sweep) = &report.sweep {
            println!("\n{}", sweep.to_csv());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Scores every case's documents with the usefulness question, as rag-jev's traces, with the judge the
/// workbench builds (the same choice as for answers).
fn score(home: &Path, args: &EvalArgs, cases: &[eval::EvalCase]) -> Result<Vec<eval::RagJevTrace>, Error> {
    let wb = args.model.workbench(home)?;
    let (model, embedder, lib) = (args.model.open(&wb)?, wb.embedder()?, wb.library());
    let judge = wb
        .build_judge(
            args.judge,
            args.scoring.jev_request(),
            embedder.as_ref(),
            model.as_ref(),
            lib.store(),
        )?
        .ok_or_else(|| Error::Invalid("scoring cases live needs a judge: --judge local or jev".into()))?;
    eval::live::score_cases(judge.as_ref(), cases, &CancelToken::new(), &mut |_, _| {})
}

fn parse_scoring(s: &str) -> Result<eval::ScoringStrategy, String> {
    match s {
        "independent" => Ok(eval::ScoringStrategy::Independent),
        "contextual" => Ok(eval::ScoringStrategy::Contextual),
        other => Err(format!("unknown scoring '{other}' (independent or contextual)")),
    }
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    ragsift_engine::fsx::write_atomic(path, text.as_bytes(), ragsift_engine::fsx::Access::Shared)
}

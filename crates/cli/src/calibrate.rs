//! `ragsift calibrate DEV HELDOUT`: rag-jev's policy calibration with a frozen choice — a policy chosen on
//! development cases, written to the frozen file, and only then assessed (and, live, scored) on held-out cases.
//!
//! Without the two positionals it fits the judge's probabilities instead (`ragsift fit-judge`, the name of its own;
//! `calibrate --judge` stays as the old spelling): `--judge local|jev` over the
//! library's labelled runs (the fits stored in the home), or `--cases C.json --from-traces T.json` over rag-jev's files
//! (offline, nothing stored); per question `{n, auc, brier_raw, brier_calibrated, method, bins, bins_calibrated,
//! note}`.

use crate::chat::ModelArgs;
use crate::print_json;
use ragsift_workbench::calibration::{self, CalibrateRequest};
use ragsift_workbench::eval::calibrate::{CalibrateOptions, Calibration, Split};
use ragsift_workbench::eval::{self, ScoringStrategy};
use ragsift_workbench::judge_calibration::{self, JudgeCalibrationReport};
use ragsift_workbench::Error;
use ragsift_workbench::JudgeKind;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CalibrateArgs {
    /// Development cases (rag-jev eval cases, JSON): the policy is chosen on these. Without it (and HELDOUT),
    /// the judge is calibrated from labels instead.
    development: Option<PathBuf>,
    /// Held-out cases: assessed only after the choice is frozen; no question or family shared with development.
    evaluation: Option<PathBuf>,
    /// The held-out report (JSON); never overwritten, nor are the files named after it. Required with DEV HELDOUT.
    #[arg(long, value_name = "REPORT.json")]
    output: Option<PathBuf>,
    /// Judge calibration from rag-jev eval cases (with `relevant_ids`) and their saved traces (`--from-traces`).
    #[arg(long, value_name = "CASES.json", conflicts_with_all = ["development", "evaluation", "output"])]
    cases: Option<PathBuf>,
    /// The frozen choice (default: rag-jev's <REPORT>.frozen.json); never overwritten.
    #[arg(long, value_name = "POLICY.json")]
    frozen: Option<PathBuf>,
    /// Saved rag-jev traces covering both splits: no judge call at all.
    #[arg(long = "from-traces", alias = "replay", value_name = "TRACES.json")]
    from_traces: Option<PathBuf>,
    /// When scoring live: jev (a key in the home or TYPESAFE_API_KEY), local, or auto (Jev with a key).
    #[arg(long, default_value = "jev")]
    judge: JudgeKind,
    /// How the traces are scored: contextual (one Jev request per case, rag-jev's default here) or independent.
    #[arg(long, alias = "scoring", default_value = "contextual", value_parser = parse_scoring)]
    scoring_strategy: ScoringStrategy,
    /// Relevance cutoffs of the filter and filter_and_rerank candidates.
    #[arg(long, num_args = 1.., default_values_t = [0.2, 0.35, 0.5])]
    cutoffs: Vec<f64>,
    /// Top-N of the rerank candidates.
    #[arg(long, num_args = 1.., default_values_t = [3, 5, 8])]
    top_ns: Vec<usize>,
    /// A token budget (cl100k_base) shared by every candidate.
    #[arg(long, value_name = "N")]
    max_context_tokens: Option<u32>,
    /// The development evidence recall a policy must reach to be chosen.
    #[arg(long, default_value_t = 0.98)]
    min_recall: f64,
    #[command(flatten)]
    model: ModelArgs,
    /// Print rag-jev's summary JSON instead of the tables.
    #[arg(long)]
    json: bool,
}

fn parse_scoring(s: &str) -> Result<ScoringStrategy, String> {
    match s {
        "independent" => Ok(ScoringStrategy::Independent),
        "contextual" => Ok(ScoringStrategy::Contextual),
        other => Err(format!(
            "unknown scoring strategy '{other}' (independent or contextual)"
        )),
    }
}

pub fn run(home: &Path, args: CalibrateArgs) -> Result<ExitCode, Error> {
    let (development, evaluation) = match (&args.development, &args.evaluation) {
        (Some(d), Some(e)) => (d.clone(), e.clone()),
        (Some(_), None) => {
            return Err(Error::Invalid(
                "calibrate DEV HELDOUT needs the held-out cases too".into(),
            ))
        }
        _ => {
            return run_fit_judge(
                home,
                FitJudgeArgs {
                    cases: args.cases,
                    from_traces: args.from_traces,
                    judge: args.judge,
                    model: args.model,
                    json: args.json,
                },
            )
        }
    };
    let report = (args.output.clone())
        .ok_or_else(|| Error::Invalid("calibrate DEV HELDOUT needs --output REPORT.json".into()))?;
    let request = CalibrateRequest {
        development,
        evaluation,
        report,
        frozen: args.frozen.clone(),
        traces_path: args.from_traces.clone(),
        judge: args.judge,
        options: CalibrateOptions {
            scoring_strategy: args.scoring_strategy,
            cutoffs: args.cutoffs.clone(),
            top_ns: args.top_ns.clone(),
            max_context_tokens: args.max_context_tokens,
            min_recall: args.min_recall,
        },
    };
    // Replaying needs neither the library nor a judge.
    let out = if request.traces_path.is_some() {
        calibration::from_traces(&request)?
    } else {
        live(home, &args, &request)?
    };
    if args.json {
        print_json(&summary(&out));
    } else {
        print_tables(&out);
    }
    Ok(ExitCode::SUCCESS)
}

/// Judge calibration: over rag-jev files with `--cases`, else over the library's labelled runs of `--judge`.
/// `ragsift fit-judge`: fits a judge's probabilities to labels (what `calibrate` without DEV HELDOUT does).
#[derive(clap::Args)]
pub struct FitJudgeArgs {
    /// rag-jev eval cases (with `relevant_ids`) whose saved traces (`--from-traces`) are fitted, offline; without
    /// it, the library's labelled runs of `--judge` (the fits are stored in the home).
    #[arg(long, value_name = "CASES.json")]
    cases: Option<PathBuf>,
    /// The saved rag-jev traces of `--cases`.
    #[arg(long = "from-traces", alias = "replay", value_name = "TRACES.json")]
    from_traces: Option<PathBuf>,
    /// Whose labelled runs are fitted: jev, local, ollama, openai, …
    #[arg(long, default_value = "jev")]
    judge: JudgeKind,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the report as JSON instead of the tables.
    #[arg(long)]
    json: bool,
}

/// `ragsift fit-judge`, and `calibrate` without DEV HELDOUT.
pub fn run_fit_judge(home: &Path, args: FitJudgeArgs) -> Result<ExitCode, Error> {
    let report = match &args.cases {
        Some(cases) => {
            let traces = (args.from_traces.as_deref())
                .ok_or_else(|| Error::Invalid("--cases needs the saved traces: --from-traces TRACES.json".into()))?;
            let cases = eval::load_cases(cases)?;
            let traces = eval::load_traces(traces)?;
            judge_calibration::from_rag_jev(&cases, &traces)?
        }
        None => {
            if args.from_traces.is_some() {
                return Err(Error::Invalid(
                    "--from-traces without DEV HELDOUT needs --cases CASES.json".into(),
                ));
            }
            args.model.workbench(home)?.calibrate_judge(args.judge)?
        }
    };
    if args.json {
        print_json(&report);
    } else {
        print_judge_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_judge_report(report: &JudgeCalibrationReport) {
    println!(
        "{} runs read, {} with relevance labels of this judge",
        report.runs_read, report.runs_labelled
    );
    if report.judges.is_empty() {
        println!("Nothing to calibrate: label runs (relevant ids) first.");
    }
    for j in &report.judges {
        println!(
            "\n{} {} (prompt {}), {} labelled runs",
            j.judge, j.model, j.prompt_version, j.runs
        );
        println!(
            "  {:<26} {:>5} {:>6} {:>10} {:>10}  {:<8}",
            "question", "n", "AUC", "Brier raw", "calibrated", "method"
        );
        for (q, c) in &j.questions {
            println!(
                "  {q:<26} {:>5} {:>6} {:>10} {:>10}  {:<8}",
                c.n,
                number(c.auc, 3),
                number(c.brier_raw, 4),
                number(c.brier_calibrated, 4),
                c.method.name()
            );
            if let Some(note) = &c.note {
                println!("    {note}");
            }
            for b in &c.bins {
                println!(
                    "    predicted {:.2} → observed {:.2} (n = {})",
                    b.p_mean, b.frac_positive, b.n
                );
            }
        }
    }
    if let Some(path) = &report.stored {
        println!("\nfits stored: {path}");
    }
}

/// Scores live through the workbench (the judge it builds), with progress on stderr; Ctrl-C cancels between cases.
fn live(home: &Path, args: &CalibrateArgs, request: &CalibrateRequest) -> Result<Calibration, Error> {
    let wb = args.model.workbench(home)?;
    let job = "cli-calibrate";
    let w = wb.clone();
    let _ = ctrlc::set_handler(move || {
        w.jobs.cancel(job);
    });
    let terminal = std::io::stderr().is_terminal();
    let mut progress = |split: Split, done: usize, total: usize| {
        if terminal {
            eprint!("\rscoring {} cases: {done}/{total}", split.name());
            if done == total {
                eprintln!();
            }
        } else {
            eprintln!("scoring {} cases: {done}/{total}", split.name());
        }
    };
    wb.calibrate(request, job, &mut progress)
}

/// rag-jev's closing JSON (`report`, `frozen`, `policy`, `eligible`, `answer_quality`), plus the frozen policy
/// and its held-out context-token difference.
#[derive(serde::Serialize)]
struct Summary<'a> {
    report: String,
    frozen: String,
    policy: Option<String>,
    traces: Option<String>,
    eligible: bool,
    /// Always `not_evaluated`: calibration measures selection, not answers.
    answer_quality: &'static str,
    frozen_policy: &'a Option<eval::calibrate::Policy>,
    frozen_policy_version: &'a Option<String>,
    context_token_difference: &'a Option<eval::calibrate::PairedInterval>,
}

fn summary(out: &Calibration) -> Summary<'_> {
    let a = &out.artifacts;
    Summary {
        report: a.report.display().to_string(),
        frozen: a.frozen.display().to_string(),
        policy: out.policy_written.then(|| a.policy.display().to_string()),
        traces: out.traces_written.then(|| a.traces.display().to_string()),
        eligible: out.frozen.eligible,
        answer_quality: "not_evaluated",
        frozen_policy: &out.frozen.policy,
        frozen_policy_version: &out.frozen.policy_version,
        context_token_difference: &out.report.context_token_difference,
    }
}

fn number(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.digits$}"))
}

fn print_tables(out: &Calibration) {
    let r = &out.report;
    println!(
        "Development ({} questions): the fewest tokens among candidates with evidence recall ≥ {} is frozen",
        r.development_questions, r.minimum_development_recall
    );
    println!("  {:<36} {:>7} {:>9} {:>7}", "policy", "recall", "tokens", "nDCG");
    for (_, row) in &r.development.0 {
        let s = &row.summary;
        let mark = if row.chosen {
            "  <- frozen"
        } else if row.eligible {
            ""
        } else {
            "  (recall too low)"
        };
        println!(
            "  {:<36} {:>7} {:>9} {:>7}{mark}",
            row.policy.label(),
            number(s.evidence_recall, 3),
            number(s.context_tokens, 1),
            number(s.ndcg, 3)
        );
    }
    match (&r.frozen_policy, &r.frozen_policy_held_out) {
        (Some(policy), Some(held)) => {
            println!(
                "\nHeld out ({} questions), frozen policy {}:",
                r.evaluation_questions,
                policy.label()
            );
            println!(
                "  {:<10} {:>7} {:>9} {:>7} {:>10}",
                "", "recall", "tokens", "nDCG", "precision"
            );
            for (name, s) in [("baseline", &r.baseline.summary), ("frozen", &held.assessment.summary)] {
                println!(
                    "  {name:<10} {:>7} {:>9} {:>7} {:>10}",
                    number(s.evidence_recall, 3),
                    number(s.context_tokens, 1),
                    number(s.ndcg, 3),
                    number(s.precision, 3)
                );
            }
            if let Some(d) = &r.context_token_difference {
                let ci = d.ci95.map_or_else(
                    || format!("no interval: {}", d.scope),
                    |[lo, hi]| {
                        format!(
                            "95% CI [{lo:.1}, {hi:.1}] over {} independent units",
                            d.independent_units
                        )
                    },
                );
                println!(
                    "  context tokens per question, frozen − baseline: {:.1} ({ci})",
                    d.delta
                );
            }
            if let Some(d) = &r.evidence_recall_difference {
                let ci = d
                    .ci95
                    .map_or_else(String::new, |[lo, hi]| format!(" (95% CI [{lo:.3}, {hi:.3}])"));
                println!("  evidence recall, frozen − baseline: {:.3}{ci}", d.delta);
            }
        }
        _ => println!(
            "\nNo candidate reached development recall {}: nothing frozen to assess (held-out table in the report \
             is descriptive only).",
            r.minimum_development_recall
        ),
    }
    let a = &out.artifacts;
    println!("\nfrozen: {}\nreport: {}", a.frozen.display(), a.report.display());
    if out.policy_written {
        println!("policy: {} (shadow mode)", a.policy.display());
    }
    if out.traces_written {
        println!("traces: {} (for --from-traces)", a.traces.display());
    }
    println!("Answer quality was not evaluated; the figures cover evidence already in the candidates.");
}

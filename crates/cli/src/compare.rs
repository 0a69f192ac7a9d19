//! `ragsift compare`: two configurations side by side over the same labelled questions — summary metrics, the
//! per-question differences, and the labelled evidence one found and the other lost. Judgments go through the
//! cache, so a policy-only difference makes no judge call; a different chunk size runs against a derived library
//! (the same files re-chunked under `<home>/derived/`, with its own judgment cache). The questions come from a
//! cases file or, with `--labels`, from the library's own span labels.

use crate::chat::ModelArgs;
use crate::print_json;
use ragsift_workbench::tuning::{CaseSource, CompareRequest, CompareSummary, EvidenceRef};
use ragsift_workbench::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("questions").required(true).args(["cases", "labels"])))]
pub struct CompareArgs {
    /// Labelled questions in the library case format (`id`, `query`, `relevant_ids` naming chunk ids or
    /// document file names), as `ragsift eval --from-library` reads them, or the cases `ragsift labels export`
    /// writes (their labelled spans are the evidence, matched against the chunks each side retrieves).
    #[arg(value_name = "CASES.json")]
    cases: Option<PathBuf>,
    /// Compare on the library's own span labels (what `ragsift label` and the Inspector record) instead of a
    /// cases file: the same questions `ragsift labels export` would write, with no file in between.
    #[arg(long)]
    labels: bool,
    /// A configuration (JSON): any of the answer options (`top_k`, `mode`, `variants`, `rewrite`, `judge`,
    /// `jev_request`, `policy`, …) over the saved defaults, plus `name` and `chunk_tokens` (another chunk size than the library's runs against a derived library kept under
    /// `<home>/derived/`). Give it twice: A, then B.
    #[arg(long = "config", value_name = "CONFIG.json", num_args = 1, required = true)]
    configs: Vec<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Path, args: CompareArgs) -> Result<ExitCode, Error> {
    let [a, b] = args.configs.as_slice() else {
        return Err(Error::Invalid(format!(
            "compare needs exactly two --config files (A and B), got {}",
            args.configs.len()
        )));
    };
    let wb = args.model.workbench(home)?;
    let read = |path: &PathBuf, name: &str| {
        let text = ragsift_workbench::read::read_text(path, ragsift_workbench::read::JSON_MAX_MB)?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        wb.compare_config(name, &json)
    };
    let request = CompareRequest {
        cases: match &args.cases {
            Some(path) => CaseSource::File {
                path: path.display().to_string(),
            },
            None => CaseSource::Labels,
        },
        a: read(a, "A")?,
        b: read(b, "B")?,
    };
    // A side with another chunk size brings its derived library up to date first: say so on stderr.
    let report = wb.compare_with_progress(&request, "cli-compare", &|line| eprintln!("{line}"))?;
    if args.json {
        print_json(&report);
        return Ok(ExitCode::SUCCESS);
    }
    let f = |x: Option<f64>| x.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into());
    println!(
        "{:<12} {:>9} {:>9} {:>9} {:>8} {:>7} {:>7} {:>11}",
        "config", "recall", "precision", "tokens", "passages", "judged", "cached", "judge tok."
    );
    let row = |s: &CompareSummary| {
        println!(
            "{:<12} {:>9} {:>9} {:>9.1} {:>8.2} {:>7} {:>7} {:>11}",
            s.config.name,
            f(s.evidence_recall),
            f(s.precision),
            s.context_tokens,
            s.documents,
            s.fresh_judgments,
            s.cached_judgments,
            s.judge_input_tokens + s.judge_output_tokens
        );
    };
    row(&report.a);
    row(&report.b);
    println!("\nper question (B − A): recall, precision, tokens");
    let names = |e: &[EvidenceRef]| {
        e.iter()
            .map(|r| {
                format!(
                    "{} p.{} ({})",
                    r.document,
                    r.page_start,
                    r.chunk_id.chars().take(8).collect::<String>()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    for q in &report.questions {
        println!(
            "{:<24} {:>7} {:>7} {:>+7}  {}",
            q.id,
            q.delta
                .evidence_recall
                .map_or_else(|| "-".into(), |d| format!("{d:+.3}")),
            format!("{:+.3}", q.delta.precision),
            q.delta.context_tokens,
            q.query
        );
        for (what, list) in [
            ("kept only by A", &q.kept_only_a),
            ("kept only by B", &q.kept_only_b),
            ("retrieved only by A", &q.retrieved_only_a),
            ("retrieved only by B", &q.retrieved_only_b),
        ] {
            if !list.is_empty() {
                println!("    {what}: {}", names(list));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

//! `ragsift select FILE|-`: rag-jev's `select` — its request JSON in, its result JSON out, with its exit codes:
//! 2 and `{"error": "invalid_input", "issues": [...]}` on stdout for an invalid request, 1 and
//! `Jev request failed: CODE` on stderr when the judge fails (unless `--on-error passthrough`, which prints the
//! `bypassed` result as rag-jev's library does).

use crate::chat::ModelArgs;
use ragsift_workbench::eval::select::{parse_request, OnError};
use ragsift_workbench::Error;
use ragsift_workbench::JudgeKind;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct SelectArgs {
    /// rag-jev's request JSON, or - for stdin.
    input: String,
    /// jev (rag-jev's request; a key in the home or TYPESAFE_API_KEY), systemone, ollama, openai, local, or auto
    /// (Jev with a key).
    #[arg(long, default_value = "auto")]
    judge: JudgeKind,
    /// When the judge fails: raise (exit 1, as rag-jev's CLI) or passthrough (the original context, status
    /// `bypassed`, as rag-jev's library and service).
    #[arg(long, default_value = "raise", value_parser = parse_on_error)]
    on_error: OnError,
    /// Write the result here instead of stdout.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
}

fn parse_on_error(s: &str) -> Result<OnError, String> {
    match s {
        "raise" => Ok(OnError::Raise),
        "passthrough" => Ok(OnError::Passthrough),
        other => Err(format!("unknown --on-error '{other}' (raise or passthrough)")),
    }
}

/// rag-jev's answer to a request that does not parse: the issues, never the input.
#[derive(serde::Serialize)]
struct InvalidInput<T: serde::Serialize> {
    error: &'static str,
    issues: T,
}

fn emit(value: &impl serde::Serialize, output: Option<&Path>) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(e.to_string()))? + "\n";
    match output {
        Some(path) => {
            ragsift_workbench::fsx::write_atomic(path, text.as_bytes(), ragsift_workbench::fsx::Access::Shared)
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

pub fn run(home: &Path, args: SelectArgs) -> Result<ExitCode, Error> {
    let raw = if args.input == "-" {
        let mut s = String::new();
        std::io::stdin()
            .take((ragsift_workbench::read::JSON_MAX_MB << 20) + 1)
            .read_to_string(&mut s)
            .map_err(|e| Error::Invalid(format!("stdin: {e}")))?;
        if s.len() as u64 > ragsift_workbench::read::JSON_MAX_MB << 20 {
            return Err(Error::Invalid(format!(
                "stdin: over the {} MB limit of JSON input",
                ragsift_workbench::read::JSON_MAX_MB
            )));
        }
        s
    } else {
        ragsift_workbench::read::read_text(Path::new(&args.input), ragsift_workbench::read::JSON_MAX_MB)?
    };
    let request = match parse_request(&raw) {
        Ok(r) => r,
        Err(issues) => {
            emit(
                &InvalidInput {
                    error: "invalid_input",
                    issues,
                },
                None,
            )?;
            return Ok(ExitCode::from(2));
        }
    };
    let wb = args.model.workbench(home)?;
    let decision = args.judge.resolve(wb.judge_info().key_set).backend().is_some();
    if !decision && request.relevance_guidance.is_some() {
        eprintln!("note: relevance_guidance is sent to decision models only; the local judge does not read it");
    }
    match wb.select_candidates(&request, args.judge, args.on_error)? {
        Ok(result) => {
            emit(&result, args.output.as_deref())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(failure) => {
            eprintln!("Jev request failed: {}", failure.code);
            eprintln!("  {}", failure.message);
            Ok(ExitCode::from(1))
        }
    }
}

//! `ragsift` command line: ingest, extract, search, library and doctor over the engine.

mod ablate;
mod ask;
mod calibrate;
mod chat;
mod compare;
mod curves;
mod doctor;
mod eval;
mod ingest;
mod label;
mod out;
mod review;
mod runs;
mod search;
mod select;
mod serve;
mod term;

use clap::{Parser, Subcommand};
use ragsift_workbench::{self as workbench, Workbench};
use ragsift_workbench::{paths, Error, Settings};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ragsift",
    version,
    about = "Ingest PDFs, search them, and see why each passage was picked"
)]
struct Cli {
    /// Library folder (database, index, settings). Default: $RAGSIFT_HOME, else ~/.local/share/ragsift.
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Keep the library in PostgreSQL (pgvector) instead of this machine: postgres://user@host:port/db, without a
    /// password (put it in PGPASSWORD, or the whole URL in RAGSIFT_STORE_URL or <home>/store-url, mode 0600).
    #[arg(long, global = true, value_name = "URL")]
    store: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Add files and folders (PDF, .txt, .md) to the library; unchanged files are skipped.
    Ingest(ingest::Args),
    /// Print the text the chunker sees, page by page (pages without text read by OCR, as ingest does).
    Extract {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// Also print the tables found on each page, as the chunks that hold them read: caption, header, and one
        /// header-keyed line per row.
        #[arg(long)]
        tables: bool,
    },
    /// Search the library.
    Search(search::Args),
    /// List or remove documents.
    Library {
        #[command(subcommand)]
        action: LibraryAction,
    },
    /// Ask the language model; the answer streams to stdout.
    Chat(chat::ChatArgs),
    /// P(yes) for a yes/no question, read from the model's next-token distribution, as JSON.
    Yesno(chat::YesNoArgs),
    /// Ask the library: retrieve, judge, select, answer with citations; the trace is stored as a run.
    Ask(ask::AskArgs),
    /// List runs or show one run's trace.
    Runs {
        #[command(subcommand)]
        action: runs::RunsAction,
    },
    /// Re-select a run's chunks from its cached judgments with other policy options (no judge call).
    Replay(runs::ReplayArgs),
    /// The judgment cache: `clear` empties it, so the next answers ask the judge again.
    Cache {
        #[command(subcommand)]
        action: runs::CacheAction,
    },
    /// Evaluate selection policies on rag-jev eval cases (scored live or replayed from saved traces).
    Eval(eval::EvalArgs),
    /// Score and select any retriever's candidates: reads rag-jev's request JSON (FILE, or - for stdin), prints
    /// rag-jev's result JSON.
    Select(select::SelectArgs),
    /// Choose a policy on development cases, freeze it, then assess it on held-out cases (rag-jev's calibrate:
    /// `calibrate DEV HELDOUT`); or, without them, calibrate a judge's probabilities from labels (`--judge`).
    Calibrate(calibrate::CalibrateArgs),
    /// Fit a judge's probabilities to labels: the library's labelled runs of `--judge`, or rag-jev's cases with
    /// their saved traces (`calibrate` without DEV HELDOUT does the same).
    FitJudge(calibrate::FitJudgeArgs),
    /// Blinded human review of baseline against selected answers: a packet, then the reviewers' labels checked
    /// and unblinded.
    Review {
        #[command(subcommand)]
        action: review::ReviewAction,
    },
    /// Label a run's evidence: a chunk relevant or not, or a quoted phrase as answer evidence (kept as spans).
    Label(label::LabelArgs),
    /// The labels: list them, or export them as rag-jev eval cases.
    Labels {
        #[command(subcommand)]
        action: label::LabelsAction,
    },
    /// Operating curves: evidence recall, precision and context tokens for every mode and threshold.
    Curves(curves::CurvesArgs),
    /// What each query variant of a run adds: candidates and labelled evidence it alone found, and its tokens.
    Ablate(ablate::AblateArgs),
    /// Two pipeline configurations over the same labelled questions, side by side.
    Compare(compare::CompareArgs),
    /// Serve rag-jev's HTTP API (POST /v1/select) to a running application; each selection is kept as a run.
    Serve(serve::ServeArgs),
    /// Check the runtime, the models and the library's consistency.
    Doctor {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum LibraryAction {
    /// List the documents.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove documents by id or path, or every document whose file is gone (--missing).
    Remove {
        targets: Vec<String>,
        #[arg(long)]
        missing: bool,
        #[arg(long)]
        json: bool,
    },
    /// Give a document (by id or path) a title of your own; ingesting the file again keeps it.
    Rename {
        target: String,
        title: String,
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    // Started as an extraction worker by another ragsift: be that, and nothing else.
    if let Some(code) = ragsift_workbench::process::serve_worker_if_asked() {
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    ragsift_workbench::process::isolate_extraction();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", term::plain(&e.to_string()));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    let home = paths::resolve_home(cli.home.as_deref())?;
    if let Some(url) = &cli.store {
        // Before any thread starts: every library this process opens uses this store.
        ragsift_workbench::process::use_store(url)?;
    }
    for field in Settings::unknown_fields(&home) {
        eprintln!(
            "warning: {}: unknown field `{}` is ignored (misspelt, or from another version?)",
            home.join("settings.json").display(),
            term::plain(&field)
        );
    }
    match cli.command {
        Command::Ingest(args) => ingest::run(&home, args),
        Command::Extract { file, json, tables } => extract(&home, &file, json, tables),
        Command::Search(args) => search::run(&home, args),
        Command::Library { action } => library(&home, action),
        Command::Chat(args) => chat::chat(&home, args),
        Command::Yesno(args) => chat::yesno(&home, args),
        Command::Ask(args) => ask::ask(&home, args),
        Command::Runs { action } => runs::runs(&home, action),
        Command::Replay(args) => runs::replay(&home, args),
        Command::Cache { action } => runs::cache(&home, action),
        Command::Eval(args) => eval::run(&home, args),
        Command::Select(args) => select::run(&home, args),
        Command::Calibrate(args) => calibrate::run(&home, args),
        Command::FitJudge(args) => calibrate::run_fit_judge(&home, args),
        Command::Review { action } => review::run(&home, action),
        Command::Label(args) => label::run(&home, args),
        Command::Labels { action } => label::labels(&home, action),
        Command::Curves(args) => curves::run(&home, args),
        Command::Ablate(args) => ablate::run(&home, args),
        Command::Compare(args) => compare::run(&home, args),
        Command::Serve(args) => serve::run(&home, args),
        Command::Doctor { json } => doctor::run(&home, json),
    }
}

/// Prints `value` as pretty JSON on stdout: the `--json` output of every command is a typed value.
pub fn print_json<T: serde::Serialize + ?Sized>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("error: the JSON output: {e}"),
    }
}

/// Writes `value` as pretty JSON, with a final newline, to `path` (atomically: a reader never sees half a file).
pub fn write_json<T: serde::Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(format!("JSON: {e}")))? + "\n";
    workbench::fsx::write_atomic(path, text.as_bytes(), workbench::fsx::Access::Shared)
}

fn extract(home: &Path, file: &Path, json: bool, tables: bool) -> Result<ExitCode, Error> {
    let name = term::plain(&file.display().to_string());
    // The same step as ingest: pages without text read by OCR when it is on and Tesseract is installed.
    let extracted = workbench::extract(home, file, &|page, pages| {
        eprintln!("{name}: OCR page {page}/{pages}");
    });
    match extracted {
        Ok(mut ex) => {
            if let Some(w) = &ex.warning {
                eprintln!("warning: {name}: {}", term::plain(&w.to_string()));
            }
            if !tables {
                ex.tables.clear();
            }
            if json {
                print_json(&ex);
            } else {
                for p in &ex.pages {
                    println!("=== page {} ===\n{}\n", p.number, p.text);
                    for t in ex.tables.iter().filter(|t| t.page == p.number) {
                        println!("--- table on page {} ---\n{}", t.page, t.head);
                        t.rows.iter().for_each(|r| println!("{r}"));
                        println!();
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if json {
                print_json(&ExtractFailure {
                    pages: [],
                    error: e.to_string(),
                    code: e.code(),
                });
            }
            eprintln!("error: {}", term::plain(&e.to_string()));
            Ok(ExitCode::from(1))
        }
    }
}

/// `extract --json` for a file that could not be read.
#[derive(serde::Serialize)]
struct ExtractFailure {
    pages: [(); 0],
    error: String,
    code: &'static str,
}

fn library(home: &Path, action: LibraryAction) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    match action {
        LibraryAction::List { json } => {
            let overview = wb.overview()?;
            if json {
                print_json(&overview);
                return Ok(ExitCode::SUCCESS);
            }
            let store = &overview.store;
            println!(
                "Store: {} at {} ({:.1} MB, {} chunks)",
                store.engine(),
                term::plain(&store.location),
                store.size_bytes as f64 / 1e6,
                store.chunks
            );
            if overview.documents.is_empty() {
                println!(
                    "The library at {} is empty. Add files with: ragsift ingest PATH",
                    home.display()
                );
            } else {
                for d in &overview.documents {
                    let warn = (d.warning.as_deref())
                        .map(|w| format!("  ({})", term::plain(w)))
                        .unwrap_or_default();
                    println!(
                        "{}  {:>4} pages {:>5} chunks  {}  {}{warn}",
                        d.id,
                        d.page_count,
                        d.chunk_count,
                        term::plain(&d.title),
                        term::plain(&d.path)
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        LibraryAction::Remove { targets, missing, json } => {
            let removal = wb.remove_documents(&targets, missing)?;
            if json {
                print_json(&removal);
            } else {
                removal
                    .removed
                    .iter()
                    .for_each(|d| println!("removed {}", term::plain(&d.path)));
                removal
                    .errors
                    .iter()
                    .for_each(|e| eprintln!("error: {}", term::plain(&e.to_string())));
            }
            Ok(if removal.errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        LibraryAction::Rename { target, title, json } => {
            let document = wb.rename_document(&target, &title)?;
            if json {
                print_json(&Renamed { document });
            } else {
                println!(
                    "renamed {} to \"{}\"",
                    term::plain(&document.path),
                    term::plain(&document.title)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `library rename --json`.
#[derive(serde::Serialize)]
struct Renamed {
    document: ragsift_workbench::DocumentRow,
}

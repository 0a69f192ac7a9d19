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
mod review;
mod runs;
mod search;
mod select;
mod term;

use clap::{Parser, Subcommand};
use ragsift_engine::{paths, Error, Library, LibraryConfig, RuntimePaths, Settings};
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
    if let Some(code) = ragsift_engine::worker::serve_if_asked() {
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    ragsift_engine::extract::install_quiet_panic_hook();
    ragsift_engine::worker::install_current_exe();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, Error> {
    let home = paths::resolve_home(cli.home.as_deref())?;
    if let Some(url) = &cli.store {
        if let Some(problem) = ragsift_engine::location::setting_problem(url) {
            return Err(Error::Invalid(format!("--store: {problem}")));
        }
        // Before any thread starts: every library this process opens uses this store.
        std::env::set_var(ragsift_engine::location::STORE_URL_ENV, url);
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
        Command::Review { action } => review::run(&home, action),
        Command::Label(args) => label::run(&home, args),
        Command::Labels { action } => label::labels(&home, action),
        Command::Curves(args) => curves::run(&home, args),
        Command::Ablate(args) => ablate::run(&home, args),
        Command::Compare(args) => compare::run(&home, args),
        Command::Doctor { json } => doctor::run(&home, json),
    }
}

/// Opens the library in `home` with its settings.
pub fn open_library(home: &Path) -> Result<Library, Error> {
    Library::open(home, Settings::load(home)?.library)
}

/// What embeds queries and new chunks: the OpenAI-compatible server the settings name, else the local model.
pub fn load_query_embedder(home: &Path, settings: &LibraryConfig) -> Result<Box<dyn ragsift_engine::Embedder>, Error> {
    Ok(
        match ragsift_engine::workbench::embedders::open_remote(home, settings)? {
            Some(remote) => Box::new(remote),
            None => Box::new(load_embedder(home, settings)?),
        },
    )
}

/// Loads the configured embedding model.
pub fn load_embedder(home: &Path, settings: &LibraryConfig) -> Result<ragsift_engine::FastEmbedder, Error> {
    let runtime = RuntimePaths::discover(home)?;
    ragsift_engine::FastEmbedder::load(
        &runtime,
        &settings.embedding_model,
        settings.embed_threads,
        settings.embed_batch,
    )
}

pub fn print_json(value: &serde_json::Value) {
    println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

fn extract(home: &Path, file: &Path, json: bool, tables: bool) -> Result<ExitCode, Error> {
    let s = Settings::load(home)?;
    let limits = ragsift_engine::extract::Limits {
        max_file_mb: s.library.max_file_mb,
        timeout: std::time::Duration::from_secs(s.library.extract_timeout_secs),
    };
    // The same step as ingest: pages without text read by OCR when it is on and Tesseract is installed.
    let ocr = s.library.ocr_setup();
    let name = file.display().to_string();
    let extracted = ocr.extract(file, limits, &|page, pages| {
        eprintln!("{name}: OCR page {page}/{pages}");
    });
    match extracted {
        Ok(ex) => {
            if let Some(w) = ex.warning() {
                eprintln!("warning: {}: {w}", file.display());
            }
            if json && tables {
                let tables: Vec<_> = (ex.pages.iter())
                    .flat_map(|p| p.tables.iter().map(|t| (p.number, t)))
                    .map(|(page, t)| {
                        let rows: Vec<&str> = t.rows.iter().map(|r| r.text.as_str()).collect();
                        serde_json::json!({ "page": page, "head": t.head, "rows": rows })
                    })
                    .collect();
                print_json(&serde_json::json!({ "pages": ex.pages, "tables": tables, "warning": ex.warning() }));
            } else if json {
                print_json(&serde_json::json!({ "pages": ex.pages, "warning": ex.warning() }));
            } else {
                for p in &ex.pages {
                    println!("=== page {} ===\n{}\n", p.number, p.text);
                    for t in p.tables.iter().filter(|_| tables) {
                        println!("--- table on page {} ---\n{}", p.number, t.head);
                        t.rows.iter().for_each(|r| println!("{}", r.text));
                        println!();
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            if json {
                print_json(&serde_json::json!({ "pages": [], "error": e.to_string(), "code": e.code() }));
            }
            eprintln!("error: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn library(home: &Path, action: LibraryAction) -> Result<ExitCode, Error> {
    let lib = open_library(home)?;
    match action {
        LibraryAction::List { json } => {
            let docs = lib.documents()?;
            let info = lib.store_info();
            let (size, chunks) = (lib.store().size_bytes()?, lib.store().chunk_count()?);
            if json {
                print_json(&serde_json::json!({
                    "documents": docs,
                    "store": { "kind": info.kind, "location": info.location, "size_bytes": size, "chunks": chunks },
                }));
                return Ok(ExitCode::SUCCESS);
            }
            let kind = match info.kind {
                ragsift_engine::StoreKind::Sqlite => "SQLite + usearch",
                ragsift_engine::StoreKind::Postgres => "PostgreSQL + pgvector",
            };
            println!(
                "Store: {kind} at {} ({:.1} MB, {chunks} chunks)",
                info.location,
                size as f64 / 1e6
            );
            if docs.is_empty() {
                println!(
                    "The library at {} is empty. Add files with: ragsift ingest PATH",
                    home.display()
                );
            } else {
                for d in &docs {
                    let warn = d.warning.as_deref().map(|w| format!("  ({w})")).unwrap_or_default();
                    println!(
                        "{}  {:>4} pages {:>5} chunks  {}  {}{warn}",
                        d.id, d.page_count, d.chunk_count, d.title, d.path
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        LibraryAction::Remove { targets, missing, json } => {
            let mut removed = if missing { lib.remove_missing()? } else { Vec::new() };
            let mut failed = Vec::new();
            for t in &targets {
                match lib.remove(t) {
                    Ok(d) => removed.push(d),
                    Err(e) => failed.push(e.to_string()),
                }
            }
            if json {
                print_json(&serde_json::json!({ "removed": removed, "errors": failed }));
            } else {
                removed.iter().for_each(|d| println!("removed {}", d.path));
                failed.iter().for_each(|e| eprintln!("error: {e}"));
            }
            Ok(if failed.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        LibraryAction::Rename { target, title, json } => {
            let doc = lib.rename(&target, &title)?;
            if json {
                print_json(&serde_json::json!({ "document": doc }));
            } else {
                println!("renamed {} to \"{}\"", doc.path, doc.title);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

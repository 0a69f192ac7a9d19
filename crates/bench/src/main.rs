//! `ragsift-bench`: the figures in BENCHMARKS.md, each measured against its baseline in the same run.
//! Run in release: `cargo run --release -p ragsift-bench -- all`.

mod answerability;
mod answers;
mod app;
mod columns;
mod embed;
mod extract;
mod fuzz;
mod glyphs;
mod ingest;
mod judge;
mod judge_fit;
mod judge_rows;
mod kinds;
mod library;
mod llm;
mod memory;
mod pgvector;
mod qaset;
mod quotes;
mod real;
mod reingest;
mod replay;
mod retrieval;
mod scans;
mod search;
mod sentence_lm;
mod sentences;
mod serve;
mod serve_set;
mod support;
mod worker;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "ragsift-bench")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// PDF extraction pages/s and text similarity vs `pdftotext`.
    Extract {
        /// Folders or files with PDFs (default: the fixtures, the samples and PDFs under /usr/share/doc).
        paths: Vec<PathBuf>,
    },
    /// Embedding chunks/s end to end vs a raw ONNX Runtime session on the same pre-tokenised batches.
    Embed {
        /// At most this many chunks.
        #[arg(long, default_value_t = 1000)]
        chunks: usize,
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Generated English-like 254-token chunks instead of the labelled set's real papers.
        #[arg(long)]
        synthetic: bool,
    },
    /// A generated 1,000-PDF library: ingest throughput curve and memory, per-file steps at a tenth and at full
    /// size, vector / keyword / hybrid search p50 and p95.
    Library {
        #[arg(long, default_value_t = 1000)]
        docs: usize,
        /// Chunk window in tokens.
        #[arg(long, default_value_t = 48)]
        chunk_tokens: usize,
        #[arg(long, default_value_t = 200)]
        queries: usize,
    },
    /// The workbench's resident memory when opened, during and after a job, and after the idle unload.
    Memory,
    /// `ragsift ingest` end to end (wall time, peak memory) vs pypdf + Python fastembed on the same files and model.
    Ingest {
        /// Runs of each, alternated; the median is reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// PDFs or folders (default: fixtures/qa/documents).
        paths: Vec<PathBuf>,
    },
    /// usearch QPS and recall@10 vs an exact scan.
    Search {
        #[arg(long, default_value_t = 100_000)]
        vectors: usize,
        #[arg(long, default_value_t = 1000)]
        queries: usize,
    },
    /// pgvector HNSW (a real PostgreSQL server) vs the local usearch index vs exact search.
    Pgvector {
        #[arg(long, default_value_t = 100_000)]
        vectors: usize,
        #[arg(long, default_value_t = 1000)]
        queries: usize,
    },
    /// Re-ingest of an unchanged library vs its first ingest.
    Reingest {
        #[arg(long, default_value_t = 8)]
        copies: usize,
    },
    /// Embedded language model: prompt and generation tokens/s, yes/no with and without prefix reuse.
    Llm,
    /// Skia / Google-Docs-style pages against their source, and OCR of scanned pages: speed and accuracy.
    Scans,
    /// Multi-column pages (fixtures/multicolumn) against their source text: ragsift vs `pdftotext`, and speed.
    Columns,
    /// Extraction in a worker process against extraction in this process, on the 1,000-document corpus.
    Worker {
        #[arg(long, default_value_t = 1000)]
        docs: usize,
        /// Alternated rounds; the median is reported.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
    },
    /// Mutants of every fixture through the loaders for this long: zero panics and hangs expected.
    Fuzz {
        #[arg(long, default_value_t = 300)]
        seconds: u64,
        /// Extract each mutant in a worker process, as ingest does.
        #[arg(long)]
        worker: bool,
    },
    /// Evidence among the retrieved chunks on the labelled set, per kind of document and for table questions, by
    /// search mode and depth (4, 8, 12).
    Retrieval {
        /// Chunk window in tokens (with --overlap); the library's defaults otherwise.
        #[arg(long)]
        chunk_tokens: Option<usize>,
        #[arg(long, default_value_t = 32)]
        overlap: usize,
    },
    /// The local judge on the labelled set (fixtures/qa): per-signal and fitted AUC, Brier, reliability.
    Judge {
        /// Candidates per question (vector search).
        #[arg(long, default_value_t = 8)]
        top_k: usize,
        /// Write every candidate's signals and labels to this JSON file.
        #[arg(long)]
        dump: Option<PathBuf>,
        /// Also measure the language-model signals (slow: the embedded model reads every candidate).
        #[arg(long)]
        lm: bool,
        /// The GGUF whose signals `--lm` measures (default: the embedded base model), e.g. the answer model to
        /// see whether an instruction model's yes/no readout adds to the judge.
        #[arg(long)]
        lm_model: Option<PathBuf>,
        /// Write the fitted judge to crates/judge/src/local/fit.json.
        #[arg(long)]
        refit: bool,
        /// Replace only the extractive answer's sentence model in fit.json (the judge's models and thresholds
        /// stay as shipped).
        #[arg(long, conflicts_with = "refit")]
        refit_sentence: bool,
        /// Also measure the embedded model reranking the extractive answer's best sentences (query likelihood
        /// and yes/no readout over each question's best six, held out by document).
        #[arg(long)]
        sentence_lm: bool,
        /// Also measure the embedded model's yes/no readout for the contradicted premise.
        #[arg(long)]
        premise: bool,
        /// Time the local judge against the yes/no readout judge on this many questions (0 = skip).
        #[arg(long, default_value_t = 0)]
        speed: usize,
        /// How candidates are retrieved: vector, keyword or hybrid.
        #[arg(long, default_value = "vector")]
        mode: ragsift_engine::retrieve::SearchMode,
        /// Depth of the operating points and per-kind figures (default 4, the pipeline's top k).
        #[arg(long)]
        depth: Option<usize>,
    },
    /// The whole pipeline on the labelled set per answer configuration: evidence kept, characters cut, answer
    /// phrase found, abstention, prompt echoes.
    Answers {
        #[arg(long, default_value_t = 4)]
        top_k: usize,
        /// Only the first N questions (0 = all).
        #[arg(long, default_value_t = 0)]
        limit: usize,
        /// Configurations: JUDGE-MODE with JUDGE local|readout|none and MODE extractive|grounded|completion|chat.
        #[arg(long, value_delimiter = ',', default_values_t = answers::DEFAULT_CONFIGS.iter().map(|s| s.to_string()).collect::<Vec<_>>())]
        configs: Vec<String>,
        /// How the pipeline retrieves: vector, keyword or hybrid.
        #[arg(long, default_value = "vector")]
        mode: ragsift_engine::retrieve::SearchMode,
        /// Fit the answer's support model on the first extractive configuration and write it to
        /// crates/pipeline/src/support_fit.json.
        #[arg(long)]
        refit_support: bool,
        /// The instruction model (a GGUF) that writes grounded answers beside the installed base model (the judge's).
        #[arg(long)]
        answer_model: Option<std::path::PathBuf>,
        /// Threads for the answer model (0: llama.cpp's default).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// The support report again from the rows an `answers` run wrote (`RAGSIFT_BENCH_SUPPORT_ROWS=FILE`).
    SupportRows {
        file: std::path::PathBuf,
        /// Unanswerable questions the run abstained on (they have no row).
        #[arg(long, default_value_t = 0)]
        abstained: usize,
        #[arg(long)]
        refit_support: bool,
    },
    /// Replay of 200 cached judgments, and the local judge's cost per chunk.
    Replay,
    /// `ragsift serve`: concurrent clients on `POST /v1/select` with the local judge (p50, p95, throughput, every
    /// request recorded once) against `ragsift select` run once per request.
    Serve {
        #[arg(long, default_value_t = 8)]
        clients: usize,
        #[arg(long, default_value_t = 25)]
        requests_per_client: usize,
        /// Requests of the CLI baseline.
        #[arg(long, default_value_t = 10)]
        baseline: usize,
        /// Measure the recording proxy's added latency instead (this many calls each way, on each wire).
        #[arg(long)]
        proxy: Option<usize>,
        /// Measure each decision-model judge's added latency per passage instead (this many passages).
        #[arg(long)]
        judges: Option<usize>,
        /// Send the labelled set's questions with this many real chunks each (distinct requests, the service's
        /// default deadline) instead of rag-jev's eval cases (with a 60 s deadline).
        #[arg(long)]
        candidates: Option<usize>,
    },
    /// Real documents (issue 55): the labelled pages of fixtures/real/ against their truth, ragsift beside
    /// pdftotext, per producer family.
    Real {
        /// Write each labelled page's text from both extractors into this folder.
        #[arg(long)]
        dump: Option<PathBuf>,
        /// Score the page texts an earlier build dumped into this folder (the code before a change) beside.
        #[arg(long)]
        previous: Option<PathBuf>,
    },
    /// One page's glyphs as the layout gets them, as JSON (for layout tests on real pages).
    Glyphs {
        pdf: PathBuf,
        /// The page, from 1.
        page: u32,
        /// Only glyphs whose baseline lies at this height or above (PDF points, y up).
        #[arg(long, default_value_t = f64::MIN)]
        y_min: f64,
        /// Only glyphs whose baseline lies at this height or below.
        #[arg(long, default_value_t = f64::MAX)]
        y_max: f64,
    },
    /// The desktop app's cold start and idle memory (needs Xvfb and the release ragsift-app).
    App {
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Everything above with defaults.
    All,
}

fn main() {
    if let Some(code) = ragsift_engine::worker::serve_if_asked() {
        std::process::exit(code);
    }
    ragsift_engine::extract::install_quiet_panic_hook();
    let cli = Cli::parse();
    println!("machine: {}", machine());
    let result = match cli.command {
        Command::Extract { paths } => extract::run(&paths),
        Command::Embed {
            chunks,
            threads,
            synthetic,
        } => embed::run(chunks, threads, synthetic),
        Command::Ingest { runs, paths } => ingest::run(runs, &paths),
        Command::Memory => memory::run(),
        Command::Library {
            docs,
            chunk_tokens,
            queries,
        } => library::run(&library::Options {
            docs,
            chunk_tokens,
            queries,
        }),
        Command::Search { vectors, queries } => search::run(vectors, queries),
        Command::Pgvector { vectors, queries } => pgvector::run(vectors, queries),
        Command::Reingest { copies } => reingest::run(copies),
        Command::Llm => llm::run(),
        Command::Fuzz { seconds, worker } => fuzz::run(seconds, worker),
        Command::Worker { docs, rounds } => worker::run(docs, rounds),
        Command::Scans => scans::run(),
        Command::Columns => columns::run(),
        Command::Real { dump, previous } => real::run(dump.as_deref(), previous.as_deref()),
        Command::Glyphs {
            pdf,
            page,
            y_min,
            y_max,
        } => glyphs::run(&pdf, page, y_min, y_max),
        Command::Retrieval { chunk_tokens, overlap } => retrieval::run(&retrieval::Options {
            chunk: chunk_tokens.map(|t| (t, overlap)),
        }),
        Command::Replay => replay::run(),
        Command::Serve { proxy: Some(calls), .. } => serve::proxy(calls),
        Command::Serve {
            judges: Some(passages), ..
        } => serve::judges(passages),
        Command::Serve {
            clients,
            requests_per_client,
            baseline,
            proxy: None,
            judges: None,
            candidates,
        } => serve::run(clients, requests_per_client, baseline, candidates),
        Command::SupportRows {
            file,
            abstained,
            refit_support,
        } => support::read_rows(&file).and_then(|rows| support::report(&rows, abstained, refit_support)),
        Command::Answers {
            top_k,
            limit,
            configs,
            mode,
            refit_support,
            answer_model,
            threads,
        } => answers::run(&answers::Options {
            top_k,
            mode,
            limit,
            configs,
            refit_support,
            answer_model,
            threads,
        }),
        Command::Judge {
            top_k,
            dump,
            lm,
            lm_model,
            refit,
            refit_sentence,
            sentence_lm,
            premise,
            speed,
            mode,
            depth,
        } => judge::run(&judge::Options {
            top_k,
            dump,
            lm,
            lm_model,
            refit,
            refit_sentence,
            sentence_lm,
            premise,
            speed,
            mode,
            depth,
        }),
        Command::App { runs } => app::run(runs),
        Command::All => extract::run(&[])
            .and_then(|_| columns::run())
            .and_then(|_| embed::run(1000, 0, false))
            .and_then(|_| search::run(100_000, 1000))
            .and_then(|_| reingest::run(8))
            .and_then(|_| llm::run())
            .and_then(|_| replay::run())
            .and_then(|_| {
                judge::run(&judge::Options {
                    top_k: 8,
                    dump: None,
                    lm: false,
                    lm_model: None,
                    refit: false,
                    refit_sentence: false,
                    sentence_lm: false,
                    premise: true,
                    speed: 16,
                    mode: Default::default(),
                    depth: None,
                })
            })
            .and_then(|_| {
                answers::run(&answers::Options {
                    top_k: 4,
                    mode: Default::default(),
                    limit: 0,
                    configs: answers::DEFAULT_CONFIGS.iter().map(|s| s.to_string()).collect(),
                    refit_support: false,
                    answer_model: None,
                    threads: 0,
                })
            })
            .and_then(|_| ingest::run(3, &[]))
            .and_then(|_| memory::run())
            .and_then(|_| app::run(5)),
    };
    if let Err(e) = result {
        eprintln!("bench failed: {e}");
        std::process::exit(1);
    }
}

/// CPU model and core count, for the record.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{cpu}, {cores} cores")
}

/// The repository root (benchmarks read fixtures and samples from it).
pub fn repo_root() -> PathBuf {
    // Cargo's value at run time first (`cargo run`), else the one it was built with.
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into()))
        .join("../..")
}

/// Loads the default embedder from the installed runtime.
pub fn embedder(threads: usize) -> ragsift_engine::Result<ragsift_engine::FastEmbedder> {
    let home = ragsift_engine::paths::data_dir()?;
    let runtime = ragsift_engine::RuntimePaths::discover(&home)?;
    ragsift_engine::FastEmbedder::load(&runtime, ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL, threads, 32)
}

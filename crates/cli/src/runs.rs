//! `ragsift runs`, `ragsift replay` and `ragsift cache`: the stored runs, re-selection from a run's cached
//! judgments with new policy options (no judge call), and the judgment cache.

use crate::ask::PolicyArgs;
use crate::out::{self, ReplayOut, RunOut};
use crate::print_json;
use crate::term::plain;
use ragsift_workbench::Error;
use ragsift_workbench::{JudgeKind, Workbench};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum RunsAction {
    /// The latest runs.
    List {
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// One run: its query, each passage's decision and reason, and the answer (--json: the whole trace).
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Write a run as a portable, integrity-checked file (stdout, or --output): it replays elsewhere with no
    /// library, no key and no judge call.
    Export {
        id: String,
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Store a run exported elsewhere (checked: checksum, fingerprint, versions, sizes).
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Import another retriever's candidates (rag-jev's select request, or one eval case with its labels) as a
    /// run: judged, selected, stored; `ragsift replay` and `regenerate` then work on it.
    ImportCandidates {
        /// The JSON file, or - for stdin.
        file: String,
        /// jev, systemone, ollama or openai (rag-jev's request), local, or auto (Jev with a key).
        #[arg(long, default_value = "auto")]
        judge: JudgeKind,
        #[command(flatten)]
        flags: crate::chat::JudgeFlagArgs,
        #[arg(long)]
        json: bool,
    },
    /// Judge a run's candidates again with another judge or model: a new run (the original stays as it was), to
    /// set beside it with `compare-judges`.
    Rejudge {
        id: String,
        /// jev, systemone, ollama, openai or local.
        #[arg(long)]
        judge: JudgeKind,
        #[command(flatten)]
        flags: crate::chat::JudgeFlagArgs,
        #[arg(long)]
        json: bool,
    },
    /// Two runs of the same passages judged by two models, per question: Cohen's κ, where they disagree, and each
    /// judge's accuracy against the first run's labels.
    CompareJudges {
        a: String,
        b: String,
        #[arg(long)]
        json: bool,
    },
    /// Attach labels to a run: which candidates hold relevant evidence, which the baseline sends.
    Label {
        id: String,
        /// Relevant candidate ids (comma-separated; empty for "none is relevant").
        #[arg(long, value_name = "IDS")]
        relevant: Option<String>,
        /// Baseline candidate ids (comma-separated).
        #[arg(long, value_name = "IDS")]
        baseline: Option<String>,
        /// Remove every label.
        #[arg(long, conflicts_with_all = ["relevant", "baseline"])]
        clear: bool,
        #[arg(long)]
        json: bool,
    },
}

/// A run for a person: the query, the judge, each passage's decision with its reason, and the answer.
fn print_run(trace: &ragsift_workbench::pipeline::Trace) {
    println!("run {}  {}", plain(&trace.run_id), plain(&trace.query));
    println!(
        "judge: {} ({}), prompt {}",
        plain(&trace.judge.judge),
        plain(&trace.judge.model),
        plain(&trace.judge.prompt_version)
    );
    for d in &trace.selection.decisions {
        let c = &trace.candidates[d.input_index];
        println!(
            "{} {:>3}  {:<16} {} (pages {}–{})",
            match d.selected {
                Some(true) => "kept    ",
                Some(false) => "dropped ",
                None => "bypassed",
            },
            d.input_index + 1,
            d.reason.label(),
            plain(&c.document),
            c.page_start,
            c.page_end
        );
    }
    println!("answer: {}", plain(trace.answer.trim()));
    println!("support: {}", trace.support.words);
}

fn id_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A JSON input from a file or stdin (`-`), bounded by the one JSON limit.
fn read_input(file: &str) -> Result<Vec<u8>, Error> {
    let max = ragsift_workbench::read::JSON_MAX_MB;
    if file == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(std::io::stdin(), (max << 20) + 1), &mut buf)
            .map_err(|e| Error::Invalid(format!("stdin: {e}")))?;
        if buf.len() as u64 > max << 20 {
            return Err(Error::Invalid(format!("stdin: over the {max} MB limit of JSON input")));
        }
        Ok(buf)
    } else {
        ragsift_workbench::read::read_capped(Path::new(file), max)
    }
}

pub fn runs(home: &Path, action: RunsAction) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    match action {
        RunsAction::List { limit, json } => {
            let runs = wb.runs(limit as u32)?;
            if json {
                print_json(&out::Runs { runs });
            } else {
                for r in runs {
                    println!("{}  {:<6} {}", plain(&r.id), plain(&r.judge), plain(&r.query));
                }
            }
        }
        RunsAction::Show { id, json } => {
            let trace = wb.run(&id)?;
            if json {
                print_json(&RunOut::new(trace.as_ref()));
            } else {
                print_run(trace.as_ref());
            }
        }
        RunsAction::Export { id, output } => {
            let file = wb.export_run(&id)?;
            match output {
                Some(path) => {
                    let text = file + "\n";
                    ragsift_workbench::fsx::write_atomic(
                        &path,
                        text.as_bytes(),
                        ragsift_workbench::fsx::Access::Shared,
                    )?;
                    eprintln!("exported run {} to {}", plain(&id), path.display());
                }
                None => println!("{file}"),
            }
        }
        RunsAction::Import { file, json } => {
            let bytes = read_input(&file.to_string_lossy())?;
            let run = wb.import_run(&bytes)?;
            if json {
                print_json(&out::Run { run });
            } else {
                println!("imported run {}  {}", plain(&run.id), plain(&run.query));
            }
        }
        RunsAction::ImportCandidates {
            file,
            judge,
            flags,
            json,
        } => {
            flags.apply(&wb);
            let bytes = read_input(&file)?;
            let text = String::from_utf8(bytes).map_err(|_| Error::Invalid(format!("{file}: not UTF-8")))?;
            let trace = wb.import_candidates(&text, judge)?;
            if json {
                print_json(&RunOut::new(&trace));
            } else {
                println!(
                    "imported {} candidates as run {} ({} selected, judge {})",
                    trace.candidates.len(),
                    trace.run_id,
                    trace.selection.selected().len(),
                    trace.judge.judge
                );
            }
        }
        RunsAction::Rejudge { id, judge, flags, json } => {
            flags.apply(&wb);
            let trace = wb.rejudge_run(&id, judge)?;
            if json {
                print_json(&RunOut::new(&trace));
            } else {
                println!(
                    "judged run {} again as run {} (judge {} · {}); compare: ragsift runs compare-judges {} {}",
                    plain(&id),
                    trace.run_id,
                    plain(&trace.judge.judge),
                    plain(&trace.judge.model),
                    plain(&id),
                    trace.run_id
                );
            }
        }
        RunsAction::CompareJudges { a, b, json } => {
            let c = wb.compare_judges(&a, &b)?;
            if json {
                print_json(&c);
            } else {
                println!(
                    "A: {} ({} · {})   B: {} ({} · {})",
                    plain(&c.a.run_id),
                    plain(&c.a.judge),
                    plain(&c.a.model),
                    plain(&c.b.run_id),
                    plain(&c.b.judge),
                    plain(&c.b.model)
                );
                for q in &c.questions {
                    let kappa = q.kappa.map_or("not assessed".to_string(), |k| format!("{k:.2}"));
                    let acc = |x: Option<f64>| x.map_or("—".to_string(), |a| format!("{:.0}%", a * 100.0));
                    println!(
                        "{:<28} κ {kappa:<12} agree {:>3.0}% of {}  accuracy A {} B {}",
                        q.question,
                        q.agreement * 100.0,
                        q.passages,
                        acc(q.a_accuracy),
                        acc(q.b_accuracy)
                    );
                    for d in &q.disagreements {
                        println!(
                            "    {:<12} A {:.2}  B {:.2}  {}",
                            plain(&d.chunk_id),
                            d.a,
                            d.b,
                            plain(&d.snippet)
                        );
                    }
                }
            }
        }
        RunsAction::Label {
            id,
            relevant,
            baseline,
            clear,
            json,
        } => {
            let mut labels = if clear {
                Default::default()
            } else {
                wb.run(&id)?.labels.clone()
            };
            if let Some(r) = relevant {
                labels.relevant_ids = Some(id_list(&r));
            }
            if let Some(b) = baseline {
                labels.baseline_ids = Some(id_list(&b));
            }
            let trace = wb.set_run_labels(&id, labels)?;
            if json {
                print_json(&out::RunLabels {
                    run_id: &trace.run_id,
                    labels: &trace.labels,
                });
            } else {
                println!("labels of run {} saved", trace.run_id);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct ReplayArgs {
    id: String,
    #[command(flatten)]
    policy: PolicyArgs,
    #[arg(long)]
    json: bool,
    /// Also print the selection's notes (rules the judge does not assess); warnings are always printed.
    #[arg(long)]
    verbose: bool,
}

pub fn replay(home: &Path, args: ReplayArgs) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    let trace = wb.run(&args.id)?;
    let options = args.policy.apply(trace.policy.clone())?;
    let started = std::time::Instant::now();
    let replay = wb.replay_labelled(&args.id, &options)?;
    let micros = started.elapsed().as_secs_f64() * 1e6;
    if args.json {
        print_json(&ReplayOut {
            replay: &replay,
            decisions: out::decisions(&trace, &replay.selection),
            judge_calls: 0,
            elapsed_us: micros,
        });
    } else {
        for d in &replay.selection.decisions {
            let mark = match d.selected {
                Some(true) => "keep",
                Some(false) => "drop",
                None => "pass",
            };
            let was = trace.selection.decisions.get(d.input_index).map(|b| b.reason);
            let changed = if was != Some(d.reason) {
                format!("  (was {:?})", was.unwrap_or(d.reason))
            } else {
                String::new()
            };
            println!(
                "{mark} {:<22} {} {}{changed}",
                format!("{:?}", d.reason),
                d.chunk_id,
                trace.candidates[d.input_index].title
            );
        }
        for w in &replay.selection.warnings {
            println!("warning: {}", w.message);
        }
        if args.verbose {
            for n in &replay.selection.notes {
                println!("note: {}", n.message);
            }
        }
        if let Some(l) = &replay.labels {
            let pct = |x: Option<f64>| x.map_or("n/a".to_string(), |x| format!("{:.0}%", x * 100.0));
            println!(
                "labels: evidence recall {}, precision {}, labelled evidence dropped: {}; baseline {} → selected {} tokens",
                pct(l.evidence_recall),
                pct(l.precision),
                if l.relevant_dropped.is_empty() { "none".to_string() } else { l.relevant_dropped.join(", ") },
                l.baseline_tokens,
                l.selected_tokens
            );
        }
        println!(
            "{} changed; {}; no judge call ({micros:.0} µs)",
            replay.changes.len(),
            match (&replay.selection.selected_ids, replay.selection.selected_tokens) {
                (Some(ids), Some(tokens)) => format!("{} selected, {tokens} tokens", ids.len()),
                _ => "bypassed: the original context goes through".to_string(),
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Subcommand)]
pub enum CacheAction {
    /// Empty the judgment cache (stored runs still replay from their own judgments).
    Clear {
        #[arg(long)]
        json: bool,
    },
}

pub fn cache(home: &Path, action: CacheAction) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    match action {
        CacheAction::Clear { json } => {
            let cleared = wb.clear_judgment_cache()?;
            if json {
                print_json(&out::Cleared { cleared });
            } else {
                println!("cleared {cleared} cached judge answers");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

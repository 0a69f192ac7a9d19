//! `ragsift review packet|results`: blinded human review of baseline against selected answers — a packet of
//! anonymous answer pairs and its separate key, then the reviewers' labels checked and, with the key, unblinded.

use crate::chat::ModelArgs;
use crate::{print_json, write_json};
use ragsift_workbench::review::{review_results, ReviewKey, ReviewPacket, ReviewResults, ReviewStatus};
use ragsift_workbench::Error;
use serde::de::DeserializeOwned;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Subcommand)]
pub enum ReviewAction {
    /// Answer each run's question from its baseline context (its labelled baseline_ids, else every candidate) and
    /// write a blinded packet of the two answers (stdout, or --output) and its key (a separate file).
    Packet(PacketArgs),
    /// Check reviewers' labels (CSV) against a packet: every answer labelled once with yes/no/unclear; with --key,
    /// unblind them once complete. Exits 1 while labels are missing.
    Results(ResultsArgs),
}

#[derive(clap::Args)]
pub struct PacketArgs {
    /// Runs to review (ids or unique prefixes, see `ragsift runs list`).
    #[arg(required = true, value_name = "RUN_ID")]
    runs: Vec<String>,
    /// Seed of the answers' order (default: drawn from the clock); recorded in the key, never in the packet.
    #[arg(long)]
    seed: Option<u64>,
    /// Where the key goes (default: <OUTPUT>.key.json next to --output, else review-key-<packet id>.json in the
    /// current folder); never overwritten.
    #[arg(long, value_name = "KEY.json")]
    key: Option<PathBuf>,
    /// Write the packet here instead of stdout; never overwritten.
    #[arg(long, value_name = "PACKET.json")]
    output: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
}

#[derive(clap::Args)]
pub struct ResultsArgs {
    /// The packet the labels are for.
    #[arg(value_name = "PACKET.json")]
    packet: PathBuf,
    /// The reviewers' labels: item_id, anonymous_answer, reviewer, semantically_correct,
    /// ambiguous_question_or_reference, notes (rag-jev's export; packet_id optional).
    #[arg(value_name = "LABELS.csv")]
    labels: PathBuf,
    /// The packet's key: unblind once every answer is labelled.
    #[arg(long, value_name = "KEY.json")]
    key: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Also write the JSON summary to this file.
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
}

pub fn run(home: &Path, action: ReviewAction) -> Result<ExitCode, Error> {
    match action {
        ReviewAction::Packet(args) => packet(home, args),
        ReviewAction::Results(args) => results(args),
    }
}

fn packet(home: &Path, args: PacketArgs) -> Result<ExitCode, Error> {
    for path in [&args.output, &args.key].into_iter().flatten() {
        refuse_existing(path)?;
    }
    let key_path = args
        .key
        .clone()
        .or_else(|| args.output.as_ref().map(|o| o.with_extension("key.json")));
    if let Some(k) = &key_path {
        refuse_existing(k)?;
        if args.output.as_ref() == Some(k) {
            return Err(Error::Invalid("the key and the packet need different files".into()));
        }
    }
    let seed = args.seed.unwrap_or_else(clock_seed);
    let wb = args.model.workbench(home)?;
    args.model.open(&wb)?;
    let terminal = std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if terminal {
            eprint!("\ranswering {done}/{total}");
            if done == total {
                eprintln!();
            }
        } else {
            eprintln!("answering {done}/{total}");
        }
    };
    let files = wb.review_packet(&args.runs, seed, &progress)?;
    let key_path = key_path.unwrap_or_else(|| PathBuf::from(format!("review-key-{}.json", files.packet.packet_id)));
    // The packet before its key: a key without its packet would be an orphan.
    match &args.output {
        Some(out) => write_new(out, &files.packet)?,
        None => print_json(&files.packet),
    }
    write_new(&key_path, &files.key)?;
    eprintln!(
        "packet {}: {} items; key in {} (keep it from reviewers until every answer is labelled)",
        files.packet.packet_id,
        files.packet.items.len(),
        key_path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn results(args: ResultsArgs) -> Result<ExitCode, Error> {
    let packet: ReviewPacket = read_json(&args.packet, "a review packet")?;
    let key: Option<ReviewKey> = args.key.as_deref().map(|k| read_json(k, "a review key")).transpose()?;
    let labels = ragsift_workbench::read::read_text(&args.labels, ragsift_workbench::read::JSON_MAX_MB)?;
    let r = review_results(&packet, &labels, key.as_ref())?;
    if let Some(out) = &args.output {
        write_json(out, &r)?;
    }
    if args.json {
        print_json(&r);
    } else {
        print_summary(&r);
    }
    if let Some(note) = &r.key_note {
        eprintln!("note: {note}");
    }
    if r.status == ReviewStatus::Incomplete {
        let missing: Vec<String> = (r.missing.iter().take(20))
            .map(|m| format!("{}/{}", m.item_id, m.anonymous_answer.as_str()))
            .collect();
        let more = r.missing.len().saturating_sub(missing.len());
        eprintln!(
            "incomplete: {} of {} answers unlabelled: {}{}",
            r.unlabeled_answers,
            r.expected_answers,
            missing.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(r: &ReviewResults) {
    let counts = |c: &std::collections::BTreeMap<String, usize>| {
        let parts: Vec<String> = c.iter().map(|(k, n)| format!("{k} {n}")).collect();
        if parts.is_empty() {
            "none".to_string()
        } else {
            parts.join(", ")
        }
    };
    let status = match r.status {
        ReviewStatus::Complete => "complete",
        ReviewStatus::Incomplete => "incomplete",
    };
    println!(
        "packet {}: {status}, {} of {} answers labelled{}",
        r.packet_id,
        r.labeled_answers,
        r.expected_answers,
        if r.reviewers.is_empty() {
            String::new()
        } else {
            format!(" by {}", r.reviewers.join(", "))
        }
    );
    println!("semantically correct: {}", counts(&r.correctness_counts));
    println!("question or reference ambiguous: {}", counts(&r.ambiguity_counts));
    if let Some(u) = &r.unblinded {
        println!(
            "\n{:<8} {:<10} {:<10} {:<14} ambiguous",
            "item", "baseline", "selected", "outcome"
        );
        for i in &u.items {
            let b = format!("{} ({})", i.baseline.as_str(), i.baseline_answer.as_str());
            let s = format!("{} ({})", i.selected.as_str(), i.baseline_answer.other().as_str());
            let outcome = serde_json::to_value(i.outcome).ok();
            let outcome = outcome.as_ref().and_then(|v| v.as_str()).unwrap_or_default();
            let amb = if i.ambiguous { "yes" } else { "" };
            println!("{:<8} {b:<10} {s:<10} {outcome:<14} {amb}", i.item_id);
        }
        println!(
            "\nbaseline correct {} of {} · selected correct {} of {} · both {}, neither {}, baseline only {}, \
             selected only {}, unclear {}",
            u.baseline_yes,
            u.items.len(),
            u.selected_yes,
            u.items.len(),
            u.both,
            u.neither,
            u.baseline_only,
            u.selected_only,
            u.unclear
        );
        match u.paired_difference {
            Some(d) => println!(
                "paired difference (selected − baseline correct): {:+.1} points over {} items",
                d * 100.0,
                u.paired_items
            ),
            None => println!("paired difference: none (every item has an unclear label)"),
        }
    }
    println!("\n{}", r.scope);
}

/// A seed no reviewer can guess from the packet: the clock's nanoseconds and the process id.
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or_default();
    nanos ^ (u64::from(std::process::id()) << 32)
}

fn refuse_existing(path: &Path) -> Result<(), Error> {
    if path.exists() {
        return Err(Error::Invalid(format!(
            "{} exists: a review packet or key is never overwritten; choose another file",
            path.display()
        )));
    }
    Ok(())
}

/// Writes `value` as JSON to a file that must not exist yet.
fn write_new(path: &Path, value: &impl serde::Serialize) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(format!("JSON: {e}")))? + "\n";
    ragsift_workbench::fsx::write_new(path, text.as_bytes(), ragsift_workbench::fsx::Access::Shared)
}

fn read_json<T: DeserializeOwned>(path: &Path, what: &str) -> Result<T, Error> {
    let text = ragsift_workbench::read::read_text(path, ragsift_workbench::read::JSON_MAX_MB)?;
    serde_json::from_str(&text).map_err(|e| Error::Invalid(format!("{} is not {what}: {e}", path.display())))
}

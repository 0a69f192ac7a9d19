//! `ragsift runs`, `ragsift replay` and `ragsift cache`: the stored runs, re-selection from a run's cached
//! judgments with new policy options (no judge call), and the judgment cache.

use crate::ask::{decisions_json, trace_json, PolicyArgs};
use crate::print_json;
use ragsift_engine::workbench::Workbench;
use ragsift_engine::Error;
use std::path::Path;
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
    /// One run's whole trace as JSON.
    Show { id: String },
}

pub fn runs(home: &Path, action: RunsAction) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    match action {
        RunsAction::List { limit, json } => {
            let runs = wb.runs(limit as u32)?;
            if json {
                print_json(&serde_json::json!({ "runs": runs }));
            } else {
                for r in runs {
                    println!("{}  {:<6} {}", r.id, r.judge, r.query);
                }
            }
        }
        RunsAction::Show { id } => print_json(&trace_json(wb.run(&id)?.as_ref())),
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
}

pub fn replay(home: &Path, args: ReplayArgs) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    let trace = wb.run(&args.id)?;
    let options = args.policy.apply(trace.policy.clone())?;
    let started = std::time::Instant::now();
    let replay = wb.replay(&args.id, &options)?;
    let micros = started.elapsed().as_secs_f64() * 1e6;
    if args.json {
        let mut v = serde_json::to_value(&replay).unwrap_or_default();
        v["decisions"] = decisions_json(&trace, &replay.selection);
        v["judge_calls"] = 0.into();
        v["elapsed_us"] = micros.into();
        print_json(&v);
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
                print_json(&serde_json::json!({ "cleared": cleared }));
            } else {
                println!("cleared {cleared} cached judge answers");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

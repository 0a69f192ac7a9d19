//! `ragsift ask`, `runs` and `replay`: the judged pipeline with its stored trace, and re-selection from cached
//! judgments with new policy options (no judge call).

use crate::chat::ModelArgs;
use crate::{load_embedder, open_library, print_json};
use ragsift_engine::judge::{JevJudge, Judge, LocalJudge};
use ragsift_engine::pipeline::{Pipeline, Trace};
use ragsift_engine::policy::PolicyOptions;
use ragsift_engine::{CancelToken, Error, LibraryRetriever, SearchMode};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct AskArgs {
    question: String,
    /// jev (needs TYPESAFE_API_KEY), local (the language model's yes/no readout) or none.
    /// Default: jev when TYPESAFE_API_KEY is set, else local.
    #[arg(long)]
    judge: Option<String>,
    /// Raise when the judge fails instead of answering from the unfiltered context.
    #[arg(long)]
    strict: bool,
    /// Rewrite the question for search first.
    #[arg(long)]
    rewrite: bool,
    /// Multi-query expansion: this many variants besides the original (0 = off).
    #[arg(long, default_value_t = 0)]
    variants: usize,
    #[arg(long, default_value_t = 4)]
    top_k: usize,
    #[arg(long, default_value = "vector")]
    search_mode: SearchMode,
    #[command(flatten)]
    policy: PolicyArgs,
    #[arg(long, default_value_t = 256)]
    max_tokens: u32,
    /// auto (extractive for base models, chat for instruction models), extractive or generative.
    #[arg(long, default_value = "auto")]
    answer_mode: String,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the whole trace as JSON (after the streamed answer on stderr).
    #[arg(long)]
    json: bool,
}

/// Policy options as flags; unset flags keep the base options.
#[derive(clap::Args, Default)]
pub struct PolicyArgs {
    /// classify (Spring's ordered rules), filter, rerank or filter_and_rerank.
    #[arg(long)]
    mode: Option<String>,
    /// rag-jev modes: keep chunks whose usefulness is at least this.
    #[arg(long)]
    min_relevance: Option<f32>,
    /// A classification threshold, e.g. is_relevant=0.6 (repeatable).
    #[arg(long = "threshold", value_name = "QUESTION=X")]
    thresholds: Vec<String>,
    #[arg(long)]
    top_n: Option<usize>,
    #[arg(long)]
    max_context_tokens: Option<u32>,
    /// Decide but return the original context.
    #[arg(long)]
    shadow: bool,
}

impl PolicyArgs {
    pub fn apply(&self, mut o: PolicyOptions) -> Result<PolicyOptions, Error> {
        if let Some(m) = &self.mode {
            o.mode = serde_json::from_value(serde_json::Value::String(m.clone())).map_err(|_| {
                Error::Invalid(format!(
                    "unknown mode '{m}' (classify, filter, rerank, filter_and_rerank)"
                ))
            })?;
        }
        if let Some(x) = self.min_relevance {
            o.min_relevance = Some(x);
        }
        for t in &self.thresholds {
            let (k, v) = t
                .split_once('=')
                .ok_or_else(|| Error::Invalid(format!("--threshold {t}: expected QUESTION=X")))?;
            let v: f32 = v
                .parse()
                .map_err(|_| Error::Invalid(format!("--threshold {t}: {v} is not a number")))?;
            o.thresholds.insert(k.to_string(), v);
        }
        if self.top_n.is_some() {
            o.top_n = self.top_n;
        }
        if self.max_context_tokens.is_some() {
            o.max_context_tokens = self.max_context_tokens;
        }
        o.shadow |= self.shadow;
        o.validate().map_err(Error::Invalid)?;
        Ok(o)
    }
}

pub fn ask(home: &Path, args: AskArgs) -> Result<ExitCode, Error> {
    let lib = open_library(home)?;
    let embedder = load_embedder(home, lib.settings())?;
    let model = args.model.open(home)?;
    let retriever = LibraryRetriever {
        library: &lib,
        embedder: &embedder,
    };
    let jev;
    let local;
    let judge: Option<&dyn Judge> = match args.judge.as_deref() {
        Some("none") => None,
        Some("local") => {
            local = LocalJudge::new(&embedder, Some(model.as_ref()), Some(lib.store()));
            Some(&local)
        }
        Some("jev") => {
            jev = JevJudge::from_env().ok_or_else(|| Error::Invalid("--judge jev needs TYPESAFE_API_KEY".into()))??;
            Some(&jev)
        }
        None => match JevJudge::from_env() {
            Some(j) => {
                jev = j?;
                Some(&jev)
            }
            None => {
                local = LocalJudge::new(&embedder, Some(model.as_ref()), Some(lib.store()));
                Some(&local)
            }
        },
        Some(other) => return Err(Error::Invalid(format!("unknown judge '{other}' (jev, local or none)"))),
    };
    let mut pipeline = Pipeline::new(&lib, &retriever, model.as_ref());
    pipeline.judge = judge;
    pipeline.embedder = Some(&embedder);
    let o = &mut pipeline.options;
    o.rewrite = args.rewrite;
    o.variants = args.variants;
    o.top_k = args.top_k;
    o.mode = args.search_mode;
    o.strict = args.strict;
    o.generate.max_tokens = args.max_tokens;
    o.answer_mode = serde_json::from_value(serde_json::Value::String(args.answer_mode.clone())).map_err(|_| {
        Error::Invalid(format!(
            "unknown answer mode '{}' (auto, extractive, generative)",
            args.answer_mode
        ))
    })?;
    o.policy = args.policy.apply(PolicyOptions::default())?;
    let cancel = CancelToken::new();
    let c = cancel.clone();
    let _ = ctrlc::set_handler(move || c.cancel());
    let json = args.json;
    let mut sink: Box<dyn Write> = if json {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    };
    let trace = pipeline.ask(
        &args.question,
        &[],
        &mut |p| {
            let _ = sink.write_all(p.as_bytes());
            let _ = sink.flush();
        },
        &cancel,
    )?;
    let _ = writeln!(sink);
    if json {
        print_json(&trace_json(&trace));
    } else {
        for s in &trace.sources {
            let cited = if trace.citations.contains(&s.number) { "*" } else { " " };
            println!("{cited}[{}] {} ({})", s.number, s.document, s.pages());
        }
        if trace.judge.error.is_some() {
            eprintln!("judge bypassed: {}", trace.judge.error.as_deref().unwrap_or(""));
        }
        let answered = serde_json::to_value(trace.answered_by).unwrap_or_default();
        println!(
            "answer: {}; judge: {} ({}), thresholds: {} defaults{}",
            answered.as_str().unwrap_or("?"),
            trace.judge.judge,
            trace.judge.model,
            trace.judge.defaults.source,
            if trace.judge.not_assessed.is_empty() {
                String::new()
            } else {
                format!("; not assessed: {}", trace.judge.not_assessed.join(", "))
            }
        );
        println!(
            "run {}  (ragsift runs show {0}; ragsift replay {0} --threshold is_relevant=0.6)",
            trace.run_id
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The trace with a flat per-chunk decision list (chunk, selected, reason) in front.
fn trace_json(trace: &Trace) -> serde_json::Value {
    let mut v = serde_json::to_value(trace).unwrap_or_default();
    v["decisions"] = decisions_json(trace, &trace.selection);
    v
}

fn decisions_json(trace: &Trace, selection: &ragsift_engine::policy::Selection) -> serde_json::Value {
    serde_json::Value::Array(
        selection
            .decisions
            .iter()
            .map(|d| {
                let c = &trace.candidates[d.input_index];
                serde_json::json!({
                    "chunk_id": d.chunk_id, "document": c.document, "page_start": c.page_start, "page_end": c.page_end,
                    "selected": d.selected, "reason": d.reason, "rank": d.rank, "score": d.score,
                    "scores": trace.judge.judgments.get(d.input_index).map(|j| &j.answers),
                })
            })
            .collect(),
    )
}

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
    let lib = open_library(home)?;
    match action {
        RunsAction::List { limit, json } => {
            let runs = lib.store().runs(limit)?;
            if json {
                print_json(&serde_json::json!({ "runs": runs }));
            } else {
                for r in runs {
                    println!("{}  {:<6} {}", r.id, r.judge, r.query);
                }
            }
        }
        RunsAction::Show { id } => print_json(&trace_json(&Trace::load(lib.store(), &id)?)),
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
    let lib = open_library(home)?;
    let trace = Trace::load(lib.store(), &args.id)?;
    let options = args.policy.apply(trace.policy.clone())?;
    let expected = ragsift_engine::judge::expected_prompt_version(&trace.judge.judge);
    let started = std::time::Instant::now();
    let replay = trace.replay(&options, expected.as_deref())?;
    let micros = started.elapsed().as_secs_f64() * 1e6;
    if args.json {
        let mut v = serde_json::to_value(&replay).unwrap_or_default();
        v["decisions"] = decisions_json(&trace, &replay.selection);
        v["judge_calls"] = 0.into();
        v["elapsed_us"] = micros.into();
        print_json(&v);
    } else {
        for d in &replay.selection.decisions {
            let mark = if d.selected { "keep" } else { "drop" };
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
        println!(
            "{} changed; {} selected, {} tokens; no judge call ({micros:.0} µs)",
            replay.changes.len(),
            replay.selection.selected_ids.len(),
            replay.selection.selected_tokens
        );
    }
    Ok(ExitCode::SUCCESS)
}

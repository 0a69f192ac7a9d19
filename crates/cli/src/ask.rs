//! `ragsift ask`: the judged pipeline through the workbench, streaming the answer, then its trace; and the
//! policy flags `replay` shares.

use crate::chat::ModelArgs;
use crate::print_json;
use ragsift_workbench::policy::{GroupBy, Mode, PolicyOptions};
use ragsift_workbench::{AskEvent, AskRequest, Events, JudgeKind};
use ragsift_workbench::{Error, SearchMode};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

#[derive(clap::Args)]
pub struct AskArgs {
    question: String,
    /// auto, jev, systemone, ollama, openai, local (the offline judge) or none. Default: the saved setting (auto: Jev when a key is
    /// stored in the home or in TYPESAFE_API_KEY, else local).
    #[arg(long)]
    judge: Option<JudgeKind>,
    /// What Jev is asked: spring (Spring's four filter questions and rag-jev's usefulness question), rag-jev
    /// (rag-jev's own request, usefulness only) or contextual (one request judging all candidates together).
    /// Default: the saved setting.
    #[arg(long)]
    jev_request: Option<ragsift_workbench::JevRequest>,
    /// Raise when the judge fails instead of answering from the unfiltered context.
    #[arg(long)]
    strict: bool,
    /// Rewrite the question for search first.
    #[arg(long)]
    rewrite: bool,
    /// Multi-query expansion: this many variants besides the original (0 = off). Default: the saved setting.
    #[arg(long)]
    variants: Option<u32>,
    /// Hits per variant. Default: the saved top_k.
    #[arg(long)]
    top_k: Option<u32>,
    /// vector, keyword or hybrid. Default: the saved mode.
    #[arg(long)]
    search_mode: Option<SearchMode>,
    /// Drop hits below this similarity. Default: the saved similarity_threshold.
    #[arg(long)]
    similarity_threshold: Option<f32>,
    #[command(flatten)]
    policy: PolicyArgs,
    #[arg(long)]
    max_tokens: Option<u32>,
    /// auto (extractive for base models, chat for instruction models), extractive, grounded (an instruction
    /// model's claims held to the sentences they cite; the installed answer model beside a base model) or
    /// generative. Default: the saved setting.
    #[arg(long)]
    answer_mode: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// Print the whole trace as JSON (after the streamed answer on stderr).
    #[arg(long)]
    json: bool,
    /// Also print the selection's notes: what holds for every run of this judge, such as a rule it does not
    /// assess (warnings, about this run's numbers, are always printed).
    #[arg(long)]
    verbose: bool,
}

/// Policy options as flags; unset flags keep the base options.
#[derive(clap::Args, Default)]
pub struct PolicyArgs {
    /// classify (the community JevDocumentFilter's ordered rules), jev_rerank, jev_chain (its reranker, and
    /// the two chained), decision_filter, decision_rerank, decision_chain (Spring AI 2.1's), filter, rerank,
    /// filter_and_rerank or fusion (rag-jev's).
    #[arg(long)]
    mode: Option<String>,
    /// Spring AI 2.1's failClosed (decision_filter, decision_chain): drop a passage whose classification failed.
    #[arg(long)]
    fail_closed: bool,
    /// The Spring reranker's topK (jev_rerank, jev_chain, decision_rerank, decision_chain): keep this many after
    /// sorting, unscored passages counted.
    #[arg(long)]
    rerank_top_k: Option<usize>,
    /// The Spring reranker's minimumScore: drop a scored passage below it (inclusive).
    #[arg(long)]
    minimum_score: Option<f64>,
    /// rag-jev modes: keep chunks whose usefulness is at least this.
    #[arg(long)]
    min_relevance: Option<f64>,
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
    /// Always select this chunk (repeatable); it counts first towards --top-n and the budget.
    #[arg(long = "pin", value_name = "CHUNK_ID")]
    pins: Vec<String>,
    /// Keep chunks of the same document, page or section together: none, document, page or section (a chunk
    /// before the document's first heading goes with its page).
    #[arg(long)]
    group_by: Option<String>,
}

impl PolicyArgs {
    pub fn apply(&self, mut o: PolicyOptions) -> Result<PolicyOptions, Error> {
        if let Some(m) = &self.mode {
            o.mode = serde_json::from_value(serde_json::Value::String(m.clone())).map_err(|_| {
                Error::Invalid(format!("unknown mode '{m}' ({})", Mode::ALL.map(Mode::name).join(", ")))
            })?;
            if !matches!(o.mode, Mode::Filter | Mode::FilterAndRerank) {
                // A threshold carried over from the base options does not belong to a mode without one.
                o.min_relevance = None;
            }
            // Nor do the Spring options.
            if !o.mode.reads_fail_closed() {
                o.fail_closed = false;
            }
            if !o.mode.spring_reranker() {
                (o.rerank_top_k, o.minimum_score) = (None, None);
            }
        }
        o.fail_closed |= self.fail_closed;
        if self.rerank_top_k.is_some() {
            o.rerank_top_k = self.rerank_top_k;
        }
        if self.minimum_score.is_some() {
            o.minimum_score = self.minimum_score;
        }
        if let Some(x) = self.min_relevance {
            o.min_relevance = Some(x);
        }
        for t in &self.thresholds {
            let (k, v) = t
                .split_once('=')
                .ok_or_else(|| Error::Invalid(format!("--threshold {t}: expected QUESTION=X")))?;
            let v: f64 = v
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
        for pin in &self.pins {
            if !o.pinned.contains(pin) {
                o.pinned.push(pin.clone());
            }
        }
        if let Some(g) = &self.group_by {
            o.group_by = (GroupBy::ALL.into_iter().find(|by| by.name() == g.as_str())).ok_or_else(|| {
                let names: Vec<&str> = GroupBy::ALL.iter().map(|by| by.name()).collect();
                Error::Invalid(format!("unknown --group-by '{g}' ({})", names.join(", ")))
            })?;
        }
        o.validate().map_err(Error::Invalid)?;
        Ok(o)
    }
}

/// Answers through the workbench, as the app does: the saved settings and default policy, the key file, the
/// same judge choice and events; flags override.
pub fn ask(home: &Path, args: AskArgs) -> Result<ExitCode, Error> {
    let wb = args.model.workbench(home)?;
    let mut o = wb.ask_defaults();
    o.rewrite |= args.rewrite;
    o.variants = args.variants.unwrap_or(o.variants);
    o.top_k = args.top_k.unwrap_or(o.top_k);
    o.search_mode = args.search_mode.unwrap_or(o.search_mode);
    o.similarity_threshold = args.similarity_threshold.unwrap_or(o.similarity_threshold);
    o.max_tokens = args.max_tokens.unwrap_or(o.max_tokens);
    o.judge = args.judge.unwrap_or(o.judge);
    o.jev_request = args.jev_request.unwrap_or(o.jev_request);
    o.strict = args.strict;
    if let Some(mode) = &args.answer_mode {
        o.answer_mode = serde_json::from_value(serde_json::Value::String(mode.clone())).map_err(|_| {
            Error::Invalid(format!(
                "unknown answer mode '{mode}' (auto, extractive, grounded, generative)"
            ))
        })?;
    }
    o.policy = args.policy.apply(o.policy)?;
    let job = format!("cli-ask-{}", std::process::id());
    let (w, j) = (wb.clone(), job.clone());
    let _ = ctrlc::set_handler(move || {
        w.jobs.cancel(&j);
    });
    let json = args.json;
    let _ = args.model.open(&wb)?;
    let sink: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(if json {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }));
    let out = sink.clone();
    let events: Events<AskEvent> = Arc::new(move |e| {
        if let AskEvent::Token { text } = e {
            let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
            let _ = w.write_all(text.as_bytes());
            let _ = w.flush();
        }
    });
    let request = AskRequest {
        question: args.question.clone(),
        history: Vec::new(),
        options: Some(o),
    };
    let trace = wb.ask(&request, &job, events)?;
    let mut sink = sink.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(sink);
    if json {
        print_json(&crate::out::RunOut::new(&trace));
    } else {
        for s in &trace.sources {
            let cited = if trace.citations.contains(&s.number) { "*" } else { " " };
            println!("{cited}[{}] {} ({})", s.number, s.document, s.pages());
        }
        for w in &trace.selection.warnings {
            eprintln!("warning: {}", w.message);
        }
        if args.verbose {
            for n in &trace.selection.notes {
                eprintln!("note: {}", n.message);
            }
        }
        if let Some(note) = trace.judge.unscreened_note() {
            eprintln!("judge: {note}: {}", trace.judge.error.as_deref().unwrap_or(""));
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
        let support = &trace.support;
        match support.probability {
            Some(p) => println!(
                "support: {} ({p:.2} that the quoted passage holds the answer)",
                support.words
            ),
            None => println!("support: {}", support.words),
        }
        println!(
            "run {}  (ragsift runs show {0}; ragsift replay {0} --threshold is_relevant=0.6)",
            trace.run_id
        );
    }
    Ok(ExitCode::SUCCESS)
}

//! `ragsift label` and `ragsift labels`: evidence labels kept as spans (a character range of a page of a document
//! version, per question), so they survive re-chunking.

use crate::print_json;
use ragsift_workbench::labels::SpanLabel;
use ragsift_workbench::Error;
use ragsift_workbench::Workbench;
use std::path::Path;
use std::process::ExitCode;

/// `ragsift label RUN CHUNK --relevant | --not-relevant`, or `ragsift label RUN --evidence "quoted phrase"`.
#[derive(clap::Args)]
pub struct LabelArgs {
    /// The run (id or unique prefix): its question is what the label is for.
    run: String,
    /// One of the run's candidates (id or unique prefix), labelled over its whole extent.
    #[arg(required_unless_present = "evidence")]
    chunk: Option<String>,
    /// The chunk holds relevant evidence.
    #[arg(long, conflicts_with = "not_relevant", required_unless_present_any = ["not_relevant", "evidence"])]
    relevant: bool,
    /// The chunk holds no relevant evidence.
    #[arg(long)]
    not_relevant: bool,
    /// A quoted phrase on the pages of the run's candidates, labelled as relevant evidence (case and whitespace
    /// do not matter; it must occur exactly once).
    #[arg(long, value_name = "PHRASE", conflicts_with_all = ["chunk", "relevant", "not_relevant"])]
    evidence: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Subcommand)]
pub enum LabelsAction {
    /// The labels, oldest first.
    List {
        /// Only this question's (normalised: case and whitespace do not matter).
        #[arg(long)]
        question: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The labelled questions as rag-jev eval cases (JSON on stdout): the latest run of each question, relevant
    /// ids from the spans, the spans in each document's `metadata.ragsift_spans`. `ragsift compare`, `ragsift
    /// eval` (with or without `--from-library`) and `ragsift curves` read the file as it is.
    Export {
        #[arg(long)]
        question: Option<String>,
        /// JSON (the only format; accepted for symmetry).
        #[arg(long)]
        json: bool,
    },
    /// Remove a label (id or unique prefix).
    Remove {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Set a label's polarity.
    Set {
        id: String,
        #[arg(long, conflicts_with = "not_relevant", required_unless_present = "not_relevant")]
        relevant: bool,
        #[arg(long)]
        not_relevant: bool,
        #[arg(long)]
        json: bool,
    },
}

fn line(l: &SpanLabel) -> String {
    let text: String = l.text.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = if text.chars().count() > 70 {
        format!("{}…", text.chars().take(69).collect::<String>())
    } else {
        text
    };
    format!(
        "{}  {:<12} p.{} {}–{}  {}  \"{}\"",
        l.id,
        if l.relevant { "relevant" } else { "not-relevant" },
        l.page,
        l.char_start,
        l.char_end,
        l.question,
        text
    )
}

fn show(labels: &[SpanLabel], json: bool) {
    if json {
        print_json(&crate::out::Labels { labels });
    } else {
        labels.iter().for_each(|l| println!("{}", line(l)));
    }
}

pub fn run(home: &Path, args: LabelArgs) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    let labels = match (&args.evidence, &args.chunk) {
        (Some(phrase), _) => vec![wb.label_evidence(&args.run, phrase)?],
        (None, Some(chunk)) => wb.label_chunk(&args.run, chunk, args.relevant && !args.not_relevant)?,
        (None, None) => return Err(Error::Invalid("give a chunk id, or --evidence \"phrase\"".into())),
    };
    show(&labels, args.json);
    Ok(ExitCode::SUCCESS)
}

pub fn labels(home: &Path, action: LabelsAction) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    match action {
        LabelsAction::List { question, json } => show(&wb.labels(question.as_deref())?, json),
        LabelsAction::Export { question, json: _ } => {
            let cases = wb.export_labels_as_cases(question.as_deref())?;
            print_json(&cases);
        }
        LabelsAction::Remove { id, json } => {
            let removed = wb.remove_label(&id)?;
            if json {
                print_json(&crate::out::Removed { removed: &removed });
            } else {
                println!("removed {}", line(&removed));
            }
        }
        LabelsAction::Set {
            id,
            relevant,
            not_relevant,
            json,
        } => show(&[wb.update_label(&id, relevant && !not_relevant)?], json),
    }
    Ok(ExitCode::SUCCESS)
}

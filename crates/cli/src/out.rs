//! The typed shapes of the CLI's `--json` output that are not a workbench type as it is: a run with its
//! decisions spelt out, and the small envelopes (`{"runs": …}`) around lists and counts.

use ragsift_workbench::pipeline::trace::Replay;
use ragsift_workbench::pipeline::Trace;
use ragsift_workbench::policy::{Reason, Selection};
use serde::Serialize;
use std::collections::BTreeMap;

/// A run's trace with each passage's decision beside its place and the judge's probabilities.
#[derive(Serialize)]
pub struct RunOut<'a> {
    #[serde(flatten)]
    pub trace: &'a Trace,
    pub decisions: Vec<DecisionOut<'a>>,
}

impl<'a> RunOut<'a> {
    pub fn new(trace: &'a Trace) -> Self {
        RunOut {
            trace,
            decisions: decisions(trace, &trace.selection),
        }
    }
}

/// A replay: the new selection, each decision spelt out, and proof that no judge was called.
#[derive(Serialize)]
pub struct ReplayOut<'a> {
    #[serde(flatten)]
    pub replay: &'a Replay,
    pub decisions: Vec<DecisionOut<'a>>,
    pub judge_calls: u32,
    pub elapsed_us: f64,
}

/// One passage's decision, where it is, and what the judge said of it.
#[derive(Serialize)]
pub struct DecisionOut<'a> {
    pub chunk_id: &'a str,
    pub document: &'a str,
    pub page_start: u32,
    pub page_end: u32,
    pub section: &'a [String],
    pub selected: Option<bool>,
    pub reason: Reason,
    pub rank: Option<usize>,
    pub score: Option<f64>,
    /// The judge's probability per question (absent without a judgment).
    pub scores: Option<&'a BTreeMap<String, f64>>,
}

/// Each decision of `selection` (made over `trace`'s candidates), spelt out.
pub fn decisions<'a>(trace: &'a Trace, selection: &'a Selection) -> Vec<DecisionOut<'a>> {
    (selection.decisions.iter())
        .map(|d| {
            let c = &trace.candidates[d.input_index];
            DecisionOut {
                chunk_id: &d.chunk_id,
                document: &c.document,
                page_start: c.page_start,
                page_end: c.page_end,
                section: &c.section,
                selected: d.selected,
                reason: d.reason,
                rank: d.rank,
                score: d.score,
                scores: trace.judge.judgments.get(d.input_index).map(|j| &j.scores),
            }
        })
        .collect()
}

/// `{"runs": […]}`.
#[derive(Serialize)]
pub struct Runs<T: Serialize> {
    pub runs: T,
}

/// `{"run": …}`.
#[derive(Serialize)]
pub struct Run<T: Serialize> {
    pub run: T,
}

/// `{"run_id": …, "labels": …}`.
#[derive(Serialize)]
pub struct RunLabels<'a, T: Serialize> {
    pub run_id: &'a str,
    pub labels: T,
}

/// `{"cleared": n}`.
#[derive(Serialize)]
pub struct Cleared {
    pub cleared: u32,
}

/// `{"labels": […]}`.
#[derive(Serialize)]
pub struct Labels<T: Serialize> {
    pub labels: T,
}

/// `{"removed": …}`.
#[derive(Serialize)]
pub struct Removed<T: Serialize> {
    pub removed: T,
}

/// `{"curves": […]}`.
#[derive(Serialize)]
pub struct Curves<T: Serialize> {
    pub curves: T,
}

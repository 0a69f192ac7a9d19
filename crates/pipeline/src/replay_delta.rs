//! A replay as a delta on the run's stored trace — what the app's `replay` command sends over IPC: the replayed
//! selection's summary and only what the UI cannot already read from the trace it holds. [`ReplayDelta::apply`]
//! rebuilds the full [`Replay`] (the UI does the same in `ui/src/logic/replayDelta.ts`).
//!
//! What crosses, and why:
//! - the summary (`status`, selected tokens and characters, `counts`, `policy_version`, `warnings`, `notes`):
//!   small, and Rust's answers (characters are Unicode scalar values, which JavaScript's string length is not);
//! - `decisions`: only those that differ from the stored decision of the same chunk (or whose chunk the stored
//!   selection lacks), by position and column ([`DecisionColumns`]: no chunk ids, and only the fields that
//!   changed). `rank` and `returned` are left out of the comparison, as they are derived (below): otherwise
//!   keeping one early passage would renumber, and send, every later one;
//! - `order`: the replayed decisions' chunk ids, only when they are not the stored decisions' ids in the same
//!   order (never for a run whose selection `select` made over its candidates, which is every stored run);
//! - `selected_order`: the selected decisions' positions in the decision list, in their final order, only when
//!   that is not the decision order (the reranking modes); classify and filter keep the input order;
//! - `changes` as positions ([`ChangePositions`]), and the label report, except its `baseline_ids` when they are
//!   not labelled: then the baseline is every candidate, which the trace holds, and the list is sent empty.
//!
//! Derived on the other side, as `select` makes them: `selected_ids` is the selected decisions in
//! `selected_order`, else in decision order (`None` when bypassed); a decision's `rank` is its 1-based position
//! in `selected_ids`; `returned` is true in shadow and bypass, else for the selected; `returned_ids` is
//! `selected_ids` when applied, else every decision in order (shadow and bypass return the original context).
//! A change's chunk, reasons and selected flag are read from the stored and the replayed decision.
//!
//! At 2,000 candidates, a threshold drag's far end (611 changes) crosses as ~30 KB instead of the 872 KB full
//! replay (`ragsift-bench replay`).

mod columns;
mod sweep;

use super::labels::LabelReport;
use super::trace::{Replay, Trace};
use crate::{Error, Result};
pub use columns::{ChangePositions, DecisionColumns};
use ragsift_policy::{
    same_ids_in_order, Change, Decision, IntegrityWarning, PolicyOptions, Reason, Selection, SelectionNote, Status,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
pub use sweep::{ReplaySweep, SweepStep, MAX_SWEEP_VALUES};

/// A replayed [`Selection`] less what the run's stored selection already says (see the module's notes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SelectionDelta {
    /// The replayed decisions that differ from the stored decision of their chunk (`rank` and `returned` aside),
    /// by position in the replayed list and by column.
    pub decisions: DecisionColumns,
    /// The replayed decisions' chunk ids in order, when they are not the stored ones in the stored order; `None`
    /// when they are (the stored order applies).
    pub order: Option<Vec<String>>,
    /// The selected decisions' positions in the decision list, in their final order, when that is not the
    /// decision order (the reranking modes); `None` otherwise.
    pub selected_order: Option<Vec<usize>>,
    /// Whether the selection was applied, only reported (shadow), or bypassed.
    pub status: Status,
    /// Total tokens of the selected chunks; `None` when bypassed.
    pub selected_tokens: Option<u32>,
    /// Total characters of the selected chunks; `None` when bypassed.
    pub selected_characters: Option<u32>,
    /// Number of chunks per reason; reasons that no chunk got are absent.
    pub counts: BTreeMap<Reason, usize>,
    /// The policy version of the options the selection was made with.
    pub policy_version: String,
    /// Threshold-integrity warnings.
    pub warnings: Vec<IntegrityWarning>,
    /// Notes that hold whatever the numbers (rules the judge does not assess).
    #[serde(default)]
    pub notes: Vec<SelectionNote>,
}

/// A [`Replay`] as a delta on the run's stored trace: what the app's `replay` command returns (the CLI keeps
/// the full [`Replay`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplayDelta {
    pub run_id: String,
    pub options: PolicyOptions,
    pub selection: SelectionDelta,
    /// What changed against the run's own selection, as positions in the two decision lists.
    pub changes: ChangePositions,
    /// The selection against the run's labels (`baseline_ids` empty unless labelled); `None` when the run has no
    /// labels.
    pub labels: Option<LabelReport>,
    /// How thresholds given in calibrated probability were read (empty when they were given raw).
    #[serde(default)]
    pub threshold_notes: Vec<String>,
}

impl ReplayDelta {
    /// `replay` as a delta on `trace`, the run it replayed. Refused when the replay's change list does not list
    /// the chunks of the two selections in their order (it was not made against this run).
    pub fn new(trace: &Trace, replay: Replay) -> Result<ReplayDelta> {
        let Replay {
            run_id,
            options,
            selection,
            changes,
            mut labels,
        } = replay;
        if let Some(report) = labels.as_mut().filter(|r| !r.baseline_labelled) {
            report.baseline_ids = Vec::new();
        }
        let stored = &trace.selection;
        let changes = ChangePositions::new(&changes, &stored.decisions, &selection.decisions).ok_or_else(|| {
            Error::Invalid(format!(
                "the replay's changes do not follow the selections of run {}",
                trace.run_id
            ))
        })?;
        Ok(ReplayDelta {
            run_id,
            options,
            selection: SelectionDelta::new(stored, &selection),
            changes,
            labels,
            threshold_notes: Vec::new(),
        })
    }

    /// The full replay: this delta laid over `trace`, the run it was made against. `None` when it names a chunk
    /// or position the trace has no decision for (it was made against another run).
    pub fn apply(&self, trace: &Trace) -> Option<Replay> {
        let selection = self.selection.apply(&trace.selection)?;
        Some(Replay {
            run_id: self.run_id.clone(),
            options: self.options.clone(),
            changes: changes_over(&self.changes, &trace.selection, &selection)?,
            selection,
            labels: filled_labels(&self.labels, trace),
        })
    }
}

/// The change list `positions` stand for between the `stored` selection and the replayed `selection`.
fn changes_over(positions: &ChangePositions, stored: &Selection, selection: &Selection) -> Option<Vec<Change>> {
    if same_ids_in_order(stored, selection) {
        // Pairwise: the stored decision at the same position.
        positions.changes(&stored.decisions, &selection.decisions, |i, _| Some(i))
    } else {
        let at = by_id(&stored.decisions);
        positions.changes(&stored.decisions, &selection.decisions, |_, id| at.get(id).copied())
    }
}

/// A label report as sent, with the baseline filled in where it is not labelled (every candidate of `trace`).
fn filled_labels(labels: &Option<LabelReport>, trace: &Trace) -> Option<LabelReport> {
    let mut labels = labels.clone();
    if let Some(report) = labels.as_mut().filter(|r| !r.baseline_labelled) {
        report.baseline_ids = trace.candidates.iter().map(|c| c.chunk_id.clone()).collect();
    }
    labels
}

/// Each chunk's position in `decisions`.
fn by_id(decisions: &[Decision]) -> HashMap<&str, usize> {
    decisions
        .iter()
        .enumerate()
        .map(|(i, d)| (d.chunk_id.as_str(), i))
        .collect()
}

impl SelectionDelta {
    /// `selection` less what `stored` already says.
    pub fn new(stored: &Selection, selection: &Selection) -> SelectionDelta {
        let same_order = same_ids_in_order(stored, selection);
        let order = (!same_order).then(|| selection.decisions.iter().map(|d| d.chunk_id.clone()).collect());
        let mut ranked: Vec<(usize, usize)> = (selection.decisions.iter().enumerate())
            .filter_map(|(i, d)| d.rank.map(|r| (r, i)))
            .collect();
        ranked.sort_unstable();
        let selected_order =
            (!ranked.windows(2).all(|w| w[0].1 < w[1].1)).then(|| ranked.into_iter().map(|(_, i)| i).collect());
        let before = (!same_order).then(|| by_id(&stored.decisions));
        let base = |i: usize, d: &Decision| match &before {
            // Pairwise, without hashing ids (every replay of a stored run).
            None => stored.decisions.get(i),
            Some(at) => at.get(d.chunk_id.as_str()).map(|&b| &stored.decisions[b]),
        };
        let rows: Vec<columns::Row<'_>> = (selection.decisions.iter().enumerate())
            .map(|(i, d)| (i, base(i, d), d))
            .filter(|(_, b, d)| b.is_none_or(|b| !same_but_derived(b, d)))
            .collect();
        SelectionDelta {
            decisions: DecisionColumns::new(&rows),
            order,
            selected_order,
            status: selection.status,
            selected_tokens: selection.selected_tokens,
            selected_characters: selection.selected_characters,
            counts: selection.counts.clone(),
            policy_version: selection.policy_version.clone(),
            warnings: selection.warnings.clone(),
            notes: selection.notes.clone(),
        }
    }

    /// The full selection: this delta laid over `stored` (the selection it was made against). `None` when the
    /// delta names a chunk or position that neither it nor `stored` has (it was made against another run).
    pub fn apply(&self, stored: &Selection) -> Option<Selection> {
        let before = self.order.is_some().then(|| by_id(&stored.decisions));
        let ids: Vec<&str> = match &self.order {
            None => stored.decisions.iter().map(|d| d.chunk_id.as_str()).collect(),
            Some(order) => order.iter().map(String::as_str).collect(),
        };
        let base = |i: usize, id: &str| match &before {
            None => stored.decisions.get(i),
            Some(at) => at.get(id).map(|&b| &stored.decisions[b]),
        };
        let listed = &self.decisions.at;
        let mut next = 0;
        let mut decisions: Vec<Decision> = Vec::with_capacity(ids.len());
        for (i, id) in ids.iter().enumerate() {
            if listed.get(next) == Some(&i) {
                decisions.push(self.decisions.decision(next, id, base(i, id))?);
                next += 1;
            } else {
                decisions.push(base(i, id)?.clone());
            }
        }
        if next != listed.len() {
            return None; // a position past the end, or out of order
        }
        let positions: Option<Vec<usize>> = (self.status != Status::Bypassed).then(|| match &self.selected_order {
            Some(order) => order.clone(),
            None => (decisions.iter().enumerate())
                .filter(|(_, d)| d.is_selected())
                .map(|(i, _)| i)
                .collect(),
        });
        for d in &mut decisions {
            d.rank = None;
            d.returned = self.status != Status::Applied;
        }
        for (k, &i) in positions.iter().flatten().enumerate() {
            let d = decisions.get_mut(i)?;
            d.rank = Some(k + 1);
            d.returned = true;
        }
        let selected_ids: Option<Vec<String>> =
            positions.map(|p| p.iter().map(|&i| decisions[i].chunk_id.clone()).collect());
        let returned_ids = match self.status {
            Status::Applied => selected_ids.clone().unwrap_or_default(),
            Status::Shadow | Status::Bypassed => decisions.iter().map(|d| d.chunk_id.clone()).collect(),
        };
        Some(Selection {
            decisions,
            selected_ids,
            returned_ids,
            status: self.status,
            selected_tokens: self.selected_tokens,
            selected_characters: self.selected_characters,
            counts: self.counts.clone(),
            policy_version: self.policy_version.clone(),
            warnings: self.warnings.clone(),
            notes: self.notes.clone(),
        })
    }
}

/// The same decision but for what [`SelectionDelta::apply`] derives (`rank`, `returned`). Every field is named,
/// so a new one does not compile until it is placed on one side or the other.
fn same_but_derived(a: &Decision, b: &Decision) -> bool {
    let Decision {
        chunk_id,
        input_index,
        selected,
        returned: _,
        rank: _,
        score,
        jev_rank,
        fusion_score,
        reason,
        conflicting,
        skipped_rules,
    } = a;
    *chunk_id == b.chunk_id
        && *input_index == b.input_index
        && *selected == b.selected
        && *score == b.score
        && *jev_rank == b.jev_rank
        && *fusion_score == b.fusion_score
        && *reason == b.reason
        && *conflicting == b.conflicting
        && *skipped_rules == b.skipped_rules
}

#[cfg(test)]
mod tests;

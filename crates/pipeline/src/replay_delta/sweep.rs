//! One threshold swept: a run's replays at every value of one threshold's slider, chained from the value the
//! sweep was asked at, so that a drag over that slider replays without crossing IPC per move (the app's
//! `replay_sweep` command; the UI walks the chain in `ui/src/logic/replaySweep.ts`, the mirror of
//! [`ReplaySweep::at`]). Every value's replay is the policy's, made in Rust; nothing is interpolated.
//!
//! What crosses: the anchor, the replay at the asked value as a [`ReplayDelta`] on the run's trace; then for every
//! other value a [`SweepStep`] on its neighbour toward the anchor: the [`SelectionDelta`] between the two (one step
//! of a slider moves few decisions), the positions whose change against the run's stored selection flipped, and the
//! label report. A sweep needs every value's decisions in the anchor's order (the policy keeps the input order, so
//! every replay of a run has it); the chunks the replay no longer decides (`gone`) are the anchor's throughout.

use super::{changes_over, filled_labels, ChangePositions, ReplayDelta, SelectionDelta};
use crate::labels::LabelReport;
use crate::trace::{Replay, Trace};
use crate::{Error, Result};
use ragsift_policy::{same_ids_in_order, PolicyOptions};
use serde::{Deserialize, Serialize};

/// The most values one sweep covers (a slider of 0.001 steps over [0, 1]).
pub const MAX_SWEEP_VALUES: usize = 1001;

/// A run's replays over the values of one threshold (see the module's notes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ReplaySweep {
    pub run_id: String,
    /// The threshold swept (a question key of `PolicyOptions::thresholds`).
    pub key: String,
    /// The threshold's values, as asked; every other option is the anchor's.
    pub values: Vec<f64>,
    /// The position in `values` of the value the sweep was asked at.
    pub start: usize,
    /// The replay at `values[start]`, on the run's trace.
    pub anchor: ReplayDelta,
    /// Per value, the step from its neighbour toward `start` (`None` at `start`).
    pub steps: Vec<Option<SweepStep>>,
}

/// One value of a sweep, on its neighbour toward the anchor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SweepStep {
    /// This value's selection less what the neighbour's says.
    pub selection: SelectionDelta,
    /// Positions in the decision list whose change against the run's stored selection flipped (a change there
    /// now, none at the neighbour, or the other way round), in order.
    pub toggled: Vec<usize>,
    /// The selection against the run's labels, as in [`ReplayDelta::labels`].
    pub labels: Option<LabelReport>,
}

impl ReplaySweep {
    /// The sweep of `key` over `values`, from `replays` (the replay of `trace` at each value, in order; `start` is
    /// the asked one). Refused when the replays do not fit: another count, another key value, another order.
    pub fn new(trace: &Trace, key: &str, values: Vec<f64>, start: usize, replays: Vec<Replay>) -> Result<ReplaySweep> {
        let invalid = |what: &str| Error::Invalid(format!("a sweep of {key} over run {}: {what}", trace.run_id));
        if replays.len() != values.len() || start >= values.len() {
            return Err(invalid("one replay per value, and the asked value among them"));
        }
        let anchor = &replays[start];
        for (r, v) in replays.iter().zip(&values) {
            if r.options.thresholds.get(key) != Some(v) {
                return Err(invalid("a replay was made at another value"));
            }
            if !same_ids_in_order(&anchor.selection, &r.selection) {
                return Err(invalid("the replays do not decide the same chunks in the same order"));
            }
        }
        let stored = &trace.selection.decisions;
        let flags = (replays.iter())
            .map(|r| {
                let at = ChangePositions::new(&r.changes, stored, &r.selection.decisions)
                    .ok_or_else(|| invalid("a replay's changes do not follow its selection"))?;
                let mut flags = vec![false; r.selection.decisions.len()];
                at.now.iter().for_each(|&i| flags[i] = true);
                Ok(flags)
            })
            .collect::<Result<Vec<_>>>()?;
        let steps = (0..values.len())
            .map(|i| {
                let toward = match i.cmp(&start) {
                    std::cmp::Ordering::Equal => return None,
                    std::cmp::Ordering::Less => i + 1,
                    std::cmp::Ordering::Greater => i - 1,
                };
                let (r, n) = (&replays[i], &replays[toward]);
                let toggled = (0..flags[i].len())
                    .filter(|&p| flags[i][p] != flags[toward][p])
                    .collect();
                let mut labels = r.labels.clone();
                if let Some(report) = labels.as_mut().filter(|r| !r.baseline_labelled) {
                    report.baseline_ids = Vec::new();
                }
                Some(SweepStep {
                    selection: SelectionDelta::new(&n.selection, &r.selection),
                    toggled,
                    labels,
                })
            })
            .collect();
        Ok(ReplaySweep {
            run_id: trace.run_id.clone(),
            key: key.to_string(),
            start,
            anchor: ReplayDelta::new(trace, replays.into_iter().nth(start).expect("start is a value"))?,
            values,
            steps,
        })
    }

    /// The options of the replay at `values[i]`: the anchor's with the swept threshold at that value.
    pub fn options_at(&self, i: usize) -> Option<PolicyOptions> {
        let mut options = self.anchor.options.clone();
        options.thresholds.insert(self.key.clone(), *self.values.get(i)?);
        Some(options)
    }

    /// The full replay at `values[i]`, walked from the anchor over `trace` (the run it was made for). `None` for
    /// a position past the values, or a sweep that does not fit `trace`.
    pub fn at(&self, trace: &Trace, i: usize) -> Option<Replay> {
        let anchor = self.anchor.apply(trace)?;
        let mut selection = anchor.selection;
        let mut flags = vec![false; selection.decisions.len()];
        for &p in &self.anchor.changes.now {
            *flags.get_mut(p)? = true;
        }
        let path: Vec<usize> = if i >= self.start {
            (self.start + 1..=i).collect()
        } else {
            (i..self.start).rev().collect()
        };
        let mut labels = anchor.labels;
        for k in path {
            let step = self.steps.get(k)?.as_ref()?;
            selection = step.selection.apply(&selection)?;
            for &p in &step.toggled {
                let f = flags.get_mut(p)?;
                *f = !*f;
            }
            labels = filled_labels(&step.labels, trace);
        }
        let now = (flags.iter().enumerate())
            .filter(|(_, f)| **f)
            .map(|(p, _)| p)
            .collect();
        let positions = ChangePositions {
            now,
            gone: self.anchor.changes.gone.clone(),
        };
        Some(Replay {
            run_id: self.run_id.clone(),
            options: self.options_at(i)?,
            changes: changes_over(&positions, &trace.selection, &selection)?,
            selection,
            labels,
        })
    }
}

#[cfg(test)]
mod tests;

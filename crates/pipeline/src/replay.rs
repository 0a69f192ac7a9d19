//! One loaded run's replays: a [`ReplaySession`] holds the run's trace (checked replayable once), its policy input
//! per grouping (built on the first replay that needs it), and answers every replay the Replay view and the CLI
//! ask for — the full [`Replay`], its [`ReplayDelta`] on the stored trace, and a threshold's [`ReplaySweep`] — each
//! with its label report built once, against the labels the caller gives (the run's own, or its span labels).

use crate::labels::RunLabels;
use crate::replay_delta::{ReplayDelta, ReplaySweep, MAX_SWEEP_VALUES};
use crate::trace::{Replay, Trace};
use crate::{Error, Result};
use ragsift_policy::{ChunkJudgment, GroupBy, PolicyOptions};
use std::sync::{Arc, Mutex};

/// A run loaded for replay.
pub struct ReplaySession {
    trace: Arc<Trace>,
    inputs: Mutex<Vec<(GroupBy, Arc<Vec<ChunkJudgment>>)>>,
}

impl ReplaySession {
    /// A session over `trace`, refused when its inputs no longer match its fingerprint or its judgments were made
    /// with another prompt version than `expected_prompt_version` (when given): see [`Trace::check_replayable`].
    pub fn open(trace: Arc<Trace>, expected_prompt_version: Option<&str>) -> Result<ReplaySession> {
        trace.check_replayable(expected_prompt_version)?;
        Ok(ReplaySession {
            trace,
            inputs: Mutex::new(Vec::new()),
        })
    }

    /// The run this session replays.
    pub fn trace(&self) -> &Arc<Trace> {
        &self.trace
    }

    /// The policy input for `options`' grouping, built once per grouping.
    fn input(&self, options: &PolicyOptions) -> Arc<Vec<ChunkJudgment>> {
        let mut inputs = self.inputs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, input)) = inputs.iter().find(|(g, _)| *g == options.group_by) {
            return input.clone();
        }
        let input = Arc::new(self.trace.policy_input(options));
        inputs.push((options.group_by, input.clone()));
        input
    }

    /// The run re-selected with `options`, its label report against `labels` (`None`: the run's own).
    pub fn replay(&self, options: &PolicyOptions, labels: Option<&RunLabels>) -> Result<Replay> {
        self.trace
            .reselect_with(options, |o| self.input(o), labels.unwrap_or(&self.trace.labels))
    }

    /// [`ReplaySession::replay`] as a delta on the stored trace: what the app's Replay view lays over the trace it
    /// holds.
    pub fn delta(&self, options: &PolicyOptions, labels: Option<&RunLabels>) -> Result<ReplayDelta> {
        ReplayDelta::new(&self.trace, self.replay(options, labels)?)
    }

    /// The replays at every value of one threshold, `key`, over `values` (the slider's), the other options as
    /// `options` give them, chained from the value `options` holds: a drag replays without a round trip per move.
    pub fn sweep(
        &self,
        options: &PolicyOptions,
        key: &str,
        values: Vec<f64>,
        labels: Option<&RunLabels>,
    ) -> Result<ReplaySweep> {
        let at = options.thresholds.get(key);
        let start = values.iter().position(|v| Some(v) == at).ok_or_else(|| {
            Error::Invalid(format!(
                "a sweep of {key} needs the options' own value of {key} among its values"
            ))
        })?;
        if values.len() > MAX_SWEEP_VALUES || values.iter().any(|v| !(0.0..=1.0).contains(v)) {
            return Err(Error::Invalid(format!(
                "a sweep takes at most {MAX_SWEEP_VALUES} values, each in [0, 1]"
            )));
        }
        let replays = (values.iter())
            .map(|&v| {
                let mut o = options.clone();
                o.thresholds.insert(key.to_string(), v);
                self.replay(&o, labels)
            })
            .collect::<Result<Vec<_>>>()?;
        ReplaySweep::new(&self.trace, key, values, start, replays)
    }
}

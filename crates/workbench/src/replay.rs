//! Replay of a stored run, for the Replay view and the CLI: the last run replayed is kept as a
//! [`ReplaySession`] (checked replayable once, its policy input per grouping built once), and each method is a
//! thin call on it with the run's span labels, so that a threshold's route is view → command → here → the
//! pipeline's session → the pure policy.

use crate::{Result, Workbench};
use ragsift_pipeline::replay::ReplaySession;
use ragsift_pipeline::replay_delta::{ReplayDelta, ReplaySweep};
use ragsift_pipeline::trace::Replay;
use ragsift_policy::PolicyOptions;
use std::sync::Arc;

impl Workbench {
    /// Re-selects a run's candidates with `options` from its cached judgments: no judge, no model.
    pub fn replay(&self, run_id: &str, options: &PolicyOptions) -> Result<Replay> {
        self.session(run_id)?.replay(options, None)
    }

    /// The replay session of run `id`: the last one is kept, so its replays re-select without loading the run,
    /// hashing its candidates or rebuilding its policy input.
    pub fn session(&self, id: &str) -> Result<Arc<ReplaySession>> {
        let trace = self.run(id)?;
        let mut kept = self.session.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = kept.as_ref().filter(|s| Arc::ptr_eq(s.trace(), &trace)) {
            return Ok(s.clone());
        }
        let expected = ragsift_judge::expected_prompt_version(&trace.judge.judge);
        let session = Arc::new(ReplaySession::open(trace, expected.as_deref())?);
        *kept = Some(session.clone());
        Ok(session)
    }

    /// [`Workbench::replay`] whose label report comes from the spans of the run's question when the run has no
    /// explicit relevant ids: what the Replay view calls.
    pub fn replay_labelled(&self, run_id: &str, options: &PolicyOptions) -> Result<Replay> {
        let session = self.session(run_id)?;
        session.replay(options, self.span_labels(session.trace())?.as_ref())
    }

    /// [`Workbench::replay_labelled`] as a delta on the run's stored trace (only the decisions that differ from
    /// its selection, see [`ReplayDelta`]): what the Replay view calls, as it holds the trace. With `calibrated`,
    /// `options`' thresholds are in calibrated probability and are read through the judge's stored fit first
    /// ([`Workbench::run_raw_thresholds`]; its notes come back in the delta), so the view makes one call.
    pub fn replay_delta(&self, run_id: &str, options: &PolicyOptions, calibrated: bool) -> Result<ReplayDelta> {
        let (options, notes) = if calibrated {
            let raw = self.run_raw_thresholds(run_id, options)?;
            (raw.policy, raw.notes)
        } else {
            (options.clone(), Vec::new())
        };
        let session = self.session(run_id)?;
        let mut delta = session.delta(&options, self.span_labels(session.trace())?.as_ref())?;
        delta.threshold_notes = notes;
        Ok(delta)
    }

    /// The replays of a run at every value of one threshold, `key`, over `values` (the slider's), the other
    /// options as `options` give them, chained from the value `options` holds ([`ReplaySweep`]): a drag over
    /// that slider then replays in the UI without a round trip per move.
    pub fn replay_sweep(
        &self,
        run_id: &str,
        options: &PolicyOptions,
        key: &str,
        values: Vec<f64>,
    ) -> Result<ReplaySweep> {
        let session = self.session(run_id)?;
        session.sweep(options, key, values, self.span_labels(session.trace())?.as_ref())
    }
}

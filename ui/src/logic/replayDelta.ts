// Lays the `replay` command's delta over the run's trace the UI already holds, rebuilding Rust's full Replay — the
// mirror of `ReplayDelta::apply` (crates/pipeline/src/replay_delta.rs), whose notes say what crosses IPC and what
// is derived here: a decision's rank is its position in the final order, `returned` follows the status,
// selected_ids is the selected decisions in `selected_order` (else in decision order), returned_ids is
// selected_ids when applied (else every decision), and a baseline that is not labelled is every candidate.
import type { Decision, Replay, ReplayDelta, Selection, SelectionDelta, Trace } from "../api";

/** A delta that does not fit the trace it is laid over (it was made against another run). */
export class DeltaMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeltaMismatch";
  }
}

/**
 * The full selection: `delta` laid over `stored`, the selection it was made against. Decisions the delta does not
 * name are the stored objects themselves when their rank and `returned` did not move (cheap re-renders).
 */
export function applySelectionDelta(stored: Selection, delta: SelectionDelta): Selection {
  const changed = new Map(delta.decisions.map((d) => [d.chunk_id, d]));
  let base: Decision[];
  if (delta.order === null) {
    base = stored.decisions.map((d) => changed.get(d.chunk_id) ?? d);
  } else {
    const before = new Map(stored.decisions.map((d) => [d.chunk_id, d]));
    base = delta.order.map((id) => {
      const d = changed.get(id) ?? before.get(id);
      if (!d) throw new DeltaMismatch(`the replay names chunk ${id}, which this run has no decision for`);
      return d;
    });
  }
  const positions: number[] | null = delta.status === "bypassed" ? null
    : delta.selected_order ?? base.flatMap((d, i) => (d.selected === true ? [i] : []));
  const rank = new Int32Array(base.length); // 0: not selected
  positions?.forEach((i, k) => {
    if (!(i >= 0 && i < base.length)) throw new DeltaMismatch(`the replay ranks position ${i} of ${base.length}`);
    rank[i] = k + 1;
  });
  const returnAll = delta.status !== "applied";
  const decisions = base.map((d, i) => {
    const r = rank[i] || null;
    const returned = returnAll || r !== null;
    return d.rank === r && d.returned === returned ? d : { ...d, rank: r, returned };
  });
  const selected_ids = positions === null ? null : positions.map((i) => decisions[i].chunk_id);
  return {
    decisions,
    selected_ids,
    returned_ids: returnAll ? decisions.map((d) => d.chunk_id) : [...(selected_ids ?? [])],
    status: delta.status,
    selected_tokens: delta.selected_tokens,
    selected_characters: delta.selected_characters,
    counts: delta.counts,
    policy_version: delta.policy_version,
    warnings: delta.warnings,
  };
}

/** The full replay: `delta` laid over `trace`, the run it was made for. Throws DeltaMismatch for another run's. */
export function applyReplayDelta(trace: Trace, delta: ReplayDelta): Replay {
  if (delta.run_id !== trace.run_id) throw new DeltaMismatch(`a replay of run ${delta.run_id} is not one of run ${trace.run_id}`);
  const labels = delta.labels && !delta.labels.baseline_labelled
    ? { ...delta.labels, baseline_ids: trace.candidates.map((c) => c.chunk_id) }
    : delta.labels;
  return { run_id: delta.run_id, options: delta.options, selection: applySelectionDelta(trace.selection, delta.selection), changes: delta.changes, labels };
}

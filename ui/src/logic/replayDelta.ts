// Lays the `replay` command's delta over the run's trace the UI already holds, rebuilding Rust's full Replay — the
// mirror of `ReplayDelta::apply` (crates/pipeline/src/replay_delta.rs), whose notes say what crosses IPC and what
// is derived here: a changed decision is the stored one with the delta's columns laid over it, its rank is its
// position in the final order, `returned` follows the status, selected_ids is the selected decisions in
// `selected_order` (else in decision order), returned_ids is selected_ids when applied (else every decision), a
// change is read off the two decisions at its position, and a baseline that is not labelled is every candidate.
import type { Change, ChangePositions, Decision, DecisionColumns, LabelReport, Replay, ReplayDelta, Selection, SelectionDelta, Trace } from "../api";

/** A delta that does not fit the trace it is laid over (it was made against another run). */
export class DeltaMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeltaMismatch";
  }
}

type Column = Exclude<keyof DecisionColumns, "at">;
const COLUMNS: Column[] = ["input_index", "selected", "score", "jev_rank", "fusion_score", "reason", "conflicting", "skipped_rules"];

/** The `k`-th listed decision of `columns`, of chunk `chunkId`, over `base` (the stored decision of that chunk). */
function listedDecision(columns: DecisionColumns, k: number, chunkId: string, base: Decision | undefined): Decision {
  const d: Record<string, unknown> = { ...base, chunk_id: chunkId };
  for (const c of COLUMNS) {
    const column = columns[c];
    if (column !== null) {
      if (k >= column.length) throw new DeltaMismatch(`the replay's ${c} column is short of its positions`);
      d[c] = column[k];
    } else if (!base) {
      throw new DeltaMismatch(`the replay leaves out ${c} of chunk ${chunkId}, which this run has no decision for`);
    }
  }
  return d as Decision;
}

/**
 * The full selection: `delta` laid over `stored`, the selection it was made against. Decisions the delta does not
 * list are the stored objects themselves when their rank and `returned` did not move (cheap re-renders).
 */
export function applySelectionDelta(stored: Selection, delta: SelectionDelta): Selection {
  const before = delta.order === null ? null : new Map(stored.decisions.map((d) => [d.chunk_id, d]));
  const ids = delta.order ?? stored.decisions.map((d) => d.chunk_id);
  const listed = delta.decisions.at;
  let next = 0;
  const base: Decision[] = ids.map((id, i) => {
    const own = before === null ? stored.decisions[i] : before.get(id);
    if (listed[next] === i) return listedDecision(delta.decisions, next++, id, own);
    if (!own) throw new DeltaMismatch(`the replay names chunk ${id}, which this run has no decision for`);
    return own;
  });
  if (next !== listed.length) throw new DeltaMismatch(`the replay lists positions beyond or out of ${ids.length}`);
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
    notes: delta.notes,
  };
}

/** The change list `changes` stands for between `stored` and `now` (Rust's `policy::diff`, read off by position). */
export function changesAt(changes: ChangePositions, stored: Selection, now: Selection): Change[] {
  const b = stored.decisions;
  const n = now.decisions;
  const paired = b.length === n.length && b.every((d, i) => d.chunk_id === n[i].chunk_id);
  const before = paired ? null : new Map(b.map((d) => [d.chunk_id, d]));
  const at = <T>(list: T[], i: number): T => {
    if (!(i >= 0 && i < list.length)) throw new DeltaMismatch(`the replay's change list names position ${i} of ${list.length}`);
    return list[i];
  };
  return [
    ...changes.now.map((i) => {
      const d = at(n, i);
      const was = before === null ? b[i] : before.get(d.chunk_id);
      return { chunk_id: d.chunk_id, before_reason: was?.reason ?? null, after_reason: d.reason, now_selected: d.selected === true };
    }),
    ...changes.gone.map((i) => {
      const d = at(b, i);
      return { chunk_id: d.chunk_id, before_reason: d.reason, after_reason: null, now_selected: false };
    }),
  ];
}

/** The full replay: `delta` laid over `trace`, the run it was made for. Throws DeltaMismatch for another run's. */
export function applyReplayDelta(trace: Trace, delta: ReplayDelta): Replay {
  if (delta.run_id !== trace.run_id) throw new DeltaMismatch(`a replay of run ${delta.run_id} is not one of run ${trace.run_id}`);
  const selection = applySelectionDelta(trace.selection, delta.selection);
  return { run_id: delta.run_id, options: delta.options, selection, changes: changesAt(delta.changes, trace.selection, selection),
    labels: filledLabels(trace, delta.labels) };
}

/** A label report as sent, with its baseline filled in where it is not labelled (every candidate of `trace`). */
export function filledLabels(trace: Trace, labels: LabelReport | null): LabelReport | null {
  return labels && !labels.baseline_labelled ? { ...labels, baseline_ids: trace.candidates.map((c) => c.chunk_id) } : labels;
}

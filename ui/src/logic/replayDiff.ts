import type { Change, Decision, Reason, Selection } from "../api";
import { REASONS } from "./reasons";

export type DiffRow = {
  chunk_id: string;
  input_index: number;
  now: Decision | null;
  before: Decision | null;
  /** Rust's replay reports a change for this chunk (kept/dropped or its reason differs from the run's). */
  changed: boolean;
};

export type ReasonCount = { reason: Reason; now: number; before: number };

export type SelectionDiff = {
  rows: DiffRow[];
  changed: number;
  counts: ReasonCount[];
  /** `null` on a side whose selection was bypassed (rag-jev's null: nothing selected, the original context). */
  tokens: { now: number | null; before: number | null; delta: number | null };
  characters: { now: number | null; before: number | null; delta: number | null };
  selected: { now: number | null; before: number | null };
};

function sides(now: number | null, before: number | null) {
  return { now, before, delta: now === null || before === null ? null : now - before };
}

function countOf(sel: Selection, r: Reason): number {
  const fromMap = sel.counts[r];
  if (typeof fromMap === "number") return fromMap;
  return 0;
}

/**
 * Lays a replayed selection beside the run's original one, chunk by chunk (ordered by input index). Which chunks
 * changed is Rust's answer (`Replay.changes`), not recomputed here.
 */
export function diffSelections(before: Selection, now: Selection, changes: Change[]): SelectionDiff {
  const changed = new Set(changes.map((c) => c.chunk_id));
  const b = before.decisions;
  const n = now.decisions;
  let rows: DiffRow[];
  if (b.length === n.length && b.every((d, i) => d.chunk_id === n[i].chunk_id)) {
    // The usual case (a replay of a stored run): the same chunks in the same order, paired by position.
    rows = n.map((d, i) => ({ chunk_id: d.chunk_id, input_index: d.input_index, before: b[i], now: d, changed: changed.has(d.chunk_id) }));
  } else {
    const byId = new Map<string, DiffRow>();
    for (const d of b) {
      byId.set(d.chunk_id, { chunk_id: d.chunk_id, input_index: d.input_index, before: d, now: null, changed: changed.has(d.chunk_id) });
    }
    for (const d of n) {
      const row = byId.get(d.chunk_id);
      if (row) row.now = d;
      else byId.set(d.chunk_id, { chunk_id: d.chunk_id, input_index: d.input_index, before: null, now: d, changed: changed.has(d.chunk_id) });
    }
    rows = [...byId.values()];
  }
  // Decisions come in input order: sort only when they do not (thousands of rows on every slider move).
  if (rows.some((r, i) => i > 0 && r.input_index < rows[i - 1].input_index)) rows.sort((a, b) => a.input_index - b.input_index);
  const counts = REASONS.map((reason) => ({ reason, now: countOf(now, reason), before: countOf(before, reason) })).filter(
    (c) => c.now > 0 || c.before > 0,
  );
  return {
    rows,
    changed: rows.reduce((k, r) => k + (r.changed ? 1 : 0), 0),
    counts,
    tokens: sides(now.selected_tokens, before.selected_tokens),
    characters: sides(now.selected_characters, before.selected_characters),
    selected: { now: now.selected_ids?.length ?? null, before: before.selected_ids?.length ?? null },
  };
}

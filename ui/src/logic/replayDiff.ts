import type { Decision, Reason, Selection } from "../api";
import { REASONS } from "./reasons";

export type DiffRow = {
  chunk_id: string;
  input_index: number;
  now: Decision | null;
  before: Decision | null;
  /** kept/dropped or the reason differs from the original selection. */
  changed: boolean;
};

export type ReasonCount = { reason: Reason; now: number; before: number };

export type SelectionDiff = {
  rows: DiffRow[];
  changed: number;
  counts: ReasonCount[];
  tokens: { now: number; before: number; delta: number };
  characters: { now: number; before: number; delta: number };
  selected: { now: number; before: number };
};

function countOf(sel: Selection, r: Reason): number {
  const fromMap = sel.counts[r];
  if (typeof fromMap === "number") return fromMap;
  return 0;
}

/** Compares a replayed selection with the run's original one, chunk by chunk (ordered by input index). */
export function diffSelections(before: Selection, now: Selection): SelectionDiff {
  const byId = new Map<string, DiffRow>();
  for (const d of before.decisions) {
    byId.set(d.chunk_id, { chunk_id: d.chunk_id, input_index: d.input_index, before: d, now: null, changed: true });
  }
  for (const d of now.decisions) {
    const row = byId.get(d.chunk_id);
    if (row) {
      row.now = d;
      row.changed = row.before!.reason !== d.reason || row.before!.selected !== d.selected;
    } else {
      byId.set(d.chunk_id, { chunk_id: d.chunk_id, input_index: d.input_index, before: null, now: d, changed: true });
    }
  }
  const rows = [...byId.values()].sort((a, b) => a.input_index - b.input_index);
  const counts = REASONS.map((reason) => ({ reason, now: countOf(now, reason), before: countOf(before, reason) })).filter(
    (c) => c.now > 0 || c.before > 0,
  );
  return {
    rows,
    changed: rows.filter((r) => r.changed).length,
    counts,
    tokens: { now: now.selected_tokens, before: before.selected_tokens, delta: now.selected_tokens - before.selected_tokens },
    characters: {
      now: now.selected_characters,
      before: before.selected_characters,
      delta: now.selected_characters - before.selected_characters,
    },
    selected: { now: now.selected_ids.length, before: before.selected_ids.length },
  };
}

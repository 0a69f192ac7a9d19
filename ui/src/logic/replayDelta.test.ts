import { describe, expect, it } from "vitest";
import type { Decision, DecisionColumns, LabelReport, Reason, ReplayDelta, Selection, SelectionDelta, Trace } from "../api";
import { applyReplayDelta, applySelectionDelta, DeltaMismatch } from "./replayDelta";
import { isKept } from "./reasons";

/** Decisions c0.. with these reasons, ranked 1.. in input order among the kept (as classify does). */
function decisions(reasons: Reason[]): Decision[] {
  let n = 0;
  return reasons.map((reason, i) => {
    const kept = isKept(reason);
    return {
      chunk_id: `c${i}`, input_index: i, selected: kept, returned: kept, jev_rank: null, fusion_score: null,
      rank: kept ? ++n : null, score: 0.5, reason, conflicting: false, skipped_rules: [],
    };
  });
}

function stored(reasons: Reason[]): Selection {
  const ds = decisions(reasons);
  const ids = ds.filter((d) => d.selected).map((d) => d.chunk_id);
  return { decisions: ds, selected_ids: ids, returned_ids: ids, status: "applied", selected_tokens: 10, selected_characters: 40,
    counts: {}, policy_version: "v1", warnings: [], notes: [] };
}

/** Decisions listed at their positions, every column sent (as for a chunk the stored selection lacks). */
function columns(listed: [number, Decision][]): DecisionColumns {
  const col = <K extends keyof Decision>(k: K) => listed.map(([, d]) => d[k]);
  return { at: listed.map(([i]) => i), input_index: col("input_index"), selected: col("selected"), score: col("score"),
    jev_rank: col("jev_rank"), fusion_score: col("fusion_score"), reason: col("reason"), conflicting: col("conflicting"),
    skipped_rules: col("skipped_rules") };
}

const NONE: DecisionColumns = { at: [], input_index: null, selected: null, score: null, jev_rank: null, fusion_score: null,
  reason: null, conflicting: null, skipped_rules: null };

function delta(listed: [number, Decision][], patch: Partial<SelectionDelta> = {}): SelectionDelta {
  return { decisions: columns(listed), order: null, selected_order: null, status: "applied", selected_tokens: 20, selected_characters: 80,
    counts: { retained: 2 }, policy_version: "v2", warnings: [], notes: [], ...patch };
}

const flip = (d: Decision, reason: Reason): Decision => ({ ...d, reason, selected: isKept(reason), rank: null, returned: false });

describe("applySelectionDelta", () => {
  it("keeps the stored decisions, as the same objects, when nothing changed", () => {
    const s = stored(["retained", "not_relevant", "retained"]);
    const full = applySelectionDelta(s, delta([]));
    full.decisions.forEach((d, i) => expect(d).toBe(s.decisions[i]));
    expect(full.selected_ids).toEqual(["c0", "c2"]);
    expect(full.returned_ids).toEqual(["c0", "c2"]);
    expect([full.selected_tokens, full.selected_characters, full.policy_version]).toEqual([20, 80, "v2"]);
  });
  it("lays changed decisions over the stored ones and renumbers ranks in decision order", () => {
    const s = stored(["retained", "not_relevant", "retained"]);
    const full = applySelectionDelta(s, delta([[1, flip(s.decisions[1], "retained")]]));
    expect(full.decisions.map((d) => [d.reason, d.rank, d.returned])).toEqual([["retained", 1, true], ["retained", 2, true], ["retained", 3, true]]);
    expect(full.selected_ids).toEqual(["c0", "c1", "c2"]);
    expect(full.decisions[0]).toBe(s.decisions[0]);
  });
  it("takes the final order of a reranking mode from selected_order", () => {
    const s = stored(["retained", "not_relevant", "retained"]);
    const full = applySelectionDelta(s, delta([], { selected_order: [2, 0] }));
    expect(full.selected_ids).toEqual(["c2", "c0"]);
    expect(full.decisions.map((d) => d.rank)).toEqual([2, null, 1]);
    expect(full.returned_ids).toEqual(["c2", "c0"]);
  });
  it("returns every chunk in shadow mode, the selection still ranked", () => {
    const s = stored(["retained", "not_relevant"]);
    const full = applySelectionDelta(s, delta([], { status: "shadow" }));
    expect(full.selected_ids).toEqual(["c0"]);
    expect(full.returned_ids).toEqual(["c0", "c1"]);
    expect(full.decisions.map((d) => [d.rank, d.returned])).toEqual([[1, true], [null, true]]);
  });
  it("selects nothing when bypassed and returns the original context", () => {
    const s = stored(["retained", "not_relevant"]);
    const bypassed = s.decisions.map((d, i): [number, Decision] => [i, { ...d, reason: "bypassed" as Reason, selected: null, rank: null, returned: true }]);
    const full = applySelectionDelta(s, delta(bypassed, { status: "bypassed", selected_tokens: null, selected_characters: null }));
    expect(full.selected_ids).toBeNull();
    expect(full.returned_ids).toEqual(["c0", "c1"]);
    expect(full.decisions.every((d) => d.rank === null && d.returned && d.selected === null)).toBe(true);
  });
  it("follows an explicit order, and refuses a chunk it cannot place", () => {
    const s = stored(["retained", "retained"]);
    const extra: Decision = { ...s.decisions[0], chunk_id: "new", input_index: 2 };
    const full = applySelectionDelta(s, delta([[1, extra]], { order: ["c1", "new", "c0"] }));
    expect(full.decisions.map((d) => d.chunk_id)).toEqual(["c1", "new", "c0"]);
    expect(full.selected_ids).toEqual(["c1", "new", "c0"]);
    expect(() => applySelectionDelta(s, delta([], { order: ["c0", "gone"] }))).toThrow(DeltaMismatch);
    expect(() => applySelectionDelta(s, delta([], { selected_order: [5] }))).toThrow(DeltaMismatch);
    // A new chunk must come with every column: it has no stored decision to take the others from.
    const partial = { ...delta([[1, extra]], { order: ["c1", "new", "c0"] }), decisions: { ...columns([[1, extra]]), score: null } };
    expect(() => applySelectionDelta(s, partial)).toThrow(DeltaMismatch);
  });
  it("takes absent columns from the stored decision and sent ones from the delta", () => {
    const s = stored(["retained", "not_relevant", "retained"]);
    const d = { ...delta([]), decisions: { ...NONE, at: [0, 2], reason: ["not_relevant", "not_relevant"] as Reason[], selected: [false, false] } };
    const full = applySelectionDelta(s, d);
    expect(full.decisions.map((x) => [x.chunk_id, x.reason, x.selected, x.score, x.input_index])).toEqual(
      [["c0", "not_relevant", false, 0.5, 0], ["c1", "not_relevant", false, 0.5, 1], ["c2", "not_relevant", false, 0.5, 2]]);
    expect(full.selected_ids).toEqual([]);
    expect(() => applySelectionDelta(s, { ...d, decisions: { ...d.decisions, at: [2, 0] } })).toThrow(DeltaMismatch);
    expect(() => applySelectionDelta(s, { ...d, decisions: { ...d.decisions, at: [0, 3] } })).toThrow(DeltaMismatch);
    expect(() => applySelectionDelta(s, { ...d, decisions: { ...d.decisions, reason: ["retained"] } })).toThrow(DeltaMismatch);
  });
});

describe("applyReplayDelta", () => {
  const report = (labelled: boolean): LabelReport => ({ relevant: 1, evidence_recall: 1, precision: 0.5, relevant_dropped: [], correctly_empty: null,
    baseline_ids: labelled ? ["c1"] : [], baseline_labelled: labelled, baseline_tokens: 30, selected_tokens: 20 });
  const trace = { run_id: "r", selection: stored(["retained", "not_relevant"]), candidates: [{ chunk_id: "c0" }, { chunk_id: "c1" }] } as unknown as Trace;
  const replay = (labels: LabelReport | null): ReplayDelta => ({ run_id: "r", options: {} as ReplayDelta["options"], selection: delta([]), changes: { now: [], gone: [] }, labels, threshold_notes: [] });
  it("restores a baseline that is every candidate, and keeps a labelled one", () => {
    expect(applyReplayDelta(trace, replay(report(false))).labels?.baseline_ids).toEqual(["c0", "c1"]);
    expect(applyReplayDelta(trace, replay(report(true))).labels?.baseline_ids).toEqual(["c1"]);
    expect(applyReplayDelta(trace, replay(null)).labels).toBeNull();
  });
  it("reads the changes off the two selections by position", () => {
    const flipped = { ...replay(null), selection: delta([[1, flip(trace.selection.decisions[1], "retained")]]), changes: { now: [1], gone: [] } };
    expect(applyReplayDelta(trace, flipped).changes).toEqual([{ chunk_id: "c1", before_reason: "not_relevant", after_reason: "retained", now_selected: true }]);
    expect(() => applyReplayDelta(trace, { ...flipped, changes: { now: [7], gone: [] } })).toThrow(DeltaMismatch);
  });
  it("lists a chunk the replay no longer decides, and one the run did not have", () => {
    const s = trace.selection;
    const extra: Decision = { ...s.decisions[0], chunk_id: "new", input_index: 2 };
    const d = { ...replay(null), selection: delta([[0, extra]], { order: ["new", "c0"] }), changes: { now: [0], gone: [1] } };
    expect(applyReplayDelta(trace, d).changes).toEqual([
      { chunk_id: "new", before_reason: null, after_reason: "retained", now_selected: true },
      { chunk_id: "c1", before_reason: "not_relevant", after_reason: null, now_selected: false },
    ]);
  });
  it("refuses another run's replay", () => {
    expect(() => applyReplayDelta({ ...trace, run_id: "other" }, replay(null))).toThrow(DeltaMismatch);
  });
});

import { describe, expect, it } from "vitest";
import type { Change, Decision, Reason, Selection } from "../api";
import { diffSelections } from "./replayDiff";
import { isKept, reasonTone, REASON_EXPLAIN, REASONS } from "./reasons";

function sel(reasons: Reason[], tokens = 10): Selection {
  const decisions: Decision[] = reasons.map((reason, i) => ({
    chunk_id: `c${i}`, input_index: i, selected: isKept(reason), returned: isKept(reason), jev_rank: null, fusion_score: null,
    rank: isKept(reason) ? i + 1 : null, score: 0.5, reason, conflicting: reason === "conflicting", skipped_rules: [],
  }));
  const counts: Partial<Record<Reason, number>> = {};
  for (const r of reasons) counts[r] = (counts[r] ?? 0) + 1;
  const selected = decisions.filter((d) => d.selected);
  return {
    decisions, selected_ids: selected.map((d) => d.chunk_id), returned_ids: selected.map((d) => d.chunk_id),
    status: "applied", selected_tokens: selected.length * tokens, selected_characters: selected.length * tokens * 4,
    counts, policy_version: "x", warnings: [], notes: [],
  };
}

/** Rust's replay `changes` for these chunk ids (the diff only reads which chunks changed). */
const ch = (...ids: string[]): Change[] => ids.map((chunk_id) => ({ chunk_id, before_reason: null, after_reason: null, now_selected: false }));

describe("diffSelections", () => {
  it("reports no change for identical selections", () => {
    const a = sel(["retained", "not_relevant"]);
    const d = diffSelections(a, sel(["retained", "not_relevant"]), ch());
    expect(d.changed).toBe(0);
    expect(d.rows.every((r) => !r.changed)).toBe(true);
    expect(d.tokens.delta).toBe(0);
  });
  it("marks the chunks Rust reports as changed", () => {
    const d = diffSelections(sel(["retained", "not_relevant", "no_evidence"]), sel(["not_relevant", "not_relevant", "not_relevant"]), ch("c0", "c2"));
    expect(d.rows.map((r) => r.changed)).toEqual([true, false, true]);
    expect(d.changed).toBe(2);
    expect(d.selected).toEqual({ now: 0, before: 1 });
    expect(d.tokens).toEqual({ now: 0, before: 10, delta: -10 });
  });
  it("counts reasons now vs before, omitting reasons absent from both", () => {
    const d = diffSelections(sel(["retained", "retained"]), sel(["retained", "injection"]), ch("c1"));
    expect(d.counts).toEqual([
      { reason: "retained", now: 1, before: 2 },
      { reason: "injection", now: 1, before: 0 },
    ]);
  });
  it("orders rows by input index even when decisions are ranked", () => {
    const now = sel(["retained", "retained", "retained"]);
    now.decisions.reverse();
    const d = diffSelections(sel(["retained", "retained", "retained"]), now, ch());
    expect(d.rows.map((r) => r.chunk_id)).toEqual(["c0", "c1", "c2"]);
  });
  it("keeps chunks missing on one side, as changed when Rust says so", () => {
    const before = sel(["retained"]);
    const d = diffSelections(before, sel(["retained", "retained"]), ch("c1"));
    expect(d.rows[1]).toMatchObject({ chunk_id: "c1", before: null, changed: true });
  });
});

describe("reasons", () => {
  it("has an explanation for every reason", () => {
    for (const r of REASONS) expect(REASON_EXPLAIN[r]).toMatch(/^(Kept|Dropped)/);
  });
  it("colours injection red, conflicting amber, kept green, dropped grey", () => {
    expect(reasonTone("injection")).toBe("danger");
    expect(reasonTone("conflicting")).toBe("flagged");
    expect(reasonTone("retained")).toBe("kept");
    expect(reasonTone("no_evidence")).toBe("dropped");
  });
});

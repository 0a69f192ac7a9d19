import { describe, expect, it } from "vitest";
import type { ReplayDelta, ReplaySweep, Trace } from "../api";
import raw from "./fixtures/sweep.json?raw";
import { applyReplayDelta, DeltaMismatch } from "./replayDelta";
import { createSweeps, SweepWalk } from "./replaySweep";

// Written by Rust (src-tauri/tests/bindings.rs checks it): a 24-candidate run, the sweep of is_relevant over
// 0, 0.1, …, 1 from 0.4, and Rust's replay delta at every value.
const fixture = JSON.parse(raw) as { trace: Trace; sweep: ReplaySweep; deltas: ReplayDelta[] };
const { trace, sweep, deltas } = fixture;
const want = (i: number) => applyReplayDelta(trace, deltas[i]);

describe("a sweep walked in the UI", () => {
  it("is Rust's replay at every value, whatever order the values are asked in", () => {
    const orders = [
      sweep.values.map((_, i) => i),
      sweep.values.map((_, i) => sweep.values.length - 1 - i),
      [4, 5, 6, 5, 4, 3, 2, 3, 10, 0, 7, 1, 8, 9],
    ];
    for (const keep of [16, 2, 0]) {
      for (const order of orders) {
        const walk = new SweepWalk(trace, sweep, keep);
        for (const i of order) expect(walk.at(i), `value ${sweep.values[i]}, keeping ${keep}`).toEqual(want(i));
      }
    }
    // The fixture moves something between the ends (the check is not vacuous).
    expect(want(0).selection.selected_ids).not.toEqual(want(10).selection.selected_ids);
  });

  it("refuses a sweep that does not fit the run", () => {
    expect(() => new SweepWalk({ ...trace, run_id: "another" }, sweep)).toThrow(DeltaMismatch);
    const stepAt = sweep.steps.findIndex((s) => s !== null && s.toggled.length > 0);
    const steps = sweep.steps.map((s, i) => (i === stepAt && s ? { ...s, toggled: [...s.toggled, 999] } : s));
    const walk = new SweepWalk(trace, { ...sweep, steps });
    expect(() => walk.at(stepAt)).toThrow(DeltaMismatch);
    expect(() => walk.at(11)).toThrow(DeltaMismatch);
    expect(walk.indexOf(0.45)).toBe(-1);
  });
});

describe("the sweeps a Replay view keeps", () => {
  const options = sweep.anchor.options;
  const at = (v: number, key = "is_relevant") => ({ ...options, thresholds: { ...options.thresholds, [key]: v } });
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it("answers a move of a swept threshold once its sweep has come, and nothing else", async () => {
    const asked: [string, number, number][] = [];
    const sweeps = createSweeps(trace, (o, key, values) => {
      asked.push([key, o.thresholds[key], values.length]);
      return Promise.resolve(key === "is_relevant" ? sweep : Promise.reject(new Error("not in the fixture")));
    });
    expect(sweeps.lookup("is_relevant", at(0.7))).toBeNull();
    sweeps.want(["is_relevant"], at(0.4));
    sweeps.want(["is_relevant"], at(0.5)); // asked already: the same threshold, the same other options
    await settle();
    expect(asked).toEqual([["is_relevant", 0.4, 101]]);
    expect(sweeps.lookup("is_relevant", at(0.7))).toEqual(want(7));
    expect(sweeps.lookup("is_relevant", at(0.75))).toBeNull(); // not one of the values
    expect(sweeps.lookup("contains_answer_evidence", at(0.7))).toBeNull();
    expect(sweeps.lookup("is_relevant", { ...at(0.7), top_n: 3 })).toBeNull();
    // Several thresholds are asked for one at a time; one in hand is not asked again; a value off the slider's
    // grid (a judge's default) is swept with the grid.
    sweeps.want(["is_relevant", "contains_answer_evidence"], at(0.537, "contains_answer_evidence"));
    await settle();
    expect(asked.slice(1)).toEqual([["is_relevant", 0.4, 101], ["contains_answer_evidence", 0.537, 102]]);
    sweeps.want(["is_relevant", "contains_answer_evidence"], at(0.537, "contains_answer_evidence"));
    await settle();
    // Relevance is in hand; evidence failed (the fixture has no such sweep), so it is asked again.
    expect(asked.slice(3)).toEqual([["contains_answer_evidence", 0.537, 102]]);
    sweeps.clear();
    expect(sweeps.lookup("is_relevant", at(0.7))).toBeNull();
  });

  it("sends one ask at a time, the latest wins, and an answer after a clear is dropped", async () => {
    const answers: ((s: ReplaySweep) => void)[] = [];
    const keys: string[] = [];
    const sweeps = createSweeps(trace, (_o, key) => new Promise((resolve) => { keys.push(key); answers.push(resolve); }));
    sweeps.want(["is_relevant"], at(0.4));
    sweeps.want(["contains_answer_evidence", "is_useful"], at(0.4));
    sweeps.want(["injection"], at(0.4));
    expect(keys).toEqual(["is_relevant"]);
    sweeps.clear();
    answers[0](sweep);
    await settle();
    expect(sweeps.lookup("is_relevant", at(0.7))).toBeNull();
    expect(keys).toEqual(["is_relevant"]); // the queue went with the clear
  });

  it("drops a sweep that failed, and asks again later", async () => {
    let fail = true;
    const failing = createSweeps(trace, () => (fail ? Promise.reject(new Error("dead")) : Promise.resolve(sweep)));
    failing.want(["is_relevant"], at(0.4));
    await settle();
    expect(failing.lookup("is_relevant", at(0.7))).toBeNull();
    fail = false;
    failing.want(["is_relevant"], at(0.4));
    await settle();
    expect(failing.lookup("is_relevant", at(0.7))).toEqual(want(7));
  });
});

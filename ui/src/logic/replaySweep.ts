// Walks a threshold's sweep (the `replay_sweep` command's ReplaySweep: a run's replays over every value of one
// slider, made in Rust) to the replay at any of its values — the mirror of `ReplaySweep::at`
// (crates/pipeline/src/replay_delta/sweep.rs): the anchor laid over the trace, then each step toward the value
// laid over its neighbour, the change flags flipped at its toggled positions. The values walked nearest the last
// asked are kept (at most WALKED_KEPT besides the anchor), so a drag lays one or two steps per move and a sweep
// held for long does not grow to a hundred full selections.
import type { PolicyOptions, Replay, ReplaySweep, Trace } from "../api";
import { applyReplayDelta, applySelectionDelta, changesAt, DeltaMismatch, filledLabels } from "./replayDelta";

/** The values a threshold slider takes (0 to 1 in steps of 0.01, as the input parses them): what a sweep covers. */
export const SWEEP_VALUES: number[] = Array.from({ length: 101 }, (_, i) => i / 100);

/** The slider's values with `v` (the threshold's value now, which a judge's default may place off the grid). */
export function valuesWith(v: number): number[] {
  if (SWEEP_VALUES.includes(v) || !(v >= 0 && v <= 1)) return SWEEP_VALUES;
  return [...SWEEP_VALUES, v].sort((a, b) => a - b);
}

type Walked = { replay: Replay; flags: Uint8Array };

/** How many walked values a sweep keeps besides its anchor. */
const WALKED_KEPT = 16;

/** A sweep laid over the trace it was made for; throws DeltaMismatch when it does not fit. */
export class SweepWalk {
  private readonly walked: (Walked | undefined)[];
  /** Walked values held, the anchor aside. */
  private kept = 0;

  /** `keep`: how many walked values to keep besides the anchor. */
  constructor(private readonly trace: Trace, private readonly sweep: ReplaySweep, private readonly keep = WALKED_KEPT) {
    if (sweep.run_id !== trace.run_id) throw new DeltaMismatch(`a sweep of run ${sweep.run_id} is not one of run ${trace.run_id}`);
    if (sweep.steps.length !== sweep.values.length || !(sweep.start >= 0 && sweep.start < sweep.values.length)) {
      throw new DeltaMismatch("the sweep's steps do not match its values");
    }
    const anchor = applyReplayDelta(trace, sweep.anchor);
    const flags = new Uint8Array(anchor.selection.decisions.length);
    for (const p of sweep.anchor.changes.now) flags[checked(p, flags.length)] = 1;
    this.walked = new Array(sweep.values.length);
    this.walked[sweep.start] = { replay: anchor, flags };
  }

  /** The swept threshold. */
  get key(): string {
    return this.sweep.key;
  }

  /** The position of `value` among the sweep's values; -1 when it is not one. */
  indexOf(value: number): number {
    return this.sweep.values.indexOf(value);
  }

  /** The replay at `values[i]`. */
  at(i: number): Replay {
    const { start, steps, values, anchor, key } = this.sweep;
    checked(i, values.length);
    const toward = i < start ? 1 : -1;
    const path: number[] = [];
    for (let k = i; !this.walked[k]; k += toward) path.push(k);
    for (const k of path.reverse()) {
      this.kept += 1;
      const prev = this.walked[k + toward]!;
      const step = steps[k];
      if (!step) throw new DeltaMismatch(`the sweep has no step at position ${k}`);
      const selection = applySelectionDelta(prev.replay.selection, step.selection);
      const flags = prev.flags.slice();
      for (const p of step.toggled) flags[checked(p, flags.length)] ^= 1;
      const now: number[] = [];
      flags.forEach((f, p) => { if (f) now.push(p); });
      const options: PolicyOptions = { ...anchor.options, thresholds: { ...anchor.options.thresholds, [key]: values[k]! } };
      const replay: Replay = {
        run_id: this.sweep.run_id, options, selection,
        changes: changesAt({ now, gone: anchor.changes.gone }, this.trace.selection, selection),
        labels: filledLabels(this.trace, step.labels),
      };
      this.walked[k] = { replay, flags };
    }
    const replay = this.walked[i]!.replay;
    this.forgetFarFrom(i);
    return replay;
  }

  /** Keeps the `keep` walked values nearest `i` (and the anchor). */
  private forgetFarFrom(i: number) {
    if (this.kept <= this.keep) return;
    const far = this.walked
      .flatMap((w, k) => (w && k !== this.sweep.start ? [k] : []))
      .sort((a, b) => Math.abs(b - i) - Math.abs(a - i));
    for (const k of far.slice(0, this.kept - this.keep)) this.walked[k] = undefined;
    this.kept = this.keep;
  }
}

function checked(p: number, length: number): number {
  if (!(Number.isInteger(p) && p >= 0 && p < length)) throw new DeltaMismatch(`the sweep names position ${p} of ${length}`);
  return p;
}

/** The options other than threshold `key`, as one comparable string. */
function others(options: PolicyOptions, key: string): string {
  const { [key]: _, ...rest } = options.thresholds;
  return JSON.stringify({ ...options, thresholds: rest });
}

export type Sweeps = {
  /** The replay at `options` from a sweep in hand, when it sweeps `key` with every other option as `options` has
   * it and holds `options`' value of `key`; else null (ask for a replay). */
  lookup(key: string, options: PolicyOptions): Replay | null;
  /** Asks for the sweeps of `keys` at `options` (first first, one at a time), unless in hand or asked for; asks
   * not yet sent for other keys or options are dropped (the latest ask wins). */
  want(keys: string[], options: PolicyOptions): void;
  /** Forgets the sweeps in hand and answers still to come (the labels changed). */
  clear(): void;
};

type Ask = { key: string; others: string; options: PolicyOptions };

/**
 * The sweeps a Replay view keeps, one per threshold: asked for when the view is idle (so that the next drag, of
 * whichever slider, replays without a round trip from its first move) and on the first move of a drag, and used
 * while every other option stays as it was asked with. A sweep that fails or does not fit is dropped: moves then
 * replay one by one.
 */
export function createSweeps(
  trace: Trace,
  fetch: (options: PolicyOptions, key: string, values: number[]) => Promise<ReplaySweep>,
): Sweeps {
  const held = new Map<string, { others: string; walk: SweepWalk }>();
  let inFlight: Ask | null = null;
  let queue: Ask[] = [];
  let generation = 0;
  const inHand = (a: Ask) => held.get(a.key)?.others === a.others;
  const pump = () => {
    if (inFlight) return;
    queue = queue.filter((a) => !inHand(a));
    const ask = queue.shift();
    if (!ask) return;
    inFlight = ask;
    const gen = generation;
    const done = () => {
      if (gen !== generation) return;
      inFlight = null;
      pump();
    };
    fetch(ask.options, ask.key, valuesWith(ask.options.thresholds[ask.key])).then(
      (sweep) => {
        if (gen === generation) {
          try {
            held.set(ask.key, { others: ask.others, walk: new SweepWalk(trace, sweep) });
          } catch (e) {
            console.warn("replay sweep dropped:", e);
          }
        }
        done();
      },
      (e) => {
        console.warn("replay sweep failed:", e);
        done();
      },
    );
  };
  return {
    lookup(key, options) {
      const h = held.get(key);
      if (!h || h.others !== others(options, key)) return null;
      const i = h.walk.indexOf(options.thresholds[key]);
      if (i < 0) return null;
      try {
        return h.walk.at(i);
      } catch (e) {
        console.warn("replay sweep dropped:", e);
        held.delete(key);
        return null;
      }
    },
    want(keys, options) {
      queue = keys
        .filter((key) => typeof options.thresholds[key] === "number")
        .map((key) => ({ key, others: others(options, key), options }))
        .filter((a) => !inHand(a) && !(inFlight && inFlight.key === a.key && inFlight.others === a.others));
      pump();
    },
    clear() {
      held.clear();
      queue = [];
      inFlight = null;
      generation++;
    },
  };
}

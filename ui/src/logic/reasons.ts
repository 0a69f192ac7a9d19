import type { Reason } from "../api";

import type { GroupBy, Mode, PolicyOptions } from "../api";
import { GROUP_BY_TEXTS, MODE_TEXTS, QUESTION_TEXTS, REASON_TEXTS } from "../bindings";

// Every word and number here comes from Rust (policy::reason_texts and policy::question_texts), exported into
// the generated bindings as constants; only the colours are the UI's own.

/** One sentence per reason (Reason::explain). */
export const REASON_EXPLAIN = Object.fromEntries(REASON_TEXTS.map((r) => [r.reason, r.explain])) as Record<Reason, string>;

/** Reason::ALL order. */
export const REASONS: Reason[] = REASON_TEXTS.map((r) => r.reason as Reason);

/** A few words per reason, for badges (Reason::label). */
export const REASON_LABEL = Object.fromEntries(REASON_TEXTS.map((r) => [r.reason, r.label])) as Record<Reason, string>;

const KEPT = new Set<string>(REASON_TEXTS.filter((r) => r.kept).map((r) => r.reason));

/** Reason::is_kept(). */
export function isKept(r: Reason): boolean {
  return KEPT.has(r);
}

export type Tone = "kept" | "flagged" | "dropped" | "danger";

/** Colour semantics: kept green, conflicting amber, dropped grey, injection red. */
export function reasonTone(r: Reason): Tone {
  if (r === "injection") return "danger";
  if (r === "conflicting" || r === "unscored" || r === "bypassed") return "flagged";
  return isKept(r) ? "kept" : "dropped";
}

/** The four judge questions with Spring's default thresholds, then `useful`. */
export const QUESTIONS: { key: string; label: string; short: string; threshold: number | null; direction: string }[] =
  QUESTION_TEXTS.map((q) => ({ ...q }));

export const THRESHOLD_KEYS = QUESTIONS.filter((q) => q.threshold !== null).map((q) => q.key);

/** The modes in picker order, with what they read (policy::mode_texts). */
/** The policy's groupings as the Replay view offers them, with their words (policy::group_by_texts). */
export const GROUP_BY_LABEL = Object.fromEntries(
  GROUP_BY_TEXTS.map((g) => [g.group_by, { label: g.label, explain: g.explain }]),
) as Record<GroupBy, { label: string; explain: string }>;
export const GROUP_BY: GroupBy[] = GROUP_BY_TEXTS.map((g) => g.group_by as GroupBy);

export const MODES: { value: Mode; label: string; explain: string; threshold: boolean; classifies: boolean }[] = MODE_TEXTS.map(
  (m) => ({ value: m.mode as Mode, label: m.label, explain: m.explain, threshold: m.threshold, classifies: m.classifies }),
);

/** Whether `mode` takes (and requires) a minimum relevance. */
export function takesThreshold(mode: Mode): boolean {
  return MODES.some((m) => m.value === mode && m.threshold);
}

/** The options as Rust accepts them: a minimum relevance only for the modes that take one (rag-jev refuses it
 * elsewhere); the slider keeps its value in the UI meanwhile. */
export function forWire(o: PolicyOptions): PolicyOptions {
  return takesThreshold(o.mode) ? o : { ...o, min_relevance: null };
}

import type { Reason } from "../api";

import { QUESTION_TEXTS, REASON_TEXTS } from "../bindings";

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

/** The four judge questions with Spring's default thresholds (DEFAULT_THRESHOLDS), then `useful`. */
export const QUESTIONS: { key: string; label: string; short: string; threshold: number | null; direction: string }[] =
  QUESTION_TEXTS.map((q) => ({ ...q }));

export const THRESHOLD_KEYS = QUESTIONS.filter((q) => q.threshold !== null).map((q) => q.key);

export const DEFAULT_THRESHOLDS: Record<string, number> = Object.fromEntries(
  QUESTIONS.filter((q) => q.threshold !== null).map((q) => [q.key, q.threshold as number]),
);

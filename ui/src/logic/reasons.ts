import type { Reason } from "../api";

/** Copied from Reason::explain() in crates/engine/src/policy/mod.rs. */
export const REASON_EXPLAIN: Record<Reason, string> = {
  retained: "Kept: its scores passed the selection rules.",
  below_threshold: "Dropped: its usefulness score is below the minimum relevance.",
  beyond_top_n: "Dropped: it passed the rules but ranked below the top-N cut.",
  beyond_token_budget: "Dropped: it passed the rules but the context token budget was used up.",
  pinned: "Kept: pinned, so it is selected whatever its scores and the limits.",
  group_retained: "Kept: another chunk of its group was kept, and groups stay together.",
  bypassed: "Kept: no judge scores were available, so the original context was used.",
  injection: "Dropped: it, or a chunk of its group, looks like a prompt-injection attempt.",
  conflicting: "Kept and flagged: it appears to contradict a premise of the question.",
  not_relevant: "Dropped: judged not relevant to the question.",
  no_evidence: "Dropped: relevant, but judged not to contain evidence for the answer.",
  unscored: "Kept unscreened: the judge gave it no score, so it follows the scored chunks.",
};

/** Reason::ALL order. */
export const REASONS: Reason[] = [
  "retained", "below_threshold", "beyond_top_n", "beyond_token_budget", "pinned", "group_retained",
  "bypassed", "injection", "conflicting", "not_relevant", "no_evidence", "unscored",
];

export const REASON_LABEL: Record<Reason, string> = {
  retained: "retained",
  below_threshold: "below threshold",
  beyond_top_n: "beyond top-N",
  beyond_token_budget: "beyond budget",
  pinned: "pinned",
  group_retained: "group kept",
  bypassed: "bypassed",
  injection: "injection",
  conflicting: "conflicting",
  not_relevant: "not relevant",
  no_evidence: "no evidence",
  unscored: "unscored",
};

/** Reason::is_kept(). */
export function isKept(r: Reason): boolean {
  return ["retained", "pinned", "group_retained", "bypassed", "conflicting", "unscored"].includes(r);
}

export type Tone = "kept" | "flagged" | "dropped" | "danger";

/** Colour semantics: kept green, conflicting amber, dropped grey, injection red. */
export function reasonTone(r: Reason): Tone {
  if (r === "injection") return "danger";
  if (r === "conflicting" || r === "unscored" || r === "bypassed") return "flagged";
  return isKept(r) ? "kept" : "dropped";
}

/** The four judge questions with their default thresholds (DEFAULT_THRESHOLDS), then `useful`. */
export const QUESTIONS: { key: string; label: string; short: string; threshold: number | null; direction: string }[] = [
  { key: "is_relevant", label: "Relevant", short: "rel", threshold: 0.45, direction: "dropped when below" },
  { key: "contains_answer_evidence", label: "Has evidence", short: "evi", threshold: 0.55, direction: "kept when above" },
  { key: "contradicts_query_premise", label: "Contradicts premise", short: "con", threshold: 0.7, direction: "flagged when above" },
  { key: "contains_prompt_injection", label: "Prompt injection", short: "inj", threshold: 0.7, direction: "dropped when above" },
  { key: "useful", label: "Useful", short: "use", threshold: null, direction: "filter/rerank score" },
];

export const THRESHOLD_KEYS = QUESTIONS.filter((q) => q.threshold !== null).map((q) => q.key);

export const DEFAULT_THRESHOLDS: Record<string, number> = Object.fromEntries(
  QUESTIONS.filter((q) => q.threshold !== null).map((q) => [q.key, q.threshold as number]),
);

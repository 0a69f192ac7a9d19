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
  if (r === "conflicting" || r === "unscored" || r === "bypassed" || r === "failed_kept" || r === "unscored_last") return "flagged";
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

/** Whose post-processor a mode replays (policy::ModeText::family). */
export type ModeFamily = "community" | "spring-ai-2.1" | "rag-jev";

export type ModeInfo = {
  value: Mode;
  label: string;
  explain: string;
  /** Takes (and requires) a minimum relevance: rag-jev's filter modes. */
  threshold: boolean;
  /** Reads the four classification thresholds. */
  classifies: boolean;
  /** Reads `fail_closed` (Spring AI 2.1's DecisionDocumentFilter). */
  failClosed: boolean;
  /** Reads the Spring reranker's `rerank_top_k` and `minimum_score`. */
  reranker: boolean;
  family: ModeFamily;
  /** What the mode's source leaves unpublished and which values are used instead; empty when nothing. */
  unpublished: string;
};

export const MODES: ModeInfo[] = MODE_TEXTS.map((m) => ({
  value: m.mode as Mode,
  label: m.label,
  explain: m.explain,
  threshold: m.threshold,
  classifies: m.classifies,
  failClosed: m.fail_closed,
  reranker: m.reranker,
  family: m.family as ModeFamily,
  unpublished: m.unpublished,
}));

/** The picker's groups, in order, with their headings. */
export const MODE_FAMILIES: { family: ModeFamily; label: string }[] = [
  { family: "community", label: "Spring AI community (spring-ai-typesafe)" },
  { family: "spring-ai-2.1", label: "Spring AI 2.1" },
  { family: "rag-jev", label: "rag-jev" },
];

/** What `mode` reads (a mode Rust does not list reads nothing). */
export function modeInfo(mode: Mode): ModeInfo | undefined {
  return MODES.find((m) => m.value === mode);
}

/** Whether `mode` takes (and requires) a minimum relevance. */
export function takesThreshold(mode: Mode): boolean {
  return modeInfo(mode)?.threshold ?? false;
}

/** The options as Rust accepts them: a minimum relevance only for the modes that take one (rag-jev refuses it
 * elsewhere), `fail_closed` only for Spring AI 2.1's filter, `rerank_top_k` and `minimum_score` only for the Spring
 * rerankers (Rust refuses them elsewhere); the controls keep their values in the UI meanwhile. */
export function forWire(o: PolicyOptions): PolicyOptions {
  const m = modeInfo(o.mode);
  let out = o;
  if (!m?.threshold) out = { ...out, min_relevance: null };
  if (!m?.failClosed && out.fail_closed) out = { ...out, fail_closed: false };
  // Unset is absent: Rust writes these options only when set.
  if (!m?.reranker && (out.rerank_top_k != null || out.minimum_score != null)) out = { ...out, rerank_top_k: undefined, minimum_score: undefined };
  return out;
}

/** The options a switch to `mode` starts from: Spring AI 2.1's chain as its published example configures it
 * (failClosed on, the reranker at topK 5) unless a topK is already chosen; every other mode as it is. */
export function switchMode(o: PolicyOptions, mode: Mode): PolicyOptions {
  if (mode === "decision_chain" && o.mode !== mode && o.rerank_top_k == null) return { ...o, mode, fail_closed: true, rerank_top_k: 5 };
  return { ...o, mode };
}

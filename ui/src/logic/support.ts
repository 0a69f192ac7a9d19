// How well an answer is supported, as Chat shows it: the band's words, and the number on hover.
import type { Support } from "../types";
import { fmt } from "./format";

/** Whether Chat shows a support line at all: a band, or a number without one ("support not assessed"). */
export function showsSupport(s: Support): boolean {
  return s.level !== "not_assessed" || s.probability != null;
}

/** The hover text: the probability that the quoted or cited passage holds the answer, and what it comes from. */
export function supportTitle(s: Support): string {
  if (s.probability == null) return s.words;
  const from =
    s.basis === "fitted"
      ? "fitted support model"
      : s.basis === "judge_evidence"
        ? "the judge's evidence probability"
        : "no judge probabilities";
  const about = s.source != null ? `passage [${s.source}]` : "the cited passage";
  return `Support ${fmt(s.probability, 2)}: the probability that ${about} holds the answer (${from})`;
}

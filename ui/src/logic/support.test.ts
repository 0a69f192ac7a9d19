import { describe, expect, it } from "vitest";
import type { Support } from "../types";
import { showsSupport, supportTitle } from "./support";

const base: Support = {
  probability: 0.873, level: "well", words: "well supported", basis: "fitted", source: 2, evidence: 0.9, sentence: 0.4, signals: [],
};

describe("support", () => {
  it("puts the number in the hover text", () => {
    expect(supportTitle(base)).toBe("Support 0.87: the probability that passage [2] holds the answer (fitted support model)");
    expect(supportTitle({ ...base, basis: "judge_evidence", source: null, probability: 0.4 })).toContain("0.40: the probability that the cited passage");
  });
  it("shows a number without a band, and nothing when neither exists", () => {
    expect(showsSupport({ ...base, level: "not_assessed", words: "support not assessed" })).toBe(true);
    const none = { ...base, level: "not_assessed" as const, probability: null, words: "support not assessed" };
    expect(showsSupport(none)).toBe(false);
    expect(supportTitle(none)).toBe("support not assessed");
  });
});

// The mode picker's words and what each mode sends: all from Rust's policy::mode_texts.
import { describe, expect, it } from "vitest";
import type { PolicyOptions } from "../api";
import { MODES, MODE_FAMILIES, forWire, modeInfo, reasonTone, switchMode } from "./reasons";

const base: PolicyOptions = {
  mode: "classify", thresholds: {}, min_relevance: 0.3, top_n: null, max_context_tokens: null, shadow: false,
  keep_groups_together: true, pinned: [], group_by: "none",
};

describe("modes", () => {
  it("lists the community, Spring AI 2.1 and rag-jev variants side by side", () => {
    for (const f of MODE_FAMILIES) expect(MODES.some((m) => m.family === f.family)).toBe(true);
    expect(MODES.filter((m) => m.family === "spring-ai-2.1").map((m) => m.value)).toEqual(["decision_filter", "decision_rerank", "decision_chain"]);
    expect(modeInfo("decision_filter")).toMatchObject({ failClosed: true, reranker: false, classifies: true });
    expect(modeInfo("jev_rerank")).toMatchObject({ failClosed: false, reranker: true, family: "community" });
    // 2.1 publishes no thresholds: the picker says which values are used.
    expect(modeInfo("decision_filter")!.unpublished).toContain("community");
    expect(modeInfo("classify")!.unpublished).toBe("");
  });

  it("sends each Spring option only to the modes that read it", () => {
    const set: PolicyOptions = { ...base, fail_closed: true, rerank_top_k: 5, minimum_score: 0.2 };
    expect(forWire({ ...set, mode: "decision_chain" })).toMatchObject({ fail_closed: true, rerank_top_k: 5, minimum_score: 0.2, min_relevance: null });
    const filter = forWire({ ...set, mode: "decision_filter" });
    expect(filter.fail_closed).toBe(true);
    expect(JSON.parse(JSON.stringify(filter))).not.toHaveProperty("rerank_top_k");
    expect(JSON.parse(JSON.stringify(filter))).not.toHaveProperty("minimum_score");
    expect(forWire({ ...set, mode: "jev_rerank" })).toMatchObject({ fail_closed: false, rerank_top_k: 5 });
    expect(forWire({ ...set, mode: "filter" })).toMatchObject({ fail_closed: false, rerank_top_k: undefined, min_relevance: 0.3 });
  });

  it("starts Spring AI 2.1's chain from its published example", () => {
    expect(switchMode(base, "decision_chain")).toMatchObject({ mode: "decision_chain", fail_closed: true, rerank_top_k: 5 });
    expect(switchMode({ ...base, rerank_top_k: 3 }, "decision_chain")).toMatchObject({ rerank_top_k: 3 });
    expect(switchMode(base, "decision_rerank")).toEqual({ ...base, mode: "decision_rerank" });
  });

  it("flags a passage kept though its judgment failed", () => {
    expect(reasonTone("failed_kept")).toBe("flagged");
    expect(reasonTone("failed_dropped")).toBe("dropped");
    expect(reasonTone("beyond_top_k")).toBe("dropped");
  });
});

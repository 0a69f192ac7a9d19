import { describe, expect, it } from "vitest";
import { queryWords, sentences, snippet } from "./snippet";

const text = (parts: { text: string; hit: boolean }[]) => parts.map((p) => p.text).join("");
const hits = (parts: { text: string; hit: boolean }[]) => parts.filter((p) => p.hit).map((p) => p.text);

describe("snippet", () => {
  it("keeps the question's content words", () => {
    expect([...queryWords("How many bits is the hash value Ssdeep computes?")]).toEqual(["many", "bits", "hash", "value", "ssdeep", "computes"]);
    expect(queryWords("Is port 8080 the default?").has("8080")).toBe(true);
  });

  it("splits sentences", () => {
    expect(sentences("One. Two!\nThree? four")).toEqual(["One.", "Two!", "Three?", "four"]);
  });

  it("picks the sentence sharing most question words and marks them", () => {
    const passage = "TLSH is a locality sensitive hash. Ssdeep computes a 6 bit hash value for each segment. Other text.";
    const parts = snippet(passage, "How many bits is the hash value Ssdeep computes for each segment?");
    expect(text(parts)).toBe("Ssdeep computes a 6 bit hash value for each segment.");
    expect(hits(parts)).toEqual(["Ssdeep", "computes", "hash", "value", "segment"]);
  });

  it("falls back to the first sentence and cuts long ones around the first hit", () => {
    expect(text(snippet("First line here. Second.", "unrelated words"))).toBe("First line here.");
    const long = `${"filler ".repeat(60)}the warranty lasts two years ${"more ".repeat(40)}`;
    const cut = text(snippet(long, "How long is the warranty?", 80));
    expect(cut.startsWith("…")).toBe(true);
    expect(cut).toContain("warranty");
    expect([...cut].length).toBeLessThanOrEqual(82);
  });
});

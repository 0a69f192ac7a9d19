import { describe, expect, it } from "vitest";
import type { PageChunk } from "../api";
import { codePointOffsets, splitHighlights } from "./highlight";

const ch = (id: string, s: number, e: number, index = 0): PageChunk => ({ chunk_id: id, index, char_start: s, char_end: e, boxes: [], section: [] });

describe("splitHighlights", () => {
  it("highlights a plain ASCII range", () => {
    const seg = splitHighlights("hello world", [ch("a", 6, 11)], "a");
    expect(seg).toEqual([
      { text: "hello ", target: false, chunk: -1 },
      { text: "world", target: true, chunk: -1 },
    ]);
  });
  it("uses code point offsets, not UTF-16 units (emoji)", () => {
    // "😀" is 2 UTF-16 units but one code point.
    const text = "😀😀 abc";
    expect(codePointOffsets(text)).toEqual([0, 2, 4, 5, 6, 7, 8]);
    const seg = splitHighlights(text, [ch("a", 3, 6)], "a");
    expect(seg.map((s) => s.text)).toEqual(["😀😀 ", "abc"]);
    expect(seg[1].target).toBe(true);
  });
  it("handles accents and combining marks as code points", () => {
    const text = "café ne\u0301e!"; // é precomposed, then e + U+0301
    const seg = splitHighlights(text, [ch("x", 5, 9)], "x");
    expect(seg.find((s) => s.target)!.text).toBe("ne\u0301e");
  });
  it("keeps the target whole where neighbours overlap it and delimits others", () => {
    const text = "0123456789";
    const seg = splitHighlights(text, [ch("a", 0, 4, 0), ch("b", 3, 7, 1), ch("c", 6, 10, 2)], "b");
    expect(seg).toEqual([
      { text: "012", target: false, chunk: 0 },
      { text: "3456", target: true, chunk: -1 },
      { text: "789", target: false, chunk: 2 },
    ]);
  });
  it("clamps offsets beyond the text and works without a target", () => {
    const seg = splitHighlights("abc", [ch("a", 1, 99)], null);
    expect(seg).toEqual([
      { text: "a", target: false, chunk: -1 },
      { text: "bc", target: false, chunk: 0 },
    ]);
    expect(splitHighlights("", [], null)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { citedNumbers, excerptAround, parseCitations, quotedBy } from "./citations";

describe("parseCitations", () => {
  it("splits a single marker", () => {
    expect(parseCitations("Cats purr [1].")).toEqual([
      { kind: "text", text: "Cats purr " },
      { kind: "cite", numbers: [1], raw: "[1]" },
      { kind: "text", text: "." },
    ]);
  });
  it("reads lists with and without spaces", () => {
    const s = parseCitations("a [1, 3] b [2,4]");
    expect(s.filter((x) => x.kind === "cite").map((x) => (x.kind === "cite" ? x.numbers : []))).toEqual([[1, 3], [2, 4]]);
  });
  it("keeps adjacent markers separate", () => {
    const s = parseCitations("x[2][3]");
    expect(s).toEqual([
      { kind: "text", text: "x" },
      { kind: "cite", numbers: [2], raw: "[2]" },
      { kind: "cite", numbers: [3], raw: "[3]" },
    ]);
  });
  it("ignores non-numeric brackets and empty text", () => {
    expect(parseCitations("see [a] and [ ] and [1a]")).toEqual([{ kind: "text", text: "see [a] and [ ] and [1a]" }]);
    expect(parseCitations("")).toEqual([]);
  });
  it("lists distinct numbers in order of first use", () => {
    expect(citedNumbers("[3] then [1, 3] then [2][1]")).toEqual([3, 1, 2]);
  });
});

describe("quotes", () => {
  it("leaves a source's own brackets inside a quote as text, and cites after it", () => {
    const segs = parseCitations("“The Ssdeep scheme [3, 1] is a CTPH.” [1] (p. 1)");
    expect(segs.filter((s) => s.kind === "cite").map((s) => (s.kind === "cite" ? s.numbers : []))).toEqual([[1]]);
    expect(segs[0]).toEqual({ kind: "quote", text: "“The Ssdeep scheme [3, 1] is a CTPH.”" });
    expect(citedNumbers("“see [2]” [1] and “[4]” [3]")).toEqual([1, 3]);
  });

  it("treats an unclosed quote (a streaming answer) as a quote to the end", () => {
    expect(parseCitations("“still [2] coming")).toEqual([{ kind: "quote", text: "“still [2] coming" }]);
    expect(parseCitations("plain [2]")).toEqual([{ kind: "text", text: "plain " }, { kind: "cite", numbers: [2], raw: "[2]" }]);
  });
});

describe("quoted sentences in sources", () => {
  it("finds each quote's source and the quote in its passage", () => {
    const by = quotedBy("“The window is five bytes wide.” [2] (p. 2) and “Keys are hashed…” [1, 2]");
    expect(by.get(2)).toEqual(["The window is five bytes wide.", "Keys are hashed"]);
    expect(by.get(1)).toEqual(["Keys are hashed"]);
    const x = excerptAround("Intro text. The window is\nfive bytes wide. More.", "The window is five bytes wide.", 6);
    expect(x).toEqual({ before: "…text. ", quote: "The window is\nfive bytes wide.", after: " More." });
    expect(excerptAround("nothing here", "absent")).toBeNull();
  });
});

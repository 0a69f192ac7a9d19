import { describe, expect, it } from "vitest";
import type { PageBox } from "../api";
import { boxesOnPage, boxPercent, boxStyle, otherBoxPages, overlayBoxes, sectionPath } from "./pageBoxes";

const box = (page: number, x0: number, y0: number, x1: number, y1: number): PageBox => ({ page, x0, y0, x1, y1 });

describe("boxPercent", () => {
  it("turns fractions of the page into percentages from the top-left corner", () => {
    expect(boxPercent(box(1, 0.1, 0.25, 0.6, 0.5))).toEqual({ left: 10, top: 25, width: 50, height: 25 });
  });
  it("has no float noise in the percentages", () => {
    // 0.7 - 0.4 = 0.29999999999999993 in floats.
    const p = boxPercent(box(1, 0.4, 0.123, 0.7, 0.456))!;
    expect(p).toEqual({ left: 40, top: 12.3, width: 30, height: 33.3 });
  });
  it("clamps to the page (0..100%)", () => {
    expect(boxPercent(box(1, -0.2, -0.05, 1.3, 1.01))).toEqual({ left: 0, top: 0, width: 100, height: 100 });
    expect(boxPercent(box(1, 0.9, 0.5, 1.5, 0.6))).toEqual({ left: 90, top: 50, width: 10, height: 10 });
  });
  it("puts swapped corners in order", () => {
    expect(boxPercent(box(1, 0.6, 0.5, 0.1, 0.25))).toEqual({ left: 10, top: 25, width: 50, height: 25 });
  });
  it("drops boxes with no area on the page or with coordinates that are not numbers", () => {
    expect(boxPercent(box(1, 0.2, 0.3, 0.2, 0.5))).toBeNull();
    expect(boxPercent(box(1, 1.1, 0.3, 1.4, 0.5))).toBeNull();
    expect(boxPercent(box(1, -0.5, -0.3, -0.1, 0.5))).toBeNull();
    expect(boxPercent(box(1, Number.NaN, 0.3, 0.4, 0.5))).toBeNull();
    expect(boxPercent(box(1, 0.1, 0.3, Number.POSITIVE_INFINITY, 0.5))).toBeNull();
  });
});

describe("boxesOnPage / overlayBoxes", () => {
  const boxes = [box(3, 0.1, 0.8, 0.5, 0.95), box(4, 0.1, 0.05, 0.5, 0.2), box(4, 0.52, 0.05, 0.9, 0.3), box(5, 0.1, 0, 0.5, 0.1)];
  it("keeps only the boxes of the page shown (pages from 1)", () => {
    expect(boxesOnPage(boxes, 4)).toEqual([boxes[1], boxes[2]]);
    expect(overlayBoxes(boxes, 4)).toEqual([
      { left: 10, top: 5, width: 40, height: 15 },
      { left: 52, top: 5, width: 38, height: 25 },
    ]);
  });
  it("ignores boxes of other pages", () => {
    expect(overlayBoxes(boxes, 1)).toEqual([]);
    expect(otherBoxPages(boxes, 4)).toEqual([3, 5]);
    expect(otherBoxPages([boxes[2], boxes[0], boxes[0]], 4)).toEqual([3]);
  });
  it("has nothing to overlay for a chunk ingested before positions were kept", () => {
    expect(overlayBoxes([], 1)).toEqual([]);
    expect(overlayBoxes(undefined, 1)).toEqual([]);
    expect(overlayBoxes(null, 1)).toEqual([]);
    expect(otherBoxPages(undefined, 1)).toEqual([]);
  });
  it("leaves degenerate boxes out", () => {
    expect(overlayBoxes([box(2, 0.3, 0.3, 0.3, 0.4), box(2, 0.1, 0.1, 0.2, 0.2)], 2)).toEqual([{ left: 10, top: 10, width: 10, height: 10 }]);
  });
});

describe("boxStyle", () => {
  it("is CSS percentages", () => {
    expect(boxStyle({ left: 10, top: 12.3, width: 50, height: 0.5 })).toEqual({ left: "10%", top: "12.3%", width: "50%", height: "0.5%" });
  });
});

describe("sectionPath", () => {
  it("joins the heading path", () => {
    expect(sectionPath(["3 Method", "3.2 Training"])).toBe("3 Method › 3.2 Training");
  });
  it("is empty without headings", () => {
    expect(sectionPath([])).toBe("");
    expect(sectionPath(undefined)).toBe("");
    expect(sectionPath(["", "  "])).toBe("");
  });
});

import { describe, expect, it } from "vitest";
import { rowOffsets, visibleRange } from "./virtual";

describe("rowOffsets", () => {
  it("sums heights into row starts and the total", () => {
    expect([...rowOffsets(3, (i) => [10, 20, 30][i])]).toEqual([0, 10, 30, 60]);
    expect([...rowOffsets(0, () => 10)]).toEqual([0]);
  });
});

describe("visibleRange", () => {
  const fixed = rowOffsets(2000, () => 25);
  it("renders the rows in view plus overscan at the top", () => {
    expect(visibleRange(fixed, 0, 100, 0)).toEqual({ start: 0, end: 4 });
    expect(visibleRange(fixed, 0, 100, 3)).toEqual({ start: 0, end: 7 });
  });
  it("follows the scroll position", () => {
    // 1000 px down: rows 40..43 fill the viewport exactly.
    expect(visibleRange(fixed, 1000, 100, 0)).toEqual({ start: 40, end: 44 });
    // 1010 px down: row 40 partly at the top, row 44 partly at the bottom.
    expect(visibleRange(fixed, 1010, 100, 2)).toEqual({ start: 38, end: 47 });
  });
  it("clamps at the end and past it", () => {
    expect(visibleRange(fixed, 49_900, 100, 4)).toEqual({ start: 1992, end: 2000 });
    expect(visibleRange(fixed, 80_000, 100, 4)).toEqual({ start: 1995, end: 2000 });
  });
  it("treats a header still in view as negative top", () => {
    expect(visibleRange(fixed, -30, 100, 0)).toEqual({ start: 0, end: 4 });
  });
  it("handles measured, uneven heights", () => {
    const uneven = rowOffsets(6, (i) => (i === 2 ? 200 : 20));
    // Row 2 spans 40..240: a viewport at 100..150 shows only it.
    expect(visibleRange(uneven, 100, 50, 0)).toEqual({ start: 2, end: 3 });
    // 230..260 overlaps the end of row 2 and row 3 (240..260).
    expect(visibleRange(uneven, 230, 30, 0)).toEqual({ start: 2, end: 4 });
  });
  it("renders at least one row of a non-empty list, none of an empty one", () => {
    expect(visibleRange(fixed, 0, 0, 0).end).toBeGreaterThan(0);
    expect(visibleRange(rowOffsets(0, () => 1), 0, 100, 5)).toEqual({ start: 0, end: 0 });
  });
});

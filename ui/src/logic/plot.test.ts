import { describe, expect, it } from "vitest";
import { linearScale, linePath, niceTicks, sweepGeometry } from "./plot";

describe("plot geometry", () => {
  it("maps a domain onto a range, inverted for y", () => {
    const y = linearScale([0, 1], [200, 0]);
    expect(y(0)).toBe(200);
    expect(y(1)).toBe(0);
    expect(y(0.25)).toBe(150);
  });
  it("makes nice ticks", () => {
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0, 10, 5)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0.05, 0.95, 4)).toEqual([0.2, 0.4, 0.6, 0.8]);
    expect(niceTicks(3, 3)).toEqual([3]);
  });
  it("breaks paths at missing values", () => {
    expect(linePath([0, 10, 20, 30], [1, null, 3, 4])).toBe("M0.0,1.0M20.0,3.0L30.0,4.0");
    expect(linePath([], [])).toBe("");
  });
  it("builds sweep geometry sorted by threshold within the plot box", () => {
    const g = sweepGeometry(
      [
        { threshold: 0.5, precision: 0.8, evidence_recall: 0.5, selected_mean: 2 },
        { threshold: 0.1, precision: 0.4, evidence_recall: 1, selected_mean: 5 },
        { threshold: 0.9, precision: 1, evidence_recall: null, selected_mean: 0 },
      ],
      400, 200, { top: 10, right: 10, bottom: 30, left: 40 },
    );
    expect(g.dots.map((d) => d.point.threshold)).toEqual([0.1, 0.5, 0.9]);
    expect(g.precision.startsWith("M")).toBe(true);
    expect(g.precision.split("L")).toHaveLength(3);
    expect(g.recall.split("L")).toHaveLength(2);
    expect(g.xTicks[0]).toMatchObject({ value: 0, pos: 40, label: "0" });
    expect(g.xTicks[g.xTicks.length - 1]).toMatchObject({ value: 1, pos: 390 });
    expect(g.yTicks.find((t) => t.value === 1)!.pos).toBe(10);
    for (const d of g.dots) {
      expect(d.x).toBeGreaterThanOrEqual(40);
      expect(d.x).toBeLessThanOrEqual(390);
    }
  });
});

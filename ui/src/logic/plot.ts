import type { SweepPoint } from "../api";

export type Scale = { (v: number): number; domain: [number, number]; range: [number, number] };

export function linearScale(domain: [number, number], range: [number, number]): Scale {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const span = d1 - d0 || 1;
  const f = ((v: number) => r0 + ((v - d0) / span) * (r1 - r0)) as Scale;
  f.domain = domain;
  f.range = range;
  return f;
}

/** "Nice" tick values (1, 2, 5 × 10^k steps) covering [min, max], about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm >= 7.07 ? 10 : norm >= 3.16 ? 5 : norm >= 1.41 ? 2 : 1) * mag;
  const start = Math.ceil(min / step - 1e-9) * step;
  const out: number[] = [];
  for (let v = start; v <= max + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

export function formatTick(v: number): string {
  return Number(v.toFixed(2)).toString();
}

/** SVG path through the points; null values break the line (a new "M"). */
export function linePath(xs: number[], ys: (number | null)[]): string {
  let d = "";
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    const y = ys[i];
    if (y == null || !Number.isFinite(y)) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${xs[i].toFixed(1)},${y.toFixed(1)}`;
    pen = true;
  }
  return d;
}

export type SweepGeometry = {
  width: number;
  height: number;
  plot: { left: number; top: number; right: number; bottom: number };
  xTicks: { value: number; pos: number; label: string }[];
  yTicks: { value: number; pos: number; label: string }[];
  precision: string;
  recall: string;
  dots: { x: number; precision: number; recall: number | null; point: SweepPoint }[];
};

/** Geometry of the threshold sweep plot: x = threshold, y = precision / evidence recall in [0, 1]. */
export function sweepGeometry(
  points: SweepPoint[],
  width = 560,
  height = 300,
  margin = { top: 16, right: 16, bottom: 44, left: 52 },
): SweepGeometry {
  const sorted = [...points].sort((a, b) => a.threshold - b.threshold);
  const plot = { left: margin.left, top: margin.top, right: width - margin.right, bottom: height - margin.bottom };
  const xmin = sorted.length ? Math.min(0, sorted[0].threshold) : 0;
  const xmax = sorted.length ? Math.max(1, sorted[sorted.length - 1].threshold) : 1;
  const x = linearScale([xmin, xmax], [plot.left, plot.right]);
  const y = linearScale([0, 1], [plot.bottom, plot.top]);
  const xs = sorted.map((p) => x(p.threshold));
  return {
    width,
    height,
    plot,
    xTicks: niceTicks(xmin, xmax, 5).map((v) => ({ value: v, pos: x(v), label: formatTick(v) })),
    yTicks: niceTicks(0, 1, 5).map((v) => ({ value: v, pos: y(v), label: formatTick(v) })),
    precision: linePath(xs, sorted.map((p) => y(p.precision))),
    recall: linePath(xs, sorted.map((p) => (p.evidence_recall == null ? null : y(p.evidence_recall)))),
    dots: sorted.map((p, i) => ({
      x: xs[i],
      precision: y(p.precision),
      recall: p.evidence_recall == null ? null : y(p.evidence_recall),
      point: p,
    })),
  };
}

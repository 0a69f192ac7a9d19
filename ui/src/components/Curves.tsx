import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../api";
import type { Curve, CurvePoint, Mode, PolicyOptions } from "../api";
import { fmt, fmtInt, fmtPct } from "../logic/format";

const W = 560;
const H = 260;
const M = { top: 16, right: 16, bottom: 40, left: 48 };

/** Evidence recall against context tokens for one curve; the run's setting is ringed; a click picks a point. */
function CurvePlot(props: { curve: Curve; onPick: (p: CurvePoint) => void }) {
  const pts = props.curve.points;
  const maxT = Math.max(1, ...pts.map((p) => p.context_tokens));
  const x = (t: number) => M.left + (t / maxT) * (W - M.left - M.right);
  const y = (r: number) => H - M.bottom - r * (H - M.top - M.bottom);
  const drawn = pts.map((p, i) => ({ p, i, cx: x(p.context_tokens), cy: y(p.evidence_recall ?? 0) }));
  const path = drawn.filter((d) => d.p.evidence_recall !== null).sort((a, b) => a.cx - b.cx)
    .map((d, k) => `${k ? "L" : "M"}${d.cx.toFixed(1)},${d.cy.toFixed(1)}`).join("");
  return (
    <svg class="sweep-plot curve-plot" data-testid="curve-plot" viewBox={`0 0 ${W} ${H}`} role="img"
      aria-label={`Evidence recall against context tokens as ${props.curve.parameter} varies`}>
      <rect class="plot-bg" x={M.left} y={M.top} width={W - M.left - M.right} height={H - M.top - M.bottom} />
      {[0, 0.25, 0.5, 0.75, 1].map((r) => (
        <g key={r}><line class="grid" x1={M.left} x2={W - M.right} y1={y(r)} y2={y(r)} /><text class="tick" x={M.left - 6} y={y(r) + 4} text-anchor="end">{fmtPct(r)}</text></g>
      ))}
      {[0, 0.5, 1].map((f) => (
        <text key={f} class="tick" x={x(f * maxT)} y={H - M.bottom + 16} text-anchor="middle">{fmtInt(f * maxT)}</text>
      ))}
      <text class="axis-label" x={(W + M.left) / 2} y={H - 6} text-anchor="middle">context tokens</text>
      <text class="axis-label" transform={`translate(12 ${(H - M.bottom + M.top) / 2}) rotate(-90)`} text-anchor="middle">evidence recall</text>
      <path class="line line-recall" d={path} />
      {drawn.map((d) => (
        <circle key={d.i} class={`dot dot-recall curve-point${d.i === props.curve.current ? " current" : ""}`} cx={d.cx} cy={d.cy}
          r={d.i === props.curve.current ? 6 : 4} data-testid="curve-point" data-value={d.p.value} data-current={d.i === props.curve.current ? "true" : "false"}
          tabIndex={0} onClick={() => props.onPick(d.p)} onKeyDown={(e) => { if (e.key === "Enter") props.onPick(d.p); }}>
          <title>{`${props.curve.parameter} ${fmt(d.p.value, 2)}: recall ${d.p.evidence_recall === null ? "n/a" : fmtPct(d.p.evidence_recall)}, precision ${fmt(d.p.precision, 2)}, ${fmtInt(d.p.context_tokens)} tokens`}</title>
        </circle>
      ))}
    </svg>
  );
}

/** The run's operating curves (from its cached judgments and labels); picking a point sets its policy. `version`
 * changes when the labels do. */
export function OperatingCurves(props: { runId: string; mode: Mode; version: number; onPick: (o: PolicyOptions) => void }) {
  const [curves, setCurves] = useState<Curve[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string>("");
  useEffect(() => {
    let live = true;
    api.runCurves([props.runId]).then((c) => { if (live) { setCurves(c); setProblem(null); } },
      (e) => { if (live) { setCurves(null); setProblem(e instanceof Error ? e.message : String(e)); } });
    return () => { live = false; };
  }, [props.runId, props.version]);
  const forMode = useMemo(() => (curves ?? []).filter((c) => c.mode === props.mode), [curves, props.mode]);
  const curve = forMode.find((c) => c.parameter === chosen) ?? forMode[0];
  // Not an error: the curves wait for labels (one quiet line; the reason on hover).
  if (problem) return <div class="muted small" data-testid="curves-unavailable" title={problem}>Operating curves appear once passages are labelled.</div>;
  if (!curve) return null;
  return (
    <div class="panel curves" data-testid="operating-curves">
      <div class="panel-head"><h3>Operating curve</h3>
        <select class="input input-inline" data-testid="curve-parameter" value={curve.parameter} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
          {forMode.map((c) => <option key={c.parameter} value={c.parameter}>{c.parameter.replace(/_/g, " ")}</option>)}
        </select>
        <span class="muted small">evidence recall against context tokens; the ringed point is the run's own setting; click a point to replay with it</span></div>
      <CurvePlot curve={curve} onPick={(p) => props.onPick(p.options)} />
    </div>
  );
}

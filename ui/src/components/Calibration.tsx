import { useState } from "preact/hooks";
import { api } from "../api";
import type { CalibrationMetrics, CalibrationView, IntervalView, JudgeKind, ScoringStrategy } from "../api";
import { fmt, fmtInt, fmtPct } from "../logic/format";
import { go, policyRequest } from "../state";
import { useJob } from "../useJob";
import { ErrorBanner } from "./common";
import { JudgeOptions } from "./JudgeOptions";

/** "0.2 0.35 0.5" → numbers; null when any entry is not a number. */
function numbers(s: string): number[] | null {
  const parts = s.split(/[\s,]+/).filter(Boolean).map(Number);
  return parts.every(Number.isFinite) ? parts : null;
}

function Interval(props: { label: string; v: IntervalView | null; pct?: boolean; testid: string }) {
  const v = props.v;
  const f = (x: number) => (props.pct ? `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} pts` : `${x >= 0 ? "+" : ""}${fmt(x, 1)}`);
  return (
    <tr data-testid={props.testid}>
      <th scope="row">{props.label}</th>
      <td class="num">{v ? f(v.delta) : "—"}</td>
      <td class="num">{v && v.low !== null && v.high !== null ? `${f(v.low)} to ${f(v.high)}` : "too few units"}</td>
      <td class="num">{v ? `${v.questions} / ${v.independent_units}` : "—"}</td>
    </tr>
  );
}

function MetricCells(props: { m: CalibrationMetrics | null }) {
  const m = props.m;
  return (
    <>
      <td class="num">{m?.evidence_recall == null ? "—" : fmtPct(m.evidence_recall)}</td>
      <td class="num">{m?.precision == null ? "—" : fmt(m.precision, 3)}</td>
      <td class="num">{m?.context_tokens == null ? "—" : fmtInt(m.context_tokens)}</td>
      <td class="num">{m?.documents == null ? "—" : fmt(m.documents, 1)}</td>
    </>
  );
}

/** rag-jev's calibrate: choose a policy on development cases, freeze it, then confirm it on held-out ones. */
export function Calibration(props: { browse: (set: (s: string) => void) => void }) {
  const [dev, setDev] = useState("");
  const [heldOut, setHeldOut] = useState("");
  const [report, setReport] = useState("");
  const [traces, setTraces] = useState("");
  const [judge, setJudge] = useState<JudgeKind>("jev");
  const [scoring, setScoring] = useState<ScoringStrategy>("contextual");
  const [cutoffs, setCutoffs] = useState("0.2 0.35 0.5");
  const [topNs, setTopNs] = useState("3 5 8");
  const [budget, setBudget] = useState("");
  const [minRecall, setMinRecall] = useState(0.98);
  const [view, setView] = useState<CalibrationView | null>(null);
  const { job, error, setError, run: runJob } = useJob();
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const run = async (e: Event) => {
    e.preventDefault();
    const c = numbers(cutoffs);
    const n = numbers(topNs);
    const b = budget.trim() === "" ? null : Number.parseInt(budget, 10);
    if (!dev.trim() || !heldOut.trim() || !report.trim()) return setProblem("Choose the development and held-out cases, and where the report goes.");
    if (!c || !n) return setProblem("Cutoffs and top-Ns are lists of numbers, e.g. 0.2 0.35 0.5.");
    if (b !== null && !(b >= 1)) return setProblem("The token budget is a positive number, or empty for none.");
    setProblem(null);
    setSaved(null);
    await runJob("Calibrating", async (id) => {
      setView(await api.calibrate({
        development: dev.trim(), evaluation: heldOut.trim(), report: report.trim(), traces_path: traces.trim() || null, judge, scoring,
        cutoffs: c, top_ns: n, max_context_tokens: b, min_recall: minRecall,
      }, id));
    });
  };

  const path = (id: string, label: string, value: string, set: (s: string) => void, placeholder: string) => (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="inline">
        <input id={id} class="input" data-testid={id} value={value} placeholder={placeholder} onInput={(e) => set((e.target as HTMLInputElement).value)} />
        <button type="button" class="btn" onClick={() => props.browse(set)}>Browse…</button>
      </div>
    </div>
  );

  return (
    <div class="panel calibration" data-testid="calibration">
      <div class="panel-head"><h2>Calibrate a policy</h2>
        <span class="muted small">The choice is made on development cases only and written to disk before any held-out case is scored; held-out differences come with a paired bootstrap 95% interval (2,000 draws, resampled by family).</span></div>
      <form class="eval-form" onSubmit={run}>
        {path("cal-dev", "Development cases", dev, setDev, "/path/to/dev.json")}
        {path("cal-heldout", "Held-out cases", heldOut, setHeldOut, "/path/to/heldout.json")}
        {path("cal-report", "Report (the frozen choice is written next to it; nothing is overwritten)", report, setReport, "/path/to/report.json")}
        {path("cal-traces", "Saved traces covering both splits (optional: no judge call)", traces, setTraces, "traces.json")}
        <div class="field-row">
          <div class="field"><label for="cal-judge">Judge</label>
            <select id="cal-judge" class="input" value={judge} onChange={(e) => setJudge((e.target as HTMLSelectElement).value as JudgeKind)}><JudgeOptions value={judge} exclude={["auto", "none"]} /></select></div>
          <div class="field"><label for="cal-scoring">Scoring</label>
            <select id="cal-scoring" class="input" value={scoring} onChange={(e) => setScoring((e.target as HTMLSelectElement).value as ScoringStrategy)}><option value="contextual">contextual</option><option value="independent">independent</option></select></div>
          <div class="field"><label for="cal-cutoffs">Cutoffs</label><input id="cal-cutoffs" class="input" value={cutoffs} onInput={(e) => setCutoffs((e.target as HTMLInputElement).value)} /></div>
          <div class="field"><label for="cal-topns">Top-Ns</label><input id="cal-topns" class="input" value={topNs} onInput={(e) => setTopNs((e.target as HTMLInputElement).value)} /></div>
          <div class="field"><label for="cal-budget">Token budget</label><input id="cal-budget" class="input input-num" placeholder="none" value={budget} onInput={(e) => setBudget((e.target as HTMLInputElement).value)} /></div>
          <div class="field"><label for="cal-recall">Min dev recall</label><input id="cal-recall" class="input input-num" type="number" step={0.01} min={0} max={1} value={minRecall} onInput={(e) => setMinRecall(Number((e.target as HTMLInputElement).value))} /></div>
          {job ? <button type="button" class="btn btn-danger" onClick={() => api.cancel(job).catch(() => {})}>Cancel</button>
            : <button type="submit" class="btn btn-primary" data-testid="cal-run">Calibrate</button>}
        </div>
        {problem && <div class="field-msg" role="alert">{problem}</div>}
        {job && <div class="stage-line"><span class="spinner" aria-hidden="true" /> Calibrating…</div>}
      </form>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {view && (
        <div class="calibration-results">
          <h3>Development grid <span class="muted small">({view.development_questions} questions; eligible: recall ≥ {fmtPct(view.min_recall)}; chosen: fewest context tokens)</span></h3>
          <table class="table compact" data-testid="cal-grid">
            <thead><tr><th>Policy</th><th class="num">Recall</th><th class="num">Precision</th><th class="num">Tokens</th><th class="num">Passages</th><th>Eligible</th></tr></thead>
            <tbody>{view.grid.map((g) => (
              <tr key={g.version} class={g.chosen ? "row-kept" : ""} data-chosen={g.chosen ? "true" : "false"}>
                <td>{g.label}{g.chosen && <strong> — frozen</strong>}</td><MetricCells m={g.development} /><td>{g.eligible ? "yes" : "no"}</td>
              </tr>
            ))}</tbody>
          </table>
          <div class="frozen" data-testid="cal-frozen">
            {view.frozen_policy ? <>Frozen choice: <strong>{view.frozen_label}</strong> <span class="muted small">written to {view.frozen_path} (freeze {view.freeze_hash.slice(0, 12)})</span>{" "}
              <button type="button" class="btn btn-small" onClick={() => { policyRequest.value = view.frozen_policy; go("replay"); }}>Apply in Replay</button>{" "}
              <button type="button" class="btn btn-small" onClick={() => api.saveDefaultPolicy(view.frozen_policy!).then(() => setSaved("Saved as the default policy."), setError)}>Save as default policy</button>
              {saved && <span class="ok small" role="status"> {saved}</span>}</>
              : <span class="flagged">No policy chosen: {view.reason}</span>}
          </div>
          <h3>Held-out <span class="muted small">({view.evaluation_questions} questions, scored after the freeze)</span></h3>
          <table class="table compact" data-testid="cal-heldout">
            <thead><tr><th>Policy</th><th class="num">Recall</th><th class="num">Precision</th><th class="num">Tokens</th><th class="num">Passages</th></tr></thead>
            <tbody>
              <tr><td>baseline</td><MetricCells m={view.held_out_baseline} /></tr>
              <tr><td>frozen{view.frozen_label ? `: ${view.frozen_label}` : ""}</td><MetricCells m={view.held_out_frozen} /></tr>
            </tbody>
          </table>
          <table class="table compact" data-testid="cal-intervals">
            <thead><tr><th>Frozen − baseline</th><th class="num">Mean difference</th><th class="num">95% interval</th><th class="num">Questions / units</th></tr></thead>
            <tbody>
              <Interval label="Context tokens" v={view.context_token_difference} testid="cal-interval-tokens" />
              <Interval label="Evidence recall" v={view.evidence_recall_difference} pct testid="cal-interval-recall" />
            </tbody>
          </table>
          <div class="muted small">Report: {view.report_path}</div>
        </div>
      )}
    </div>
  );
}

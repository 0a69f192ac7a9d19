import { CompareJudgesPanel } from "../components/CompareJudges";
import { useState } from "preact/hooks";
import { api } from "../api";
import { EVAL_DEFAULTS, EVAL_LIMITS } from "../bindings";
import type { EvalPolicy, EvalView, JudgeKind, ScoringStrategy, Summary, Sweep } from "../api";
import { Empty, ErrorBanner } from "../components/common";
import { fmt, fmtInt } from "../logic/format";
import { sweepGeometry } from "../logic/plot";
import { useJob } from "../useJob";
import { Calibration } from "../components/Calibration";
import { JudgeCalibrationPanel, LabelList } from "../components/JudgeCalibration";
import { ComparePanel } from "../components/Compare";
import { JudgeOptions } from "../components/JudgeOptions";

const POLICIES: EvalPolicy[] = ["baseline", "filter", "rerank", "filter_and_rerank", "fusion"];
const METRICS: { key: keyof Summary; label: string; int?: boolean; pct?: boolean }[] = [
  { key: "precision", label: "Precision" },
  { key: "evidence_recall", label: "Evidence recall" },
  { key: "ndcg", label: "nDCG" },
  { key: "correctly_empty", label: "Correctly empty", pct: true },
  { key: "all_evidence_lost", label: "All evidence lost", pct: true },
  { key: "relevant_dropped", label: "Relevant dropped" },
  { key: "documents", label: "Passages" },
  { key: "characters", label: "Characters", int: true },
  { key: "context_tokens", label: "Context tokens", int: true },
];

export function SweepPlot(props: { sweep: Sweep }) {
  const g = sweepGeometry(props.sweep.points, 560, 320, { top: 36, right: 16, bottom: 44, left: 52 });
  const { plot } = g;
  return (
    <svg class="sweep-plot" data-testid="sweep-plot" viewBox={`0 0 ${g.width} ${g.height}`} role="img"
      aria-label={`Precision and evidence recall against the ${props.sweep.policy} threshold`}>
      <rect class="plot-bg" x={plot.left} y={plot.top} width={plot.right - plot.left} height={plot.bottom - plot.top} />
      {g.yTicks.map((t) => (
        <g key={`y${t.value}`}>
          <line class="grid" x1={plot.left} x2={plot.right} y1={t.pos} y2={t.pos} />
          <text class="tick" x={plot.left - 6} y={t.pos + 4} text-anchor="end">{t.label}</text>
        </g>
      ))}
      {g.xTicks.map((t) => (
        <g key={`x${t.value}`}>
          <line class="grid" x1={t.pos} x2={t.pos} y1={plot.top} y2={plot.bottom} />
          <text class="tick" x={t.pos} y={plot.bottom + 16} text-anchor="middle">{t.label}</text>
        </g>
      ))}
      <line class="axis" x1={plot.left} x2={plot.right} y1={plot.bottom} y2={plot.bottom} />
      <line class="axis" x1={plot.left} x2={plot.left} y1={plot.top} y2={plot.bottom} />
      <text class="axis-label" x={(plot.left + plot.right) / 2} y={g.height - 6} text-anchor="middle">min relevance threshold</text>
      <text class="axis-label" transform={`translate(14 ${(plot.top + plot.bottom) / 2}) rotate(-90)`} text-anchor="middle">score</text>
      <path class="line line-precision" d={g.precision} />
      <path class="line line-recall" d={g.recall} />
      {g.dots.map((d, i) => (
        <g key={i}>
          <circle class="dot dot-precision" cx={d.x} cy={d.precision} r={2.5}><title>{`threshold ${d.point.threshold}: precision ${fmt(d.point.precision, 3)}`}</title></circle>
          {d.recall != null && <circle class="dot dot-recall" cx={d.x} cy={d.recall} r={2.5}><title>{`threshold ${d.point.threshold}: recall ${fmt(d.point.evidence_recall, 3)}`}</title></circle>}
        </g>
      ))}
      <g class="legend" transform={`translate(${plot.left} 16)`}>
        <line class="line line-precision" x1={0} x2={18} y1={0} y2={0} /><text x={24} y={4}>precision</text>
        <line class="line line-recall" x1={100} x2={118} y1={0} y2={0} /><text x={124} y={4}>evidence recall</text>
      </g>
    </svg>
  );
}

export function Evaluation() {
  const [casesPath, setCasesPath] = useState("");
  const [tracesPath, setTracesPath] = useState("");
  // The starting values are the workbench's (EVAL_DEFAULTS), and so are the bounds it checks (EVAL_LIMITS).
  const [fromLibrary, setFromLibrary] = useState<boolean>(EVAL_DEFAULTS.from_library);
  const [judge, setJudge] = useState<JudgeKind>(EVAL_DEFAULTS.judge);
  const [scoring, setScoring] = useState<ScoringStrategy>(EVAL_DEFAULTS.scoring);
  const [minRel, setMinRel] = useState<number>(EVAL_DEFAULTS.min_relevance);
  const [topN, setTopN] = useState("");
  const [topK, setTopK] = useState<number>(EVAL_DEFAULTS.top_k);
  const [result, setResult] = useState<EvalView | null>(null);
  const { job, error, setError, run: runJob } = useJob();
  const [formError, setFormError] = useState<string | null>(null);

  const browse = async (set: (s: string) => void) => {
    try {
      const { open } = await import("@tauri-apps/plugin-dialog");
      const r = await open({ multiple: false, directory: false, filters: [{ name: "JSON", extensions: ["json", "jsonl"] }] });
      if (typeof r === "string") set(r);
    } catch (e) {
      setFormError(`The file dialog is unavailable: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const run = async (e: Event) => {
    e.preventDefault();
    // Only what the form must turn into numbers is checked here; the workbench checks the values themselves.
    const n = topN.trim() === "" ? null : Number(topN);
    if (n !== null && !Number.isInteger(n)) return setFormError("Top-N must be a whole number, or empty for off.");
    if (!Number.isInteger(topK)) return setFormError("Top-k must be a whole number.");
    if (!Number.isFinite(minRel)) return setFormError("Min relevance must be a number.");
    setFormError(null);
    await runJob("Evaluating", async (id) => {
      setResult(await api.evaluate({ cases_path: casesPath.trim(), traces_path: tracesPath.trim() || null, from_library: fromLibrary, top_k: topK, judge, scoring, min_relevance: minRel, top_n: n }, id));
    });
  };

  const r = result?.report;
  return (
    <section class="view view-eval" data-testid="view-eval" aria-label="Evaluation">
      <header class="view-head"><h1>Evaluation</h1></header>
      <form class="panel eval-form" onSubmit={run}>
        <div class="field">
          <label for="eval-cases">Cases file (rag-jev format)</label>
          <div class="inline">
            <input id="eval-cases" class="input" data-testid="eval-cases" value={casesPath} onInput={(e) => setCasesPath((e.target as HTMLInputElement).value)} placeholder="/path/to/cases.json" />
            <button type="button" class="btn" onClick={() => browse(setCasesPath)}>Browse…</button>
          </div>
        </div>
        <div class="field">
          <label for="eval-traces">Saved traces (optional)</label>
          <div class="inline">
            <input id="eval-traces" class="input" data-testid="eval-traces" value={tracesPath} onInput={(e) => setTracesPath((e.target as HTMLInputElement).value)} placeholder="scores cached by rag-jev eval --save-traces" />
            <button type="button" class="btn" onClick={() => browse(setTracesPath)}>Browse…</button>
          </div>
        </div>
        <div class="field-row">
          <label class="check"><input type="checkbox" checked={fromLibrary} onChange={(e) => setFromLibrary((e.target as HTMLInputElement).checked)} /> candidates from the library</label>
          <div class="field"><label for="eval-judge">Judge</label>
            <select id="eval-judge" class="input" value={judge} onChange={(e) => setJudge((e.target as HTMLSelectElement).value as JudgeKind)}><JudgeOptions value={judge} exclude={["none"]} autoLabel="auto (Jev with a key, else local)" /></select></div>
          <div class="field"><label for="eval-scoring">Jev scoring</label>
            <select id="eval-scoring" class="input" value={scoring} disabled={judge === "local"} onChange={(e) => setScoring((e.target as HTMLSelectElement).value as ScoringStrategy)}><option value="independent">independent (per passage)</option><option value="contextual">contextual (one request per case)</option></select></div>
          <div class="field"><label for="eval-topk">Top-k</label><input id="eval-topk" class="input input-num" type="number" min={1} max={EVAL_LIMITS.top_k_max} value={topK} onInput={(e) => setTopK(Number((e.target as HTMLInputElement).value))} /></div>
          <div class="field"><label for="eval-minrel">Min relevance</label><input id="eval-minrel" class="input input-num" type="number" step={0.05} min={0} max={1} value={minRel} onInput={(e) => setMinRel(Number((e.target as HTMLInputElement).value))} /></div>
          <div class="field"><label for="eval-topn">Top-N</label><input id="eval-topn" class="input input-num" type="number" min={1} max={EVAL_LIMITS.top_n_max} placeholder="off" value={topN} onInput={(e) => setTopN((e.target as HTMLInputElement).value)} /></div>
          {job ? <button type="button" class="btn btn-danger" onClick={() => api.cancel(job).catch(() => {})}>Cancel</button>
            : <button type="submit" class="btn btn-primary" data-testid="eval-run">Run</button>}
        </div>
        {formError && <div class="field-msg" role="alert">{formError}</div>}
        {job && <div class="stage-line"><span class="spinner" aria-hidden="true" /> Evaluating…</div>}
      </form>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {!r ? (
        !job && <Empty>Run an evaluation to compare baseline, filter, rerank and filter + rerank on your cases.</Empty>
      ) : (
        <div class="eval-results">
          <div class="panel">
            <div class="panel-head"><h2>Metrics by policy</h2><span class="muted small">{r.cases} cases · min relevance {r.min_relevance} · top-N {r.top_n ?? "off"} · {fmtInt(r.usage.input_tokens)} / {fmtInt(r.usage.output_tokens)} scoring tokens · p95 {fmt(r.scoring_p95_ms, 0)} ms</span></div>
            <table class="table" data-testid="eval-metrics">
              <thead><tr><th>Metric</th>{POLICIES.map((p) => <th key={p} class="num">{p.replace(/_/g, " ")}</th>)}</tr></thead>
              <tbody>{METRICS.map((m) => (
                <tr key={m.key}><th scope="row">{m.label}</th>{POLICIES.map((p) => {
                  const v = r.summary[p][m.key];
                  return <td key={p} class="num">{v == null ? "—" : m.int ? fmtInt(v) : m.pct ? `${(v * 100).toFixed(0)}%` : fmt(v, 3)}</td>;
                })}</tr>
              ))}</tbody>
            </table>
            <div class="muted small">{r.recall_scope} · context size in {r.context_size_unit}</div>
          </div>
          <div class="panel sweep-panel">
            <div class="panel-head"><h2>Threshold sweep ({result!.sweep.policy.replace(/_/g, " ")})</h2></div>
            <div class="sweep-layout">
              <SweepPlot sweep={result!.sweep} />
              <table class="table compact">
                <thead><tr><th class="num">Threshold</th><th class="num">Precision</th><th class="num">Recall</th><th class="num">Selected</th></tr></thead>
                <tbody>{result!.sweep.points.map((p) => (
                  <tr key={p.threshold}><td class="num">{fmt(p.threshold, 2)}</td><td class="num">{fmt(p.precision, 3)}</td><td class="num">{fmt(p.evidence_recall, 3)}</td><td class="num">{fmt(p.selected_mean, 1)}</td></tr>
                ))}</tbody>
              </table>
            </div>
          </div>
        </div>
      )}
      <JudgeCalibrationPanel />
      <CompareJudgesPanel />
      <LabelList />
      <Calibration browse={(set) => void browse(set)} />
      <ComparePanel browse={(set) => void browse(set)} />
    </section>
  );
}

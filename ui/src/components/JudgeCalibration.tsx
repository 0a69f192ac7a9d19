import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { JudgeCalibrationReport, JudgeKind, QuestionCalibration, ReliabilityBin, SpanLabel } from "../api";
import { fmt } from "../logic/format";
import { ErrorBanner } from "./common";
import { labelsVersion } from "../state";
import { JudgeOptions } from "./JudgeOptions";

const S = 180;
const PAD = 24;

/** A reliability diagram: predicted probability (x) against observed frequency (y), dot area ∝ count. */
function Reliability(props: { bins: ReliabilityBin[]; label: string; testid: string }) {
  const at = (v: number) => PAD + v * (S - 2 * PAD);
  const up = (v: number) => S - PAD - v * (S - 2 * PAD);
  const most = Math.max(1, ...props.bins.map((b) => b.n));
  return (
    <svg class="sweep-plot reliability" data-testid={props.testid} viewBox={`0 0 ${S} ${S}`} role="img" aria-label={props.label}>
      <rect class="plot-bg" x={PAD} y={PAD} width={S - 2 * PAD} height={S - 2 * PAD} />
      <line class="grid" x1={at(0)} y1={up(0)} x2={at(1)} y2={up(1)} />
      {props.bins.map((b, i) => (
        <circle key={i} class="dot dot-recall" cx={at(b.p_mean)} cy={up(b.frac_positive)} r={2 + 5 * Math.sqrt(b.n / most)}>
          <title>{`predicted ${fmt(b.p_mean, 2)}, observed ${fmt(b.frac_positive, 2)} (n=${b.n})`}</title>
        </circle>
      ))}
      <text class="tick" x={S / 2} y={S - 6} text-anchor="middle">{props.label}</text>
    </svg>
  );
}

function Question(props: { k: string; q: QuestionCalibration }) {
  const q = props.q;
  return (
    <div class="calibration-question" data-testid="judge-calibration-question" data-method={q.method}>
      <div><strong>{props.k}</strong> <span class="muted small">n={q.n} · AUC {fmt(q.auc, 3)} · Brier {fmt(q.brier_raw, 4)} → {fmt(q.brier_calibrated, 4)} · fit: {q.method}</span></div>
      {q.note && <div class="muted small">{q.note}</div>}
      <div class="inline">
        <Reliability bins={q.bins} label="before" testid="reliability-before" />
        <Reliability bins={q.bins_calibrated} label="after (out of fold)" testid="reliability-after" />
      </div>
    </div>
  );
}

/** Fits each judge's probabilities to the labels (Platt or isotonic, by cross-validated Brier) and shows the
 * reliability before and after; runs then show the calibrated probability beside the raw one. */
export function JudgeCalibrationPanel() {
  const [kind, setKind] = useState<JudgeKind>("auto");
  const [report, setReport] = useState<JudgeCalibrationReport | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setReport(await api.calibrateJudge(kind));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="panel" data-testid="judge-calibration">
      <div class="panel-head"><h2>Judge calibration</h2><span class="muted small">from your labels: does the judge's 0.7 mean 70%?</span></div>
      <div class="inline">
        <select class="input" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as JudgeKind)}>
          <JudgeOptions value={kind} exclude={["none"]} autoLabel="every judge" />
        </select>
        <button type="button" class="btn btn-primary" data-testid="calibrate-judge" disabled={busy} onClick={() => void run()}>Calibrate from labels</button>
      </div>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {report && (
        <div data-testid="judge-calibration-report">
          <div class="muted small">{report.runs_labelled} labelled of {report.runs_read} runs{report.stored ? ` · fits stored in ${report.stored}` : " · nothing stored"}</div>
          {report.judges.length === 0 && <div class="muted">No labelled run for this judge yet: label passages in the Inspector or Page view first.</div>}
          {report.judges.map((j) => (
            <div key={`${j.judge}/${j.model}/${j.prompt_version}`}>
              <h3>{j.judge} <span class="muted small">{j.model} · {j.prompt_version} · {j.runs} runs</span></h3>
              {Object.entries(j.questions).map(([k, q]) => <Question key={k} k={k} q={q} />)}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

/** Every span label, by question: what it quotes, relevant or not; editable and removable. */
export function LabelList() {
  const [labels, setLabels] = useState<SpanLabel[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () => api.labels(null).then(setLabels, setError);
  useEffect(() => { void load(); }, [labelsVersion.value]);
  const act = (p: Promise<unknown>) => p.then(() => { labelsVersion.value++; return load(); }, setError);
  return (
    <div class="panel" data-testid="label-list">
      <div class="panel-head"><h2>Labels</h2><span class="muted small">spans of pages, per question: they survive re-chunking</span>
        <button type="button" class="btn btn-small" onClick={() => void load()}>Refresh</button></div>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {labels && labels.length === 0 && <div class="muted small">No labels yet.</div>}
      {labels && labels.length > 0 && (
        <table class="table compact">
          <thead><tr><th>Question</th><th>Evidence</th><th>Page</th><th>Label</th><th /></tr></thead>
          <tbody>{labels.map((l) => (
            <tr key={l.id} data-testid="label-row">
              <td>{l.question}</td><td class="passage" title={l.text}>{l.text.slice(0, 120)}</td><td class="num">{l.page}</td>
              <td><button type="button" class="btn btn-small" onClick={() => act(api.updateLabel(l.id, !l.relevant))}>{l.relevant ? "relevant" : "not relevant"}</button></td>
              <td><button type="button" class="btn btn-small btn-ghost" onClick={() => act(api.removeLabel(l.id))}>Remove</button></td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </div>
  );
}

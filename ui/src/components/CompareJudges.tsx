// Compare judges: one run judged again by another model (a new run), and two runs side by side per question —
// Cohen's κ of their yes/no readings, where they disagree, and each judge's accuracy against the run's labels.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { JudgeChoice, JudgeComparison, JudgeKind, RunSummary } from "../api";
import { fmt } from "../logic/format";
import { ErrorBanner } from "./common";

export function CompareJudgesPanel() {
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [choices, setChoices] = useState<JudgeChoice[]>([]);
  const [a, setA] = useState("");
  const [b, setB] = useState("");
  const [kind, setKind] = useState<JudgeKind>("local");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<JudgeComparison | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = () => api.runs(50).then(setRuns, setError);
  useEffect(() => {
    void load();
    api.judgeChoices().then((c) => setChoices(c.filter((x) => x.kind !== "auto" && x.kind !== "none")), setError);
  }, []);

  const compare = async (left: string, right: string) => {
    try {
      setResult(await api.compareJudges(left, right));
      setError(null);
    } catch (err) {
      setError(err);
    }
  };
  const rejudge = async () => {
    setBusy(true);
    try {
      const trace = await api.rejudgeRun(a, kind);
      await load();
      setB(trace.run_id);
      await compare(a, trace.run_id);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const label = (r: RunSummary) => `${r.id.slice(0, 8)} · ${r.judge} · ${r.query.slice(0, 60)}`;

  return (
    <div class="panel" data-testid="compare-judges">
      <div class="panel-head"><h2>Compare judges</h2><span class="muted small">one run, two models: agreement per question (Cohen's κ at 0.5)</span></div>
      <div class="field-row">
        <div class="field"><label for="cj-a">Run A</label>
          <select id="cj-a" class="input" data-testid="cj-a" value={a} onChange={(e) => setA((e.target as HTMLSelectElement).value)}>
            <option value="">choose a run</option>{runs.map((r) => <option key={r.id} value={r.id}>{label(r)}</option>)}
          </select></div>
        <div class="field"><label for="cj-kind">Judge again with</label>
          <select id="cj-kind" class="input" data-testid="cj-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as JudgeKind)}>
            {choices.map((c) => <option key={c.kind} value={c.kind}>{c.label}</option>)}
          </select></div>
        <button type="button" class="btn" data-testid="cj-rejudge" disabled={!a || busy} onClick={rejudge}>{busy ? "Judging…" : "Judge again"}</button>
        <div class="field"><label for="cj-b">or Run B</label>
          <select id="cj-b" class="input" data-testid="cj-b" value={b} onChange={(e) => setB((e.target as HTMLSelectElement).value)}>
            <option value="">choose a run</option>{runs.map((r) => <option key={r.id} value={r.id}>{label(r)}</option>)}
          </select></div>
        <button type="button" class="btn btn-primary" data-testid="cj-compare" disabled={!a || !b || a === b} onClick={() => compare(a, b)}>Compare</button>
      </div>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {result && (
        <div data-testid="cj-result">
          <p class="muted small">A: {result.a.judge} · {result.a.model} — B: {result.b.judge} · {result.b.model}{result.unmatched ? ` · ${result.unmatched} passages in one run only` : ""}</p>
          <table class="data">
            <thead><tr><th>Question</th><th>κ</th><th>Agree</th><th>Passages</th><th>A vs labels</th><th>B vs labels</th></tr></thead>
            <tbody>
              {result.questions.map((q) => (
                <tr key={q.question} data-testid="cj-row" data-question={q.question}>
                  <td>{q.question}</td>
                  <td data-testid="cj-kappa">{q.kappa == null ? "not assessed" : fmt(q.kappa, 2)}</td>
                  <td>{fmt(q.agreement * 100, 0)}%</td>
                  <td>{q.passages}</td>
                  <td>{q.a_accuracy == null ? "—" : `${fmt(q.a_accuracy * 100, 0)}%`}</td>
                  <td>{q.b_accuracy == null ? "—" : `${fmt(q.b_accuracy * 100, 0)}%`}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {result.questions.filter((q) => q.disagreements.length).map((q) => (
            <details key={q.question}>
              <summary>{q.question}: {q.disagreements.length} passages read differently</summary>
              <ul class="plain">{q.disagreements.map((d) => <li key={d.chunk_id}><code>{fmt(d.a, 2)}</code> vs <code>{fmt(d.b, 2)}</code> — {d.snippet}</li>)}</ul>
            </details>
          ))}
        </div>
      )}
    </div>
  );
}

import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { CaseSource, CompareReport, CompareSummary, EvidenceRef } from "../api";
import { basename, fmt, fmtInt, fmtPct, fmtSigned, pages } from "../logic/format";
import { labelsVersion } from "../state";
import { useJob } from "../useJob";
import { ErrorBanner } from "./common";
import { Snippet } from "./Passage";

const A_EXAMPLE = `{"name": "A", "top_k": 4}`;
const B_EXAMPLE = `{"name": "B", "top_k": 4, "policy": {"mode": "filter", "min_relevance": 0.5}}`;

/** Passages one side alone kept: each as a snippet for the question, its document and pages beside it. */
function KeptOnly(props: { list: EvidenceRef[]; query: string }) {
  if (props.list.length === 0) return <>—</>;
  return (
    <>{props.list.map((e) => (
      <div key={e.chunk_id} class="compare-passage" data-testid="compare-passage" title={e.text.slice(0, 300)}>
        <Snippet text={e.text} query={props.query} max={120} />
        <div class="passage-where muted small">{basename(e.document)} {pages(e.page_start, e.page_end)}</div>
      </div>
    ))}</>
  );
}

/** "3 labelled questions" (questions with at least one span label), "…" while unknown. */
function labelledQuestions(n: number | null): string {
  return n === null ? "…" : `${n} labelled question${n === 1 ? "" : "s"}`;
}

function Summary(props: { s: CompareSummary }) {
  const s = props.s;
  return (
    <>
      <td class="num">{s.evidence_recall === null ? "—" : fmtPct(s.evidence_recall)}</td>
      <td class="num">{fmt(s.precision, 3)}</td>
      <td class="num">{fmtInt(s.context_tokens)}</td>
      <td class="num">{fmt(s.documents, 1)}</td>
      <td class="num">{s.fresh_judgments} fresh / {s.cached_judgments} cached</td>
    </>
  );
}

/** Two pipeline configurations over the same labelled questions (your labels, or a cases file): metrics side by
 * side, per-question differences, and the labelled evidence one kept and the other lost, as passage snippets. Judgments come from the cache wherever they match, so
 * a policy-only difference costs no judge call. */
export function ComparePanel(props: { browse: (set: (s: string) => void) => void }) {
  const [fromFile, setFromFile] = useState(false);
  const [cases, setCases] = useState("");
  const [labelled, setLabelled] = useState<number | null>(null);
  useEffect(() => {
    api.labels(null).then((l) => setLabelled(new Set(l.map((x) => x.question)).size), () => setLabelled(null));
  }, [labelsVersion.value]);
  const [a, setA] = useState(A_EXAMPLE);
  const [b, setB] = useState(B_EXAMPLE);
  const [report, setReport] = useState<CompareReport | null>(null);
  const { job, error, setError, run: runJob } = useJob();
  const run = () =>
    runJob("Comparing", async (id) => {
      const source: CaseSource = fromFile ? { kind: "file", path: cases.trim() } : { kind: "labels" };
      setReport(await api.compare(source, a, b, id));
    });
  return (
    <div class="panel" data-testid="compare">
      <div class="panel-head"><h2>Compare two configurations</h2>
        <span class="muted small">any answer option (top_k, mode, variants, judge, policy…) over your saved defaults; both run on the same labelled questions</span></div>
      <div class="field" role="radiogroup" aria-label="Labelled questions">
        <div class="choice">
          <label class="check"><input type="radio" name="cmp-source" data-testid="cmp-source-labels" checked={!fromFile} onChange={() => setFromFile(false)} /> Your labels ({labelledQuestions(labelled)})</label>
          <label class="check"><input type="radio" name="cmp-source" data-testid="cmp-source-file" checked={fromFile} onChange={() => setFromFile(true)} /> A cases file…</label>
        </div>
        {!fromFile && labelled === 0 && <div class="muted small">No labels yet: mark passages ✓/✗ in the Inspector, or select evidence on a page.</div>}
        {fromFile && (
          <div class="inline">
            <input id="cmp-cases" class="input" aria-label="Cases file (library cases, as ragsift eval --from-library reads, or an export of labels)" data-testid="cmp-cases" value={cases} placeholder="/path/to/cases.json" onInput={(e) => setCases((e.target as HTMLInputElement).value)} />
            <button type="button" class="btn" onClick={() => props.browse(setCases)}>Browse…</button>
          </div>
        )}
      </div>
      <div class="compare">
        <div class="compare-col"><label for="cmp-a">Configuration A</label>
          <textarea id="cmp-a" class="input mono" rows={4} data-testid="cmp-a" value={a} onInput={(e) => setA((e.target as HTMLTextAreaElement).value)} /></div>
        <div class="compare-col"><label for="cmp-b">Configuration B</label>
          <textarea id="cmp-b" class="input mono" rows={4} data-testid="cmp-b" value={b} onInput={(e) => setB((e.target as HTMLTextAreaElement).value)} /></div>
      </div>
      {job ? <button type="button" class="btn btn-danger" onClick={() => api.cancel(job).catch(() => {})}>Cancel</button>
        : <button type="button" class="btn btn-primary" data-testid="cmp-run" disabled={fromFile ? !cases.trim() : labelled === 0} onClick={() => void run()}>Compare</button>}
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {report && (
        <div data-testid="compare-report">
          <table class="table compact">
            <thead><tr><th /><th class="num">Recall</th><th class="num">Precision</th><th class="num">Tokens</th><th class="num">Passages</th><th class="num">Judgments</th></tr></thead>
            <tbody>
              <tr><th scope="row">{report.a.config.name}</th><Summary s={report.a} /></tr>
              <tr><th scope="row">{report.b.config.name}</th><Summary s={report.b} /></tr>
            </tbody>
          </table>
          <div class="muted small">{report.cases} questions · {report.recall_scope}</div>
          <table class="table compact" data-testid="compare-questions">
            <thead><tr><th>Question</th><th class="num">Δ recall (B−A)</th><th class="num">Δ tokens</th><th>Kept only by A</th><th>Kept only by B</th></tr></thead>
            <tbody>{report.questions.map((q) => (
              <tr key={q.id}>
                <td>{q.query}</td>
                <td class="num">{q.delta.evidence_recall === null ? "—" : `${q.delta.evidence_recall >= 0 ? "+" : ""}${(q.delta.evidence_recall * 100).toFixed(0)} pts`}</td>
                <td class="num">{fmtSigned(q.delta.context_tokens)}</td>
                <td class="passage-cell small"><KeptOnly list={q.kept_only_a} query={q.query} /></td>
                <td class="passage-cell small"><KeptOnly list={q.kept_only_b} query={q.query} /></td>
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
    </div>
  );
}

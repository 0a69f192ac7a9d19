// The judge table, reason first: each candidate's decision and reason, what its passage says and where, the
// judge's compact scores, and pin / label actions. The Inspector shows a run's; Import shows the run just imported.
import { useMemo, useState } from "preact/hooks";
import type { Candidate, CandidateJudgment, Decision, Trace } from "../api";
import { ProbBar, ReasonTag, SectionPath } from "./common";
import { Snippet } from "./Passage";
import { LabelButtons, useCalibrated } from "./Tuning";
import { VirtualTable } from "./VirtualRows";
import { pages } from "../logic/format";
import { QUESTIONS, REASON_EXPLAIN } from "../logic/reasons";
import { go, pageTarget, pinInReplay } from "../state";

/** What the reason leaves out: rules the judge could not assess. */
function skippedText(d: Decision): string {
  const s = d.skipped_rules ?? [];
  return s.length ? ` Skipped: ${s.join(", ")} (not assessed by this judge).` : "";
}

function openChunk(c: Candidate) {
  pageTarget.value = { documentId: c.document_id, page: c.page_start, chunkId: c.chunk_id };
  go("page");
}

/** What the policy did with a passage: kept (with its rank), dropped, or passed through unscreened. */
export function DecisionChip(props: { decision: Decision | undefined }) {
  const d = props.decision;
  if (!d) return <span class="muted">—</span>;
  if (d.selected === null) return <span class="flagged" title="bypassed: the original context goes through">passed</span>;
  return d.selected ? <span class="kept">kept{d.rank != null ? ` #${d.rank}` : ""}</span> : <span class="dropped">dropped</span>;
}

/** The decision and its one reason, stacked, explained on hover. */
export function DecisionCell(props: { decision: Decision | undefined }) {
  const d = props.decision;
  return (
    <td class="decision" data-testid="decision-cell" title={d ? REASON_EXPLAIN[d.reason] + skippedText(d) : undefined}>
      <DecisionChip decision={d} />
      <div><ReasonTag reason={d?.reason} /></div>
    </td>
  );
}

/** The passage: its best sentence, where it is (document, pages, section), and the whole text on demand. */
function PassageCell(props: { c: Candidate; query: string; imported: boolean }) {
  const { c } = props;
  const [open, setOpen] = useState(false);
  return (
    <td class="passage-cell">
      <div class="passage-line">
        <button type="button" class="expander" aria-expanded={open} data-testid="passage-expand"
          title={open ? "Hide the whole passage" : "Show the whole passage"} onClick={() => setOpen(!open)}>{open ? "▾" : "▸"}</button>
        <Snippet text={c.text} query={props.query} />
      </div>
      <div class="passage-where muted small">
        {props.imported
          ? <span>{c.title} <span class="mono">{c.chunk_id}</span></span>
          : <button type="button" class="link" onClick={() => openChunk(c)} title="Open on its page">{c.title}</button>} {pages(c.page_start, c.page_end)}<SectionPath section={c.section} />
      </div>
      {open && <div class="passage-full" data-testid="passage-full">{c.text}</div>}
      {c.metadata && <details class="meta" data-testid="chunk-metadata"><summary class="muted small">metadata</summary><pre class="mono small">{c.metadata}</pre></details>}
    </td>
  );
}

/** A run's candidates in input (rank) order with the decisions and reasons of its selection. */
export function JudgeTable(props: { trace: Trace }) {
  const t = props.trace;
  const byId = useMemo(() => {
    const j = new Map<string, CandidateJudgment>();
    t.judge.judgments.forEach((x) => j.set(x.chunk_id, x));
    const d = new Map<string, Decision>();
    t.selection.decisions.forEach((x) => d.set(x.chunk_id, x));
    return { j, d };
  }, [t]);
  const thr = t.policy.thresholds;
  const notAssessed = t.judge.not_assessed ?? [];
  const pinned = useMemo(() => new Set(t.policy.pinned), [t]);
  const calibrated = useCalibrated(t.run_id);
  // Reason first: decision and reason, then what the passage says and where, then the judge's scores (one compact
  // bar per question), then the actions. Fits 1280 px; the cache column shows on wider windows.
  return (
    <VirtualTable items={t.candidates} rowKey={(c) => c.chunk_id} columns={6} tableClass="table judge-table"
      wrapClass="judge-table-wrap" label="Candidates with the judge's answers" testid="judge-table" estimate={64}
      head={
        <tr>
          <th class="num">#</th><th class="decision">Decision · reason</th><th>Passage</th>
          <th class="scores" title={QUESTIONS.map((q) => `${q.short}: ${q.label} (${q.direction})`).join("\n")}>Judge</th>
          <th class="wide-only">Cache</th><th class="actions" title="Pin in Replay; label relevant evidence for this question (kept as spans)">Pin · label</th>
        </tr>
      }
      renderRow={(c, i) => {
        const j = byId.j.get(c.chunk_id);
        const d = byId.d.get(c.chunk_id);
        return (
          <tr key={c.chunk_id} data-testid="judge-row" aria-rowindex={i + 2} data-chunk-id={c.chunk_id} data-reason={d?.reason}
            class={d ? (d.selected === false ? "row-dropped" : "row-kept") : ""}>
            <td class="num">{i + 1}</td>
            <DecisionCell decision={d} />
            <PassageCell c={c} query={t.query} imported={t.origin === "imported"} />
            <td class="scores">
              <div class="score-grid">
                {QUESTIONS.map((q) => (
                  <span key={q.key} class="score" title={`${q.label}: ${q.direction}`}>
                    <span class="score-q muted">{q.short}</span>
                    {notAssessed.includes(q.key)
                      ? <span class="muted small" data-testid="not-assessed" title="This judge does not assess this question: its rule is skipped.">n/a</span>
                      : <><ProbBar value={j?.answers[q.key]} threshold={q.threshold == null ? null : thr[q.key] ?? q.threshold} label={q.label} />
                        {calibrated[i]?.[q.key] !== undefined && <span class="muted small" data-testid="calibrated" title="calibrated probability (stored fit for this judge)">cal {calibrated[i][q.key].toFixed(2)}</span>}</>}
                  </span>
                ))}
              </div>
            </td>
            <td class="wide-only">{j ? (j.cached ? <span class="tag">cached</span> : <span class="tag tag-fresh">fresh</span>) : <span class="muted">—</span>}</td>
            <td class="actions">{pinned.has(c.chunk_id)
              ? <button type="button" class="btn btn-small" data-testid="inspector-unpin" title="Unpin in Replay and re-select" onClick={() => pinInReplay(t.run_id, c.chunk_id, false)}>Unpin</button>
              : <button type="button" class="btn btn-small" data-testid="inspector-pin" title="Pin in Replay: always select this passage" onClick={() => pinInReplay(t.run_id, c.chunk_id, true)}>Pin</button>}
              <LabelButtons trace={t} chunkId={c.chunk_id} /></td>
          </tr>
        );
      }} />
  );
}

import { useState } from "preact/hooks";
import { api } from "../api";
import type { LabelReport, Trace } from "../api";
import { fmtInt, fmtPct } from "../logic/format";
import { ErrorBanner } from "./common";

/** The selection against the run's labels, as rag-jev's replay shows it: evidence recall, the labelled evidence
 * it drops, baseline → selected tokens. The numbers are Rust's (the replay's `labels`). */
export function LabelSummary(props: { report: LabelReport | null; labelled: boolean }) {
  const r = props.report;
  if (!r) {
    return (
      <div class="panel label-summary muted small" data-testid="replay-labels">
        {props.labelled ? "Measuring against the labels…" : "Label passages to see evidence recall and operating curves: tick Relevant on a passage above."}
      </div>
    );
  }
  return (
    <div class="panel label-summary" data-testid="replay-labels">
      <span class="stat">evidence recall <strong class="num" data-testid="label-recall">{r.evidence_recall === null ? "n/a" : fmtPct(r.evidence_recall)}</strong>
        <span class="muted">{r.relevant === null ? " (relevance not labelled)" : r.relevant === 0 ? " (none labelled relevant)" : ` of ${r.relevant} labelled`}</span></span>
      <span class="stat">precision <strong class="num">{r.precision === null ? "n/a" : fmtPct(r.precision)}</strong></span>
      <span class="stat">labelled evidence dropped <strong class="num" data-testid="label-dropped">{r.relevant_dropped.length}</strong>
        {r.relevant_dropped.length > 0 && <span class="muted mono small"> {r.relevant_dropped.join(", ")}</span>}</span>
      {r.correctly_empty !== null && <span class="stat">{r.correctly_empty ? "correctly empty" : "should be empty"}</span>}
      <span class="stat" data-testid="label-tokens">tokens <strong class="num">{fmtInt(r.baseline_tokens)}</strong> baseline → <strong class="num">{fmtInt(r.selected_tokens)}</strong> selected
        <span class="muted small">{r.baseline_labelled ? ` (baseline: ${r.baseline_ids.length} labelled ids)` : " (baseline: every candidate)"}</span></span>
    </div>
  );
}

async function pickSavePath(runId: string): Promise<string | null> {
  const { save } = await import("@tauri-apps/plugin-dialog");
  return save({ defaultPath: `run-${runId}.json`, filters: [{ name: "JSON", extensions: ["json"] }] });
}

/** Export the run as a portable, integrity-checked file: by path, or through the save dialog. */
export function ExportRun(props: { trace: Trace }) {
  const [path, setPath] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const write = async (target: string) => {
    setError(null);
    setDone(null);
    try {
      setDone(await api.exportRun(props.trace.run_id, target));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="inline export-run">
      <label class="sr-only" for="export-path">Export to</label>
      <input id="export-path" class="input path-input" data-testid="export-path" placeholder="/path/to/run.json" value={path}
        onInput={(e) => setPath((e.target as HTMLInputElement).value)} spellcheck={false} />
      <button type="button" class="btn" data-testid="export-run" disabled={!path.trim()} onClick={() => write(path.trim())}>Export run</button>
      <button type="button" class="btn" onClick={() => pickSavePath(props.trace.run_id).then((p) => { if (p) void write(p); }, setError)}>Export…</button>
      {done && <span class="ok small" role="status" data-testid="export-done">Exported to {done}</span>}
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
    </div>
  );
}

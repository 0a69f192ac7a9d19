import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { RunOrigin, RunSummary } from "../api";
import { fmtTime } from "../logic/format";
import { currentRunId, loadTrace, runsVersion } from "../state";
import { Empty, ErrorBanner } from "./common";
import type { ComponentChildren, VNode } from "preact";
import type { Trace } from "../api";

/** The trace of run `id`, loaded (and cached) on demand. */
export function useTrace(id: string | null) {
  const [trace, setTrace] = useState<Trace | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setError(null);
    if (!id) { setTrace(null); return; }
    let live = true;
    loadTrace(id).then((t) => live && setTrace(t), (e) => live && (setError(e), setTrace(null)));
    return () => { live = false; };
  }, [id]);
  return { trace, error };
}

/** Recent runs (runs(50)); choosing one sets the current run. */
export function RunPicker() {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.runs(50).then(setRuns, (e) => { setError(e); setRuns([]); });
  }, [runsVersion.value]);
  const [origin, setOrigin] = useState<RunOrigin | "all">("all");
  const cur = currentRunId.value;
  const shown = (runs ?? []).filter((r) => origin === "all" || r.origin === origin);
  return (
    <nav class="run-picker" aria-label="Runs">
      <h2>Runs</h2>
      <select class="input input-small" aria-label="Show runs" data-testid="run-origin-filter" value={origin}
        onChange={(e) => setOrigin((e.target as HTMLSelectElement).value as RunOrigin | "all")}>
        <option value="all">all runs</option>
        <option value="library">asked here</option>
        <option value="imported">imported</option>
        <option value="served">served to an app</option>
      </select>
      <ErrorBanner error={error} />
      {runs && runs.length === 0 && !error && <div class="muted small">No runs yet — ask something in Chat.</div>}
      <ul>
        {shown.map((r) => (
          <li key={r.id}>
            <button type="button" class={`run-item${r.id === cur ? " active" : ""}`} data-testid="run-item" data-run-id={r.id}
              data-origin={r.origin} aria-current={r.id === cur ? "true" : undefined} onClick={() => (currentRunId.value = r.id)}>
              <span class="run-q">{r.origin === "served" && <span class="badge" data-testid="served-badge">served</span>}{r.query}</span>
              <span class="run-meta">{fmtTime(r.created_at)} · judge {r.judge || "none"}{r.made_by ? ` · by ${r.made_by}` : ""}</span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A view over the current run: the runs on the left, `render(trace)` on the right (or `empty` until one is picked). */
export function RunView(props: { name: string; label: string; empty: ComponentChildren; render: (t: Trace) => VNode }) {
  const { trace, error } = useTrace(currentRunId.value);
  return (
    <section class={`view view-${props.name}`} data-testid={`view-${props.name}`} aria-label={props.label}>
      <div class="split split-left">
        <aside class="split-side"><RunPicker /></aside>
        <div class="split-main">
          <ErrorBanner error={error} />
          {trace ? props.render(trace) : !error && <Empty>{props.empty}</Empty>}
        </div>
      </div>
    </section>
  );
}

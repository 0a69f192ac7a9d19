import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { RunSummary } from "../api";
import { fmtTime } from "../logic/format";
import { currentRunId, runsVersion } from "../state";
import { ErrorBanner } from "./common";

/** Recent runs (runs(50)); choosing one sets the current run. */
export function RunPicker() {
  const [runs, setRuns] = useState<RunSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.runs(50).then(setRuns, (e) => { setError(e); setRuns([]); });
  }, [runsVersion.value]);
  const cur = currentRunId.value;
  return (
    <nav class="run-picker" aria-label="Runs">
      <h2>Runs</h2>
      <ErrorBanner error={error} />
      {runs && runs.length === 0 && !error && <div class="muted small">No runs yet — ask something in Chat.</div>}
      <ul>
        {(runs ?? []).map((r) => (
          <li key={r.id}>
            <button type="button" class={`run-item${r.id === cur ? " active" : ""}`} data-testid="run-item" data-run-id={r.id}
              aria-current={r.id === cur ? "true" : undefined} onClick={() => (currentRunId.value = r.id)}>
              <span class="run-q">{r.query}</span>
              <span class="run-meta">{fmtTime(r.created_at)} · judge {r.judge || "none"}</span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

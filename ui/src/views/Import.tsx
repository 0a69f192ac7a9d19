import { useState } from "preact/hooks";
import { api } from "../api";
import type { JudgeKind, RunSummary, Trace } from "../api";
import { ErrorBanner } from "../components/common";
import { JudgeTable } from "../components/JudgeTable";
import { fmtInt } from "../logic/format";
import { currentRunId, go, rememberTrace, runsVersion } from "../state";
import { useJob } from "../useJob";
import { JudgeOptions } from "../components/JudgeOptions";

/** A path from the file dialog (JSON files), or null when cancelled or unavailable. */
async function pickJson(): Promise<string | null> {
  const { open } = await import("@tauri-apps/plugin-dialog");
  const r = await open({ multiple: false, directory: false, filters: [{ name: "JSON", extensions: ["json"] }] });
  return typeof r === "string" ? r : null;
}

const EXAMPLE = `{
  "query": "How many days do I have to request a refund?",
  "documents": [
    {"id": "shipping", "text": "Orders ship within 5 business days.", "metadata": {"source": "shipping.md"}},
    {"id": "refund", "text": "You may request a refund within 30 days of purchase.", "metadata": {"source": "refunds.md", "page": 2}}
  ],
  "relevant_ids": ["refund"],
  "mode": "filter", "min_relevance": 0.2
}`;

/** Bring your own candidates: rag-jev's select request (or one eval case, labels kept) judged and stored as a run;
 * and runs exported elsewhere, imported to replay with no key. */
export function Import() {
  const [json, setJson] = useState("");
  const [path, setPath] = useState("");
  const [judge, setJudge] = useState<JudgeKind>("auto");
  const { job, error, setError, run: runJob } = useJob();
  const [imported, setImported] = useState<Trace | null>(null);
  const [runPath, setRunPath] = useState("");
  const [runImported, setRunImported] = useState<RunSummary | null>(null);

  const importCandidates = (fromFile: boolean) => {
    setImported(null);
    return runJob("Judging imported candidates", async () => {
      const t = fromFile ? await api.importCandidatesFile(path.trim(), judge) : await api.importCandidates(json, judge);
      rememberTrace(t);
      setImported(t);
    });
  };

  const importRun = async () => {
    setError(null);
    setRunImported(null);
    try {
      const r = await api.importRun(runPath.trim());
      runsVersion.value++;
      setRunImported(r);
    } catch (e) {
      setError(e);
    }
  };

  const open = (id: string, where: "inspector" | "replay") => {
    currentRunId.value = id;
    go(where);
  };

  return (
    <section class="view view-import" data-testid="view-import" aria-label="Import">
      <header class="view-head"><h1>Import</h1></header>
      <div class="panel">
        <div class="panel-head"><h2>Candidates from any retriever</h2>
          <span class="muted small">rag-jev's select request, or one eval case: its labels and baseline stay with the run; metadata, groups and pins are kept; relevance guidance and the retrieval query go to Jev as rag-jev sends them.</span></div>
        <label class="sr-only" for="import-json">Candidates JSON</label>
        <textarea id="import-json" class="input mono import-json" data-testid="import-json" rows={10} spellcheck={false}
          placeholder={EXAMPLE} value={json} onInput={(e) => setJson((e.target as HTMLTextAreaElement).value)} />
        <div class="field-row">
          <div class="field"><label for="import-judge">Judge</label>
            <select id="import-judge" class="input" data-testid="import-judge" value={judge} onChange={(e) => setJudge((e.target as HTMLSelectElement).value as JudgeKind)}>
              <JudgeOptions value={judge} exclude={["none"]} autoLabel="auto (Jev with a key, else local)" />
            </select></div>
          <button type="button" class="btn btn-primary" data-testid="import-submit" disabled={!!job || !json.trim()} onClick={() => importCandidates(false)}>Judge and import</button>
          <button type="button" class="btn btn-ghost" onClick={() => setJson(EXAMPLE)}>Insert an example</button>
        </div>
        <div class="inline">
          <label class="sr-only" for="import-path">Candidates file</label>
          <input id="import-path" class="input path-input" data-testid="import-path" placeholder="/path/to/request.json" value={path}
            onInput={(e) => setPath((e.target as HTMLInputElement).value)} spellcheck={false} />
          <button type="button" class="btn" onClick={() => pickJson().then((p) => p && setPath(p), setError)}>Open…</button>
          <button type="button" class="btn" data-testid="import-file" disabled={!!job || !path.trim()} onClick={() => importCandidates(true)}>Import file</button>
        </div>
        {job && <div class="stage-line"><span class="spinner" aria-hidden="true" /> Judging…</div>}
        {imported && (
          <div class="ok" role="status" data-testid="import-result">
            Imported {fmtInt(imported.candidates.length)} candidates as run <span class="mono">{imported.run_id}</span>: {imported.selection.selected_ids?.length ?? "all"} selected by {imported.judge.judge}
            {imported.labels.relevant_ids ? `, ${imported.labels.relevant_ids.length} labelled relevant` : ""}.{" "}
            <button type="button" class="btn btn-small" data-testid="import-open-replay" onClick={() => open(imported.run_id, "replay")}>Replay</button>{" "}
            <button type="button" class="btn btn-small" onClick={() => open(imported.run_id, "inspector")}>Inspect</button>
          </div>
        )}
        {imported && (
          <div class="import-candidates" data-testid="import-candidates">
            <h3>Candidates <span class="muted small">· as the run's selection ({imported.policy.mode}) decided them, in the order given (their rank)</span></h3>
            <JudgeTable trace={imported} />
          </div>
        )}
      </div>
      <div class="panel">
        <div class="panel-head"><h2>A run exported elsewhere</h2>
          <span class="muted small">checked on import (checksum, fingerprint, versions, sizes); it replays here with no library, no key and no judge call.</span></div>
        <div class="inline">
          <label class="sr-only" for="import-run-path">Run file</label>
          <input id="import-run-path" class="input path-input" data-testid="import-run-path" placeholder="/path/to/run.json" value={runPath}
            onInput={(e) => setRunPath((e.target as HTMLInputElement).value)} spellcheck={false} />
          <button type="button" class="btn" onClick={() => pickJson().then((p) => p && setRunPath(p), setError)}>Open…</button>
          <button type="button" class="btn" data-testid="import-run" disabled={!runPath.trim()} onClick={importRun}>Import run</button>
        </div>
        {runImported && (
          <div class="ok" role="status" data-testid="import-run-result">
            Imported run <span class="mono">{runImported.id}</span>: {runImported.query}{" "}
            <button type="button" class="btn btn-small" onClick={() => open(runImported.id, "replay")}>Replay</button>
          </div>
        )}
      </div>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
    </section>
  );
}

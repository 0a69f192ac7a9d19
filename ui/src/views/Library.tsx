import { useEffect, useRef, useState } from "preact/hooks";
import { api, IpcFailure, isTauri } from "../api";
import type { DocumentRow, FirstRun } from "../api";
import { SampleOffer, Suggestions } from "../components/FirstRun";
import { Banner, Empty, ErrorBanner, Progress } from "../components/common";
import { fileErrorText, statusLabel } from "../logic/errors";
import { applyReport, initialIngest, reduceIngest, stageText } from "../logic/ingest";
import type { IngestState } from "../logic/ingest";
import { basename, fmtTime } from "../logic/format";
import { appInfo, libraryVersion, refreshAppInfo } from "../state";
import { useJob } from "../useJob";

async function pick(directory: boolean): Promise<string[]> {
  const { open } = await import("@tauri-apps/plugin-dialog");
  const r = directory
    ? await open({ multiple: true, directory: true })
    : await open({ multiple: true, directory: false, filters: [{ name: "PDF", extensions: ["pdf"] }] });
  if (!r) return [];
  return Array.isArray(r) ? r : [r];
}

/** A document's title, renamed in place: Enter or Save keeps it (Rust cleans and checks it), Escape leaves it. A
 * title of the user's is marked, since ingesting the file again keeps it. */
function TitleCell(props: { doc: DocumentRow; onRenamed: () => void }) {
  const d = props.doc;
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => { if (draft !== null) input.current?.select(); }, [draft !== null]);
  const save = async () => {
    if (draft === null) return;
    setSaving(true);
    try {
      await api.renameDocument(d.id, draft);
      setDraft(null);
      setError(null);
      props.onRenamed();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };
  if (draft === null) {
    return (
      <div class="title-cell">
        <span data-testid="doc-title">{d.title || basename(d.path)}</span>
        {d.renamed && <span class="muted small" title="Your title: ingesting the file again keeps it"> (renamed)</span>}{" "}
        <button type="button" class="btn btn-small btn-ghost" data-testid="doc-rename" aria-label={`Rename ${d.title || basename(d.path)}`}
          onClick={() => { setDraft(d.title || basename(d.path)); setError(null); }}>Rename</button>
      </div>
    );
  }
  return (
    <form class="inline-form" data-testid="doc-rename-form" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <label class="sr-only" for={`title-${d.id}`}>Title of {basename(d.path)}</label>
      <input id={`title-${d.id}`} ref={input} class="input" data-testid="doc-title-input" value={draft} disabled={saving}
        onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => { if (e.key === "Escape") { setDraft(null); setError(null); } }} />
      <button type="submit" class="btn btn-small btn-primary" data-testid="doc-title-save" disabled={saving}>Save</button>
      <button type="button" class="btn btn-small btn-ghost" onClick={() => { setDraft(null); setError(null); }}>Cancel</button>
      {error && <div class="file-error" role="alert" data-testid="doc-title-error">{error}</div>}
    </form>
  );
}

export function Library() {
  const [docs, setDocs] = useState<DocumentRow[] | null>(null);
  const [batch, setBatch] = useState<IngestState | null>(null);
  const { job, error, setError, run: runJob } = useJob();
  const [path, setPath] = useState("");
  const [dragging, setDragging] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const jobRef = useRef<string | null>(null);
  jobRef.current = job;

  const load = async () => {
    try {
      setDocs(await api.documents());
    } catch (e) {
      setError(e);
      setDocs([]);
    }
  };
  useEffect(() => { void load(); }, [libraryVersion.value]);

  const [firstRun, setFirstRun] = useState<FirstRun | null>(null);
  useEffect(() => {
    api.firstRun().then(setFirstRun, () => setFirstRun(null));
  }, [libraryVersion.value]);

  /** Adds `paths` with progress; true when the batch ran to its end (files that failed are listed in it). */
  const ingest = async (paths: string[]): Promise<boolean> => {
    const list = paths.map((p) => p.trim()).filter(Boolean);
    if (!list.length || jobRef.current) return false;
    let state = initialIngest();
    setBatch(state);
    const done = await runJob("Adding documents", async (id) => {
      const report = await api.ingest(list, id, (e) => {
        state = reduceIngest(state, e);
        setBatch(state);
      });
      state = applyReport(state, report);
      setBatch(state);
      void refreshAppInfo();
      return true;
    });
    // Whatever went in before a failure is in the library: the views reload either way.
    if (!done) setBatch({ ...state, finished: true });
    libraryVersion.value++;
    return done === true;
  };
  const ingestRef = useRef(ingest);
  ingestRef.current = ingest;

  // Files the app was started to open ("Open with ragsift") are added once.
  useEffect(() => {
    api.openedFiles().then((paths) => { if (paths.length) void ingestRef.current(paths); }, () => {});
  }, []);

  // Tauri delivers dropped files with their paths (the DOM drop event does not).
  useEffect(() => {
    if (!isTauri()) return;
    let unlisten: (() => void) | null = null;
    let dead = false;
    (async () => {
      try {
        const { getCurrentWebview } = await import("@tauri-apps/api/webview");
        const un = await getCurrentWebview().onDragDropEvent((ev) => {
          const p = ev.payload;
          if (p.type === "enter" || p.type === "over") setDragging(true);
          else if (p.type === "leave") setDragging(false);
          else if (p.type === "drop") {
            setDragging(false);
            void ingestRef.current(p.paths);
          }
        });
        if (dead) un();
        else unlisten = un;
      } catch {
        /* not available (tests, browser) */
      }
    })();
    return () => { dead = true; unlisten?.(); };
  }, []);

  const browse = async (dir: boolean) => {
    try {
      const paths = await pick(dir);
      if (paths.length) void ingest(paths);
    } catch (e) {
      setError(new IpcFailure("internal", `The file dialog is unavailable: ${e instanceof Error ? e.message : String(e)}`));
    }
  };

  const remove = async (d: DocumentRow) => {
    setConfirming(null);
    try {
      await api.removeDocument(d.id);
      libraryVersion.value++;
      void refreshAppInfo();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section class={`view view-library${dragging ? " dragging" : ""}`} data-testid="view-library" aria-label="Library">
      <header class="view-head">
        <h1>Library</h1>
        <div class="toolbar">
          <button type="button" class="btn" onClick={() => browse(false)} disabled={!!job}>Add files…</button>
          <button type="button" class="btn" onClick={() => browse(true)} disabled={!!job}>Add folder…</button>
          <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void ingest([path]); setPath(""); }}>
            <label class="sr-only" for="ingest-path">File or folder path</label>
            <input id="ingest-path" class="input path-input" data-testid="ingest-path" placeholder="/path/to/file.pdf or folder"
              value={path} onInput={(e) => setPath((e.target as HTMLInputElement).value)} spellcheck={false} />
            <button type="submit" class="btn btn-primary" data-testid="ingest-add" disabled={!!job || !path.trim()}>Add</button>
          </form>
          {job && <button type="button" class="btn btn-danger" data-testid="ingest-cancel" onClick={() => api.cancel(job).catch(() => {})}>Cancel</button>}
        </div>
      </header>
      {dragging && <div class="drop-hint" aria-hidden="true">Drop PDFs or folders to add them</div>}
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {batch && (
        <div class="panel">
          <div class="panel-head">
            <h2>{batch.finished ? "Last batch" : "Adding…"}</h2>
            <span class="muted">
              {batch.scanned != null ? `${batch.scanned} file${batch.scanned === 1 ? "" : "s"} found` : "scanning…"}
              {batch.saving && !batch.finished ? " · saving the index…" : ""}
              {batch.waiting !== null && !batch.finished ? ` · waiting for another ingest to finish (${batch.waiting} s)` : ""}
            </span>
            {batch.finished && <button type="button" class="btn btn-small btn-ghost" onClick={() => setBatch(null)}>Clear</button>}
          </div>
          <table class="table">
            <thead><tr><th>File</th><th>Stage</th><th class="col-bar">Progress</th><th class="num">Pages</th><th class="num">Chunks</th><th>Result</th></tr></thead>
            <tbody>
              {batch.files.map((f) => (
                <tr key={f.index} data-testid="file-row" data-status={f.stage === "finished" ? f.status ?? undefined : undefined}>
                  <td class="path" title={f.path}>{basename(f.path)}</td>
                  <td>{stageText(f)}</td>
                  <td class="col-bar"><Progress value={f.fraction} label={`Progress of ${basename(f.path)}`} /></td>
                  <td class="num">{f.pages ?? "—"}</td>
                  <td class="num">{f.chunks ?? "—"}</td>
                  <td>
                    {f.status && <span class={`status status-${f.status}`}>{statusLabel(f.status)}</span>}
                    {f.status === "failed" && <div class="file-error">{fileErrorText(f.error_code, f.error)}</div>}
                    {f.warning && <div class="file-warning">{f.warning}</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {docs?.length === 0 && firstRun && firstRun.samples.length > 0 && !batch && (
        <SampleOffer firstRun={firstRun} busy={!!job} onIngest={ingest} />
      )}
      <Suggestions />
      <div class="panel">
        <div class="panel-head"><h2>Documents</h2><span class="muted">{docs ? `${docs.length}` : ""}</span>
          {appInfo.value && <span class="muted small mono" data-testid="library-store">{appInfo.value.store.kind === "postgres" ? "PostgreSQL + pgvector" : "SQLite + usearch"} · {appInfo.value.store.location} · {appInfo.value.store_mb.toFixed(1)} MB</span>}</div>
        {docs === null ? (
          <div class="muted pad">Loading…</div>
        ) : docs.length === 0 ? (
          <Empty>No documents yet — drop PDFs here or <strong>Add files…</strong></Empty>
        ) : (
          <table class="table">
            <thead><tr><th>Title</th><th>File</th><th class="num">Pages</th><th class="num">Chunks</th><th>Warning</th><th>Ingested</th><th /></tr></thead>
            <tbody>
              {docs.map((d) => (
                <tr key={d.id} data-testid="doc-row" data-doc-id={d.id}>
                  <td><TitleCell doc={d} onRenamed={() => { libraryVersion.value++; }} /></td>
                  <td class="path" title={d.path}>{basename(d.path)}</td>
                  <td class="num">{d.page_count}</td>
                  <td class="num">{d.chunk_count}</td>
                  <td>{d.warning ? <span class="file-warning">{d.warning}</span> : <span class="muted">—</span>}</td>
                  <td class="num">{fmtTime(d.ingested_at)}</td>
                  <td class="actions">
                    {confirming === d.id ? (
                      <>
                        <button type="button" class="btn btn-small btn-danger" onClick={() => remove(d)}>Remove</button>
                        <button type="button" class="btn btn-small btn-ghost" onClick={() => setConfirming(null)}>Keep</button>
                      </>
                    ) : (
                      <button type="button" class="btn btn-small" onClick={() => setConfirming(d.id)} aria-label={`Remove ${d.title}`}>Remove…</button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {!isTauri() && <Banner tone="info">Running outside the ragsift app: the file dialogs and drag-and-drop need the desktop app.</Banner>}
    </section>
  );
}

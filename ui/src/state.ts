import { signal } from "@preact/signals";
import { api, IpcFailure, newJobId } from "./api";
import type { AppInfo, LibraryActivity, PolicyOptions, ServeStatus, Trace } from "./api";
import { Lru } from "./logic/lru";

export const VIEWS = ["library", "chat", "inspector", "replay", "page", "settings", "eval", "import", "review"] as const;
export type ViewName = (typeof VIEWS)[number];
export const VIEW_LABEL: Record<ViewName, string> = {
  library: "Library", chat: "Chat", inspector: "Inspector", replay: "Replay", page: "Page", settings: "Settings", eval: "Evaluation", import: "Import", review: "Review",
};

export const view = signal<ViewName>("library");
/** The run the Inspector and Replay views show. */
export const currentRunId = signal<string | null>(null);
export type PageTarget = { documentId: string; page: number; chunkId: string | null };
export const pageTarget = signal<PageTarget | null>(null);
export const appInfo = signal<AppInfo | null>(null);
export const appInfoError = signal<IpcFailure | null>(null);
/** Running cancellable jobs: id → label. Esc cancels them. */
export const jobs = signal<Record<string, string>>({});
/** Bumped when the library changes (ingest/remove), so views can reload. */
export const libraryVersion = signal(0);
export const runsVersion = signal(0);
/** The `ragsift serve` running on this library (from the one-second poll), or null. */
export const serving = signal<ServeStatus | null>(null);
/** Bumped when labels change anywhere (Inspector, Page, label list), so replays and curves measure again. */
export const labelsVersion = signal(0);

/** How often the app asks whether another process (the CLI, `ragsift serve`) changed the library. */
export const FOLLOW_LIBRARY_MS = 1000;
let seen: LibraryActivity | null = null;

/** One poll: when the library's generation moved (an ingest or removal by any process), views reload; when the
 *  number of runs moved (an `ask` from the CLI, a selection served to an application), the run list reloads. */
export async function followLibrary(): Promise<void> {
  try {
    const now = await api.libraryActivity();
    if (seen !== null && now.generation !== seen.generation) {
      libraryVersion.value++;
      void refreshAppInfo();
    }
    if (seen !== null && now.runs !== seen.runs) {
      runsVersion.value++;
      void refreshAppInfo();
    }
    serving.value = now.serving;
    seen = now;
  } catch {
    /* not running in the app, or the library is being reopened: try again next time */
  }
}

export function go(v: ViewName) {
  view.value = v;
}

export function startJob(label: string): string {
  const id = newJobId();
  jobs.value = { ...jobs.value, [id]: label };
  return id;
}

export function endJob(id: string) {
  const next = { ...jobs.value };
  delete next[id];
  jobs.value = next;
}

export async function cancelJob(id: string) {
  try {
    await api.cancel(id);
  } catch {
    /* the job may have ended meanwhile */
  }
}

export function cancelAll() {
  for (const id of Object.keys(jobs.value)) void cancelJob(id);
}

/** The runs the app holds in memory: the 32 used last (a run can hold megabytes of candidates and prompt). */
const traces = new Lru<string, Trace>(32);

export function rememberTrace(t: Trace) {
  traces.set(t.run_id, t);
  runsVersion.value++;
  void refreshAppInfo();
}

export async function loadTrace(id: string): Promise<Trace> {
  const hit = traces.get(id);
  if (hit) return hit;
  const t = await api.run(id);
  traces.set(id, t);
  return t;
}

/** A pin asked for in the Inspector, applied by Replay when it opens that run. */
export type PinRequest = { runId: string; chunkId: string; pinned: boolean };
export const pinRequest = signal<PinRequest | null>(null);
/** A policy to apply in Replay (a calibration's frozen choice): applied once, to the run Replay shows. */
export const policyRequest = signal<PolicyOptions | null>(null);

/** Pins (or unpins) a passage of a run and opens Replay, which re-selects with it at once. */
export function pinInReplay(runId: string, chunkId: string, pinned: boolean) {
  pinRequest.value = { runId, chunkId, pinned };
  openRun(runId, "replay");
}

export function openRun(id: string, v: "inspector" | "replay") {
  currentRunId.value = id;
  go(v);
}

/** Opens the Page view at a source of a trace: document id and page come from the candidate with that chunk. */
export function openSource(trace: Trace, number: number): boolean {
  const src = trace.sources.find((s) => s.number === number);
  if (!src) return false;
  const cand = trace.candidates.find((c) => c.chunk_id === src.chunk_id);
  if (!cand) return false;
  pageTarget.value = { documentId: cand.document_id, page: src.page_start, chunkId: src.chunk_id };
  go("page");
  return true;
}

export async function refreshAppInfo() {
  try {
    appInfo.value = await api.appInfo();
    appInfoError.value = null;
  } catch (e) {
    appInfoError.value = e instanceof IpcFailure ? e : new IpcFailure("internal", String(e));
  }
}

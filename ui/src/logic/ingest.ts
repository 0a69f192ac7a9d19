import type { FileReport, IngestEvent, IngestReport } from "../api";

export type FileStage = "queued" | "extracting" | "ocr" | "embedding" | "saving" | "finished";

export type FileProgress = {
  index: number;
  path: string;
  stage: FileStage;
  pages: number | null;
  chunks: number | null;
  done: number;
  total: number;
  /** 0..1 */
  fraction: number;
  status: string | null;
  error_code: string | null;
  error: string | null;
  warning: string | null;
  /** The page OCR is reading, of how many (scanned pages only). */
  ocrPage?: number;
  ocrPages?: number;
};

export type IngestState = {
  scanned: number | null;
  files: FileProgress[];
  saving: boolean;
  finished: boolean;
  /** Seconds waited for another process writing to the library (null when not waiting). */
  waiting: number | null;
};

export const initialIngest = (): IngestState => ({ scanned: null, files: [], saving: false, finished: false, waiting: null });

function upsert(state: IngestState, index: number, path: string | null, patch: Partial<FileProgress>): FileProgress[] {
  const files = state.files.slice();
  let i = files.findIndex((f) => f.index === index);
  if (i < 0) {
    files.push({
      index, path: path ?? `file ${index + 1}`, stage: "queued", pages: null, chunks: null, done: 0, total: 0,
      fraction: 0, status: null, error_code: null, error: null, warning: null,
    });
    files.sort((a, b) => a.index - b.index);
    i = files.findIndex((f) => f.index === index);
  }
  files[i] = { ...files[i], ...(path ? { path } : {}), ...patch };
  return files;
}

/** Folds one IngestEvent into the per-file progress of the current batch. */
export function reduceIngest(state: IngestState, e: IngestEvent): IngestState {
  switch (e.event) {
    case "ocr":
      return { ...state, files: upsert(state, e.file, null, { stage: "ocr", ocrPage: e.page, ocrPages: e.pages, fraction: 0.05 + 0.1 * (e.page / Math.max(1, e.pages)) }) };
    case "waiting_for_writer":
      return { ...state, waiting: e.seconds };
    case "scanned":
      return { ...state, scanned: e.files, waiting: null };
    case "file_started":
      return { ...state, scanned: state.scanned ?? e.total, files: upsert(state, e.file, e.path, { stage: "extracting", fraction: 0.05 }) };
    case "extracted":
      return { ...state, files: upsert(state, e.file, null, { pages: e.pages, chunks: e.chunks, stage: "embedding", fraction: 0.15 }) };
    case "embedding": {
      const f = e.total > 0 ? e.done / e.total : 1;
      return { ...state, files: upsert(state, e.file, null, { stage: "embedding", done: e.done, total: e.total, fraction: 0.15 + 0.8 * f }) };
    }
    case "file_finished":
      return { ...state, files: upsert(state, e.file, e.path, { stage: "finished", status: e.status, fraction: 1 }) };
    case "saving":
      return {
        ...state,
        saving: true,
        files: state.files.map((f) => (f.stage === "finished" ? f : { ...f, stage: "saving" as const, fraction: Math.max(f.fraction, 0.95) })),
      };
  }
  return state;
}

/** Merges the final report (authoritative statuses, error codes) into the progress rows, matching by path. */
export function applyReport(state: IngestState, report: IngestReport): IngestState {
  const files = state.files.slice();
  report.files.forEach((r: FileReport) => {
    const i = files.findIndex((f) => f.path === r.path);
    const patch: Partial<FileProgress> = {
      stage: "finished", status: r.status, fraction: 1, pages: r.pages, chunks: r.chunks,
      error_code: r.error_code, error: r.error, warning: r.warning,
    };
    if (i >= 0) files[i] = { ...files[i], ...patch };
    else {
      const index = files.length ? Math.max(...files.map((f) => f.index)) + 1 : 0;
      files.push({ index, path: r.path, stage: "finished", pages: r.pages, chunks: r.chunks, done: 0, total: 0, fraction: 1,
        status: r.status, error_code: r.error_code, error: r.error, warning: r.warning });
    }
  });
  return { ...state, files, saving: false, finished: true };
}

export function stageText(f: FileProgress): string {
  switch (f.stage) {
    case "queued":
      return "queued";
    case "extracting":
      return "extracting text…";
    case "ocr":
      return `OCR page ${f.ocrPage ?? 1}/${f.ocrPages ?? 1}`;
    case "embedding":
      return f.total > 0 ? `embedding ${f.done}/${f.total}` : `embedding${f.chunks != null ? ` ${f.chunks} chunks` : ""}…`;
    case "saving":
      return "saving…";
    case "finished":
      return f.status ?? "finished";
  }
}

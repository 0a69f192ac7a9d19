import type { IpcCode } from "../api";

const FILE_ERRORS: Record<string, string> = {
  encrypted: "This PDF is password-protected. Remove the password and add it again.",
  no_text: "No text found (scanned or image-only pages that OCR could not read, or OCR is not installed or turned off).",
  corrupt: "The file is damaged or not a valid PDF.",
  too_large: "The file is larger than the size limit (Settings → max file size). Split it or raise the limit.",
  timeout: "Text extraction took too long and was stopped. The PDF may be very complex; try splitting it.",
  unsupported: "This file type is not supported. Add PDF files.",
  not_found: "The file or folder does not exist (moved or deleted?).",
  io: "The file could not be read (permissions or a disk problem).",
  disk_full: "The disk is full: nothing was half-written. Free some space and add the file again.",
  cancelled: "Cancelled before this file was finished.",
};

/** How the engine's message of a file that failed before and is unchanged (so not read again) begins. */
const FAILED_BEFORE = "failed before (unchanged): ";

/** Plain words for an ingest FileReport.error_code; falls back to the backend's message. */
export function fileErrorText(code: string | null | undefined, fallback?: string | null): string {
  if (fallback?.startsWith(FAILED_BEFORE)) {
    const reason = fileErrorText(code, fallback.slice(FAILED_BEFORE.length));
    return `Failed before and unchanged since, so not read again: ${reason}`;
  }
  // The engine's own words say whether OCR read the pages, is turned off, or is not installed.
  if (code === "no_text" && fallback) return fallback;
  if (code && FILE_ERRORS[code]) return FILE_ERRORS[code];
  if (fallback) return fallback;
  return code ? `Failed (${code}).` : "Failed.";
}

export type ErrorPresentation = { tone: "error" | "warning" | "quiet"; title: string; hint: string | null };

/** How the UI presents an IpcError code. */
export function presentIpcError(code: IpcCode): ErrorPresentation {
  switch (code) {
    case "setup":
      return { tone: "warning", title: "Setup needed", hint: "Open Settings for what is missing, or run ./scripts/setup.sh." };
    case "auth":
      return { tone: "error", title: "Not authorised", hint: "Check the API key in Settings → Judge." };
    case "unreachable":
      return { tone: "error", title: "Server unreachable", hint: "Check the endpoint URL in Settings and that the server is running." };
    case "cancelled":
      return { tone: "quiet", title: "Cancelled", hint: null };
    case "stale":
      return {
        tone: "warning",
        title: "This run cannot be replayed",
        hint: "Its inputs changed since it was recorded (documents re-ingested or the judge's questions changed). Ask again to get a fresh run.",
      };
    case "invalid":
      return { tone: "error", title: "Invalid input", hint: null };
    case "not_found":
      return { tone: "error", title: "Not found", hint: null };
    case "bad_file":
      return { tone: "error", title: "Bad file", hint: null };
    case "disk_full":
      return { tone: "error", title: "The disk is full", hint: "Nothing was half-written and the old files are kept. Free some space and try again." };
    default:
      return { tone: "error", title: "Something went wrong", hint: null };
  }
}

export function statusLabel(status: string): string {
  switch (status) {
    case "ingested":
      return "ingested";
    case "unchanged":
      return "unchanged — not re-embedded";
    case "replaced":
      return "replaced (new version re-embedded)";
    case "failed":
      return "failed";
    default:
      return status;
  }
}

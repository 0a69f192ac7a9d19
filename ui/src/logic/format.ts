export const fmt = (v: number | null | undefined, digits = 2): string =>
  v == null || !Number.isFinite(v) ? "—" : v.toFixed(digits);

/** One formatter for every number shown with grouping (toLocaleString builds one per call: slow in a repaint). */
const GROUPED = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

export const fmtInt = (v: number | null | undefined): string =>
  v == null || !Number.isFinite(v) ? "—" : GROUPED.format(Math.round(v));

/** A fraction as a whole percentage ("67%"). */
export const fmtPct = (v: number | null | undefined): string =>
  v == null || !Number.isFinite(v) ? "—" : `${Math.round(v * 100)}%`;

export function fmtSigned(v: number): string {
  if (v === 0) return "±0";
  return (v > 0 ? "+" : "−") + GROUPED.format(Math.abs(v));
}

export function fmtTime(unixSeconds: number): string {
  if (!unixSeconds) return "—";
  const d = new Date(unixSeconds * 1000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function basename(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** "p. 3", "pp. 3–4"; empty when the page is unknown (0: imported candidates without one). */
export function pages(start: number, end: number): string {
  if (start === 0) return "";
  return start === end ? `p. ${start}` : `pp. ${start}–${end}`;
}

/** The AskEvent stage as a status line ("Judging 8 passages…"). */
export function stageText(stage: string, candidates?: number): string {
  const n = candidates && candidates > 0 ? ` ${candidates} passages` : "";
  switch (stage) {
    case "loading_model":
      return "Loading the language model…";
    case "transforming":
      return "Rewriting the question…";
    case "retrieving":
      return "Searching the library…";
    case "judging":
      return `Judging${n || " passages"}…`;
    case "selecting":
      return "Selecting context…";
    case "generating":
      return "Writing the answer…";
    default:
      return `${stage}…`;
  }
}

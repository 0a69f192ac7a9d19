import type { PageBox } from "../api";

/** A box laid over the page image, in percent of the image's width and height from its top-left corner. */
export type BoxPercent = { left: number; top: number; width: number; height: number };

const clamp01 = (v: number) => Math.max(0, Math.min(1, v));
/** Percent with at most three decimals (no float noise such as 12.300000000000001 in the style). */
const pct = (v: number) => Math.round(v * 100_000) / 1000;

/**
 * One box as CSS percentages of the page: coordinates clamped to the page (0..1, so 0..100%), corners put in order;
 * null when a coordinate is not a number or the box has no area left on the page.
 */
export function boxPercent(b: PageBox): BoxPercent | null {
  const v = [b.x0, b.y0, b.x1, b.y1];
  if (!v.every(Number.isFinite)) return null;
  const [x0, x1] = [clamp01(Math.min(b.x0, b.x1)), clamp01(Math.max(b.x0, b.x1))];
  const [y0, y1] = [clamp01(Math.min(b.y0, b.y1)), clamp01(Math.max(b.y0, b.y1))];
  if (x1 <= x0 || y1 <= y0) return null;
  return { left: pct(x0), top: pct(y0), width: pct(x1 - x0), height: pct(y1 - y0) };
}

/** The boxes of a chunk that lie on `page` (pages from 1); a chunk ingested before positions were kept has none. */
export function boxesOnPage(boxes: readonly PageBox[] | null | undefined, page: number): PageBox[] {
  return (boxes ?? []).filter((b) => b.page === page);
}

/** What the page view overlays for a chunk on `page`: its boxes there as percentages, degenerate ones left out. */
export function overlayBoxes(boxes: readonly PageBox[] | null | undefined, page: number): BoxPercent[] {
  return boxesOnPage(boxes, page).flatMap((b) => {
    const p = boxPercent(b);
    return p ? [p] : [];
  });
}

/** The style object of an overlay box (set through the CSSOM: the app's CSP allows no inline style attribute). */
export function boxStyle(p: BoxPercent): { left: string; top: string; width: string; height: string } {
  return { left: `${p.left}%`, top: `${p.top}%`, width: `${p.width}%`, height: `${p.height}%` };
}

/** The pages other than `page` a chunk's boxes lie on, in order (a chunk that starts or ends on another page). */
export function otherBoxPages(boxes: readonly PageBox[] | null | undefined, page: number): number[] {
  return [...new Set((boxes ?? []).map((b) => b.page).filter((p) => p !== page))].sort((a, b) => a - b);
}

/** A heading path as one line ("3 Method › 3.2 Training"); "" when there is none. */
export function sectionPath(section: readonly string[] | null | undefined): string {
  return (section ?? []).map((s) => s.trim()).filter(Boolean).join(" › ");
}

// Windowing arithmetic for VirtualTable (components/VirtualRows.tsx): where each row starts, given the heights
// measured so far (an estimate for the others), and which rows a scrolled viewport shows.

/** Prefix sums of the rows' heights: `offsets[i]` is where row i starts, `offsets[n]` the total height. */
export function rowOffsets(n: number, heightOf: (index: number) => number): Float64Array {
  const offsets = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + heightOf(i);
  return offsets;
}

/** The smallest i in 0..=n with `offsets[i] >= y` (n + 1 offsets, ascending). */
function firstAtOrAfter(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid] >= y) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The rows `[start, end)` to render for a viewport of `height` pixels whose top is `top` pixels into the rows
 * (negative while a header above the rows is still in view): every row that overlaps it, widened by `overscan`
 * rows on each side; at least one row of a non-empty list.
 */
export function visibleRange(offsets: Float64Array, top: number, height: number, overscan: number): { start: number; end: number } {
  const n = offsets.length - 1;
  if (n === 0) return { start: 0, end: 0 };
  const from = Math.max(0, top);
  // The row holding the viewport's top edge (the one starting there, else the one before), and every row starting
  // above its bottom edge.
  const k = firstAtOrAfter(offsets, from);
  const first = Math.min(n - 1, offsets[k] === from ? k : k - 1);
  const last = Math.max(first + 1, firstAtOrAfter(offsets, from + Math.max(0, height)));
  return { start: Math.max(0, first - overscan), end: Math.min(n, last + overscan) };
}

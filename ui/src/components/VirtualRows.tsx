// A table that renders only the rows in view of its own scroll container (plus overscan), for runs of thousands of
// candidates. It stays a <table>: the header is sticky, the rows keep their own data-testid attributes, spacer rows
// stand in for the rest, and aria-rowcount / aria-rowindex tell assistive technology the real size. Row heights are
// measured as rows render (an estimate until then), so uneven rows (an opened metadata block) stay in place.
// Lists of up to `threshold` rows render whole, as before.
import type { ComponentChildren, VNode } from "preact";
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { rowOffsets, visibleRange } from "../logic/virtual";

/** Lists longer than this are windowed. */
export const VIRTUALISE_ABOVE = 100;

type Props<T> = {
  items: readonly T[];
  rowKey: (item: T) => string;
  /** One row: a <tr> (or a component rendering one) with `aria-rowindex={index + 2}` (the header is row 1). */
  renderRow: (item: T, index: number) => VNode;
  /** The header row(s), inside <thead>. */
  head: ComponentChildren;
  columns: number;
  tableClass: string;
  wrapClass?: string;
  /** What the scroll region holds, for assistive technology (when windowed, it is focusable to scroll by keys). */
  label: string;
  testid?: string;
  /** Row height in pixels until rows are measured. */
  estimate?: number;
  overscan?: number;
  threshold?: number;
};

/** A <table> over `items`, windowed when there are more than `threshold` of them. */
export function VirtualTable<T>(props: Props<T>) {
  const { items, rowKey, overscan = 10, threshold = VIRTUALISE_ABOVE } = props;
  const windowed = items.length > threshold;
  const wrap = useRef<HTMLDivElement>(null);
  const head = useRef<HTMLTableSectionElement>(null);
  const body = useRef<HTMLTableSectionElement>(null);
  // Measured heights by row key, and their mean as the estimate for rows not measured yet.
  const sizes = useRef(new Map<string, number>());
  const mean = useRef({ sum: 0, count: 0 });
  const [measured, setMeasured] = useState(0);
  // Scrolled to the end: kept there while measuring moves the rows (End, or a drag to the bottom, reaches the last
  // row although the heights of the rows it skipped were estimated).
  const stickToEnd = useRef(false);
  const [view, setView] = useState({ top: 0, height: 0, head: 0 });

  const estimate = mean.current.count ? mean.current.sum / mean.current.count : props.estimate ?? 28;
  const offsets = useMemo(
    () => (windowed ? rowOffsets(items.length, (i) => sizes.current.get(rowKey(items[i])) ?? estimate) : null),
    [items, windowed, measured, estimate],
  );
  const { start, end } = offsets ? visibleRange(offsets, view.top - view.head, view.height, overscan) : { start: 0, end: items.length };

  const readView = () => {
    const el = wrap.current;
    if (!el) return;
    const next = { top: el.scrollTop, height: el.clientHeight, head: head.current?.offsetHeight ?? 0 };
    stickToEnd.current = next.top > 0 && next.top + next.height >= el.scrollHeight - 1;
    setView((v) => (v.top === next.top && v.height === next.height && v.head === next.head ? v : next));
  };

  // The viewport's size: on mount and whenever it changes (a window resize, a <details> opened).
  useLayoutEffect(() => {
    const el = wrap.current;
    if (!el || !windowed) return;
    readView();
    const ro = new ResizeObserver(readView);
    ro.observe(el);
    return () => ro.disconnect();
  }, [windowed]);

  // Row heights come from a ResizeObserver: it reports a rendered row's height after layout (no layout forced in a
  // repaint) and again whenever it changes (an opened metadata block); a height that moved re-lays the window.
  const rowObserver = useRef<ResizeObserver | null>(null);
  const observed = useRef(new Map<Element, string>());
  useLayoutEffect(() => {
    if (!windowed) return;
    const ro = new ResizeObserver((entries) => {
      let moved = false;
      for (const e of entries) {
        const key = observed.current.get(e.target);
        const h = e.borderBoxSize?.[0]?.blockSize ?? e.target.getBoundingClientRect().height;
        if (key === undefined || h <= 0) continue; // gone, or not laid out (inside a closed <details>)
        const old = sizes.current.get(key);
        if (old === undefined) {
          mean.current.sum += h;
          mean.current.count++;
        }
        if (old === undefined || Math.abs(old - h) > 0.5) {
          sizes.current.set(key, h);
          moved = true;
        }
      }
      if (moved) setMeasured((m) => m + 1);
    });
    rowObserver.current = ro;
    return () => {
      ro.disconnect();
      observed.current.clear();
      rowObserver.current = null;
    };
  }, [windowed]);

  // After every render: observe the rows that came into the window, stop observing those that left it, and stay at
  // the end when the user scrolled there.
  useLayoutEffect(() => {
    const el = wrap.current;
    const ro = rowObserver.current;
    if (!windowed || !ro || !body.current || !el) return;
    if (stickToEnd.current && el.scrollTop + el.clientHeight < el.scrollHeight - 1) el.scrollTop = el.scrollHeight;
    const now = new Map<Element, string>();
    let k = start;
    for (const tr of Array.from(body.current.children)) {
      if (tr.classList.contains("vr-spacer")) continue;
      const item = items[k++];
      if (item === undefined) break;
      now.set(tr, rowKey(item));
    }
    for (const tr of observed.current.keys()) if (!now.has(tr)) ro.unobserve(tr);
    for (const [tr, key] of now) {
      if (observed.current.get(tr) !== key) {
        if (observed.current.has(tr)) ro.unobserve(tr);
        ro.observe(tr);
      }
    }
    observed.current = now;
  });

  const top = offsets ? offsets[start] : 0;
  const bottom = offsets ? offsets[items.length] - offsets[end] : 0;
  const spacer = (key: string, height: number) => (
    <tr key={key} class="vr-spacer" aria-hidden="true"><td colSpan={props.columns} style={{ height: `${height}px` }} /></tr>
  );
  const rows: VNode[] = [];
  for (let i = start; i < end; i++) rows.push(props.renderRow(items[i], i));
  return (
    <div ref={wrap} class={`table-wrap${props.wrapClass ? ` ${props.wrapClass}` : ""}${windowed ? " virtual" : ""}`}
      onScroll={windowed ? readView : undefined} tabIndex={windowed ? 0 : undefined} role={windowed ? "region" : undefined}
      aria-label={windowed ? props.label : undefined}>
      <table class={props.tableClass} aria-rowcount={items.length + 1} data-testid={props.testid}>
        <thead ref={head}>{props.head}</thead>
        <tbody ref={body}>
          {top > 0 && spacer("vr-top", top)}
          {rows}
          {bottom > 0 && spacer("vr-bottom", bottom)}
        </tbody>
      </table>
    </div>
  );
}

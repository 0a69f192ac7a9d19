import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { PageView as Page } from "../api";
import { Empty, ErrorBanner } from "../components/common";
import { splitHighlights } from "../logic/highlight";
import { currentRunId, labelsVersion, pageTarget } from "../state";

/** The selection inside `el` as code-point offsets into its text (what the page's chunk offsets count), or null. */
function selectionOffsets(el: HTMLElement | null): { start: number; end: number; text: string } | null {
  const sel = typeof window === "undefined" ? null : window.getSelection();
  if (!el || !sel || sel.rangeCount === 0 || sel.isCollapsed) return null;
  const range = sel.getRangeAt(0);
  if (!el.contains(range.startContainer) || !el.contains(range.endContainer)) return null;
  const before = document.createRange();
  before.setStart(el, 0);
  before.setEnd(range.startContainer, range.startOffset);
  const start = Array.from(before.toString()).length;
  const text = range.toString();
  return { start, end: start + Array.from(text).length, text };
}

export function PageView() {
  const target = pageTarget.value;
  const [page, setPage] = useState<Page | null>(null);
  const [image, setImage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [num, setNum] = useState("");
  const markRef = useRef<HTMLElement>(null);
  const textRef = useRef<HTMLDivElement>(null);
  const [marked, setMarked] = useState<string | null>(null);
  const runId = currentRunId.value;
  const markEvidence = async () => {
    const s = selectionOffsets(textRef.current);
    if (!s || !target || !runId) return setMarked("Select the evidence on the page first.");
    try {
      const l = await api.labelSpan(runId, target.documentId, target.page, s.start, s.end);
      labelsVersion.value++;
      setMarked(`Marked as evidence: “${l.text.slice(0, 80)}${l.text.length > 80 ? "…" : ""}”`);
    } catch (e) {
      setError(e);
    }
  };

  useEffect(() => {
    if (!target) return;
    let live = true;
    setError(null);
    setNum(String(target.page));
    api.page(target.documentId, target.page).then((p) => live && setPage(p), (e) => live && (setError(e), setPage(null)));
    setImage(null);
    api.pageImage(target.documentId, target.page).then((i) => live && setImage(i), () => live && setImage(null));
    return () => { live = false; };
  }, [target?.documentId, target?.page, target?.chunkId]);

  const segments = useMemo(() => (page ? splitHighlights(page.text, page.chunks, target?.chunkId ?? null) : []), [page, target?.chunkId]);

  useLayoutEffect(() => {
    markRef.current?.scrollIntoView({ block: "center" });
  }, [segments]);

  const goTo = (p: number) => {
    if (!target || !page) return;
    const clamped = Math.max(1, Math.min(page.page_count, p));
    pageTarget.value = { ...target, page: clamped };
  };

  if (!target) {
    return (
      <section class="view view-page" data-testid="view-page" aria-label="Page">
        <Empty>Click a citation [n] in Chat or a passage in the Inspector to see it on its page.</Empty>
      </section>
    );
  }
  return (
    <section class="view view-page" data-testid="view-page" aria-label="Page">
      <header class="view-head">
        <h1>{page?.title ?? "Page"}</h1>
        <div class="toolbar">
          <button type="button" class="btn" onClick={() => goTo(target.page - 1)} disabled={!page || target.page <= 1} aria-label="Previous page">‹ Prev</button>
          <form class="inline-form" onSubmit={(e) => { e.preventDefault(); goTo(Number.parseInt(num, 10) || 1); }}>
            <label for="page-num">Page</label>
            <input id="page-num" class="input input-num" type="number" min={1} max={page?.page_count} value={num}
              onInput={(e) => setNum((e.target as HTMLInputElement).value)} data-testid="page-number" />
            <span class="muted">of {page?.page_count ?? "…"}</span>
          </form>
          <button type="button" class="btn" onClick={() => goTo(target.page + 1)} disabled={!page || target.page >= page.page_count} aria-label="Next page">Next ›</button>
          <button type="button" class="btn" data-testid="mark-evidence" disabled={!runId} onClick={() => void markEvidence()}
            title={runId ? "Label the selected text as answer evidence for the current run's question" : "Open a run first"}>Mark selection as evidence</button>
        </div>
      </header>
      <ErrorBanner error={error} />
      {marked && <div class="ok small" role="status" data-testid="evidence-marked">{marked}</div>}
      {page && <div class="muted small path-line" title={page.path}>{page.path}</div>}
      {page?.ocr && <div class="banner banner-warning" data-testid="page-ocr" title="This page has no text layer: Tesseract read its image, so expect recognition errors">OCR: text read from the page image</div>}
      <div class={`page-layout${image ? " with-image" : ""}`}>
        <div class="page-text" tabIndex={0} data-testid="page-text" ref={textRef}>
          {segments.map((s, i) =>
            s.target ? (
              <mark key={i} data-testid="chunk-highlight" ref={markRef as any}>{s.text}</mark>
            ) : (
              <span key={i} class={s.chunk >= 0 ? `chunk chunk-${s.chunk % 2}` : undefined}>{s.text}</span>
            ),
          )}
          {page && page.text.length === 0 && <span class="muted">This page has no text.</span>}
        </div>
        {image && <img class="page-image" src={image} alt={`Rendering of page ${target.page}`} />}
      </div>
    </section>
  );
}

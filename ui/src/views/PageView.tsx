import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { PageChunk, PageView as Page } from "../api";
import { Empty, ErrorBanner } from "../components/common";
import { splitHighlights } from "../logic/highlight";
import { boxStyle, otherBoxPages, overlayBoxes, sectionPath } from "../logic/pageBoxes";
import { currentRunId, labelsVersion, libraryVersion, pageTarget } from "../state";

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

/** Why the chunk shown has no highlight on the page image (none when it has one, or when there is no image). The
 * page command sends a chunk's boxes on this page only: none means the loader kept no positions for it — text read
 * by OCR has none, and neither has a chunk ingested before positions were kept. */
function NoBoxesNote(props: { chunk: PageChunk; page: number; ocr: boolean }) {
  const { chunk, page } = props;
  if (!chunk.boxes?.length) {
    return (
      <div class="muted small" data-testid="page-no-boxes">
        {props.ocr
          ? "Not marked on the image: text read by OCR has no positions."
          : "Not marked on the image: this chunk was ingested before ragsift kept text positions. Re-ingest the document to see it on the page."}
      </div>
    );
  }
  if (overlayBoxes(chunk.boxes, page).length > 0) return null;
  const others = otherBoxPages(chunk.boxes, page);
  return others.length ? (
    <div class="muted small" data-testid="page-no-boxes">Not marked on this image: the chunk's text lies on p. {others.join(", ")}.</div>
  ) : null;
}

/** The rendered page with the shown chunk's boxes laid over it (percentages of the image, so any size fits). Keyed by
 * the image: a new page mounts afresh and waits for its own load. */
function PageFigure(props: { image: string; page: number; chunk: PageChunk | null; position: number; follow: "center" | "nearest" }) {
  const { chunk, page } = props;
  const [loaded, setLoaded] = useState(false);
  const firstBox = useRef<HTMLDivElement>(null);
  const boxes = useMemo(() => overlayBoxes(chunk?.boxes, page), [chunk, page]);
  // The first box into view once the image has its size (before, the percentages resolve against nothing).
  useLayoutEffect(() => {
    if (loaded) firstBox.current?.scrollIntoView({ block: props.follow, inline: "nearest" });
  }, [loaded, chunk?.chunk_id, boxes.length]);
  const name = `chunk ${props.position}`;
  return (
    <div class="page-figure-scroll">
      <div class="page-figure" data-testid="page-figure">
        <img class="page-image" data-testid="page-image" src={props.image} alt={`Rendering of page ${page}`} onLoad={() => setLoaded(true)} />
        {chunk && boxes.map((b, i) => (
          <div key={`${chunk.chunk_id}-${i}`} ref={i === 0 ? firstBox : undefined} class="page-box" data-testid="page-box" data-chunk-id={chunk.chunk_id}
            role="img" aria-label={boxes.length > 1 ? `Where ${name} is on the page (part ${i + 1} of ${boxes.length})` : `Where ${name} is on the page`}
            style={boxStyle(b)} />
        ))}
      </div>
    </div>
  );
}

export function PageView() {
  const target = pageTarget.value;
  const [page, setPage] = useState<Page | null>(null);
  const [image, setImage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [num, setNum] = useState("");
  /** The chunk under the pointer (or focused in the chunk list): the image shows it while it is there. */
  const [hover, setHover] = useState<string | null>(null);
  /** The last selection came from a click in the text: the text stays where it is. */
  const pickedInText = useRef(false);
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

  // The page and its image depend on the document and page only: choosing another chunk on it fetches nothing.
  useEffect(() => {
    if (!target) return;
    let live = true;
    setError(null);
    setHover(null);
    setNum(String(target.page));
    api.page(target.documentId, target.page).then((p) => live && setPage(p), (e) => live && (setError(e), setPage(null)));
    setImage(null);
    api.pageImage(target.documentId, target.page).then((i) => live && setImage(i), () => live && setImage(null));
    return () => { live = false; };
  }, [target?.documentId, target?.page, libraryVersion.value]);

  const selected = target?.chunkId ?? null;
  const segments = useMemo(() => (page ? splitHighlights(page.text, page.chunks, selected) : []), [page, selected]);

  useLayoutEffect(() => {
    if (pickedInText.current) pickedInText.current = false;
    else markRef.current?.scrollIntoView({ block: "center" });
  }, [segments]);

  const goTo = (p: number) => {
    if (!target || !page) return;
    const clamped = Math.max(1, Math.min(page.page_count, p));
    pageTarget.value = { ...target, page: clamped };
  };
  const select = (chunkId: string, inText: boolean) => {
    if (!target || chunkId === target.chunkId) return;
    pickedInText.current = inText;
    pageTarget.value = { ...target, chunkId };
  };

  if (!target) {
    return (
      <section class="view view-page" data-testid="view-page" aria-label="Page">
        <Empty>Click a citation [n] in Chat or a passage in the Inspector to see it on its page.</Empty>
      </section>
    );
  }
  const chunks = page?.chunks ?? [];
  const shownId = hover ?? selected;
  const shownAt = chunks.findIndex((c) => c.chunk_id === shownId);
  const shown = shownAt >= 0 ? chunks[shownAt] : null;
  const section = sectionPath(shown?.section);
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
      {chunks.length > 0 && (
        <div class="chunk-bar" data-testid="chunk-bar">
          <div class="chunk-picker" role="group" aria-label="Chunks on this page" onMouseLeave={() => setHover(null)}>
            <span class="muted small">Chunks</span>
            {chunks.map((c, i) => (
              <button key={c.chunk_id} type="button" class={`btn btn-small chunk-pick${c.chunk_id === shownId ? " active" : ""}`} data-testid="chunk-pick"
                data-chunk-id={c.chunk_id} aria-pressed={c.chunk_id === selected} title={sectionPath(c.section) || undefined}
                onMouseEnter={() => setHover(c.chunk_id)} onFocus={() => setHover(c.chunk_id)} onBlur={() => setHover(null)}
                onClick={() => select(c.chunk_id, false)}>{i + 1}</button>
            ))}
          </div>
          {shown && (
            <span class="chunk-caption small" data-testid="chunk-caption">
              <span class="muted">chunk {shownAt + 1}{shown.chunk_id !== selected ? " (pointed at)" : ""}</span>
              {section && <> · <span class="section-path" data-testid="chunk-section" title="The headings the chunk starts under">{section}</span></>}
            </span>
          )}
          {image && shown && <NoBoxesNote chunk={shown} page={target.page} ocr={!!page?.ocr} />}
        </div>
      )}
      <div class={`page-layout${image ? " with-image" : ""}`}>
        <div class="page-text" tabIndex={0} data-testid="page-text" ref={textRef} onMouseLeave={() => setHover(null)}>
          {segments.map((s, i) => {
            if (s.target) return <mark key={i} data-testid="chunk-highlight" ref={markRef as any} onMouseEnter={() => setHover(null)}>{s.text}</mark>;
            if (s.chunk < 0) return <span key={i}>{s.text}</span>;
            const id = chunks[s.chunk].chunk_id;
            return (
              <span key={i} class={`chunk chunk-${s.chunk % 2}${id === hover ? " chunk-hover" : ""}`} data-chunk-id={id}
                onMouseEnter={() => setHover(id)} onClick={() => window.getSelection()?.isCollapsed !== false && select(id, true)}>{s.text}</span>
            );
          })}
          {page && page.text.length === 0 && <span class="muted">This page has no text.</span>}
        </div>
        {image && <PageFigure key={image} image={image} page={target.page} chunk={shown} position={shownAt + 1} follow={hover ? "nearest" : "center"} />}
      </div>
      {page && page.furniture.length > 0 && (
        <details class="page-furniture muted small" data-testid="page-furniture">
          <summary title="Running headers and footers, page numbers, stamps and watermarks: set apart at ingest, left out of chunks">
            Page furniture, not in chunks ({page.furniture.length})
          </summary>
          <ul>{page.furniture.map((f, i) => <li key={i}>{f}</li>)}</ul>
        </details>
      )}
    </section>
  );
}

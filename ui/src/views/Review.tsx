import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { AnswerLabel, ReviewItem, ReviewLabel, ReviewPacket, Verdict } from "../api";
import { Empty, ErrorBanner } from "../components/common";

const SIDES: AnswerLabel[] = ["A", "B"];
const VERDICTS: Verdict[] = ["yes", "no", "unclear"];
const DRAFT_KEY = (packetId: string) => `ragsift.review.${packetId}`;

type Drafts = Record<string, ReviewLabel>;
const key = (item: string, side: AnswerLabel) => `${item}/${side}`;

function blank(item: string, side: AnswerLabel, reviewer: string): ReviewLabel {
  return { item_id: item, anonymous_answer: side, reviewer, semantically_correct: null, ambiguous_question_or_reference: null, notes: "" };
}

function loadDrafts(packetId: string): Drafts {
  try {
    return JSON.parse(localStorage.getItem(DRAFT_KEY(packetId)) ?? "{}") as Drafts;
  } catch {
    return {};
  }
}

function Choice(props: { name: string; value: Verdict | null; onPick: (v: Verdict) => void; testid: string }) {
  return (
    <span class="choice" role="radiogroup" data-testid={props.testid}>
      {VERDICTS.map((v) => (
        <label key={v} class="check"><input type="radio" name={props.name} checked={props.value === v} onChange={() => props.onPick(v)} /> {v}</label>
      ))}
    </span>
  );
}

function Item(props: { item: ReviewItem; drafts: Drafts; reviewer: string; onChange: (l: ReviewLabel) => void }) {
  const it = props.item;
  const get = (side: AnswerLabel) => props.drafts[key(it.item_id, side)] ?? blank(it.item_id, side, props.reviewer);
  return (
    <div class="panel review-item" data-testid="review-item" data-item-id={it.item_id}>
      <h3>{it.query}</h3>
      {it.reference_answers.length > 0 && <div class="muted small">Reference: {it.reference_answers.join(" · ")}</div>}
      <details><summary class="muted small">All candidate evidence ({it.full_candidate_evidence.length})</summary>
        <ol class="evidence">{it.full_candidate_evidence.map((e) => <li key={e.number}><strong>[{e.number}] {e.title}</strong> <span class="muted">{e.pages}</span><div>{e.text}</div></li>)}</ol>
      </details>
      <div class="compare">
        {SIDES.map((side) => {
          const l = get(side);
          const set = (patch: Partial<ReviewLabel>) => props.onChange({ ...l, reviewer: props.reviewer, ...patch });
          return (
            <div key={side} class="compare-col" data-testid={`review-answer-${side}`}>
              <h4>Answer {side}</h4>
              <div class="answer-box">{it.answers[side]?.text ?? "—"}</div>
              <div class="field-row">
                <span>Correct? <Choice name={`${it.item_id}-${side}-c`} value={l.semantically_correct} onPick={(v) => set({ semantically_correct: v })} testid={`review-correct-${side}`} /></span>
                <span>Question or reference ambiguous? <Choice name={`${it.item_id}-${side}-a`} value={l.ambiguous_question_or_reference} onPick={(v) => set({ ambiguous_question_or_reference: v })} testid={`review-ambiguous-${side}`} /></span>
              </div>
              <input class="input" placeholder="notes" value={l.notes} onInput={(e) => set({ notes: (e.target as HTMLInputElement).value })} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

/** Blinded review: two anonymous answers per question, judged yes/no/unclear, exported as rag-jev's CSV for
 * `ragsift review results`, which checks completeness and unblinds with the key. Drafts survive a restart. */
export function Review() {
  const [path, setPath] = useState("");
  const [packet, setPacket] = useState<ReviewPacket | null>(null);
  const [drafts, setDrafts] = useState<Drafts>({});
  const [reviewer, setReviewer] = useState("");
  const [csvPath, setCsvPath] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (packet) {
      try { localStorage.setItem(DRAFT_KEY(packet.packet_id), JSON.stringify(drafts)); } catch { /* private mode */ }
    }
  }, [drafts, packet]);

  const open = async (p: string) => {
    setError(null);
    try {
      const pk = await api.openReviewPacket(p.trim());
      setPacket(pk);
      setDrafts(loadDrafts(pk.packet_id));
    } catch (e) {
      setError(e);
    }
  };
  const browse = async (save: boolean) => {
    try {
      const d = await import("@tauri-apps/plugin-dialog");
      const r = save
        ? await d.save({ defaultPath: "review-labels.csv", filters: [{ name: "CSV", extensions: ["csv"] }] })
        : await d.open({ multiple: false, directory: false, filters: [{ name: "JSON", extensions: ["json"] }] });
      if (typeof r === "string") (save ? setCsvPath : setPath)(r);
    } catch (e) {
      setError(e);
    }
  };
  const labels = Object.values(drafts);
  const answered = labels.filter((l) => l.semantically_correct !== null).length;
  const total = (packet?.items.length ?? 0) * 2;
  const exportCsv = async () => {
    if (!packet) return;
    setError(null);
    try {
      setDone(await api.exportReviewLabels(packet, labels.map((l) => ({ ...l, reviewer: reviewer || l.reviewer })), csvPath.trim()));
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section class="view view-review" data-testid="view-review" aria-label="Review">
      <header class="view-head"><h1>Review</h1></header>
      <div class="panel inline">
        <label class="sr-only" for="review-path">Review packet</label>
        <input id="review-path" class="input path-input" data-testid="review-path" placeholder="/path/to/packet.json (ragsift review packet)" value={path}
          onInput={(e) => setPath((e.target as HTMLInputElement).value)} spellcheck={false} />
        <button type="button" class="btn" onClick={() => void browse(false)}>Browse…</button>
        <button type="button" class="btn btn-primary" data-testid="review-open" disabled={!path.trim()} onClick={() => void open(path)}>Open packet</button>
        <label class="sr-only" for="review-reviewer">Reviewer</label>
        <input id="review-reviewer" class="input" placeholder="your name" value={reviewer} onInput={(e) => setReviewer((e.target as HTMLInputElement).value)} />
      </div>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      {!packet ? <Empty>Open a packet made by <code>ragsift review packet RUN_ID…</code>: each question with two anonymous answers, one from the baseline context and one from the selection, in a random order only the key knows.</Empty> : (
        <>
          <div class="muted small">{packet.instructions}</div>
          <div class="stat" data-testid="review-progress">{answered} of {total} answers judged</div>
          {packet.items.map((it) => (
            <Item key={it.item_id} item={it} drafts={drafts} reviewer={reviewer}
              onChange={(l) => setDrafts((d) => ({ ...d, [key(l.item_id, l.anonymous_answer)]: l }))} />
          ))}
          <div class="panel inline">
            <label class="sr-only" for="review-csv">Export labels to</label>
            <input id="review-csv" class="input path-input" data-testid="review-csv" placeholder="/path/to/labels.csv" value={csvPath}
              onInput={(e) => setCsvPath((e.target as HTMLInputElement).value)} spellcheck={false} />
            <button type="button" class="btn" onClick={() => void browse(true)}>Save as…</button>
            <button type="button" class="btn btn-primary" data-testid="review-export" disabled={!csvPath.trim()} onClick={() => void exportCsv()}>Export CSV</button>
            {done && <span class="ok small" role="status" data-testid="review-exported">Exported to {done}; check and unblind with <code>ragsift review results PACKET {done} --key KEY</code>.</span>}
          </div>
        </>
      )}
    </section>
  );
}

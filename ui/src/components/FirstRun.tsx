// The first run, as Rust defines it (first_run): on an empty library, the bundled samples with one button; once
// they are in, three questions that show the loop, each asked at once and opened in the Inspector or Replay.
import { signal } from "@preact/signals";
import { useState } from "preact/hooks";
import { api } from "../api";
import type { FirstRun, Suggestion } from "../api";
import { ErrorBanner } from "./common";
import { basename } from "../logic/format";
import { endJob, openRun, rememberTrace, startJob } from "../state";

/** The questions to try, shown after the samples went in through this panel (this session only). */
export const suggestionsShown = signal<Suggestion[] | null>(null);

const KIND_LABEL: Record<Suggestion["kind"], string> = {
  judge_drops: "The judge drops a passage",
  threshold_matters: "A threshold changes the selection",
  unanswerable: "The documents cannot answer",
};

/** The offer of the samples: shown only while the library has no documents. */
export function SampleOffer(props: { firstRun: FirstRun; busy: boolean; onIngest: (paths: string[]) => Promise<boolean> }) {
  const files = props.firstRun.samples;
  return (
    <div class="panel first-run" data-testid="first-run-offer">
      <div class="panel-head"><h2>New here? Start with the samples</h2></div>
      <p class="pad">
        {files.length} small documents ship with ragsift: {files.map(basename).join(", ")}. Add them, then try three
        questions that show what the workbench is for.
      </p>
      <div class="pad">
        <button type="button" class="btn btn-primary" data-testid="first-run-ingest" disabled={props.busy}
          onClick={async () => {
            if (await props.onIngest(files)) suggestionsShown.value = props.firstRun.suggestions;
          }}>
          Add the {files.length} samples
        </button>
      </div>
    </div>
  );
}

/** The three questions: each is asked at once and its run opens where the loop shows. */
export function Suggestions() {
  const list = suggestionsShown.value;
  const [asking, setAsking] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (!list) return null;
  const ask = async (s: Suggestion) => {
    setError(null);
    setAsking(s.question);
    const job = startJob("Answering");
    try {
      const trace = await api.ask({ question: s.question, history: [], options: null }, job, () => {});
      rememberTrace(trace);
      openRun(trace.run_id, s.opens);
    } catch (e) {
      setError(e);
    } finally {
      endJob(job);
      setAsking(null);
    }
  };
  return (
    <div class="panel first-run" data-testid="first-run-suggestions">
      <div class="panel-head">
        <h2>Three questions that show the loop</h2>
        <button type="button" class="btn btn-small btn-ghost" onClick={() => { suggestionsShown.value = null; }}>Dismiss</button>
      </div>
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      <ol class="suggestions">
        {list.map((s) => (
          <li key={s.kind} data-testid={`suggestion-${s.kind}`}>
            <div><strong>{KIND_LABEL[s.kind]}</strong>: “{s.question}”</div>
            <div class="muted small">{s.hint}</div>
            <button type="button" class="btn btn-small" data-testid={`suggestion-ask-${s.kind}`} disabled={asking !== null}
              onClick={() => void ask(s)}>
              {asking === s.question ? "Asking…" : s.opens === "replay" ? "Ask, then open Replay" : "Ask, then open the Inspector"}
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}

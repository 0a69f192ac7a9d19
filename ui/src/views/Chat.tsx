import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { ChatMessage, Trace } from "../api";
import { AnswerText } from "../components/AnswerText";
import { Banner, Empty, ErrorBanner, Progress, SectionPath } from "../components/common";
import { excerptAround, quotedBy } from "../logic/citations";
import { pages, stageText } from "../logic/format";
import { showsSupport, supportTitle } from "../logic/support";
import { endJob, openRun, openSource, rememberTrace, startJob, view } from "../state";

type Turn = {
  key: number;
  question: string;
  answer: string;
  state: "streaming" | "done" | "error";
  stage: string | null;
  loading: number | null;
  trace: Trace | null;
  error: unknown;
  job: string | null;
};

let nextKey = 1;

function history(turns: Turn[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const t of turns) {
    if (t.state !== "done") continue;
    out.push({ role: "user", content: t.question }, { role: "assistant", content: t.answer });
  }
  return out;
}

/** A source's text in the Sources panel: around the sentence the answer quoted from it (marked), else its opening. */
function SourceText(props: { text: string; quotes: string[] }) {
  const found = props.quotes.map((q) => excerptAround(props.text, q)).find((x) => x !== null);
  if (!found) return <div class="source-snippet">{props.text.length > 240 ? `${props.text.slice(0, 240)}…` : props.text}</div>;
  return (
    <div class="source-snippet">{found.before}<mark class="quoted" data-testid="quoted-sentence">{found.quote}</mark>{found.after}</div>
  );
}

export function SourcesList(props: { trace: Trace }) {
  const t = props.trace;
  const sections = useMemo(() => new Map(t.candidates.map((c) => [c.chunk_id, c.section])), [t]);
  const quoted = useMemo(() => quotedBy(t.answer), [t]);
  if (!t.sources.length) return <div class="muted">No sources were given to the model.</div>;
  return (
    <ol class="sources">
      {t.sources.map((s) => (
        <li key={s.number} value={s.number}>
          <button type="button" class="link" onClick={() => openSource(t, s.number)} title={s.document}>
            [{s.number}] {s.title} <span class="muted">({pages(s.page_start, s.page_end)})</span>
          </button>
          <SectionPath section={sections.get(s.chunk_id)} />
          <SourceText text={s.text} quotes={quoted.get(s.number) ?? []} />
        </li>
      ))}
    </ol>
  );
}

export function Chat() {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState("");
  const [focus, setFocus] = useState<number | null>(null);
  const logRef = useRef<HTMLDivElement>(null);
  const inputBox = useRef<HTMLTextAreaElement>(null);
  const busy = turns.some((t) => t.state === "streaming");
  // The question box has the focus whenever Chat opens.
  const shown = view.value === "chat";
  useEffect(() => {
    if (shown) inputBox.current?.focus();
  }, [shown]);

  const patch = (key: number, p: Partial<Turn>) => setTurns((ts) => ts.map((t) => (t.key === key ? { ...t, ...p } : t)));

  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [turns]);

  const send = async () => {
    const question = input.trim();
    if (!question || busy) return;
    const key = nextKey++;
    const job = startJob("Answering");
    const hist = history(turns);
    setTurns((ts) => [...ts, { key, question, answer: "", state: "streaming", stage: null, loading: null, trace: null, error: null, job }]);
    setFocus(key);
    setInput("");
    let answer = "";
    try {
      const trace = await api.ask({ question, history: hist, options: null }, job, (e) => {
        if (e.event === "token") {
          answer += e.text;
          patch(key, { answer });
        } else if (e.event === "stage") patch(key, { stage: e.stage, loading: e.stage === "loading_model" ? 0 : null });
        else if (e.event === "model_loading") patch(key, { loading: e.fraction });
      });
      rememberTrace(trace);
      patch(key, { answer: trace.answer, trace, state: "done", stage: null, job: null });
    } catch (e) {
      patch(key, { state: "error", error: e, stage: null, job: null });
    } finally {
      endJob(job);
    }
  };

  const focused = turns.find((t) => t.key === focus) ?? turns[turns.length - 1];

  return (
    <section class="view view-chat" data-testid="view-chat" aria-label="Chat">
      <div class="split">
        <div class="split-main chat-main">
          <div class="chat-log" ref={logRef} aria-live="polite">
            {turns.length === 0 && <Empty>Ask a question about your documents. Answers cite their sources as [1], [2]…</Empty>}
            {turns.map((t) => (
              <div key={t.key} class={`turn${t.key === focused?.key ? " turn-focused" : ""}`}>
                <div class="msg msg-user">{t.question}</div>
                <div class="msg msg-assistant" data-testid="answer" data-state={t.state} data-run-id={t.trace?.run_id}
                  onClick={() => setFocus(t.key)}>
                  {t.trace?.judge.status === "partial" && (
                    <Banner tone="warning" testid="judge-partial">
                      Could not screen {t.trace.judge.unscreened_passages} of {t.trace.judge.judgments.length} passages: they were kept unscreened.
                    </Banner>
                  )}
                  {t.trace?.judge.status === "bypassed" && (
                    <Banner tone="warning" testid="judge-bypassed">
                      Judge unavailable — answer used the unfiltered context: {t.trace.judge.error ?? t.trace.judge.error_code ?? "unknown error"}
                    </Banner>
                  )}
                  {t.state === "streaming" && (
                    <div class="stage-line" role="status">
                      <span class="spinner" aria-hidden="true" />
                      {t.stage ? stageText(t.stage) : "Starting…"}
                      {t.loading != null && <Progress value={t.loading} label="Loading the model" />}
                    </div>
                  )}
                  {t.answer ? (
                    <div class="answer-body">
                      <AnswerText text={t.answer} onCite={t.trace ? (n) => openSource(t.trace!, n) : undefined}
                        known={(n) => !!t.trace?.sources.some((s) => s.number === n)} />
                      {t.state === "streaming" && <span class="caret" aria-hidden="true" />}
                    </div>
                  ) : null}
                  {t.state === "error" && <ErrorBanner error={t.error} />}
                  {t.trace && showsSupport(t.trace.support) && (
                    <div class={`support support-${t.trace.support.level}`} data-testid="answer-support" data-level={t.trace.support.level}
                      title={supportTitle(t.trace.support)} data-probability={t.trace.support.probability ?? undefined}>
                      {t.trace.support.words}
                      {t.trace.support.source != null && t.trace.support.level !== "well" ? <span class="muted small"> · about passage [{t.trace.support.source}]</span> : null}
                    </div>
                  )}
                  {t.trace && (
                    <div class="answer-actions">
                      <button type="button" class="btn btn-small" data-testid="open-inspector" onClick={() => openRun(t.trace!.run_id, "inspector")}>Inspect</button>
                      <button type="button" class="btn btn-small" data-testid="open-replay" onClick={() => openRun(t.trace!.run_id, "replay")}>Replay</button>
                      <span class="muted small">{t.trace.sources.length} source{t.trace.sources.length === 1 ? "" : "s"}{t.trace.model ? ` · ${t.trace.model}` : ""}</span>
                    </div>
                  )}
                </div>
              </div>
            ))}
          </div>
          <form class="chat-form" onSubmit={(e) => { e.preventDefault(); void send(); }}>
            <label class="sr-only" for="chat-input">Question</label>
            <textarea id="chat-input" class="input chat-input" data-testid="chat-input" rows={2} value={input} ref={inputBox}
              placeholder="Ask a question… (Enter to send, Shift+Enter for a new line)"
              onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
                  e.preventDefault();
                  void send();
                }
              }} />
            {busy ? (
              <button type="button" class="btn btn-danger" data-testid="chat-stop"
                onClick={() => turns.forEach((t) => t.job && api.cancel(t.job).catch(() => {}))}>Stop</button>
            ) : (
              <button type="submit" class="btn btn-primary" data-testid="chat-send" disabled={!input.trim()}>Send</button>
            )}
          </form>
        </div>
        <aside class="split-side" aria-label="Sources">
          <h2>Sources</h2>
          {focused?.trace ? <SourcesList trace={focused.trace} /> : <div class="muted">Sources of the selected answer appear here.</div>}
        </aside>
      </div>
    </section>
  );
}

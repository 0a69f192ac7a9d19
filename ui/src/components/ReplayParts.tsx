// Replay's parts that keep their own state or none: the regenerated answer beside the original, the policy's
// actions (save as default, copy for your app), and the summary of what the replay changed.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { PolicyOptions, Selection, ServeSnippet, Trace } from "../api";
import { fmtInt, fmtSigned, stageText } from "../logic/format";
import { forWire } from "../logic/reasons";
import type { SelectionDiff } from "../logic/replayDiff";
import { endJob, openSource, rememberTrace, startJob } from "../state";
import { SourcesList } from "../views/Chat";
import { AnswerText } from "./AnswerText";
import { ErrorBanner, ReasonTag } from "./common";
import { SnippetList } from "./Serving";

type Regenerated = { answer: string; stage: string | null; trace: Trace | null; error: unknown; job: string | null };

/** The run's answer made again from the replayed selection, streamed; `regen` is null until asked. */
export function useRegenerate(t: Trace, options: () => PolicyOptions) {
  const [regen, setRegen] = useState<Regenerated | null>(null);
  const regenerate = async () => {
    const job = startJob("Regenerating");
    let answer = "";
    setRegen({ answer: "", stage: null, trace: null, error: null, job });
    try {
      const nt = await api.regenerate(t.run_id, forWire(options()), job, (e) => {
        if (e.event === "token") { answer += e.text; setRegen((r) => r && { ...r, answer }); }
        else if (e.event === "stage") setRegen((r) => r && { ...r, stage: e.stage });
      });
      rememberTrace(nt);
      setRegen({ answer: nt.answer, stage: null, trace: nt, error: null, job: null });
    } catch (e) {
      setRegen((r) => ({ answer: r?.answer ?? "", stage: null, trace: null, error: e, job: null }));
    } finally {
      endJob(job);
    }
  };
  return { regen, regenerate };
}

/** The original answer beside the one regenerated with this selection. */
export function RegenerateCompare(props: { trace: Trace; regen: Regenerated }) {
  const { trace: t, regen } = props;
  return (
    <div class="compare panel" data-testid="regenerate-compare">
      <div class="compare-col">
        <h3>Original answer</h3>
        <div class="answer-box"><AnswerText text={t.answer} onCite={(n) => openSource(t, n)} /></div>
        <SourcesList trace={t} />
      </div>
      <div class="compare-col">
        <h3>With this selection</h3>
        {regen.job && <div class="stage-line"><span class="spinner" aria-hidden="true" />{regen.stage ? stageText(regen.stage) : "Starting…"}</div>}
        <div class="answer-box" data-testid="regenerated-answer"><AnswerText text={regen.answer} onCite={regen.trace ? (n) => openSource(regen.trace!, n) : undefined} /></div>
        <ErrorBanner error={regen.error} />
        {regen.trace && <SourcesList trace={regen.trace} />}
      </div>
    </div>
  );
}

/** Replay's row of actions: the resets (`children`), saving the current policy as the library's default,
 *  regenerating, and the same policy as an application sets it, listed under the row. The "saved" note goes as
 *  soon as the options change. */
export function PolicyActions(props: { options: PolicyOptions; onError: (e: unknown) => void; regenerate: ComponentChildren; children: ComponentChildren }) {
  const [saved, setSaved] = useState<string | null>(null);
  const [snippets, setSnippets] = useState<ServeSnippet[] | null>(null);
  useEffect(() => setSaved(null), [props.options]);
  return (
    <>
      <div class="control-row">
        {props.children}
        <button type="button" class="btn" onClick={() => api.saveDefaultPolicy(forWire(props.options)).then(() => setSaved("Saved as the default policy."), props.onError)}>Save as default policy</button>
        {props.regenerate}
        <button type="button" class="btn" data-testid="policy-snippets-toggle" onClick={() => {
          if (snippets) return setSnippets(null);
          api.policySnippets(forWire(props.options)).then(setSnippets, props.onError);
        }}>{snippets ? "Hide app config" : "Copy for your app…"}</button>
        {saved && <span class="ok small" role="status">{saved}</span>}
      </div>
      {snippets && <SnippetList snippets={snippets} testid="policy-snippets" class="snippets-inline" />}
    </>
  );
}

/** A count, or "bypassed" where the selection has none (rag-jev's null). */
function orBypass(n: number | null): string {
  return n === null ? "bypassed" : fmtInt(n);
}

/** What the replay changed against the run: counts, selected passages, tokens, characters and reasons. */
export function ReplaySummary(props: { diff: SelectionDiff; selection: Selection }) {
  const { diff, selection } = props;
  return (
    <div class="replay-summary panel" data-testid="replay-summary">
      <span class="stat"><strong class="num" data-testid="changed-count">{diff.changed}</strong> changed</span>
      <span class="stat">selected <strong class="num">{orBypass(diff.selected.now)}</strong> <span class="muted">(run {orBypass(diff.selected.before)})</span></span>
      <span class="stat">tokens <strong class="num">{orBypass(diff.tokens.now)}</strong> <span class="muted">(run {orBypass(diff.tokens.before)}{diff.tokens.delta === null ? "" : `, ${fmtSigned(diff.tokens.delta)}`})</span></span>
      <span class="stat">characters <strong class="num">{orBypass(diff.characters.now)}</strong> <span class="muted">(run {orBypass(diff.characters.before)}{diff.characters.delta === null ? "" : `, ${fmtSigned(diff.characters.delta)}`})</span></span>
      <span class="stat">status <strong>{selection.status}</strong></span>
      <div class="reason-counts">
        {diff.counts.map((c) => (
          <span key={c.reason} class="reason-count"><ReasonTag reason={c.reason} /> <span class="num">{c.now}</span><span class="muted num"> / {c.before}</span></span>
        ))}
        <span class="muted small">now / in run</span>
      </div>
    </div>
  );
}

import { useMemo } from "preact/hooks";
import type { Support, Trace } from "../api";
import { AnswerText } from "../components/AnswerText";
import { Banner, CopyButton, IntegrityWarnings, SectionPath } from "../components/common";
import { JudgeTable } from "../components/JudgeTable";
import { RunView } from "../components/RunView";
import { VirtualTable } from "../components/VirtualRows";
import { AblationTable } from "../components/Tuning";
import { fmt, fmtInt, fmtTime, pages } from "../logic/format";
import { openSource } from "../state";
import { defaultsSource } from "./Replay";
import { Snippet } from "../components/Passage";


function Stage(props: { n: number; title: string; meta?: string; children: preact.ComponentChildren }) {
  return (
    <section class="stage" data-testid={`stage-${props.n}`}>
      <h3><span class="stage-n">{props.n}</span>{props.title}{props.meta && <span class="muted small"> · {props.meta}</span>}</h3>
      <div class="stage-body">{props.children}</div>
    </section>
  );
}

/** How the answer was produced, in words. */
export const ANSWERED_BY: Record<string, string> = {
  extractive: "extractive: quoted from the kept passages (no model call)",
  completion: "generative: the base model continued a plain-text prompt",
  chat: "generative: the model answered Spring's augmented prompt",
  grounded: "grounded: the model's claims, each checked against the kept sentence it cites, with that sentence quoted",
  no_evidence: "no kept passage holds evidence: fixed answer, nothing cited",
  not_answered: "not answered yet: imported candidates are judged and selected; regenerate in Replay to answer",
};

/** An estimated cost, or "unknown" when a rate it needs is not configured (Settings → cost rates). */
function costText(v: number | null): string {
  return v === null ? "unknown" : v === 0 ? "0" : v < 0.01 ? v.toExponential(2) : v.toFixed(4);
}

export function TraceView(props: { trace: Trace }) {
  const t = props.trace;
  const j = t.judge;
  const timings = Object.entries(t.timings_ms);
  const byChunk = useMemo(() => new Map(t.candidates.map((c) => [c.chunk_id, c])), [t]);
  return (
    <div class="trace">
      <div class="trace-head">
        <h2 class="trace-q">{t.query}</h2>
        <span class="muted small">run {t.run_id} · {fmtTime(t.created_at)} · {t.model}</span>
      </div>
      {j.status === "bypassed" && (
        <Banner tone="error" testid="judge-bypassed" title="Judge bypassed">
          the answer used the unfiltered context. {j.error_code ? <code>{j.error_code}</code> : null} {j.error}
        </Banner>
      )}
      <IntegrityWarnings warnings={t.selection.warnings} />
      {j.status === "partial" && (
        <Banner tone="warning" testid="judge-partial" title={`Could not screen ${j.unscreened_passages} of ${j.judgments.length} passages`}>
          they were kept unscreened; the other passages' scores apply. {j.error_code ? <code>{j.error_code}</code> : null} {j.error}
        </Banner>
      )}
      <Stage n={1} title="Question">
        <div class="query-box">{t.query}</div>
        {t.history.length > 0 && <div class="muted small">with {t.history.length} earlier messages of conversation</div>}
      </Stage>
      <Stage n={2} title="Transformed queries" meta={`${t.transformed.length}`}>
        {t.transformed.length === 0 ? <div class="muted">Used as asked (no transformation).</div> : (
          <ul class="plain">{t.transformed.map((q, i) => <li key={i}><span class="tag">{q.stage}</span> {q.text}</li>)}</ul>
        )}
      </Stage>
      <Stage n={3} title="Retrieval by variant" meta={`${t.variants.length} variant${t.variants.length === 1 ? "" : "s"}`}>
        <div class="variants">
          {t.variants.map((v, vi) => (
            <details key={vi} class="variant" open={v.hits.length <= 8}>
              <summary><span class="tag">v{vi}</span> {v.query} <span class="muted small">({v.hits.length} hits)</span></summary>
              <VirtualTable items={v.hits} rowKey={(h) => h.chunk_id} columns={5} tableClass="table compact" label={`Hits of variant ${vi}`}
                head={<tr><th class="num">Rank</th><th>Passage</th><th class="num">Similarity</th><th class="num">BM25</th><th class="num">Score</th></tr>}
                renderRow={(h, i) => {
                  const c = byChunk.get(h.chunk_id);
                  return (
                    <tr key={h.chunk_id} aria-rowindex={i + 2} data-testid="variant-hit"><td class="num">{h.rank}</td>
                      <td class="passage-cell" title={h.chunk_id}>{c
                        ? <><Snippet text={c.text} query={v.query} max={120} /> <span class="muted small">{c.title} {pages(c.page_start, c.page_end)}</span></>
                        : <span class="mono small">{h.chunk_id}</span>}</td>
                      <td class="num">{fmt(h.similarity, 3)}</td><td class="num">{fmt(h.bm25, 2)}</td><td class="num">{fmt(h.score, 3)}</td></tr>
                  );
                }} />
            </details>
          ))}
        </div>
      </Stage>
      <Stage n={4} title="Joined candidates" meta={`${t.candidates.length}`}>
        <details open={t.candidates.length <= 12}>
          <summary>Candidates with provenance</summary>
          <VirtualTable items={t.candidates} rowKey={(c) => c.chunk_id} columns={5} tableClass="table compact" label="Joined candidates"
            head={<tr><th class="num">#</th><th>Passage</th><th class="num">Tokens</th><th class="num">Score</th><th>Found by (variant:rank)</th></tr>}
            renderRow={(c, i) => (
              <tr key={c.chunk_id} aria-rowindex={i + 2}><td class="num">{i + 1}</td><td>{c.title} <span class="muted">{pages(c.page_start, c.page_end)}</span><SectionPath section={c.section} /></td>
                <td class="num">{c.tokens}</td><td class="num">{fmt(c.score, 3)}</td>
                <td class="small">{c.found_by.map((p) => `v${p.variant}:${p.rank}`).join(" ")}</td></tr>
            )} />
        </details>
        <details class="variant" open data-testid="ablation-panel">
          <summary>What each variant adds <span class="muted small">(from the run's hits and judgments)</span></summary>
          <AblationTable runId={t.run_id} />
        </details>
      </Stage>
      <Stage n={5} title="Judge" meta={`${j.judge || "none"} · ${j.model || "—"} · ${j.calibrated ? "calibrated" : "uncalibrated"} · prompt ${j.prompt_version || "—"}`}>
        <div class="muted small" data-testid="judge-defaults-source">Thresholds: {defaultsSource(t)}{(j.not_assessed ?? []).length ? ` · not assessed: ${(j.not_assessed ?? []).join(", ")}` : ""}</div>
        <div class="kv">
          <span>Status <strong class={`judge-status judge-${j.status}`}>{j.status}</strong></span>
          <span>Fresh <strong class="num">{j.fresh_passages}</strong></span>
          <span>Cached <strong class="num">{j.cached_passages}</strong></span>
          <span>Tokens <strong class="num">{fmtInt(j.input_tokens)} in / {fmtInt(j.output_tokens)} out</strong></span>
          <span>Latency <strong class="num">{fmt(j.latency_ms, 0)} ms</strong></span>
          <span>Policy <strong>{t.policy.mode}</strong>{t.selection.status !== "applied" ? ` (${t.selection.status})` : ""}</span>
          <span>Selected {t.selection.selected_ids === null ? <strong>none: bypassed, the original context went through</strong> : <><strong class="num">{t.selection.selected_ids.length}</strong> · {fmtInt(t.selection.selected_tokens ?? 0)} tokens</>}</span>
        </div>
        <JudgeTable trace={t} />
      </Stage>
      <Stage n={6} title="Prompt sent to the model" meta={t.prompt ? undefined : "none: no model was asked"}>
        <div class="prompt-head"><span class="muted small">{t.prompt.length.toLocaleString("en-US")} characters</span><CopyButton text={t.prompt} label="Copy prompt" /></div>
        <pre class="prompt" tabIndex={0}>{t.prompt}</pre>
      </Stage>
      <Stage n={7} title="Answer" meta={`${ANSWERED_BY[t.answered_by] ?? t.answered_by} · ${t.usage.prompt_tokens} prompt + ${t.usage.completion_tokens} completion tokens`}>
        <div class="answer-box"><AnswerText text={t.answer} onCite={(n) => openSource(t, n)} known={(n) => t.sources.some((s) => s.number === n)} /></div>
        <div class="kv" data-testid="answer-facts">
          <span>Support <strong class={`support-${t.support.level}`} data-testid="support-probability">{t.support.probability === null ? "not assessed" : fmt(t.support.probability, 2)}</strong> <span class="muted small">{supportText(t.support)}</span></span>
          <span>Finish <strong>{t.finish_reason ?? "—"}</strong>{t.finish_reason === "length" ? <span class="flagged"> (cut at the token limit)</span> : null}</span>
          <span>Unknown citations <strong class={t.unknown_citations.length ? "flagged" : undefined} data-testid="unknown-citations">{t.unknown_citations.length ? t.unknown_citations.map((n) => `[${n}]`).join(" ") : "none"}</strong></span>
          <span>Cost <strong data-testid="run-cost">{costText(t.cost.total)}</strong> <span class="muted small">(judging {costText(t.cost.judging)}, generation {costText(t.cost.generation)})</span></span>
        </div>
        <div class="timings">
          {timings.map(([k, v]) => <span key={k} class="timing"><span class="muted">{k}</span> <span class="num">{fmt(v, v < 10 ? 1 : 0)} ms</span></span>)}
        </div>
      </Stage>
    </div>
  );
}

export function Inspector() {
  return (
    <RunView name="inspector" label="Inspector" render={(t) => <TraceView trace={t} />}
      empty={<>Pick a run on the left, or ask something in Chat and press <strong>Inspect</strong>.</>} />
  );
}

/** Where an answer's support number comes from, in words. */
function supportText(s: Support): string {
  const parts = [s.words];
  if (s.source !== null) parts.push(`passage [${s.source}]`);
  if (s.evidence !== null) parts.push(`evidence ${fmt(s.evidence, 2)}`);
  if (s.sentence !== null) parts.push(`sentence score ${fmt(s.sentence, 2)}`);
  parts.push(s.basis === "fitted" ? "fitted support model" : s.basis === "judge_evidence" ? "the judge's evidence probability" : "no judge probabilities");
  return parts.join(" · ");
}

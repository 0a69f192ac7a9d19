import { Component } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { Candidate, Change, GroupBy, LabelReport, Mode, PolicyForm, PolicyOptions, Reason, RunLabels, Selection, Trace } from "../api";
import { Banner, ErrorBanner, IntegrityWarnings, ReasonTag, SectionPath } from "../components/common";
import { Snippet } from "../components/Passage";
import { RunView } from "../components/RunView";
import { ExportRun, LabelSummary } from "../components/RunLabels";
import { OperatingCurves } from "../components/Curves";
import { useCalibrated } from "../components/Tuning";
import { VirtualTable } from "../components/VirtualRows";
import { fmt, pages } from "../logic/format";
import { REASON_EXPLAIN, QUESTIONS, THRESHOLD_KEYS, MODES, MODE_FAMILIES, GROUP_BY, GROUP_BY_LABEL, forWire, modeInfo, switchMode, takesThreshold } from "../logic/reasons";
import { applyReplayDelta } from "../logic/replayDelta";
import { createSweeps } from "../logic/replaySweep";
import { diffSelections } from "../logic/replayDiff";
import type { SelectionDiff } from "../logic/replayDiff";
import { createLatestScheduler } from "../logic/scheduler";
import { labelsVersion, pinRequest, policyRequest, rememberTrace } from "../state";
import { PolicyActions, RegenerateCompare, ReplaySummary, useRegenerate } from "../components/ReplayParts";



/** Where the default thresholds come from, in words. */
export function defaultsSource(t: Trace): string {
  const s = t.judge.defaults?.source ?? "spring";
  return s === "spring" ? "Spring AI's defaults (for Jev's calibrated probabilities)" : `the local judge's fitted operating points (${s})`;
}

type RowProps = {
  index: number;
  /** Its position in the table (aria-rowindex is this + 2: the header is row 1). */
  row: number;
  candidate: Candidate;
  reason: Reason | null;
  /** `null` when the selection was bypassed: nothing selected, the passage goes through unfiltered. */
  selected: boolean | null;
  rank: number | null;
  score: number | null;
  origReason: Reason | null;
  origSelected: boolean | null;
  changed: boolean;
  pinned: boolean;
  onPin: (chunkId: string, pinned: boolean) => void;
  /** Labelled as holding relevant evidence for the run's question. */
  relevant: boolean;
  onRelevant: (chunkId: string, relevant: boolean) => void;
  /** The run's question, whose words the snippet marks. */
  query: string;
};

/** One candidate row; re-renders only when its own decision changes. */
class ReplayRow extends Component<RowProps> {
  shouldComponentUpdate(n: RowProps) {
    const p = this.props;
    return n.row !== p.row || n.reason !== p.reason || n.selected !== p.selected || n.rank !== p.rank || n.score !== p.score ||
      n.changed !== p.changed || n.candidate !== p.candidate || n.origReason !== p.origReason || n.pinned !== p.pinned ||
      n.relevant !== p.relevant;
  }
  render() {
    const p = this.props;
    const c = p.candidate;
    return (
      <tr data-testid="replay-row" aria-rowindex={p.row + 2} data-chunk-id={c.chunk_id} data-reason={p.reason ?? undefined} data-changed={p.changed ? "true" : "false"}
        class={`${p.changed ? "row-changed " : ""}${p.selected ? "row-kept" : "row-dropped"}`}>
        <td class="num">{p.index + 1}</td>
        <td><input type="checkbox" data-testid="replay-pin" aria-label={`Pin passage ${p.index + 1}`} title="Pin: always select this passage"
          checked={p.pinned} onChange={(e) => p.onPin(c.chunk_id, (e.target as HTMLInputElement).checked)} /></td>
        <td><input type="checkbox" data-testid="replay-relevant" aria-label={`Passage ${p.index + 1} holds relevant evidence`} title="Label: holds relevant evidence for this question"
          checked={p.relevant} onChange={(e) => p.onRelevant(c.chunk_id, (e.target as HTMLInputElement).checked)} /></td>
        <td class="num">{p.rank ?? "—"}</td>
        <td class="passage-cell" title={c.text.slice(0, 300)}><Snippet text={c.text} query={p.query} max={140} />
          <div class="muted small">{c.title} {pages(c.page_start, c.page_end)}<SectionPath section={c.section} /></div></td>
        <td class="num">{fmt(p.score, 3)}</td>
        <td title={p.reason ? REASON_EXPLAIN[p.reason] : undefined}><ReasonTag reason={p.reason} /></td>
        <td title={p.origReason ? REASON_EXPLAIN[p.origReason] : undefined}><ReasonTag reason={p.origReason} /></td>
        <td>{p.selected === null ? <span class="flagged" title="bypassed: the original context goes through">passed</span> : p.selected ? <span class="kept">kept</span> : <span class="dropped">dropped</span>}{p.changed && p.selected !== p.origSelected ? <span class="delta-mark" title={p.origSelected ? "was kept" : "was dropped"}>{p.selected ? " ↑" : " ↓"}</span> : null}</td>
      </tr>
    );
  }
}

/** The candidate table (windowed above a hundred rows); re-renders only when the diff changes (not on every slider
 * value). */
type TableProps = {
  diff: SelectionDiff; candidates: Map<string, Candidate>; pinned: string[]; onPin: (chunkId: string, pinned: boolean) => void;
  relevant: string[]; onRelevant: (chunkId: string, relevant: boolean) => void; query: string;
};
class ReplayTable extends Component<TableProps> {
  shouldComponentUpdate(n: TableProps) {
    return n.diff !== this.props.diff || n.pinned !== this.props.pinned || n.relevant !== this.props.relevant;
  }
  render() {
    const { diff, candidates, pinned, onPin, relevant, onRelevant, query } = this.props;
    const rows = diff.rows.every((r) => candidates.has(r.chunk_id)) ? diff.rows : diff.rows.filter((r) => candidates.has(r.chunk_id));
    return (
      <VirtualTable items={rows} rowKey={(r) => r.chunk_id} columns={9} tableClass="table replay-table" wrapClass="replay-table-wrap"
        label="Candidates, replayed" testid="replay-table"
        head={<tr><th class="num">#</th><th>Pin</th><th title="Labelled as holding relevant evidence">Relevant</th><th class="num">Rank</th><th>Passage</th><th class="num">Key score</th><th>Reason now</th><th>Reason in run</th><th>Now</th></tr>}
        renderRow={(r, row) => (
          <ReplayRow key={r.chunk_id} index={r.input_index} row={row} candidate={candidates.get(r.chunk_id)!} reason={r.now?.reason ?? null}
            selected={r.now ? r.now.selected : false} rank={r.now?.rank ?? null} score={r.now?.score ?? null} origReason={r.before?.reason ?? null}
            origSelected={r.before ? r.before.selected : false} changed={r.changed} pinned={pinned.includes(r.chunk_id)} onPin={onPin}
            relevant={relevant.includes(r.chunk_id)} onRelevant={onRelevant} query={query} />
        )} />
    );
  }
}

/** A candidate's score on a slider's scale, and whether the current selection keeps it. */
export type Tick = { id: string; value: number; kept: boolean | null };

/** Marks the candidate's row while its tick is hovered (no re-render of the table). */
function markRow(id: string | null) {
  document.querySelectorAll("[data-testid=replay-row].row-hover").forEach((r) => r.classList.remove("row-hover"));
  if (id) document.querySelector(`[data-testid=replay-row][data-chunk-id="${CSS.escape(id)}"]`)?.classList.add("row-hover");
}

/** Every candidate's score under a slider as a tick: kept, dropped, or flipping at the current value (within one
 * step of it). One SVG path per kind, so thousands of ticks repaint as three elements; hovering finds the nearest
 * tick and marks its row. */
function Ticks(props: { testid: string; ticks: Tick[]; value: number; min: number; max: number; step: number }) {
  const { ticks, value, min, max, step } = props;
  const at = (v: number) => (Math.max(min, Math.min(max, v)) - min) / (max - min);
  const paths = useMemo(() => {
    const d = { kept: "", dropped: "", flip: "" };
    for (const t of ticks) {
      const seg = `M${(at(t.value) * 1000).toFixed(1)} 0v8`;
      if (Math.abs(t.value - value) <= step) d.flip += seg;
      else if (t.kept === false) d.dropped += seg;
      else d.kept += seg;
    }
    return d;
  }, [ticks, value, min, max, step]);
  const values = useMemo(() => ticks.map((t) => t.value).join(","), [ticks]);
  const hover = (e: MouseEvent) => {
    const el = e.currentTarget as SVGSVGElement;
    const box = el.getBoundingClientRect();
    const v = min + ((e.clientX - box.left) / box.width) * (max - min);
    let best: Tick | null = null;
    for (const t of ticks) if (!best || Math.abs(t.value - v) < Math.abs(best.value - v)) best = t;
    const near = best && Math.abs(at(best.value) - at(v)) * box.width <= 4 ? best : null;
    el.querySelector("title")!.textContent = near
      ? `${near.value.toFixed(3)} · ${near.kept === null ? "passed" : near.kept ? "kept" : "dropped"}${Math.abs(near.value - value) <= step ? " · flips at this value" : ""}`
      : "each tick is a candidate's score";
    markRow(near?.id ?? null);
  };
  return (
    <svg class="ticks" viewBox="0 0 1000 8" preserveAspectRatio="none" data-testid={`ticks-${props.testid}`} data-values={values}
      data-kept={paths.kept.split("M").length - 1} data-dropped={paths.dropped.split("M").length - 1} data-flip={paths.flip.split("M").length - 1}
      onMouseMove={hover} onMouseLeave={() => markRow(null)}>
      <title>each tick is a candidate's score</title>
      <path class="tick-kept" d={paths.kept} />
      <path class="tick-dropped" d={paths.dropped} />
      <path class="tick-flip" d={paths.flip} />
    </svg>
  );
}

function Slider(props: { testid: string; label: string; value: number; min?: number; max?: number; step?: number; hint?: string; dim?: boolean; display?: string; ticks?: Tick[]; tickValue?: number; onValue: (v: number) => void }) {
  const id = `sl-${props.testid}`;
  const [min, max, step] = [props.min ?? 0, props.max ?? 1, props.step ?? 0.01];
  return (
    <div class={`slider${props.dim ? " dim" : ""}`}>
      <label for={id}>{props.label}<span class="num slider-value">{props.display ?? props.value.toFixed(2)}</span></label>
      <div class="slider-track">
        <input id={id} type="range" data-testid={props.testid} min={min} max={max} step={step}
          value={props.value} title={props.hint} onInput={(e) => props.onValue(Number((e.target as HTMLInputElement).value))} />
        {props.ticks && props.ticks.length > 0 && <Ticks testid={props.testid} ticks={props.ticks} value={props.tickValue ?? props.value} min={min} max={max} step={step} />}
      </div>
      {props.hint && <span class="slider-hint muted">{props.hint}</span>}
    </div>
  );
}

/** How long after the last change the sliders' ticks follow the selection. */
const TICKS_SETTLE_MS = 120;

/** How long the view stays idle before it asks for the sweeps of the thresholds in play. */
const SWEEP_IDLE_MS = 300;

/** Each threshold slider's ticks: every candidate's score for that question (`calibrated` scores when the sliders
 *  are in calibrated probability), and whether the selection keeps it. They follow the selection once it settles
 *  (TICKS_SETTLE_MS after the last change), so a drag repaints the candidates first and the ticks between moves. */
function useTicks(t: Trace, selection: Selection, options: PolicyOptions, calibrated: ({ [key in string]: number } | undefined)[] | null) {
  const [settled, setSettled] = useState({ selection, options });
  useEffect(() => {
    const id = setTimeout(() => setSettled({ selection, options }), TICKS_SETTLE_MS);
    return () => clearTimeout(id);
  }, [selection, options]);
  const tickValues = useMemo(() => {
    const judged = new Map(t.judge.judgments.map((j) => [j.chunk_id, j.answers]));
    const out: Record<string, { id: string; value: number }[]> = {};
    for (const key of THRESHOLD_KEYS) {
      out[key] = t.candidates.flatMap((c, i) => {
        const v = calibrated ? calibrated[i]?.[key] : judged.get(c.chunk_id)?.[key];
        return v === undefined || v === null || !Number.isFinite(v) ? [] : [{ id: c.chunk_id, value: v }];
      });
    }
    return out;
  }, [t, calibrated]);
  const ticks = useMemo(() => {
    const kept = new Map(settled.selection.decisions.map((d) => [d.chunk_id, d.selected]));
    const out: Record<string, Tick[]> = {};
    for (const key of THRESHOLD_KEYS) out[key] = tickValues[key].map((v) => ({ ...v, kept: kept.get(v.id) ?? false }));
    return out;
  }, [tickValues, settled.selection]);
  return { ticks, settledOptions: settled.options };
}

/** The replay panel once Rust has filled the run's policy for the form (`api.policyForm`: every threshold and the
 * minimum relevance, from the run's own, its judge's defaults, then Spring's) and given the judge's own beside it. */
function ReplayLoaded(props: { trace: Trace }) {
  const t = props.trace;
  const [form, setForm] = useState<PolicyForm | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api.policyForm(t.run_id, t.policy).then(setForm, setError);
  }, [t.run_id]);
  if (error) return <ErrorBanner error={error} />;
  return form ? <ReplayPanel trace={t} form={form} /> : null;
}

function ReplayPanel(props: { trace: Trace; form: PolicyForm }) {
  const t = props.trace;
  const runForm = props.form;
  const [options, setOptions] = useState<PolicyOptions>(runForm.options);
  const optionsRef = useRef(options);
  const [{ selection, changes, labels: report }, setResult] =
    useState<{ selection: Selection; changes: Change[]; labels: LabelReport | null }>({ selection: t.selection, changes: [], labels: null });
  const [labels, setLabels] = useState<RunLabels>(t.labels);
  const [ownLabels, setOwnLabels] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const { regen, regenerate } = useRegenerate(t, () => optionsRef.current);
  const measure = useRef(false);
  // Thresholds set in calibrated probability: Rust turns them into the raw thresholds the policy applies.
  const calibrated = useCalibrated(t.run_id);
  const calibratedFit = calibrated.length > 0;
  const [inCalibrated, setInCalibrated] = useState(false);
  const inCalibratedRef = useRef(false);
  const [calNotes, setCalNotes] = useState<string[]>([]);

  const scheduler = useMemo(
    () => createLatestScheduler(
      // Only what differs from the run's stored selection crosses IPC; laid over the trace here (a mismatch is an error).
      (o: PolicyOptions) => api.replay(t.run_id, forWire(o), inCalibratedRef.current).then((d) => {
        performance.mark("replay-answered");
        if (inCalibratedRef.current) setCalNotes(d.threshold_notes);
        return applyReplayDelta(t, d);
      }),
      (r) => { setResult({ selection: r.selection, changes: r.changes, labels: r.labels }); setError(null); },
      (e) => { setError(e); measure.current = false; },
    ),
    [t.run_id],
  );
  // A drag over one threshold replays from that threshold's sweep (made in Rust) once it has come: no round trip.
  // The sweeps of the thresholds in play are asked for whenever the view has been idle a moment, so that the next
  // drag has its sweep from the first move; a drag whose sweep is not in hand asks for it at once.
  const sweeps = useMemo(() => createSweeps(t, (o, key, values) => api.replaySweep(t.run_id, o, key, values)), [t.run_id]);
  const idle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const whenIdle = () => {
    clearTimeout(idle.current);
    idle.current = setTimeout(() => {
      const o = optionsRef.current;
      if (inCalibratedRef.current || o.mode !== "classify") return;
      const assessed = THRESHOLD_KEYS.filter((k) => !(t.judge.not_assessed ?? []).includes(k));
      sweeps.want(assessed, forWire(o));
    }, SWEEP_IDLE_MS);
  };
  useEffect(() => () => clearTimeout(idle.current), []);

  // Input → painted frame: marked at the input event, measured in the frame after the commit; with its parts (the
  // IPC round trip to the answer, the answer laid over the trace and rendered, the wait for the frame).
  useLayoutEffect(() => {
    if (!measure.current) return;
    measure.current = false;
    performance.mark("replay-committed");
    requestAnimationFrame(() => {
      performance.mark("replay-painted");
      try {
        performance.measure("replay-repaint", "replay-input", "replay-painted");
        performance.measure("replay-ipc", "replay-input", "replay-answered");
        performance.measure("replay-render", "replay-answered", "replay-committed");
        performance.measure("replay-frame", "replay-committed", "replay-painted");
      } catch { /* no input mark */ }
    });
  }, [selection]);

  /** `swept`: the threshold this move changes, when a sweep of it may answer (or should be asked for). */
  const update = (patch: Partial<PolicyOptions>, swept?: string) => {
    performance.mark("replay-input");
    measure.current = true;
    const next = { ...optionsRef.current, ...patch };
    optionsRef.current = next;
    setOptions(next);
    const fromSweep = swept !== undefined && !inCalibratedRef.current ? sweeps.lookup(swept, forWire(next)) : null;
    if (fromSweep) {
      performance.mark("replay-answered");
      scheduler.reset();
      setResult({ selection: fromSweep.selection, changes: fromSweep.changes, labels: fromSweep.labels });
      setError(null);
    } else {
      scheduler.schedule(next);
      if (swept !== undefined && !inCalibratedRef.current) sweeps.want([swept], forWire(next));
    }
    whenIdle();
  };
  const setPin = (id: string, on: boolean) =>
    update({ pinned: on ? [...optionsRef.current.pinned.filter((p) => p !== id), id] : optionsRef.current.pinned.filter((p) => p !== id) });
  // A pin asked for in the Inspector: applied once, to this run.
  const request = pinRequest.value;
  useEffect(() => {
    if (request && request.runId === t.run_id) {
      pinRequest.value = null;
      setPin(request.chunkId, request.pinned);
    }
  }, [request, t.run_id]);
  // The run's own selection measured against its labels or span labels (Rust computes the report): one replay on opening.
  const labelled = labelsVersion.value;
  useEffect(() => {
    sweeps.clear();
    scheduler.schedule(optionsRef.current);
    whenIdle();
  }, [t.run_id, labelled]);
  const relevantIds = useMemo(() => labels.relevant_ids ?? [], [labels]);
  const setRelevant = async (id: string, on: boolean) => {
    const next: RunLabels = { ...labels, relevant_ids: on ? [...relevantIds.filter((x) => x !== id), id] : relevantIds.filter((x) => x !== id) };
    try {
      const nt = await api.setRunLabels(t.run_id, next);
      setLabels(nt.labels);
      setOwnLabels((v) => v + 1);
      labelsVersion.value++;
      rememberTrace(nt);
      sweeps.clear();
      scheduler.schedule(optionsRef.current);
      whenIdle();
    } catch (e) {
      setError(e);
    }
  };
  /** A whole policy from elsewhere (a calibration's frozen choice, a point on a curve), filled by Rust for the form. */
  const applyPolicy = (o: PolicyOptions) => {
    api.policyForm(t.run_id, o).then((f) => update(f.options), setError);
  };
  // A policy sent from elsewhere (a calibration's frozen choice): applied once.
  const wanted = policyRequest.value;
  useEffect(() => {
    if (wanted) {
      policyRequest.value = null;
      applyPolicy(wanted);
    }
  }, [wanted]);
  const setThreshold = (key: string, v: number) => update({ thresholds: { ...optionsRef.current.thresholds, [key]: v } }, key);

  const candidates = useMemo(() => new Map(t.candidates.map((c) => [c.chunk_id, c])), [t]);
  // The curves change with the mode and the labels, not with every replay: not re-rendered on each slider move.
  // (`update` reads the current options through refs, so the first one is as good as the latest.)
  const curves = useMemo(
    () => <OperatingCurves runId={t.run_id} mode={options.mode} version={ownLabels + labelled} onPick={applyPolicy} />,
    [t, options.mode, ownLabels + labelled],
  );
  const diff = useMemo(() => diffSelections(t.selection, selection, changes), [t, selection, changes]);
  const { ticks, settledOptions } = useTicks(t, selection, options, inCalibrated ? calibrated : null);
  const mode = modeInfo(options.mode);
  const classify = mode?.classifies ?? false;

  return (
    <div class="replay">
      <div class="trace-head">
        <h2 class="trace-q">{t.query}</h2>
        <span class="muted small" data-testid="replay-run-head">run {t.run_id} · {t.candidates.length} candidates{t.origin === "imported" ? " (imported)" : t.origin === "served" ? ` (served to ${t.made_by || "a client"})` : ""} · judged by {t.judge.judge || "—"} {t.judge.model}</span>
      </div>
      {t.judge.status === "bypassed" && <Banner tone="warning" title="Judge bypassed in this run">there are no scores to re-select with; every passage is kept.</Banner>}
      <ErrorBanner error={error} onDismiss={() => setError(null)} />
      <div class="replay-controls panel">
        <div class="control-row">
          <label for="replay-mode">Mode</label>
          <select id="replay-mode" class="input" data-testid="mode" value={options.mode}
            onChange={(e) => update(switchMode(optionsRef.current, (e.target as HTMLSelectElement).value as Mode))}>
            {MODE_FAMILIES.map((f) => (
              <optgroup key={f.family} label={f.label}>
                {MODES.filter((m) => m.family === f.family).map((m) => <option key={m.value} value={m.value} title={m.explain}>{m.label}</option>)}
              </optgroup>
            ))}
          </select>
          <label class="check"><input type="checkbox" checked={options.shadow} onChange={(e) => update({ shadow: (e.target as HTMLInputElement).checked })} /> shadow (select, but send the original context)</label>
          <label class="check">group by{" "}
            <select class="input input-inline" data-testid="replay-group-by" value={options.group_by} title={GROUP_BY_LABEL[options.group_by]?.explain}
              onChange={(e) => update({ group_by: (e.target as HTMLSelectElement).value as GroupBy })}>
              {GROUP_BY.map((g) => <option key={g} value={g} title={GROUP_BY_LABEL[g].explain}>{GROUP_BY_LABEL[g].label}</option>)}
            </select>
          </label>
        </div>
        {mode && (mode.failClosed || mode.reranker) && (
          <div class="control-row" data-testid="spring-controls">
            {mode.failClosed && (
              <label class="check" title="Spring AI 2.1's DecisionDocumentFilter.failClosed: off keeps a passage whose classification failed, on drops it">
                <input type="checkbox" data-testid="fail-closed" checked={options.fail_closed ?? false}
                  onChange={(e) => update({ fail_closed: (e.target as HTMLInputElement).checked })} /> failClosed (drop a passage whose classification failed)
              </label>
            )}
            {mode.reranker && (
              <>
                <label class="check" for="replay-top-k">reranker topK{" "}
                  <input id="replay-top-k" class="input input-num" type="number" min={1} max={500} placeholder="all" data-testid="top-k"
                    value={options.rerank_top_k ?? ""} onInput={(e) => {
                      const raw = (e.target as HTMLInputElement).value.trim();
                      const n = Number.parseInt(raw, 10);
                      update({ rerank_top_k: raw === "" || !Number.isFinite(n) || n < 1 ? undefined : n });
                    }} />
                </label>
                <label class="check" for="replay-minimum-score">minimumScore{" "}
                  <input id="replay-minimum-score" class="input input-num" type="number" min={0} max={1} step={0.01} placeholder="0.00" data-testid="minimum-score"
                    value={options.minimum_score ?? ""} onInput={(e) => {
                      const raw = (e.target as HTMLInputElement).value.trim();
                      const v = Number(raw);
                      update({ minimum_score: raw === "" || !Number.isFinite(v) || v < 0 || v > 1 ? undefined : v });
                    }} />
                </label>
                <span class="muted small">unscored passages go last and count toward topK; empty topK = all</span>
              </>
            )}
          </div>
        )}
        {mode?.unpublished && <div class="muted small" data-testid="mode-unpublished">{mode.unpublished}</div>}
        <div class="muted small" data-testid="defaults-source">Default thresholds: {defaultsSource(t)}.</div>
        {calibratedFit && (
          <label class="check small"><input type="checkbox" data-testid="thresholds-calibrated" checked={inCalibrated}
            onChange={(e) => { const on = (e.target as HTMLInputElement).checked; inCalibratedRef.current = on; setInCalibrated(on); update({}); }} />
            {" "}thresholds in calibrated probability (the stored fit for this judge maps them to raw){calNotes.length > 0 && inCalibrated ? ` — ${calNotes.join("; ")}` : ""}</label>
        )}
        <div class="sliders">
          {THRESHOLD_KEYS.map((key) => {
            const q = QUESTIONS.find((x) => x.key === key)!;
            const unassessed = (t.judge.not_assessed ?? []).includes(key);
            return <Slider key={key} testid={`threshold-${key}`} label={q.label} value={options.thresholds[key] ?? q.threshold!}
              hint={unassessed ? "not assessed by this judge: the rule is skipped" : `${q.direction}${classify ? "" : " (classifying modes only)"}`}
              dim={!classify || unassessed} ticks={unassessed ? undefined : ticks[key]}
              tickValue={settledOptions.thresholds[key] ?? q.threshold!} onValue={(v) => setThreshold(key, v)} />;
          })}
          <Slider testid="min-relevance" label="Min relevance" value={options.min_relevance ?? 0} dim={!takesThreshold(options.mode)}
            hint="usefulness below this is dropped (filter modes)" onValue={(v) => update({ min_relevance: v })} />
          <Slider testid="token-budget" label="Token budget" value={options.max_context_tokens ?? 0} min={0} max={4096} step={64}
            display={options.max_context_tokens == null ? "off" : String(options.max_context_tokens)} hint="0 = off"
            onValue={(v) => update({ max_context_tokens: v < 64 ? null : v })} />
          <div class="slider">
            <label for="replay-top-n">Top-N<span class="num slider-value">{options.top_n ?? "off"}</span></label>
            <input id="replay-top-n" class="input input-num" type="number" min={1} max={500} placeholder="off" data-testid="top-n"
              value={options.top_n ?? ""} onInput={(e) => {
                const raw = (e.target as HTMLInputElement).value.trim();
                const n = Number.parseInt(raw, 10);
                update({ top_n: raw === "" || !Number.isFinite(n) || n < 1 ? null : n });
              }} />
            <span class="slider-hint muted">empty = off</span>
          </div>
        </div>
        <PolicyActions options={options} onError={setError}
          regenerate={<button type="button" class="btn btn-primary" data-testid="regenerate" disabled={!!regen?.job} onClick={regenerate}>Regenerate answer with this selection</button>}>
          <button type="button" class="btn" onClick={() => { const o = runForm.options; optionsRef.current = o; setOptions(o); scheduler.reset(); setResult({ selection: t.selection, changes: [], labels: report }); scheduler.schedule(o); }}>Reset to run's policy</button>
          <button type="button" class="btn" data-testid="judge-defaults" onClick={() => update(runForm.judge_defaults)}>Reset to the judge's defaults</button>
        </PolicyActions>
      </div>
      <ReplaySummary diff={diff} selection={selection} />
      <IntegrityWarnings warnings={selection.warnings} />
      <ReplayTable diff={diff} candidates={candidates} pinned={options.pinned}
        onPin={setPin} relevant={relevantIds} onRelevant={(id, on) => void setRelevant(id, on)} query={t.query} />
      <LabelSummary report={report} labelled={labels.relevant_ids !== null || labels.baseline_ids !== null} />
      {curves}
      {regen && <RegenerateCompare trace={t} regen={regen} />}
      <div class="panel"><ExportRun trace={t} /></div>
    </div>
  );
}

export function Replay() {
  return (
    <RunView name="replay" label="Replay" render={(t) => <ReplayLoaded key={t.run_id} trace={t} />}
      empty="Pick a run to re-select its context with other thresholds — no judge call needed." />
  );
}

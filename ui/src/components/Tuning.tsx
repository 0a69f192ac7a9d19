import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { RunAblation, Trace } from "../api";
import { fmtInt } from "../logic/format";
import { labelsVersion } from "../state";

/** Marks a chunk as relevant evidence for the run's question, or as not relevant: stored as spans of its pages,
 * so the label survives re-chunking. Imported runs have no library pages: their labels are the run's ids. */
export function LabelButtons(props: { trace: Trace; chunkId: string }) {
  const t = props.trace;
  const initial = t.labels.relevant_ids?.includes(props.chunkId) ? "relevant" : null;
  const [state, setState] = useState<"relevant" | "not" | "saving" | null>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const mark = async (relevant: boolean) => {
    setState("saving");
    setProblem(null);
    try {
      if (t.origin === "imported") {
        const ids = (t.labels.relevant_ids ?? []).filter((x) => x !== props.chunkId);
        await api.setRunLabels(t.run_id, { ...t.labels, relevant_ids: relevant ? [...ids, props.chunkId] : ids });
      } else {
        await api.labelChunk(t.run_id, props.chunkId, relevant);
      }
      setState(relevant ? "relevant" : "not");
      labelsVersion.value++;
    } catch (e) {
      setState(null);
      setProblem(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <span class="label-buttons" data-state={state ?? "none"}>
      <button type="button" class={`btn btn-small${state === "relevant" ? " btn-primary" : ""}`} data-testid="label-relevant"
        title="Label: holds relevant evidence for this question" disabled={state === "saving"} onClick={() => void mark(true)}>✓</button>
      <button type="button" class={`btn btn-small${state === "not" ? " btn-danger" : ""}`} data-testid="label-not-relevant"
        title="Label: not relevant to this question" disabled={state === "saving"} onClick={() => void mark(false)}>✗</button>
      {problem && <span class="field-msg" role="alert">{problem}</span>}
    </span>
  );
}

/** The run's calibrated probabilities (per candidate, per question), when a fit is stored for its judge. */
export function useCalibrated(runId: string): { [key in string]: number }[] {
  const [scores, setScores] = useState<{ [key in string]: number }[]>([]);
  useEffect(() => {
    let live = true;
    api.calibratedScores(runId).then((s) => live && setScores(s), () => live && setScores([]));
    return () => { live = false; };
  }, [runId]);
  return scores;
}

/** What each query variant adds: the candidates and labelled evidence only it found, and their tokens. */
export function AblationTable(props: { runId: string }) {
  const [a, setA] = useState<RunAblation | null>(null);
  useEffect(() => {
    let live = true;
    api.ablate(props.runId).then((x) => live && setA(x), () => live && setA(null));
    return () => { live = false; };
  }, [props.runId]);
  if (!a) return null;
  return (
    <table class="table compact" data-testid="ablation">
      <thead><tr><th>Variant</th><th class="num">Found</th><th class="num">Only it</th><th class="num">Labelled evidence only it</th><th class="num">Tokens only it</th><th class="num">Judge tokens only it</th><th class="num">Selected only it</th></tr></thead>
      <tbody>{a.variants.map((v) => (
        <tr key={v.variant}>
          <td><span class="tag">v{v.variant}</span> {v.query}</td>
          <td class="num">{v.candidates}</td>
          <td class="num">{v.unique_ids.length}</td>
          <td class="num">{v.unique_relevant_ids === null ? <span class="muted" title="the run has no labels">not labelled</span> : v.unique_relevant_ids.length}</td>
          <td class="num">{fmtInt(v.unique_tokens)}</td>
          <td class="num">{fmtInt(v.unique_judge_tokens)}</td>
          <td class="num">{v.unique_selected_ids.length} <span class="muted small">({fmtInt(v.unique_selected_tokens)} tokens)</span></td>
        </tr>
      ))}</tbody>
    </table>
  );
}

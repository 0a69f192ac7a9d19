// The judge kinds a form offers, with the labels Rust gives them (judge_choices): one list for every form.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { JudgeChoice, JudgeKind } from "../api";

let loaded: Promise<JudgeChoice[]> | null = null;

/** The judge choices, asked of the backend once per window. */
export function judgeChoices(): Promise<JudgeChoice[]> {
  loaded ??= api.judgeChoices().catch((e) => {
    loaded = null;
    throw e;
  });
  return loaded;
}

/**
 * A select's `<option>`s for every judge kind but `exclude`, labelled as Settings labels them; `auto` may be
 * renamed for the form (`autoLabel`). Until the choices arrive, the selected kind is offered on its own.
 */
export function JudgeOptions(props: { value: JudgeKind; exclude?: JudgeKind[]; autoLabel?: string }) {
  const [choices, setChoices] = useState<JudgeChoice[] | null>(null);
  useEffect(() => {
    judgeChoices().then(setChoices, () => setChoices([]));
  }, []);
  const shown = (choices ?? []).filter((c) => !(props.exclude ?? []).includes(c.kind));
  if (shown.length === 0) return <option value={props.value}>{props.value}</option>;
  return (
    <>
      {shown.map((c) => (
        <option key={c.kind} value={c.kind} title={c.hint}>
          {c.kind === "auto" && props.autoLabel ? props.autoLabel : c.label}
        </option>
      ))}
    </>
  );
}

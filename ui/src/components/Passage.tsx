// A passage as the tables list it: its best sentence for the question, the question's words marked (logic/snippet).
import { useMemo } from "preact/hooks";
import { snippet } from "../logic/snippet";

/** A passage in one or two lines: its best sentence for the question with the question's words marked. */
export function Snippet(props: { text: string; query: string; max?: number }) {
  const parts = useMemo(() => snippet(props.text, props.query, props.max), [props.text, props.query, props.max]);
  return (
    <span class="snippet" data-testid="passage-snippet">
      {parts.map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  );
}

import { Fragment } from "preact";
import { parseCitations } from "../logic/citations";

/** Answer text with `[n]` rendered as citation buttons, and quoted source text (its own brackets plain) set apart. */
export function AnswerText(props: { text: string; onCite?: (n: number) => void; known?: (n: number) => boolean }) {
  const segs = parseCitations(props.text);
  return (
    <span class="answer-text">
      {segs.map((s, i) =>
        s.kind === "text" ? (
          <span key={i}>{s.text}</span>
        ) : s.kind === "quote" ? (
          <span key={i} class="quote" data-testid="answer-quote">{s.text}</span>
        ) : (
          <span key={i} class="cite-group">
            [
            {s.numbers.map((n, j) => (
              <Fragment key={j}>
                {j > 0 && ", "}
                <button type="button" class="citation" data-testid="citation" data-n={n}
                  disabled={!props.onCite || (props.known ? !props.known(n) : false)}
                  title={`Open source ${n}`} onClick={() => props.onCite?.(n)}>{n}</button>
              </Fragment>
            ))}
            ]
          </span>
        ),
      )}
    </span>
  );
}

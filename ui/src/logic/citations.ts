/** An answer split into plain text, quoted source text and citation markers: `[1]`, `[1, 3]`, `[2][3]`. Text inside
 * curly quotes (“…”, as extractive answers quote their sources) is the source's own: brackets there ("[3, 1]", a
 * paper's references) are plain text, never ragsift's citations. */
export type AnswerSegment = { kind: "text"; text: string } | { kind: "quote"; text: string } | { kind: "cite"; numbers: number[]; raw: string };

const CITE = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/** Citations in text outside quotes. */
function citationsIn(text: string, out: AnswerSegment[]) {
  let last = 0;
  for (const m of text.matchAll(CITE)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: "text", text: text.slice(last, at) });
    const numbers = m[1].split(",").map((s) => Number.parseInt(s.trim(), 10));
    out.push({ kind: "cite", numbers, raw: m[0] });
    last = at + m[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
}

export function parseCitations(text: string): AnswerSegment[] {
  const out: AnswerSegment[] = [];
  let rest = 0;
  // A quote runs from “ to the next ”; an unclosed one (a streaming answer) runs to the end.
  for (let open = text.indexOf("“"); open >= 0; open = text.indexOf("“", rest)) {
    citationsIn(text.slice(rest, open), out);
    const close = text.indexOf("”", open + 1);
    const end = close < 0 ? text.length : close + 1;
    out.push({ kind: "quote", text: text.slice(open, end) });
    rest = end;
    if (rest >= text.length) break;
  }
  if (rest < text.length) citationsIn(text.slice(rest), out);
  return out;
}

/** The distinct citation numbers of an answer, in order of first use. */
export function citedNumbers(text: string): number[] {
  const seen: number[] = [];
  for (const s of parseCitations(text)) {
    if (s.kind === "cite") for (const n of s.numbers) if (!seen.includes(n)) seen.push(n);
  }
  return seen;
}

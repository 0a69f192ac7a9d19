/** An answer split into plain text and citation markers: `[1]`, `[1, 3]`, `[2][3]`. */
export type AnswerSegment = { kind: "text"; text: string } | { kind: "cite"; numbers: number[]; raw: string };

const CITE = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

export function parseCitations(text: string): AnswerSegment[] {
  const out: AnswerSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(CITE)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: "text", text: text.slice(last, at) });
    const numbers = m[1].split(",").map((s) => Number.parseInt(s.trim(), 10));
    out.push({ kind: "cite", numbers, raw: m[0] });
    last = at + m[0].length;
  }
  if (last < text.length) out.push({ kind: "text", text: text.slice(last) });
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

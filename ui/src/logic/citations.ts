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

/** The quotes of an answer by the source number cited right after each (“…” [2] → 2: the quote, without its
 * quotation marks or a trailing ellipsis). */
export function quotedBy(answer: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  const segs = parseCitations(answer);
  segs.forEach((s, i) => {
    if (s.kind !== "quote") return;
    let k = i + 1;
    while (segs[k]?.kind === "text" && (segs[k] as { text: string }).text.trim() === "") k++;
    const cite = segs[k];
    if (cite?.kind !== "cite") return;
    const quote = s.text.replace(/^“/u, "").replace(/”$/u, "").replace(/…$/u, "").trim();
    if (!quote) return;
    for (const n of cite.numbers) out.set(n, [...(out.get(n) ?? []), quote]);
  });
  return out;
}

/** Where `quote` stands in `text` (whitespace-insensitive), as the text before it, the quote as the passage writes
 * it, and the text after it, each side cut to `context` characters; null when the passage does not hold it. */
export function excerptAround(text: string, quote: string, context = 90): { before: string; quote: string; after: string } | null {
  const squash = (s: string) => s.replace(/\s+/gu, " ");
  // Map positions in the squashed text back to the original.
  const map: number[] = [];
  let flat = "";
  for (let i = 0; i < text.length; i++) {
    const ws = /\s/u.test(text[i]);
    if (ws && flat.endsWith(" ")) continue;
    flat += ws ? " " : text[i];
    map.push(i);
  }
  map.push(text.length);
  const at = flat.indexOf(squash(quote).trim());
  if (at < 0) return null;
  const [s, e] = [map[at], map[at + squash(quote).trim().length]];
  const from = Math.max(0, s - context);
  const to = Math.min(text.length, e + context);
  return {
    before: `${from > 0 ? "…" : ""}${text.slice(from, s)}`,
    quote: text.slice(s, e),
    after: `${text.slice(e, to)}${to < text.length ? "…" : ""}`,
  };
}

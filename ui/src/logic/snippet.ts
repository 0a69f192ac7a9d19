// What a passage says, in one line: the sentence that shares the most words with the question (else the first
// line), cut to a length, with the question's words marked. The Inspector, Replay and the variant tables list
// passages this way instead of by chunk hash or document title alone.

/** Words too common to say what a question is about. */
const STOP = new Set(
  "a about all an and any are as at be by can did do does each for from has have how in into is it its of on or that the their there these this to was were what when where which who why will with".split(" "),
);

/** The question's content words, lower-cased (three letters or more, digits kept: "6", "2019"). */
export function queryWords(query: string): Set<string> {
  const out = new Set<string>();
  for (const w of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if ((w.length >= 3 || /^\p{N}+$/u.test(w)) && !STOP.has(w)) out.add(w);
  }
  return out;
}

/** Sentences of a passage (split after . ! ? followed by a space, and at line breaks). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((s) => s.replace(/\s+/gu, " ").trim())
    .filter((s) => s.length > 0);
}

/** One piece of a snippet: plain text, or a word of the question. */
export type SnippetPart = { text: string; hit: boolean };

/**
 * The passage's best sentence for the question (most distinct question words; the earliest on ties; the first
 * sentence when none shares a word), cut to about `max` characters around its first hit, as parts with the
 * question's words marked.
 */
export function snippet(text: string, query: string, max = 160): SnippetPart[] {
  const words = queryWords(query);
  const all = sentences(text);
  if (all.length === 0) return [];
  const score = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => words.has(w))).size;
  let best = all[0];
  let bestScore = score(best);
  for (const s of all.slice(1)) {
    const n = score(s);
    if (n > bestScore) {
      best = s;
      bestScore = n;
    }
  }
  let shown = best;
  if ([...shown].length > max) {
    const lower = shown.toLowerCase();
    const first = Math.min(...[...words].map((w) => lower.indexOf(w)).filter((i) => i >= 0), shown.length);
    const start = first > max / 2 ? first - Math.floor(max / 3) : 0;
    const cut = [...shown].slice(start, start + max).join("");
    shown = `${start > 0 ? "…" : ""}${cut}…`;
  }
  const parts: SnippetPart[] = [];
  for (const piece of shown.split(/([\p{L}\p{N}]+)/u)) {
    if (!piece) continue;
    const hit = words.has(piece.toLowerCase());
    const last = parts[parts.length - 1];
    if (last && last.hit === hit && !hit) last.text += piece;
    else parts.push({ text: piece, hit });
  }
  return parts;
}

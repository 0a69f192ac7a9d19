import type { PageChunk } from "../api";

export type TextSegment = {
  text: string;
  /** Inside the target chunk. */
  target: boolean;
  /** Index (position in `chunks`) of the first chunk covering this segment, or -1. */
  chunk: number;
};

/** UTF-16 index of every code point boundary: out[i] is where code point i starts; out[n] = text.length. */
export function codePointOffsets(text: string): number[] {
  const out: number[] = [];
  let u = 0;
  for (const ch of text) {
    out.push(u);
    u += ch.length;
  }
  out.push(u);
  return out;
}

/**
 * Splits page text at chunk boundaries given in CODE POINT offsets. The target chunk becomes one segment (even
 * where it overlaps neighbours); other text carries the first covering chunk's index for subtle delimiting.
 */
export function splitHighlights(text: string, chunks: PageChunk[], targetId: string | null): TextSegment[] {
  const offs = codePointOffsets(text);
  const n = offs.length - 1;
  const clamp = (v: number) => Math.max(0, Math.min(n, Math.floor(v)));
  const ranges = chunks.map((c, i) => ({ i, s: clamp(c.char_start), e: clamp(c.char_end), target: c.chunk_id === targetId }));
  const cuts = new Set<number>([0, n]);
  for (const r of ranges) {
    cuts.add(r.s);
    cuts.add(r.e);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: TextSegment[] = [];
  for (let k = 0; k + 1 < points.length; k++) {
    const s = points[k];
    const e = points[k + 1];
    if (e <= s) continue;
    const covering = ranges.filter((r) => r.s <= s && r.e >= e && r.e > r.s);
    const target = covering.some((r) => r.target);
    const chunk = target ? -1 : covering.length ? covering[0].i : -1;
    const piece = text.slice(offs[s], offs[e]);
    const prev = out[out.length - 1];
    if (prev && prev.target === target && prev.chunk === chunk) prev.text += piece;
    else out.push({ text: piece, target, chunk });
  }
  if (out.length === 0 && text.length > 0) out.push({ text, target: false, chunk: -1 });
  return out;
}

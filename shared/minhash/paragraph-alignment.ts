/**
 * An order-preserving paragraph alignment of two translations, as an automatic answer key.
 * Chung & Knight aligned their translations by dynamic programming (Gale & Church) and then checked
 * every pair by hand; we have no hand-checked key, so this is the automatic part only: the
 * monotonic 1–1 alignment (paragraphs of either side may be skipped) maximising Σ (J − floor) over
 * aligned pairs. It uses the paragraphs' order, which neither the exact nor the min-hash method
 * sees (they take scrambled paragraphs), so it is a reference both can be measured against, though
 * one built from the same Jaccard they threshold.
 */
import type { EncodedCorpus } from "./corpus.ts";
import { exactPairsIndexed } from "./jaccard.ts";

/** Aligned (i, j) pairs, ascending in both; only pairs with J > floor are ever aligned. */
export function alignParagraphs(corpus: EncodedCorpus, floor = 0.1): [number, number][] {
  if (!corpus.b) throw new Error("alignParagraphs: needs two sides");
  const nA = corpus.a.length, nB = corpus.b.length;
  // sparse gains: most pairs share too little to be worth aligning
  const gains: Map<number, number>[] = Array.from({ length: nA }, () => new Map());
  exactPairsIndexed(corpus, floor, (i, j, s) => { if (s > floor) gains[i]!.set(j, s - floor); });
  const MATCH = 1, SKIP_A = 2, SKIP_B = 3;
  const back = new Uint8Array((nA + 1) * (nB + 1));
  let prev = new Float64Array(nB + 1), cur = new Float64Array(nB + 1);
  for (let j = 1; j <= nB; j++) back[j] = SKIP_B;
  for (let i = 1; i <= nA; i++) {
    cur[0] = 0;
    back[i * (nB + 1)] = SKIP_A;
    const g = gains[i - 1]!;
    for (let j = 1; j <= nB; j++) {
      let best = prev[j]!, how = SKIP_A;
      if (cur[j - 1]! > best) { best = cur[j - 1]!; how = SKIP_B; }
      const gain = g.get(j - 1);
      if (gain !== undefined && prev[j - 1]! + gain > best) { best = prev[j - 1]! + gain; how = MATCH; }
      cur[j] = best;
      back[i * (nB + 1) + j] = how;
    }
    [prev, cur] = [cur, prev];
  }
  const pairs: [number, number][] = [];
  for (let i = nA, j = nB; i > 0 || j > 0; ) {
    const how = back[i * (nB + 1) + j];
    if (how === MATCH) { pairs.push([i - 1, j - 1]); i--; j--; } else if (how === SKIP_A) i--; else j--;
  }
  return pairs.reverse();
}

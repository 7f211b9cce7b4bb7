import type { OrderStats, PairNgrams } from "./ngram-ids.ts";

/**
 * Exclusive (LCP) n-gram overlap, sim_exo (Cordeiro et al. 2007a; thesis eq. 4.3):
 * max over n = 1..N of |a_n ∩^LCP b_n| ÷ min(|a_n|, |b_n|).
 *
 * ∩^LCP, as the thesis describes it: every text position i is a suffix; L(i) is the longest common prefix of that
 * suffix with any suffix of the other text. Position i contributes ONE match, of order min(L(i), N). A shared
 * 4-gram w1..w4 therefore yields the 4-gram (at w1) and only its trailing 3-, 2- and 1-gram (at w2, w3, w4), not
 * all its inner n-grams. Capping at N lets every N-gram inside a longer shared run count at order N, so identical
 * texts score 1. Matches are counted as distinct n-grams on each side; the smaller of the two side counts is used,
 * which keeps the metric symmetric and each ratio ≤ 1. Orders where a side has no n-gram are skipped; 0 if none.
 */
export function lcpNgramOverlap(grams: PairNgrams, orders: readonly OrderStats[]): number {
  const maxOrder = orders.length;
  const ua = grams.a[0]!;
  const ub = grams.b[0]!;
  const { fromA, fromB } = longestCommonPrefixes(ua, ub);
  let best = 0;
  for (let n = 1; n <= maxOrder; n++) {
    const ga = grams.a[n - 1]!;
    const gb = grams.b[n - 1]!;
    const size = grams.size[n - 1]!;
    const stats = orders[n - 1]!;
    const denominator = Math.min(stats.distinctA, stats.distinctB);
    if (denominator === 0) continue;
    const matches = Math.min(
      countDistinct(ga, size, fromA, n, maxOrder),
      countDistinct(gb, size, fromB, n, maxOrder),
    );
    best = Math.max(best, matches / denominator);
  }
  return best;
}

/** For each position of a (of b): length of the longest common prefix of its suffix with any suffix of b (of a). */
export function longestCommonPrefixes(a: Int32Array, b: Int32Array): { fromA: Int32Array; fromB: Int32Array } {
  const fromA = new Int32Array(a.length);
  const fromB = new Int32Array(b.length);
  // run[j] = common-prefix length of a[i..] and b[j..], filled from the end: run = 1 + run at (i+1, j+1).
  let next = new Int32Array(b.length + 1);
  let cur = new Int32Array(b.length + 1);
  for (let i = a.length - 1; i >= 0; i--) {
    const ai = a[i]!;
    let best = 0;
    for (let j = b.length - 1; j >= 0; j--) {
      const run = ai === b[j]! ? next[j + 1]! + 1 : 0;
      cur[j] = run;
      if (run > best) best = run;
      if (run > fromB[j]!) fromB[j] = run;
    }
    fromA[i] = best;
    [next, cur] = [cur, next];
  }
  return { fromA, fromB };
}

/** Distinct ids in `grams` at the positions whose capped match length min(L, maxOrder) equals `order`. */
function countDistinct(grams: Int32Array, size: number, prefixes: Int32Array, order: number, maxOrder: number): number {
  const seen = new Uint8Array(size);
  let distinct = 0;
  for (let i = 0; i < grams.length; i++) {
    if (Math.min(prefixes[i]!, maxOrder) !== order) continue;
    const id = grams[i]!;
    if (seen[id] === 0) {
      seen[id] = 1;
      distinct++;
    }
  }
  return distinct;
}

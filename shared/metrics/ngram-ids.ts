/**
 * Dense integer ids for the n-grams of a text pair, so every metric compares numbers instead of joined strings and
 * each pair's n-grams are built once and shared (the metrics run on millions of pairs).
 */

/** The n-grams of both sides of a pair, order by order. */
export interface PairNgrams {
  /** `a[n-1][i]` = id of the n-gram of side a starting at token i (length max(0, |a|−n+1)). Same for `b`. */
  readonly a: readonly Int32Array[];
  readonly b: readonly Int32Array[];
  /** `size[n-1]` = number of distinct n-grams over both sides; ids of order n are in [0, size). */
  readonly size: readonly number[];
}

/** Per-order counts derived from {@link PairNgrams}. */
export interface OrderStats {
  /** Distinct n-grams of a, of b, and of both. */
  readonly distinctA: number;
  readonly distinctB: number;
  readonly distinctCommon: number;
  /** Σ over n-grams of min(count in a, count in b): the clipped match count of BLEU and ROUGE-N. */
  readonly clippedMatches: number;
}

/** Builds n-gram ids of orders 1..maxOrder for two token lists. */
export function buildPairNgrams(tokensA: readonly string[], tokensB: readonly string[], maxOrder: number): PairNgrams {
  const vocab = new Map<string, number>();
  const intern = (tokens: readonly string[]): Int32Array => {
    const ids = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      let id = vocab.get(t);
      if (id === undefined) {
        id = vocab.size;
        vocab.set(t, id);
      }
      ids[i] = id;
    }
    return ids;
  };
  const a: Int32Array[] = [intern(tokensA)];
  const b: Int32Array[] = [intern(tokensB)];
  const size: number[] = [vocab.size];
  const radix = vocab.size;
  for (let n = 2; n <= maxOrder; n++) {
    // id(n-gram at i) = intern(id((n−1)-gram at i), token id at i+n−1); both factors ≤ total token count, so the
    // combined key stays an exact integer for any text below ~9·10^7 tokens.
    const ids = new Map<number, number>();
    const extend = (prev: Int32Array, unigrams: Int32Array): Int32Array => {
      const len = Math.max(0, unigrams.length - n + 1);
      const out = new Int32Array(len);
      for (let i = 0; i < len; i++) {
        const key = prev[i]! * radix + unigrams[i + n - 1]!;
        let id = ids.get(key);
        if (id === undefined) {
          id = ids.size;
          ids.set(key, id);
        }
        out[i] = id;
      }
      return out;
    };
    a.push(extend(a[n - 2]!, a[0]!));
    b.push(extend(b[n - 2]!, b[0]!));
    size.push(ids.size);
  }
  return { a, b, size };
}

/** Distinct and clipped match counts of one order (1-based `n`). */
export function orderStats(grams: PairNgrams, n: number): OrderStats {
  const ga = grams.a[n - 1]!;
  const gb = grams.b[n - 1]!;
  const countA = new Int32Array(grams.size[n - 1]!);
  let distinctA = 0;
  for (let i = 0; i < ga.length; i++) if (countA[ga[i]!]!++ === 0) distinctA++;
  // Walk b, consuming a's counts: each consumed count is one clipped match.
  const seenB = new Uint8Array(countA.length);
  let distinctB = 0;
  let distinctCommon = 0;
  let clippedMatches = 0;
  for (let i = 0; i < gb.length; i++) {
    const id = gb[i]!;
    if (seenB[id] === 0) {
      seenB[id] = 1;
      distinctB++;
      if (countA[id]! > 0) distinctCommon++;
    }
    if (countA[id]! > 0) {
      countA[id]!--;
      clippedMatches++;
    }
  }
  return { distinctA, distinctB, distinctCommon, clippedMatches };
}

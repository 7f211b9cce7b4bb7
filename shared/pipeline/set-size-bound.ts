/**
 * The equivalence-set size bound of the thesis (§5.1.2): sets of "the same image" far larger than
 * usual are placeholders (one "image not available" picture behind hundreds of URLs) whose captions
 * are unrelated. The bound is μ + z·σ of the sizes of all sets with at least two members, rounded
 * down (the thesis: μ = 3.13, σ = 25.87, z = 0.05 → 4). It depends on every set of the corpus, so a
 * runner computes it between grouping and filtering.
 */
export interface SetSizeBound {
  mean: number;
  sd: number;
  z: number;
  /** largest set size kept; Infinity when there are no sets to measure */
  max: number;
  sets: number;
}

/** Count, sum and sum of squares of set sizes: counters that merge across partitions. */
export interface SetSizeMoments {
  sets: number;
  sum: number;
  sumSq: number;
}

export function setSizeBound(sizes: Iterable<number>, z = 0.05): SetSizeBound {
  const m: SetSizeMoments = { sets: 0, sum: 0, sumSq: 0 };
  for (const s of sizes) {
    if (s < 2) continue;
    m.sets++;
    m.sum += s;
    m.sumSq += s * s;
  }
  return boundFromMoments(m, z);
}

/** The bound from the moments of the sets with at least two members. */
export function boundFromMoments({ sets: n, sum, sumSq }: SetSizeMoments, z: number): SetSizeBound {
  if (n === 0) return { mean: 0, sd: 0, z, max: Infinity, sets: 0 };
  const mean = sum / n;
  const sd = Math.sqrt(Math.max(0, sumSq / n - mean * mean));
  return { mean, sd, z, max: Math.max(2, Math.floor(mean + z * sd)), sets: n };
}

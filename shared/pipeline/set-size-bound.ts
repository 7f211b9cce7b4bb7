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

export function setSizeBound(sizes: Iterable<number>, z = 0.05): SetSizeBound {
  let n = 0;
  let sum = 0;
  let sumSq = 0;
  for (const s of sizes) {
    if (s < 2) continue;
    n++;
    sum += s;
    sumSq += s * s;
  }
  if (n === 0) return { mean: 0, sd: 0, z, max: Infinity, sets: 0 };
  const mean = sum / n;
  const sd = Math.sqrt(Math.max(0, sumSq / n - mean * mean));
  return { mean, sd, z, max: Math.max(2, Math.floor(mean + z * sd)), sets: n };
}

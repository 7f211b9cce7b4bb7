/**
 * The arithmetic of the transformer scorers on token vectors: mean pooling + L2 normalisation
 * (sentence-transformers' pooling), cosine, and BERTScore's greedy matching (Zhang et al. 2020, §3).
 * Plain Float32Array rows: the model's output is already in memory; no tensor library is needed for
 * sums and dot products.
 */

/** One text's token vectors after the model: `len` rows of `dim` values, padding removed. */
export interface TokenVectors {
  readonly dim: number;
  /** row-major, len × dim */
  readonly data: Float32Array;
  readonly len: number;
}

/** Mean of the rows (every token the attention mask kept, specials included, as sentence-transformers pools), L2-normalised. */
export function meanPoolNormalised(t: TokenVectors): Float32Array {
  const out = new Float32Array(t.dim);
  for (let r = 0; r < t.len; r++) for (let d = 0; d < t.dim; d++) out[d]! += t.data[r * t.dim + d]!;
  // The mean's 1/len cancels in the normalisation.
  return normalised(out);
}

/** The vector scaled to unit length; a zero vector stays zero (its cosine with anything is 0). */
export function normalised(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  if (n === 0) return v;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

export function dot(a: Float32Array, b: Float32Array, aOff = 0, bOff = 0, dim = a.length): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[aOff + i]! * b[bOff + i]!;
  return s;
}

/** Rows of `t` whose index `keep` accepts, each scaled to unit length. */
export function unitRows(t: TokenVectors, keep: (row: number) => boolean): TokenVectors {
  const rows: number[] = [];
  for (let r = 0; r < t.len; r++) if (keep(r)) rows.push(r);
  const data = new Float32Array(rows.length * t.dim);
  rows.forEach((r, i) => data.set(normalised(t.data.slice(r * t.dim, (r + 1) * t.dim)), i * t.dim));
  return { dim: t.dim, data, len: rows.length };
}

export interface BertScore {
  precision: number;
  recall: number;
  f1: number;
}

/**
 * BERTScore of candidate `a` against reference `b` from unit token vectors: recall matches each
 * token of b to its most similar token of a, precision each token of a to b; weighted means when
 * weights (idf) are given. Symmetric in F1. An empty side scores 0 (nothing is matched).
 */
export function bertScore(a: TokenVectors, b: TokenVectors, weightsA?: readonly number[], weightsB?: readonly number[]): BertScore {
  if (a.len === 0 || b.len === 0) return { precision: 0, recall: 0, f1: 0 };
  const bestA = new Float64Array(a.len).fill(-Infinity);
  const bestB = new Float64Array(b.len).fill(-Infinity);
  for (let i = 0; i < a.len; i++) {
    for (let j = 0; j < b.len; j++) {
      const s = dot(a.data, b.data, i * a.dim, j * b.dim, a.dim);
      if (s > bestA[i]!) bestA[i] = s;
      if (s > bestB[j]!) bestB[j] = s;
    }
  }
  const precision = weightedMean(bestA, weightsA);
  const recall = weightedMean(bestB, weightsB);
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function weightedMean(values: Float64Array, weights?: readonly number[]): number {
  let s = 0;
  let w = 0;
  for (let i = 0; i < values.length; i++) {
    const wi = weights ? weights[i]! : 1;
    s += wi * values[i]!;
    w += wi;
  }
  return w > 0 ? s / w : 0;
}

/** A similarity in [-1, 1] as a score in [0, 1]: negative (opposed) clamps to 0, so values equal the paper's raw cosines. */
export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

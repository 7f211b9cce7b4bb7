/**
 * Word-vector similarities of two texts: cosine of the averaged word vectors, and Word Mover's Similarity
 * (WMS = 1 − WMD/2 over unit vectors, the paper's transform; spec: reference-implementation §7.2).
 *
 * Texts become bags of words with the syntactic metrics' tokens (`wordTokens`: lower-cased, punctuation dropped) minus
 * stop words, as the WMD literature does (Kusner et al. 2015; the paper's code used NLTK's list). A text made only of
 * stop words keeps them (else two such texts could not be compared). A token without a vector is looked up by its
 * parts when it has inner `-`/`.`/`,`/`&`/`'` ("armenian-americans"); a word still without a vector (numbers, rare
 * names: the package has no numbers) is kept as an out-of-vocabulary word with its own direction, orthogonal to
 * every other word: it matches the same word on the other side (distance 0) and nothing else (distance √2). gensim
 * drops such words instead, which makes "born in 1907" and "born in 1970" identical.
 */
import { wordTokens } from "../metrics/word-tokens.ts";
import { minCostTransport } from "./transport.ts";
import { STOP_WORDS } from "./stop-words.ts";
import type { WordVectors } from "./word-vectors.ts";

/** Distinct words of a text with their counts; `row` is the vector row, -1 for an out-of-vocabulary word. */
export interface WordBag {
  readonly words: readonly string[];
  readonly rows: Int32Array;
  readonly counts: Int32Array;
  /** Σ counts */
  readonly tokens: number;
  /** tokens without a vector */
  readonly oovTokens: number;
}

export interface VectorScores {
  /** cosine of the count-weighted mean unit vectors, clipped to [0, 1] */
  vectorCosine: number;
  /** 1 − WMD/2 with unit vectors (WMD ∈ [0, 2]) */
  wordMoverSimilarity: number;
  /** share of the pair's bag tokens without a word vector, in [0, 1] */
  vectorOov: number;
}

const SPLIT_RE = /[-.,&']/;
const SQRT2 = Math.SQRT2;

export class VectorSimilarity {
  constructor(
    private readonly vectors: WordVectors,
    private readonly stopWords: ReadonlySet<string> = STOP_WORDS,
  ) {}

  bag(text: string): WordBag {
    const all = wordTokens(text);
    let content = all.filter((t) => !this.stopWords.has(t));
    if (content.length === 0) content = all;
    const counts = new Map<string, number>();
    const add = (w: string) => counts.set(w, (counts.get(w) ?? 0) + 1);
    for (const t of content) {
      if (this.vectors.id(t) >= 0 || !SPLIT_RE.test(t)) { add(t); continue; }
      const parts = t.split(SPLIT_RE).filter((p) => p !== "" && !this.stopWords.has(p));
      if (parts.length === 0) add(t);
      else for (const p of parts) add(p);
    }
    const words = [...counts.keys()];
    const rows = Int32Array.from(words, (w) => this.vectors.id(w));
    const cs = Int32Array.from(words, (w) => counts.get(w)!);
    let tokens = 0, oov = 0;
    for (let i = 0; i < words.length; i++) {
      tokens += cs[i]!;
      if (rows[i]! < 0) oov += cs[i]!;
    }
    return { words, rows, counts: cs, tokens, oovTokens: oov };
  }

  private dot(r1: number, r2: number): number {
    const d = this.vectors.dims;
    const u = this.vectors.unit;
    let s = 0;
    for (let k = 0, a = r1 * d, b = r2 * d; k < d; k++) s += u[a + k]! * u[b + k]!;
    return s;
  }

  /** Euclidean distance of two bag words' unit vectors (out-of-vocabulary words: 0 to themselves, √2 to others). */
  distance(a: WordBag, i: number, b: WordBag, j: number): number {
    if (a.words[i] === b.words[j]) return 0;
    const ra = a.rows[i]!, rb = b.rows[j]!;
    if (ra < 0 || rb < 0) return SQRT2;
    return Math.sqrt(Math.max(0, 2 - 2 * this.dot(ra, rb)));
  }

  /** Cosine of the count-weighted sums of unit vectors (out-of-vocabulary words as extra orthogonal axes), clipped to [0, 1]. */
  cosine(a: WordBag, b: WordBag): number {
    if (a.tokens === 0 || b.tokens === 0) return 0;
    const d = this.vectors.dims;
    const u = this.vectors.unit;
    const sum = (bag: WordBag) => {
      const v = new Float64Array(d);
      let oovSq = 0;
      for (let i = 0; i < bag.words.length; i++) {
        const r = bag.rows[i]!, c = bag.counts[i]!;
        if (r < 0) { oovSq += c * c; continue; }
        for (let k = 0, o = r * d; k < d; k++) v[k] = v[k]! + c * u[o + k]!;
      }
      return { v, oovSq };
    };
    const sa = sum(a), sb = sum(b);
    let dot = 0, na = sa.oovSq, nb = sb.oovSq;
    for (let k = 0; k < d; k++) {
      dot += sa.v[k]! * sb.v[k]!;
      na += sa.v[k]! * sa.v[k]!;
      nb += sb.v[k]! * sb.v[k]!;
    }
    for (let i = 0; i < a.words.length; i++) {
      if (a.rows[i]! >= 0) continue;
      const j = b.words.indexOf(a.words[i]!);
      if (j >= 0) dot += a.counts[i]! * b.counts[j]!;
    }
    if (na === 0 || nb === 0) return 0;
    return Math.min(1, Math.max(0, dot / Math.sqrt(na * nb)));
  }

  private costMatrix(a: WordBag, b: WordBag): Float64Array {
    const n = a.words.length, m = b.words.length;
    const c = new Float64Array(n * m);
    for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) c[i * m + j] = this.distance(a, i, b, j);
    return c;
  }

  /**
   * Relaxed WMD (Kusner et al. 2015): each side's mass moves to its nearest word on the other side, the larger of the
   * two directions. A lower bound of WMD, and exact when either side has a single distinct word.
   */
  relaxedWmd(a: WordBag, b: WordBag, cost = this.costMatrix(a, b)): number {
    const n = a.words.length, m = b.words.length;
    let ab = 0, ba = 0;
    for (let i = 0; i < n; i++) {
      let best = Infinity;
      for (let j = 0; j < m; j++) best = Math.min(best, cost[i * m + j]!);
      ab += (a.counts[i]! / a.tokens) * best;
    }
    for (let j = 0; j < m; j++) {
      let best = Infinity;
      for (let i = 0; i < n; i++) best = Math.min(best, cost[i * m + j]!);
      ba += (b.counts[j]! / b.tokens) * best;
    }
    return Math.max(ab, ba);
  }

  /** Word Mover's Distance with normalised bag-of-words weights; exact (min-cost transport). Infinity if a bag is empty. */
  wmd(a: WordBag, b: WordBag): number {
    if (a.tokens === 0 || b.tokens === 0) return Infinity;
    // Prefilter: with one distinct word on a side all mass must go to/from it, so the relaxed bound is exact.
    if (a.words.length === 1 || b.words.length === 1) return this.relaxedWmd(a, b);
    // Integer masses with a common total: a word's share c/L becomes c·L' of L·L'.
    const supply = Array.from(a.counts, (c) => c * b.tokens);
    const demand = Array.from(b.counts, (c) => c * a.tokens);
    // A word on both sides keeps its common mass in place: with a metric ground distance some optimal flow does so
    // (moving it away and something else in costs at least as much, by the triangle inequality). Paraphrases share
    // many words, so what is left to solve is small.
    for (let i = 0; i < a.words.length; i++) {
      const j = b.words.indexOf(a.words[i]!);
      if (j < 0) continue;
      const common = Math.min(supply[i]!, demand[j]!);
      supply[i] = supply[i]! - common;
      demand[j] = demand[j]! - common;
    }
    const rows = supply.flatMap((v, i) => (v > 0 ? [i] : []));
    const cols = demand.flatMap((v, j) => (v > 0 ? [j] : []));
    if (rows.length === 0) return 0;
    const cost = new Float64Array(rows.length * cols.length);
    rows.forEach((i, r) => cols.forEach((j, c) => (cost[r * cols.length + c] = this.distance(a, i, b, j))));
    const moved = minCostTransport(rows.map((i) => supply[i]!), cols.map((j) => demand[j]!), cost).cost;
    return moved / (a.tokens * b.tokens);
  }

  /** 1 − WMD/2 in [0, 1]; 0 when a text has no words. */
  wordMoverSimilarity(a: WordBag, b: WordBag): number {
    const d = this.wmd(a, b);
    return Number.isFinite(d) ? Math.min(1, Math.max(0, 1 - d / 2)) : 0;
  }

  score(textA: string, textB: string): VectorScores {
    const a = this.bag(textA), b = this.bag(textB);
    const tokens = a.tokens + b.tokens;
    return {
      vectorCosine: this.cosine(a, b),
      wordMoverSimilarity: this.wordMoverSimilarity(a, b),
      vectorOov: tokens === 0 ? 0 : (a.oovTokens + b.oovTokens) / tokens,
    };
  }
}

/**
 * Exact Jaccard over word sets and the paper's O(n²) baseline. Sets are sorted arrays of word ids
 * (corpus.ts), so an intersection is one merge.
 */
import type { EncodedCorpus, PairSink, WordIds } from "./corpus.ts";

/** |A ∩ B| of two ascending id arrays. */
export function intersectionSize(a: WordIds, b: WordIds): number {
  let i = 0, j = 0, n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!, y = b[j]!;
    if (x === y) { n++; i++; j++; } else if (x < y) i++; else j++;
  }
  return n;
}

/** |A ∩ B| / |A ∪ B|; two empty sets are not similar (0), so empty paragraphs never pair. */
export function jaccard(a: WordIds, b: WordIds): number {
  const inter = intersectionSize(a, b);
  const union = a.length + b.length - inter;
  return union === 0 ? 0 : inter / union;
}

/** Jaccard of two word lists (any order, duplicates allowed): for hand-checked examples and one-off use. */
export function jaccardOfWords(a: readonly string[], b: readonly string[]): number {
  const sa = new Set(a), sb = new Set(b);
  let inter = 0;
  for (const w of sa) if (sb.has(w)) inter++;
  const union = sa.size + sb.size - inter;
  return union === 0 ? 0 : inter / union;
}

/**
 * The plain O(n²) baseline the paper times: every pair compared, no index. Cross mode (corpus.b
 * present) compares every A with every B; within one set, every i < j. Emits pairs with J ≥ threshold.
 */
export function exactPairs(corpus: EncodedCorpus, threshold: number, emit: PairSink): void {
  const { a, b } = corpus;
  for (let i = 0; i < a.length; i++) {
    const others = b ?? a;
    for (let j = b ? 0 : i + 1; j < others.length; j++) {
      const score = jaccard(a[i]!, others[j]!);
      if (score >= threshold && score > 0) emit(i, j, score);
    }
  }
}

/**
 * The same pairs as exactPairs, through an inverted index: only pairs sharing a word are touched.
 * Exact, but its cost still grows with the postings of frequent words; kept apart from the baseline
 * so that the baseline's timing is the paper's O(n²).
 */
export function exactPairsIndexed(corpus: EncodedCorpus, threshold: number, emit: PairSink): void {
  const { a } = corpus;
  const others = corpus.b ?? a;
  const self = corpus.b === null;
  const postings: number[][] = Array.from({ length: corpus.vocabulary.length }, () => []);
  others.forEach((set, j) => { for (const w of set) postings[w]!.push(j); });
  const shared = new Int32Array(others.length);
  const touched: number[] = [];
  for (let i = 0; i < a.length; i++) {
    for (const w of a[i]!) {
      for (const j of postings[w]!) {
        if (self && j <= i) continue;
        if (shared[j]!++ === 0) touched.push(j);
      }
    }
    touched.sort((x, y) => x - y);
    for (const j of touched) {
      const inter = shared[j]!;
      shared[j] = 0;
      const score = inter / (a[i]!.length + others[j]!.length - inter);
      if (score >= threshold) emit(i, j, score);
    }
    touched.length = 0;
  }
}

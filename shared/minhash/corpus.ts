/**
 * A corpus encoded for set comparison: one shared vocabulary, each paragraph an ascending array of
 * word ids. Ids are assigned in code-point order of the words, so an encoding does not depend on the
 * order paragraphs arrive in, and ties between equal hash ranks break the same way everywhere.
 */
import { wordSet } from "./words.ts";

export type WordIds = Int32Array;

export interface EncodedCorpus {
  readonly vocabulary: readonly string[];
  /** side A (or the only set, for near-duplicates within one set) */
  readonly a: readonly WordIds[];
  /** side B of a cross comparison; null: pairs are i < j within A */
  readonly b: readonly WordIds[] | null;
}

/** Receives one pair: indices into A and into B (or A again, with i < j), its (estimated) Jaccard and, when the method computed it, its exact Jaccard. */
export type PairSink = (i: number, j: number, score: number, exact?: number) => void;

/** Encode texts (paragraphs, captions) of one or two sides with a shared vocabulary. */
export function encodeCorpus(a: readonly string[], b: readonly string[] | null = null): EncodedCorpus {
  return encodeWordSets(a.map(wordSet), b ? b.map(wordSet) : null);
}

/** Encode already tokenised word sets (duplicates within a set are removed). */
export function encodeWordSets(a: readonly (readonly string[])[], b: readonly (readonly string[])[] | null = null): EncodedCorpus {
  const words = new Set<string>();
  for (const side of b ? [a, b] : [a]) for (const set of side) for (const w of set) words.add(w);
  const vocabulary = [...words].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const id = new Map(vocabulary.map((w, i) => [w, i]));
  const encode = (set: readonly string[]): WordIds => Int32Array.from(new Set(set.map((w) => id.get(w)!))).sort();
  return { vocabulary, a: a.map(encode), b: b ? b.map(encode) : null };
}

/** The `wordVectors` pair scorer: averaged-vector cosine, Word Mover's Similarity and the OOV share per pair. */
import type { PairScorer } from "../plugins/scorers.ts";
import { VectorSimilarity } from "./vector-similarity.ts";
import { loadWordVectors, type WordVectors } from "./word-vectors.ts";

/** Metric names the scorer reports, in column order. */
export const VECTOR_METRICS = ["vectorCosine", "wordMoverSimilarity", "vectorOov"] as const;

// Per-process cache: the vectors take ~1.5 s and 136 MB to load, and every task of a worker thread or function
// instance shares one copy (read-only after loading).
const loaded = new Map<string, WordVectors>();

export function processWordVectors(maxWords: number | null): WordVectors {
  const key = String(maxWords);
  let v = loaded.get(key);
  if (!v) loaded.set(key, (v = loadWordVectors({ maxWords })));
  return v;
}

/**
 * The scorer loads the vectors on its first non-empty batch: a run's dedup tasks are many and most partitions of a
 * small run have no pairs, so a worker that never scores a pair never pays the load.
 */
export function wordVectorScorer(vectors: () => WordVectors): PairScorer {
  let sim: VectorSimilarity | null = null;
  return {
    id: "wordVectors",
    scoreBatch: async (pairs) => {
      if (pairs.length === 0) return [];
      sim ??= new VectorSimilarity(vectors());
      return pairs.map(([a, b]) => ({ ...sim!.score(a, b) }));
    },
  };
}

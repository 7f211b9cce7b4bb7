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

export function wordVectorScorer(vectors: WordVectors): PairScorer {
  const sim = new VectorSimilarity(vectors);
  return {
    id: "wordVectors",
    scoreBatch: async (pairs) => pairs.map(([a, b]) => ({ ...sim.score(a, b) })),
  };
}

/** The `wordVectors` pair scorer: averaged-vector cosine, Word Mover's Similarity and the OOV share per pair. */
import type { PairScorer } from "../plugins/scorer-contract.ts";
import { VectorSimilarity } from "./vector-similarity.ts";
import { requestResource } from "../core/shared-resources.ts";
import { defaultVectorCacheDir, readCachedVectors, writeCachedVectors } from "./vector-cache.ts";
import type { PackedVectors } from "./packed-vectors.ts";
import { defaultVectorsFile, loadWordVectors, WordVectors } from "./word-vectors.ts";

/** Metric names the scorer reports, in column order. */
export const VECTOR_METRICS = ["vectorCosine", "wordMoverSimilarity", "vectorOov"] as const;

/** Name under which a worker pool shares the vectors between its threads (see core/shared-resources.ts). */
export const WORD_VECTORS_RESOURCE = "wordVectors";

/**
 * What a worker thread receives: the packed vectors (rows, hash table and words) in one SharedArrayBuffer, so every
 * thread reads one copy and builds nothing per word.
 */
type SharedRows = PackedVectors;

// Per-thread cache: the vectors take 0.5–1.5 s and 40–136 MB to load. Every task of a thread or function instance
// shares one copy, and the worker threads of a local run share the main thread's (read-only after loading).
const loaded = new Map<string, Promise<WordVectors>>();

/** Loads packed into shared memory: from the binary copy when there is one, else by parsing the package (and caching). */
function loadShared(key: string): WordVectors {
  const maxWords = key === "null" ? null : Number(key);
  const source = defaultVectorsFile();
  const dir = defaultVectorCacheDir();
  const cached = dir === null ? null : readCachedVectors(dir, source, maxWords, true);
  if (cached) return cached;
  const vectors = WordVectors.pack(loadWordVectors({ file: source, maxWords }), true);
  if (dir !== null) writeCachedVectors(dir, source, maxWords, vectors);
  return vectors;
}

/** Provider for a worker pool's resource server: the serving thread's own copy (loaded once), handed out shared. */
export async function wordVectorsProvider(key: string): Promise<SharedRows> {
  const v = await processWordVectors(key === "null" ? null : Number(key));
  return WordVectors.pack(v, true).packed!;
}

/** The vectors for this thread: from the thread that started it when it shares them, else loaded here. */
export function processWordVectors(maxWords: number | null): Promise<WordVectors> {
  const key = String(maxWords);
  let v = loaded.get(key);
  if (!v) {
    const fromParent = requestResource(WORD_VECTORS_RESOURCE, key) as Promise<SharedRows> | null;
    v = fromParent ? fromParent.then((r) => WordVectors.fromPacked(r)) : Promise.resolve().then(() => loadShared(key));
    loaded.set(key, v);
    v.catch(() => loaded.delete(key));
  }
  return v;
}

/**
 * The scorer loads the vectors on its first non-empty batch: a run's dedup tasks are many and most partitions of a
 * small run have no pairs, so a worker that never scores a pair never pays the load.
 */
export function wordVectorScorer(vectors: () => WordVectors | Promise<WordVectors>): PairScorer {
  let sim: VectorSimilarity | null = null;
  return {
    id: "wordVectors",
    scoreBatch: async (pairs) => {
      if (pairs.length === 0) return [];
      sim ??= new VectorSimilarity(await vectors());
      return pairs.map(([a, b]) => ({ ...sim!.score(a, b) }));
    },
  };
}

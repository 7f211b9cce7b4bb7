/**
 * Pair scorers: each adds named metric values to every surviving pair. The syntactic scorer is the
 * paper's; semantic scorers (word vectors, Word Mover, sentence embeddings, BERTScore) and
 * Δsem,syn plug in here without touching the stages.
 *
 * Scoring is async and batched: a model scorer runs one inference per batch, and loading a model
 * (seconds, hundreds of MB) happens once per process, not once per task (see `ScorerCache`).
 */
import type { ParacapConfig } from "../core/config.ts";
import type { ScorerName } from "../core/plugin-names.ts";
import { perPairScorer, type PairMetrics, type PairScorer, type ScorerContext, type ScorerFactory, type TextPair } from "./scorer-contract.ts";

export type { PairMetrics, TextPair } from "./scorer-contract.ts";
import { PairScorer as SyntacticScorer } from "../metrics/index.ts";
import { processWordVectors, wordVectorScorer } from "../semantic/vector-scorer.ts";
import { bertscoreScorer, embeddingScorer } from "../semantic/transformer-scorers.ts";

const SCORERS = {
  syntactic: (ctx: ScorerContext): PairScorer => {
    const s = new SyntacticScorer({ paper: ctx.config.preset === "paper" });
    return perPairScorer("syntactic", (a, b) => ({ ...s.score(a, b) }));
  },
  /** vectorCosine, wordMoverSimilarity, vectorOov from the shipped word vectors (offline; shared/semantic/) */
  wordVectors: (ctx: ScorerContext): PairScorer => wordVectorScorer(() => processWordVectors(ctx.config.scoring.vectors.maxWords)),
  embedding: embeddingScorer,
  bertscore: bertscoreScorer,
} satisfies Record<ScorerName, ScorerFactory>;

/**
 * Loaded scorers, keyed by name and the config they were built from. One per process (a worker
 * thread, a function instance): a model is loaded on first use and shared by every later task.
 */
export class ScorerCache {
  private readonly loaded = new Map<string, Promise<PairScorer>>();

  get(name: ScorerName, ctx: ScorerContext): Promise<PairScorer> {
    const key = `${name}\u0000${ctx.config.preset}\u0000${JSON.stringify(ctx.config.scoring)}`;
    let s = this.loaded.get(key);
    if (!s) {
      s = Promise.resolve().then(() => (SCORERS[name] as ScorerFactory)(ctx));
      // A failed load is not cached: the next task tries again (and fails loudly again).
      s.catch(() => this.loaded.delete(key));
      this.loaded.set(key, s);
    }
    return s;
  }
}

/** The process's scorer cache (one per worker thread or function instance). */
export const processScorers = new ScorerCache();

export type BatchScore = (pairs: readonly TextPair[]) => Promise<PairMetrics[]>;

/** Runs the configured scorers in order over a batch; a metric name reported twice is a bug. */
export async function createScorers(config: ParacapConfig, cache: ScorerCache = processScorers): Promise<BatchScore> {
  const scorers = await Promise.all(config.scoring.scorers.map((n) => cache.get(n, { config })));
  return async (pairs) => {
    const out: PairMetrics[] = pairs.map(() => ({}));
    for (const s of scorers) {
      const scored = await s.scoreBatch(pairs);
      if (scored.length !== pairs.length) throw new Error(`scorer ${s.id} returned ${scored.length} results for ${pairs.length} pairs`);
      scored.forEach((metrics, i) => {
        const target = out[i]!;
        for (const [k, v] of Object.entries(metrics)) {
          if (k in target) throw new Error(`scorer ${s.id} reports metric ${k} already reported by another scorer`);
          target[k] = v;
        }
      });
    }
    return out;
  };
}

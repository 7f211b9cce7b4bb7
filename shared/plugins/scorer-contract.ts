/**
 * The pair-scorer contract: what a scorer implements (semantic/ and metrics/ do) and the registry in
 * plugins/scorers.ts runs. Kept apart from the registry so implementations import the contract
 * without importing each other.
 */
import type { ParacapConfig } from "../core/config.ts";

export type TextPair = readonly [a: string, b: string];
export type PairMetrics = Record<string, number>;

export interface PairScorer {
  /** config name; also the namespace a scorer's metric names must not collide in */
  readonly id: string;
  /** one result per input pair, in order; every value normalised to [0, 1] unless documented */
  scoreBatch(pairs: readonly TextPair[]): Promise<PairMetrics[]>;
}

export interface ScorerContext {
  readonly config: ParacapConfig;
}

export type ScorerFactory = (ctx: ScorerContext) => PairScorer | Promise<PairScorer>;

/** A scorer whose work is per pair and synchronous (no model, no batching benefit). */
export function perPairScorer(id: string, score: (a: string, b: string) => PairMetrics): PairScorer {
  return { id, scoreBatch: async (pairs) => pairs.map(([a, b]) => score(a, b)) };
}

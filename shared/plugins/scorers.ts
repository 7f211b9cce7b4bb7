/**
 * Pair scorers: each adds named metric values to every surviving pair. The syntactic scorer is the
 * paper's; the roadmap's semantic scorers (BERTScore, Sentence-Transformer cosine, Word Mover) and
 * Δsem,syn plug in here without touching the stages.
 */
import { PairScorer as SyntacticScorer } from "../metrics/index.ts";

export interface PairScorer {
  /** config name; also the namespace a scorer's metric names must not collide in */
  readonly id: string;
  score(a: string, b: string): Record<string, number>;
}

type ScorerFactory = () => PairScorer;

const SCORERS = {
  syntactic: (): PairScorer => {
    const s = new SyntacticScorer();
    return { id: "syntactic", score: (a, b) => ({ ...s.score(a, b) }) };
  },
} satisfies Record<string, ScorerFactory>;

export type ScorerName = keyof typeof SCORERS;
export const SCORER_NAMES = Object.keys(SCORERS) as [ScorerName, ...ScorerName[]];

/** One function that runs the configured scorers in order; a metric name reported twice is a bug. */
export function createScorers(names: readonly ScorerName[]): (a: string, b: string) => Record<string, number> {
  const scorers = names.map((n) => SCORERS[n]());
  return (a, b) => {
    const out: Record<string, number> = {};
    for (const s of scorers) {
      for (const [k, v] of Object.entries(s.score(a, b))) {
        if (k in out) throw new Error(`scorer ${s.id} reports metric ${k} already reported by another scorer`);
        out[k] = v;
      }
    }
    return out;
  };
}

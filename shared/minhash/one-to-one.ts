/**
 * The paper's "at most one paraphrase per paragraph": pairs sorted by score (best first), then taken
 * greedily, skipping any pair that involves a paragraph already taken.
 */
export interface ScoredPair {
  readonly i: number;
  readonly j: number;
  readonly score: number;
}

/**
 * Greedy one-to-one assignment. Cross mode: i and j index different sides; within one set they share
 * one index space. Ties break by (i, j), so the result does not depend on input order.
 */
export function greedyOneToOne<P extends ScoredPair>(pairs: readonly P[], sameSide: boolean): P[] {
  const sorted = [...pairs].sort((p, q) => q.score - p.score || p.i - q.i || p.j - q.j);
  const usedA = new Set<number>();
  const usedB = sameSide ? usedA : new Set<number>();
  const kept: P[] = [];
  for (const p of sorted) {
    if (usedA.has(p.i) || usedB.has(p.j)) continue;
    usedA.add(p.i);
    usedB.add(p.j);
    kept.push(p);
  }
  return kept;
}

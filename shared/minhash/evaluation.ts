/**
 * Min-hash measured against the exact method on one corpus (what `paracap minhash --evaluation`
 * writes for report.html): estimated vs exact Jaccard of every pair with J ≥ floor, and precision /
 * recall / F against the exact method's pairs at each threshold, for the paper's rule (estimate ≥ t)
 * and for the verified method (estimate ≥ t − slack, then J ≥ t). The shapes are output/minhash-chart.ts's.
 */
import type { EncodedCorpus } from "./corpus.ts";
import { exactPairsIndexed } from "./jaccard.ts";
import { estimatePairs, minhashPairs, type MinhashOptions } from "./permutaries.ts";

export interface EvaluationPoint { perms: number; exact: number; estimate: number }
export interface EvaluationPrf { method: string; threshold: number; precision: number; recall: number; f: number }

export const EVALUATION_THRESHOLDS = [0.1, 0.2, 0.3, 0.33, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

export function evaluateAgainstExact(corpus: EncodedCorpus, opts: Pick<MinhashOptions, "perms" | "seed" | "bucketCap" | "slack">, floor = 0.1): { scatter: EvaluationPoint[]; prfExact: EvaluationPrf[] } {
  const nB = (corpus.b ?? corpus.a).length;
  const exact = new Map<number, number>();
  exactPairsIndexed(corpus, floor, (i, j, s) => exact.set(i * nB + j, s));
  const keys = [...exact.keys()].sort((x, y) => x - y);
  const est = estimatePairs(corpus, keys.map((k) => [Math.floor(k / nB), k % nB] as const), opts);
  const scatter = keys.map((k, n) => ({ perms: opts.perms, exact: round(exact.get(k)!), estimate: round(est[n]!) }));
  // the paper's rule also proposes pairs with J < floor: every pair whose estimate reaches the floor
  const paper = new Map<number, number>();
  minhashPairs(corpus, { ...opts, threshold: floor, verify: "estimate" }, (i, j, s) => paper.set(i * nB + j, s));
  const prfExact: EvaluationPrf[] = [];
  for (const t of EVALUATION_THRESHOLDS) {
    const gold = new Set(keys.filter((k) => exact.get(k)! >= t - 1e-12));
    const proposedPaper = [...paper].filter(([, s]) => s >= t - 1e-12).map(([k]) => k);
    const proposedVerified = keys.filter((k, n) => exact.get(k)! >= t - 1e-12 && est[n]! >= t - opts.slack - 1e-12);
    prfExact.push(prf(`paper m = ${opts.perms}`, t, proposedPaper, gold), prf(`verified m = ${opts.perms}`, t, proposedVerified, gold));
  }
  return { scatter, prfExact };
}

function prf(method: string, threshold: number, proposed: readonly number[], gold: ReadonlySet<number>): EvaluationPrf {
  const hit = proposed.filter((k) => gold.has(k)).length;
  const precision = proposed.length === 0 ? 1 : hit / proposed.length, recall = gold.size === 0 ? 1 : hit / gold.size;
  return { method, threshold, precision, recall, f: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

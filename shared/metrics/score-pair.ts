import { BLEU_ORDERS_NEEDED, symmetricBleu4 } from "./bleu.ts";
import { lcpNgramOverlap } from "./lcp-overlap.ts";
import { normalisedLevenshtein } from "./levenshtein.ts";
import { buildPairNgrams, orderStats, type OrderStats } from "./ngram-ids.ts";
import { bleuCordeiro, wordNgramOverlap } from "./ngram-overlap.ts";
import { rouge1F, rougeLF } from "./rouge.ts";
import { RougeTokenizer } from "./rouge-tokens.ts";
import { sumo } from "./sumo.ts";
import { wordTokens } from "./word-tokens.ts";

/** Syntactic similarity of a caption pair. All values in [0, 1]; `levenshtein` is a distance, the rest similarities. */
export interface PairMetrics {
  /** Word-level edit distance ÷ max(word counts); 0 = identical; both empty → 0. */
  levenshtein: number;
  /** Thesis eq. 4.2, N = 4, mean over the orders where both texts have n-grams; 0 if none. */
  wordNgramOverlap: number;
  /** Thesis eq. 4.3: max over orders of the exclusive (LCP) n-gram overlap. */
  lcpNgramOverlap: number;
  /** Thesis eq. 4.5: geometric mean of the per-order overlaps; 0 when any valid order has no match. */
  bleuCordeiro: number;
  /** Thesis eq. 4.7 (α = β = 0.5, k = 3); identical texts → 0 by design. */
  sumo: number;
  /** rouge-score ROUGE-1 F1 with Porter stemming. */
  rouge1F: number;
  /** rouge-score ROUGE-L (LCS) F1 with Porter stemming. */
  rougeLF: number;
  /** nltk sentence BLEU-4, method7 smoothing, mean of both directions, clipped to [0, 1]. */
  bleu4: number;
  /** Paper's syntactic score: mean(rouge1F, rougeLF, bleu4). */
  syntactic: number;
}

/** Metric names in a fixed order (column order for reports and benchmarks). */
export const METRIC_NAMES: readonly (keyof PairMetrics)[] = [
  "levenshtein",
  "wordNgramOverlap",
  "lcpNgramOverlap",
  "bleuCordeiro",
  "sumo",
  "rouge1F",
  "rougeLF",
  "bleu4",
  "syntactic",
] as const;

/** N of the thesis n-gram metrics. */
export const THESIS_MAX_ORDER = 4;

function allOrderStats(grams: ReturnType<typeof buildPairNgrams>, maxOrder: number): OrderStats[] {
  const out: OrderStats[] = [];
  for (let n = 1; n <= maxOrder; n++) out.push(orderStats(grams, n));
  return out;
}

/**
 * Scores caption pairs. Each side is tokenised once per tokenizer (thesis word tokens; rouge-score tokens), and
 * each tokenisation's n-grams are built once and shared by all metrics that use it.
 */
export class PairScorer {
  private readonly rougeTokenizer: RougeTokenizer;

  /** `paper`: rouge-score's tokens exactly, whatever the script (see RougeTokenizer's `scriptAware`). */
  constructor(opts: { paper?: boolean } = {}) {
    this.rougeTokenizer = new RougeTokenizer(undefined, !opts.paper);
  }

  /** All {@link PairMetrics} of the pair (a, b). Every metric is symmetric in a and b. */
  score(a: string, b: string): PairMetrics {
    const words = buildPairNgrams(wordTokens(a), wordTokens(b), THESIS_MAX_ORDER);
    const wordOrders = allOrderStats(words, THESIS_MAX_ORDER);
    const wa = words.a[0]!;
    const wb = words.b[0]!;

    const rouge = buildPairNgrams(
      this.rougeTokenizer.tokenize(a),
      this.rougeTokenizer.tokenize(b),
      BLEU_ORDERS_NEEDED,
    );
    const clipped = allOrderStats(rouge, BLEU_ORDERS_NEEDED).map((s) => s.clippedMatches);
    const ra = rouge.a[0]!;
    const rb = rouge.b[0]!;

    const r1 = rouge1F(clipped[0]!, ra.length, rb.length);
    const rl = rougeLF(ra, rb);
    const b4 = symmetricBleu4(clipped, ra.length, rb.length);
    return {
      levenshtein: normalisedLevenshtein(wa, wb),
      wordNgramOverlap: wordNgramOverlap(wordOrders),
      lcpNgramOverlap: lcpNgramOverlap(words, wordOrders),
      bleuCordeiro: bleuCordeiro(wordOrders),
      sumo: sumo(wa.length, wb.length, wordOrders[0]!.clippedMatches),
      rouge1F: r1,
      rougeLF: rl,
      bleu4: b4,
      syntactic: (r1 + rl + b4) / 3,
    };
  }
}

// The shared scorer only holds a stemming memo (a cache of a pure function), so sharing it cannot change results.
const defaultScorer = new PairScorer();

/** All syntactic metrics of a caption pair; see {@link PairMetrics}. */
export function scorePair(a: string, b: string): PairMetrics {
  return defaultScorer.score(a, b);
}

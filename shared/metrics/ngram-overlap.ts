import type { OrderStats } from "./ngram-ids.ts";

/**
 * Per-order overlap |distinct common n-grams| ÷ min(|distinct a_n|, |distinct b_n|) (thesis eq. 4.2 term), or
 * `null` when the shorter side has no n-gram of that order. Dividing by the smaller distinct count (not by the
 * "shorter text" as the Java code does) keeps the ratio ≤ 1 and the metric symmetric.
 */
export function overlapRatio(stats: OrderStats): number | null {
  const denominator = Math.min(stats.distinctA, stats.distinctB);
  return denominator === 0 ? null : stats.distinctCommon / denominator;
}

/**
 * Word n-gram overlap sim_o (thesis eq. 4.2): mean of the per-order ratios over the VALID orders (those where both
 * texts have n-grams), fixing the Java NaN for texts shorter than N words; 0 if no order is valid.
 */
export function wordNgramOverlap(orders: readonly OrderStats[]): number {
  let sum = 0;
  let valid = 0;
  for (const stats of orders) {
    const ratio = overlapRatio(stats);
    if (ratio === null) continue;
    sum += ratio;
    valid++;
  }
  return valid === 0 ? 0 : sum / valid;
}

/**
 * BLEU as Cordeiro et al. define it for paraphrases (thesis eq. 4.5): geometric mean of the per-order ratios
 * over the valid orders, without brevity penalty. A valid order with no common n-gram makes the product, and so
 * the score, 0 — the Java code skipped such orders, which scored disjoint texts 1.0.
 */
export function bleuCordeiro(orders: readonly OrderStats[]): number {
  let logSum = 0;
  let valid = 0;
  for (const stats of orders) {
    const ratio = overlapRatio(stats);
    if (ratio === null) continue;
    if (ratio === 0) return 0;
    logSum += Math.log(ratio);
    valid++;
  }
  return valid === 0 ? 0 : Math.exp(logSum / valid);
}

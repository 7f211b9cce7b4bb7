/**
 * ROUGE-1 and ROUGE-L F1 as rouge-score 0.0.4 computes them (`RougeScorer(["rouge1","rougeL"], use_stemmer=True)`)
 * on {@link RougeTokenizer} tokens. F1 is symmetric, so which side is the target does not matter.
 */

/** rouge-score `fmeasure`: harmonic mean, 0 when precision + recall is 0. */
export function fMeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/** ROUGE-1 F1 from the clipped unigram matches Σ min(count_a, count_b) and the two token counts. */
export function rouge1F(clippedUnigramMatches: number, lengthA: number, lengthB: number): number {
  return fMeasure(clippedUnigramMatches / Math.max(lengthB, 1), clippedUnigramMatches / Math.max(lengthA, 1));
}

/** ROUGE-L F1: LCS length over each side's length; 0 if a side is empty. */
export function rougeLF(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  const lcs = longestCommonSubsequence(a, b);
  return fMeasure(lcs / b.length, lcs / a.length);
}

/** Length of the longest common subsequence of two id sequences (two-row dynamic programme). */
export function longestCommonSubsequence(a: Int32Array, b: Int32Array): number {
  let prev = new Int32Array(b.length + 1);
  let cur = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const ai = a[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = ai === b[j - 1]! ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

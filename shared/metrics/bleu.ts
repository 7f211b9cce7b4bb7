/**
 * BLEU-4 as the paper's evaluation computes it: nltk 3.7 `sentence_bleu([reference], hypothesis)` with default
 * weights (¼ each), `SmoothingFunction().method7` and the standard brevity penalty, on rouge-score tokens; the
 * pair score is the mean of both directions, clipped to [0, 1].
 *
 * method7 is kept (rather than Chen & Cherry's simpler method1) for parity with the published numbers: it is
 * method4 (zero-match orders get 1/(2^c · 5/ln|hyp|) ÷ their denominator, c = 1, 2, …) followed by method5
 * (each p_n averaged with its smoothed predecessor and its raw successor, using p_1 + 1 before p_1 and the raw
 * 5-gram precision after p_4). method5 can push precisions above 1, hence the final clip.
 */

/** Highest n-gram order the smoothing needs (method5 looks one order past the 4 weighted ones). */
export const BLEU_ORDERS_NEEDED = 5;
const WEIGHT = 0.25;
const METHOD4_K = 5;

/**
 * nltk `sentence_bleu([ref], hyp, smoothing_function=method7)` from the clipped match counts of orders 1..5
 * (`clippedMatches[n-1]`, symmetric in ref/hyp) and the two lengths. Not clipped.
 */
export function nltkSentenceBleu(clippedMatches: ArrayLike<number>, refLength: number, hypLength: number): number {
  // nltk returns 0 before smoothing when no unigram matches (this also covers an empty hypothesis).
  if ((clippedMatches[0] ?? 0) === 0) return 0;
  const denominator = (n: number): number => Math.max(1, hypLength - n + 1);

  const p: number[] = [];
  let zeroOrders = 1;
  for (let n = 1; n <= 4; n++) {
    const matches = clippedMatches[n - 1] ?? 0;
    if (matches === 0 && hypLength > 1) {
      p.push(1 / ((2 ** zeroOrders * METHOD4_K) / Math.log(hypLength)) / denominator(n));
      zeroOrders++;
    } else {
      p.push(matches / denominator(n));
    }
  }

  const raw5 = (clippedMatches[4] ?? 0) / denominator(5);
  const next = [...p, raw5];
  let previous = p[0]! + 1;
  for (let i = 0; i < 4; i++) {
    p[i] = (previous + p[i]! + next[i + 1]!) / 3;
    previous = p[i]!;
  }

  let logSum = 0;
  for (const pn of p) if (pn > 0) logSum += WEIGHT * Math.log(pn);
  return brevityPenalty(refLength, hypLength) * Math.exp(logSum);
}

/** nltk `brevity_penalty` against a single reference. */
export function brevityPenalty(refLength: number, hypLength: number): number {
  if (hypLength > refLength) return 1;
  if (hypLength === 0) return 0;
  return Math.exp(1 - refLength / hypLength);
}

/** Symmetric BLEU-4: mean of BLEU(a as reference, b as hypothesis) and the reverse, clipped to [0, 1]. */
export function symmetricBleu4(clippedMatches: ArrayLike<number>, lengthA: number, lengthB: number): number {
  const mean =
    (nltkSentenceBleu(clippedMatches, lengthA, lengthB) + nltkSentenceBleu(clippedMatches, lengthB, lengthA)) / 2;
  return Math.min(1, Math.max(0, mean));
}

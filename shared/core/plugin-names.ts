/**
 * The names of the built-in plugins, as data: the config schema validates them here, and each
 * registry (plugins/scorers.ts, plugins/pivots.ts) must implement exactly these (`satisfies Record<…>`),
 * so the ground floor never imports the implementations.
 */

/** Pair scorers (plugins/scorers.ts). */
export const SCORER_NAMES = ["syntactic", "wordVectors", "embedding", "bertscore"] as const;
export type ScorerName = (typeof SCORER_NAMES)[number];

/**
 * The metrics each scorer adds to a pair (what `scoring.semantic` may name), as data for the
 * config checks; test/plugins/scorers.test.ts holds each scorer to its list.
 */
export const SCORER_METRICS: Record<ScorerName, readonly string[]> = {
  syntactic: ["levenshtein", "wordNgramOverlap", "lcpNgramOverlap", "bleuCordeiro", "sumo", "rouge1F", "rougeLF", "bleu4", "syntactic"],
  wordVectors: ["vectorCosine", "wordMoverSimilarity", "vectorOov"],
  embedding: ["embeddingCosine"],
  bertscore: ["bertscoreP", "bertscoreR", "bertscoreF1"],
};

/**
 * Pivots: what makes two references the same image (plugins/pivots.ts). `resource` and `url` key a
 * reference by its image's name, the pixel pivots by its pixels (below), the text pivots key each
 * caption by its text and pair captions across images.
 */
export const PIVOT_NAMES = ["resource", "url", "md5", "ahash", "dhash", "phash", "rahash", "rphash", "canonical", "minhash"] as const;
export type PivotName = (typeof PIVOT_NAMES)[number];

/**
 * The pivots that decide identity from pixels (shared/pixels/): MD5 of the decoded pixels, or a
 * perceptual hash within a Hamming threshold (thesis 4.6). Their runs use the pixel pipeline
 * (tasks/pixel-pipeline.ts), whose phases decode each image once and group near duplicates.
 */
export const PIXEL_PIVOT_NAMES = ["md5", "ahash", "dhash", "phash", "rahash", "rphash"] as const satisfies readonly PivotName[];
export type PixelPivotName = (typeof PIXEL_PIVOT_NAMES)[number];

export function isPixelPivot(name: PivotName): name is PixelPivotName {
  return (PIXEL_PIVOT_NAMES as readonly string[]).includes(name);
}

/** The pivots that key captions by their text (plugins/pivot-contract.ts TextPivot). */
export const TEXT_PIVOT_NAMES = ["canonical", "minhash"] as const satisfies readonly PivotName[];
export type TextPivotName = (typeof TEXT_PIVOT_NAMES)[number];

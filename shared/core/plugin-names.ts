/**
 * The names of the built-in plugins, as data: the config schema validates them here, and each
 * registry (plugins/scorers.ts, plugins/pivots.ts) must implement exactly these (`satisfies Record<…>`),
 * so the ground floor never imports the implementations.
 */

/** Pair scorers (plugins/scorers.ts). */
export const SCORER_NAMES = ["syntactic", "wordVectors", "embedding", "bertscore"] as const;
export type ScorerName = (typeof SCORER_NAMES)[number];

/**
 * Pivots: what makes two references the same image (plugins/pivots.ts). `resource` keys a reference
 * by its image; the text pivots key each caption by its text and pair captions across images.
 */
export const PIVOT_NAMES = ["resource", "canonical", "minhash"] as const;
export type PivotName = (typeof PIVOT_NAMES)[number];

/** The pivots that key captions by their text (plugins/pivot-contract.ts TextPivot). */
export const TEXT_PIVOT_NAMES = ["canonical", "minhash"] as const satisfies readonly PivotName[];
export type TextPivotName = (typeof TEXT_PIVOT_NAMES)[number];

/**
 * The names of the built-in plugins, as data: the config schema validates them here, and each
 * registry (plugins/scorers.ts, plugins/pivots.ts) must implement exactly these (`satisfies Record<…>`),
 * so the ground floor never imports the implementations.
 */

/** Pair scorers (plugins/scorers.ts). */
export const SCORER_NAMES = ["syntactic", "wordVectors", "embedding", "bertscore"] as const;
export type ScorerName = (typeof SCORER_NAMES)[number];

/** Image pivots: what makes two references the same image (plugins/pivots.ts). */
export const PIVOT_NAMES = ["resource"] as const;
export type PivotName = (typeof PIVOT_NAMES)[number];

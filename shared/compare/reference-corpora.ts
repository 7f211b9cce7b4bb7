/**
 * Shipped summaries of published corpora (MSRP train, PAWS dev), made with the default offline scoring
 * (syntactic + wordVectors, the default semantic score and its calibrated verdict) by scripts/reference-corpora.ts.
 * The report shows their characteristic maps next to our tiers without shipping the corpora or loading vectors.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { SemanticScoring } from "../semantic/semantic-score.ts";

const MeanSd = z.object({ mean: z.number().nullable(), sd: z.number().nullable() });
const Summary = z.object({
  name: z.string(),
  /** the name the report shows */
  corpus: z.string(),
  file: z.string(),
  format: z.string(),
  subset: z.enum(["paraphrase", "all"]),
  pairs: z.number().int(),
  n: z.number().int(),
  skipped: z.number().int(),
  skippedLines: z.array(z.number().int()),
  paraphraseShare: z.number().nullable(),
  decision: z.object({ labelled: z.number(), positives: z.number(), precision: z.number(), recall: z.number(), f1: z.number() }).nullable(),
  length: MeanSd,
  metrics: z.record(z.string(), MeanSd),
  map: z.array(z.array(z.number())).nullable(),
  semantic: z.string().nullable(),
  scoring: SemanticScoring.nullable(),
});

export const ReferenceCorpora = z.object({
  /** how the summaries were made (scorers, semantic score, threshold) */
  scoring: z.object({ scorers: z.array(z.string()), semantic: z.array(z.string()), threshold: z.number(), vectors: z.object({ maxWords: z.number().nullable() }) }),
  /** per subset, one summary per corpus */
  paraphrase: z.array(Summary),
  all: z.array(Summary),
});
export type ReferenceCorpora = z.infer<typeof ReferenceCorpora>;

export const REFERENCE_CORPORA_URL = new URL("./data/reference-corpora.json", import.meta.url);

/** The shipped reference summaries (JSON has no NaN: an undefined μ/σ is null). */
export function referenceCorpora(): ReferenceCorpora {
  return ReferenceCorpora.parse(JSON.parse(readFileSync(REFERENCE_CORPORA_URL, "utf8")));
}

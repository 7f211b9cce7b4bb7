/**
 * The agreement report's schema (agreement.json): shared by \`paracap agreement\`, which writes it, and
 * report.html, which reads it back from an output folder (kept apart from the computation so that
 * the report does not load it).
 */
import { z } from "zod";

/** NaN (an undefined statistic) is stored as null */
const Num = z.number().nullable();

export const VARIABLES = ["paraphrase", "relation", "relation5", "syntactic", "semantic"] as const;
export type Variable = (typeof VARIABLES)[number];
export const VARIABLE_LABELS: Record<Variable, string> = {
  paraphrase: "paraphrase (yes/no)",
  relation: "entailment relation (6, directed)",
  relation5: "entailment relation (thesis's 5)",
  syntactic: "syntactic similarity (1–5)",
  semantic: "semantic similarity (1–5)",
};

export const AgreementReport = z.object({
  files: z.array(z.object({ file: z.string(), records: z.number().int(), bad: z.number().int(), badExamples: z.array(z.object({ file: z.string(), line: z.number().int(), why: z.string() })) })),
  annotators: z.array(z.string()),
  /** pairs with at least one label in force */
  pairs: z.number().int(),
  /** pairs labelled by every annotator */
  pairsByAll: z.number().int(),
  variables: z.array(
    z.object({
      variable: z.enum(VARIABLES),
      cohen: z.array(z.object({ a: z.string(), b: z.string(), n: z.number().int(), observed: Num, kappa: Num })),
      fleiss: z.object({ n: z.number().int(), raters: z.number().int(), kappa: Num }).nullable(),
      alpha: z.array(z.object({ metric: z.enum(["nominal", "ordinal", "interval", "ratio"]), n: z.number().int(), units: z.number().int(), alpha: Num })),
    }),
  ),
  correlation: z
    .object({
      dataset: z.string(),
      /** labelled pairs found in the dataset, and not found */
      matched: z.number().int(),
      missing: z.number().int(),
      rating: z.literal("mean over annotators"),
      rows: z.array(
        z.object({
          metric: z.string(),
          /** which rating the paper correlates this measure with */
          axis: z.enum(["syntactic", "semantic", "delta", "none"]),
          n: z.number().int(),
          syntactic: z.object({ pearson: Num, spearman: Num }),
          semantic: z.object({ pearson: Num, spearman: Num }),
          /** against the share of annotators who said "paraphrase" */
          paraphrase: z.object({ pearson: Num, spearman: Num }),
        }),
      ),
    })
    .nullable(),
});
export type AgreementReport = z.infer<typeof AgreementReport>;

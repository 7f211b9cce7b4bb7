/**
 * The pair's semantic score, Δsem,syn and the paraphrase verdict (paper §4): semantic = mean of the configured
 * semantic metrics (`scoring.semantic`); Δsem,syn = semantic − syntactic (in [−1, 1]: the one metric outside [0, 1]);
 * paraphrase = semantic > threshold, the threshold calibrated on MSRP train (scripts/calibrate-paraphrase.ts →
 * data/paraphrase-thresholds.json) unless `scoring.paraphraseThreshold` sets one.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError, type ParacapConfig } from "../core/config.ts";
import { closest } from "../core/closest-name.ts";
import { SCORER_METRICS, type ScorerName } from "../core/plugin-names.ts";
import type { ParaphraseRule } from "../core/records.ts";
import type { PairMetrics } from "../plugins/scorer-contract.ts";
import { VECTOR_METRICS } from "./vector-scorer.ts";

export const SEMANTIC = "semantic";
export const DELTA_SEM_SYN = "deltaSemSyn";
export const SYNTACTIC = "syntactic";

export const Calibration = z.object({
  threshold: z.number(),
  precision: z.number(),
  recall: z.number(),
  f1: z.number(),
});
export type Calibration = z.infer<typeof Calibration>;

export const ThresholdsFile = z.object({
  /** how the thresholds were chosen, in words */
  rule: z.string(),
  /** the calibration corpus: file, pairs, positives, sha256 */
  corpus: z.object({ file: z.string(), pairs: z.number().int(), positives: z.number().int(), sha256: z.string() }),
  /** per score name (a metric, or `mean(m1,m2)`): the threshold and its figures on the calibration corpus */
  thresholds: z.record(z.string(), Calibration),
  /** the same thresholds evaluated on other labelled corpora (file name → score → figures) */
  evaluation: z.record(z.string(), z.record(z.string(), Calibration.omit({ threshold: true }))).default({}),
});
export type ThresholdsFile = z.infer<typeof ThresholdsFile>;

export const THRESHOLDS_URL = new URL("./data/paraphrase-thresholds.json", import.meta.url);

/** The shipped calibration (validated). */
export function shippedThresholds(): ThresholdsFile {
  return ThresholdsFile.parse(JSON.parse(readFileSync(THRESHOLDS_URL, "utf8")));
}

/** The name a semantic definition is calibrated and reported under: the metric, or `mean(a,b,…)`. */
export function semanticScoreName(metrics: readonly string[]): string {
  return metrics.length === 1 ? metrics[0]! : `mean(${metrics.join(",")})`;
}

/**
 * What semanticVerdict would fail on at the first pair, said before any work (a run would otherwise
 * extract for minutes first): a name no scorer reports, one the configured scorers do not, or a
 * semantic score without a threshold. Null when the scoring is sound (a syntactic-only scoring,
 * whose configured scorers report none of the names, is: its pairs carry no verdict).
 */
export function semanticConfigProblem(config: ParacapConfig, thresholds: () => ThresholdsFile = shippedThresholds): string | null {
  const names = config.scoring.semantic;
  const known = [...new Set(Object.values(SCORER_METRICS).flat())];
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    const near = closest(unknown[0]!, known);
    return `scoring.semantic: ${unknown.map((n) => `"${n}"`).join(", ")} is no scorer's metric${near ? ` (did you mean "${near}"?)` : ""}; the metrics are ${known.join(", ")}`;
  }
  const reported = new Set(config.scoring.scorers.flatMap((s) => SCORER_METRICS[s]));
  const missing = names.filter((n) => !reported.has(n));
  if (missing.length === names.length) return null;
  if (missing.length > 0) {
    const by = (n: string) => (Object.keys(SCORER_METRICS) as ScorerName[]).find((s) => SCORER_METRICS[s].includes(n))!;
    return `scoring.semantic names ${missing.join(", ")}, which scoring.scorers (${config.scoring.scorers.join(", ")}) do not report: add ${[...new Set(missing.map(by))].join(", ")} to scoring.scorers`;
  }
  const score = semanticScoreName(names);
  if (config.scoring.paraphraseThreshold === null && !thresholds().thresholds[score]) {
    return `no calibrated paraphrase threshold for ${score} (calibrated: ${Object.keys(thresholds().thresholds).join(", ")}): set scoring.paraphraseThreshold, or calibrate one with scripts/calibrate-paraphrase.ts`;
  }
  return null;
}

/** semanticConfigProblem as a ConfigError (the commands call it before reading any input). */
export function checkSemanticConfig(config: ParacapConfig): void {
  const problem = semanticConfigProblem(config);
  if (problem !== null) throw new ConfigError(problem);
}

export interface SemanticVerdict {
  metrics: PairMetrics;
  paraphrase?: boolean;
  paraphraseBy?: ParaphraseRule;
}

/**
 * Adds `semantic` and `deltaSemSyn` to a pair's metrics and decides whether it is a paraphrase. Pairs scored without
 * any of the semantic metrics (syntactic scoring only) pass through unchanged; a pair with some but not all of them
 * is a configuration mistake and an error.
 */
export function semanticVerdict(config: ParacapConfig, thresholds: () => ThresholdsFile = shippedThresholds): (m: PairMetrics) => SemanticVerdict {
  const names = config.scoring.semantic;
  const score = semanticScoreName(names);
  let rule: ParaphraseRule | null = null;
  const ruleFor = (): ParaphraseRule => {
    if (rule) return rule;
    let threshold = config.scoring.paraphraseThreshold;
    if (threshold === null) {
      const t = thresholds().thresholds[score];
      if (!t) throw new ConfigError(`no calibrated paraphrase threshold for ${score}: set scoring.paraphraseThreshold or run scripts/calibrate-paraphrase.ts`);
      threshold = t.threshold;
    }
    return (rule = { score, threshold });
  };
  return (m) => {
    const present = names.filter((n) => typeof m[n] === "number");
    if (present.length === 0) return { metrics: m };
    if (present.length < names.length) {
      const missing = names.filter((n) => !present.includes(n));
      throw new ConfigError(`scoring.semantic names ${missing.join(", ")}, which no configured scorer reports (scorers report: ${Object.keys(m).join(", ")})`);
    }
    if (SEMANTIC in m || DELTA_SEM_SYN in m) throw new Error(`a scorer reports ${SEMANTIC}/${DELTA_SEM_SYN}, which are derived here`);
    const semantic = present.reduce((s, n) => s + m[n]!, 0) / names.length;
    const out: PairMetrics = { ...m, [SEMANTIC]: semantic };
    if (typeof m[SYNTACTIC] === "number") out[DELTA_SEM_SYN] = semantic - m[SYNTACTIC];
    const r = ruleFor();
    return { metrics: out, paraphrase: semantic > r.threshold, paraphraseBy: r };
  };
}

/**
 * What the values of a semantic score depend on: the score (its metrics), the word-vector vocabulary when it averages
 * word-vector metrics, the model when it averages others (a transformer's). Characteristic maps are comparable only
 * when their semantic axes have equal scoring.
 */
export const SemanticScoring = z.object({
  semantic: z.string(),
  vectors: z.object({ maxWords: z.number().int().positive().nullable() }).optional(),
  transformer: z.object({ model: z.string().nullable(), dtype: z.string() }).optional(),
});
export type SemanticScoring = z.infer<typeof SemanticScoring>;

export function semanticScoring(scoring: ParacapConfig["scoring"]): SemanticScoring {
  const fromVectors = scoring.semantic.some((m) => (VECTOR_METRICS as readonly string[]).includes(m));
  const fromModel = scoring.semantic.some((m) => !(VECTOR_METRICS as readonly string[]).includes(m));
  return {
    semantic: semanticScoreName(scoring.semantic),
    ...(fromVectors ? { vectors: { maxWords: scoring.vectors.maxWords } } : {}),
    ...(fromModel ? { transformer: { model: scoring.transformer.model, dtype: scoring.transformer.dtype } } : {}),
  };
}

/** null when the two scorings are equal; else what differs, in words (`ours` first). */
export function scoringDifference(ours: SemanticScoring, theirs: SemanticScoring): string | null {
  if (ours.semantic !== theirs.semantic) return `semantic = ${ours.semantic} here, ${theirs.semantic} there`;
  const words = (v: SemanticScoring["vectors"]) => (v?.maxWords == null ? "all word vectors" : `the ${v.maxWords.toLocaleString("en-US")} most frequent word vectors`);
  if (JSON.stringify(ours.vectors ?? null) !== JSON.stringify(theirs.vectors ?? null)) return `${words(ours.vectors)} here, ${words(theirs.vectors)} there`;
  const model = (t: SemanticScoring["transformer"]) => (t ? `model ${t.model ?? "none"} (${t.dtype})` : "no model");
  if (JSON.stringify(ours.transformer ?? null) !== JSON.stringify(theirs.transformer ?? null)) return `${model(ours.transformer)} here, ${model(theirs.transformer)} there`;
  return null;
}

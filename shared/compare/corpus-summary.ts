/**
 * Corpus characteristics as in the paper's Table 7 and Figure 2: size, share judged paraphrase, text length, the
 * syntactic metrics (ROUGE-1, ROUGE-L, BLEU, their mean), each semantic metric, the semantic score and Δsem,syn (μ and
 * σ each), and the 5 × 5 characteristic map (syntactic level × semantic level, share of pairs per cell).
 *
 * Like Table 7, the statistics describe the pairs judged paraphrase (`subset: "paraphrase"`, the paper's ST > 0.8
 * subset); `subset: "all"` describes every pair. The report and `paracap compare` both use `summarisePairs`, so our
 * tiers and the published corpora are measured the same way.
 */
import type { PairMetrics } from "../plugins/scorer-contract.ts";
import { wordTokens } from "../metrics/word-tokens.ts";
import { DELTA_SEM_SYN, SEMANTIC, SYNTACTIC } from "../semantic/semantic-score.ts";
import { evaluateThreshold } from "../semantic/calibrate.ts";
import { characteristicMap as scoreMap, MAP_LEVELS } from "./characteristic-map.ts";

export { MAP_LEVELS };

/** One scored pair, from any source (a ScoredPair of our datasets, a scored corpus pair). */
export interface SummaryPair {
  a: string;
  b: string;
  metrics: PairMetrics;
  /** our verdict (absent when no semantic scorer ran) */
  paraphrase?: boolean;
  /** the corpus's own label, when it has one */
  label?: boolean | null;
}

export interface MeanSd {
  mean: number;
  sd: number;
}

export interface CorpusSummary {
  name: string;
  subset: "paraphrase" | "all";
  /** pairs in the corpus */
  pairs: number;
  /** pairs described (the paraphrase subset or all) */
  n: number;
  /** share of the corpus's pairs judged paraphrase (null when no semantic scorer ran) */
  paraphraseShare: number | null;
  /** our verdict against the corpus's labels (null when unlabelled) */
  decision: { labelled: number; positives: number; precision: number; recall: number; f1: number } | null;
  /** words per text (`wordTokens`), both sides */
  length: MeanSd;
  /** μ/σ per metric, in TABLE_METRICS order first, then any other metric the pairs carry */
  metrics: Record<string, MeanSd>;
  /** share of the described pairs per cell: map[syntactic level][semantic level], level = ⌊5·score⌋ capped at 4 */
  map: number[][] | null;
}

/** Table 7's columns, in its order (metrics the pairs do not carry are left out). */
export const TABLE_METRICS = ["rouge1F", "rougeLF", "bleu4", SYNTACTIC, "wordMoverSimilarity", "bertscoreF1", "embeddingCosine", "vectorCosine", SEMANTIC, DELTA_SEM_SYN];

function meanSd(values: readonly number[]): MeanSd {
  if (values.length === 0) return { mean: NaN, sd: NaN };
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
  return { mean, sd };
}

/**
 * Share of pairs per (syntactic level, semantic level) cell; null when the pairs have no semantic score. The report's
 * grid (shared/compare/characteristic-map.ts), so a corpus and our tiers put equal scores in equal cells.
 */
export function characteristicMap(pairs: readonly SummaryPair[]): number[][] | null {
  const scored = pairs.filter((p) => typeof p.metrics[SEMANTIC] === "number" && typeof p.metrics[SYNTACTIC] === "number");
  if (scored.length === 0) return null;
  return scoreMap(scored.map((p) => [p.metrics[SYNTACTIC]!, p.metrics[SEMANTIC]!] as const)).shares;
}

export function summarisePairs(name: string, pairs: readonly SummaryPair[], opts: { subset?: "paraphrase" | "all" } = {}): CorpusSummary {
  const judged = pairs.some((p) => p.paraphrase !== undefined);
  const subset = opts.subset ?? "paraphrase";
  const described = subset === "paraphrase" && judged ? pairs.filter((p) => p.paraphrase === true) : pairs;
  const labelled = pairs.filter((p) => typeof p.label === "boolean" && p.paraphrase !== undefined);
  const decision = labelled.length === 0 ? null : {
    labelled: labelled.length,
    positives: labelled.filter((p) => p.label).length,
    ...evaluateThreshold(labelled.map((p) => ({ score: p.paraphrase ? 1 : 0, label: p.label! })), 0.5),
  };
  const names = new Set<string>();
  for (const p of described) for (const k of Object.keys(p.metrics)) names.add(k);
  const ordered = [...TABLE_METRICS.filter((m) => names.has(m)), ...[...names].filter((m) => !TABLE_METRICS.includes(m)).sort()];
  const metrics: Record<string, MeanSd> = {};
  for (const m of ordered) metrics[m] = meanSd(described.flatMap((p) => (typeof p.metrics[m] === "number" ? [p.metrics[m]!] : [])));
  return {
    name,
    subset: subset === "paraphrase" && judged ? "paraphrase" : "all",
    pairs: pairs.length,
    n: described.length,
    paraphraseShare: judged && pairs.length > 0 ? pairs.filter((p) => p.paraphrase).length / pairs.length : null,
    decision,
    length: meanSd(described.flatMap((p) => [wordTokens(p.a).length, wordTokens(p.b).length])),
    metrics,
    map: characteristicMap(described),
  };
}

/**
 * Recomputes shared/semantic/data/paraphrase-thresholds.json: for every semantic score the configured scorers report
 * (each metric, and the mean named by `scoring.semantic`), the threshold on MSRP train with the highest precision at
 * recall ≥ 0.77 (the paper's ST operating point: ST > 0.8 gave P 0.82 / R 0.77 on MSRPC), then P/R/F1 of that
 * threshold on MSRP train and PAWS dev. Scores not recomputed keep their earlier entries.
 *
 *   npx tsx scripts/calibrate-paraphrase.ts [--config <config.json>] [--data <folder with the files, plain or .gz>]
 *   (defaults: scorers syntactic + wordVectors; data test/fixtures/paraphrase)
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { readCorpus, type LabelledPair } from "../shared/compare/corpus-formats.ts";
import { resolveConfig } from "../shared/core/config.ts";
import { METRIC_NAMES } from "../shared/metrics/index.ts";
import { createScorers, type PairMetrics } from "../shared/plugins/scorers.ts";
import { calibrateThreshold, evaluateThreshold } from "../shared/semantic/calibrate.ts";
import { semanticScoreName, shippedThresholds, THRESHOLDS_URL, ThresholdsFile } from "../shared/semantic/semantic-score.ts";

const MIN_RECALL = 0.77;
/** metrics that are not similarity scores to threshold */
const NOT_SCORES = new Set<string>([...METRIC_NAMES, "vectorOov", "bertscoreP", "bertscoreR"]);
const { values } = parseArgs({
  options: {
    config: { type: "string" },
    data: { type: "string", default: fileURLToPath(new URL("../test/fixtures/paraphrase", import.meta.url)) },
  },
});
const config = resolveConfig(values.config ? JSON.parse(readFileSync(values.config, "utf8")) : { scoring: { scorers: ["syntactic", "wordVectors"] } });
const TRAIN = "msr_paraphrase_train.txt";
const EVAL = ["msr_paraphrase_train.txt", "paws-wiki-labeled-final-dev.tsv"];

/** The file, or its gzipped copy (the repo's fixtures). */
const read = (name: string) => {
  const plain = join(values.data, name);
  return readFileSync(existsSync(plain) ? plain : `${plain}.gz`);
};

const score = await createScorers(config);
async function scored(pairs: LabelledPair[]): Promise<{ scores: Record<string, number>; label: boolean }[]> {
  const labelled = pairs.filter((p) => p.label !== null);
  const out: { scores: Record<string, number>; label: boolean }[] = [];
  for (let i = 0; i < labelled.length; i += 256) {
    const batch = labelled.slice(i, i + 256);
    const metrics: PairMetrics[] = await score(batch.map((p) => [p.a, p.b] as const));
    batch.forEach((p, j) => {
      const m = metrics[j]!;
      const scores = Object.fromEntries(Object.entries(m).filter(([k]) => !NOT_SCORES.has(k)));
      const names = config.scoring.semantic;
      if (names.every((n) => typeof m[n] === "number") && names.length > 1) scores[semanticScoreName(names)] = names.reduce((s, n) => s + m[n]!, 0) / names.length;
      out.push({ scores, label: p.label! });
    });
  }
  return out;
}

const trainBytes = read(TRAIN);
const train = await scored(readCorpus(trainBytes, "msrp").pairs);
const names = Object.keys(train[0]!.scores);
if (names.length === 0) throw new Error("the configured scorers report no semantic score");
const earlier = existsSync(THRESHOLDS_URL) ? shippedThresholds() : null;
const thresholds: ThresholdsFile["thresholds"] = { ...earlier?.thresholds };
for (const name of names) thresholds[name] = calibrateThreshold(train.map((r) => ({ score: r.scores[name]!, label: r.label })), MIN_RECALL);

const evaluation: ThresholdsFile["evaluation"] = { ...earlier?.evaluation };
for (const file of EVAL) {
  const rows = await scored(readCorpus(read(file)).pairs);
  evaluation[file] = { ...evaluation[file] };
  for (const name of names) evaluation[file]![name] = evaluateThreshold(rows.map((r) => ({ score: r.scores[name]!, label: r.label })), thresholds[name]!.threshold);
}

const out: ThresholdsFile = {
  rule: `highest precision on MSRP train at recall >= ${MIN_RECALL} (the paper's ST > 0.8 operating point: P 0.82 / R 0.77 on MSRPC); verdict: score > threshold`,
  corpus: {
    file: TRAIN,
    pairs: train.length,
    positives: train.filter((r) => r.label).length,
    sha256: createHash("sha256").update(trainBytes[0] === 0x1f ? gunzipSync(trainBytes) : trainBytes).digest("hex"),
  },
  thresholds,
  evaluation,
};
const round = (_k: string, v: unknown) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : v);
writeFileSync(THRESHOLDS_URL, JSON.stringify(ThresholdsFile.parse(out), round, 2) + "\n");
console.log(JSON.stringify({ thresholds: out.thresholds, evaluation: out.evaluation }, round, 2));

/**
 * Recomputes shared/semantic/data/paraphrase-thresholds.json: for every offline semantic score (each word-vector
 * metric and their mean), the threshold on MSRP train with the highest precision at recall ≥ 0.77 (the paper's ST
 * operating point: ST > 0.8 gave P 0.82 / R 0.77 on MSRPC), then P/R/F1 of that threshold on MSRP train and PAWS dev.
 *
 *   npx tsx scripts/calibrate-paraphrase.ts [--data <folder with the files, plain or .gz>]  (default: test/fixtures/paraphrase)
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { readCorpus, type LabelledPair } from "../shared/compare/corpus-formats.ts";
import { calibrateThreshold, evaluateThreshold } from "../shared/semantic/calibrate.ts";
import { semanticScoreName, THRESHOLDS_URL, ThresholdsFile } from "../shared/semantic/semantic-score.ts";
import { VectorSimilarity } from "../shared/semantic/vector-similarity.ts";
import { loadWordVectors } from "../shared/semantic/word-vectors.ts";

const MIN_RECALL = 0.77;
const { values } = parseArgs({ options: { data: { type: "string", default: fileURLToPath(new URL("../test/fixtures/paraphrase", import.meta.url)) } } });
const TRAIN = "msr_paraphrase_train.txt";
const EVAL = ["msr_paraphrase_train.txt", "paws-wiki-labeled-final-dev.tsv"];

const sim = new VectorSimilarity(loadWordVectors());
const SCORES: Record<string, (s: ReturnType<VectorSimilarity["score"]>) => number> = {
  vectorCosine: (s) => s.vectorCosine,
  wordMoverSimilarity: (s) => s.wordMoverSimilarity,
  [semanticScoreName(["vectorCosine", "wordMoverSimilarity"])]: (s) => (s.vectorCosine + s.wordMoverSimilarity) / 2,
};

function scored(pairs: LabelledPair[]) {
  return pairs.filter((p) => p.label !== null).map((p) => ({ s: sim.score(p.a, p.b), label: p.label! }));
}

/** The file, or its gzipped copy (the repo's fixtures). */
const read = (name: string) => {
  const plain = join(values.data, name);
  return readFileSync(existsSync(plain) ? plain : `${plain}.gz`);
};
const trainBytes = read(TRAIN);
const train = scored(readCorpus(trainBytes, "msrp").pairs);
const thresholds: ThresholdsFile["thresholds"] = {};
for (const [name, f] of Object.entries(SCORES)) thresholds[name] = calibrateThreshold(train.map((r) => ({ score: f(r.s), label: r.label })), MIN_RECALL);

const evaluation: ThresholdsFile["evaluation"] = {};
for (const file of EVAL) {
  const rows = scored(readCorpus(read(file)).pairs);
  evaluation[file] = {};
  for (const [name, f] of Object.entries(SCORES)) {
    evaluation[file]![name] = evaluateThreshold(rows.map((r) => ({ score: f(r.s), label: r.label })), thresholds[name]!.threshold);
  }
}

const out: ThresholdsFile = {
  rule: `highest precision on MSRP train at recall >= ${MIN_RECALL} (the paper's ST > 0.8 operating point: P 0.82 / R 0.77 on MSRPC); verdict: score > threshold`,
  corpus: { file: TRAIN, pairs: train.length, positives: train.filter((r) => r.label).length, sha256: createHash("sha256").update(trainBytes[0] === 0x1f ? gunzipSync(trainBytes) : trainBytes).digest("hex") },
  thresholds,
  evaluation,
};
const round = (_k: string, v: unknown) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 1e6) / 1e6 : v);
writeFileSync(THRESHOLDS_URL, JSON.stringify(ThresholdsFile.parse(out), round, 2) + "\n");
console.log(JSON.stringify(out, round, 2));

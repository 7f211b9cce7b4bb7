/**
 * Benchmark: the offline semantic scorers. (1) Loading the word vectors, each variant in its own process for a clean
 * peak RSS: the streaming reader (all 341,479 words, and frequency caps for small cloud functions) against plain
 * JSON.parse of the package file and an empty process. (2) Throughput after loading, one thread, on MSRP train + PAWS
 * dev pairs: averaged-vector cosine and exact WMD (each including tokenising both texts), against the syntactic scorer
 * measured in the same run. (3) What a frequency cap costs in quality: P/R of the calibrated verdict on MSRP train.
 *
 * Run: npx tsx scripts/bench/semantic.ts
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readCorpus, type LabelledPair } from "../../shared/compare/corpus-formats.ts";
import { PairScorer } from "../../shared/metrics/index.ts";
import { evaluateThreshold } from "../../shared/semantic/calibrate.ts";
import { shippedThresholds } from "../../shared/semantic/semantic-score.ts";
import { VectorSimilarity } from "../../shared/semantic/vector-similarity.ts";
import { defaultVectorsFile, loadWordVectors } from "../../shared/semantic/word-vectors.ts";

const FIX = new URL("../../test/fixtures/paraphrase/", import.meta.url);
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

// ---- (1) loading, one process per variant
const LOADER = new URL("../../shared/semantic/word-vectors.ts", import.meta.url).href;
function child(code: string): { ms: number; peakMiB: number; words: number } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as { ms: number; peakMiB: number; words: number };
}
const report = (what: string, body: string) =>
  `const t = performance.now(); ${body}; const ms = performance.now() - t; ` +
  `console.log(JSON.stringify({ ms, peakMiB: process.resourceUsage().maxRSS / 1024, words: ${what} }));`;

console.log("== loading the word vectors (each in a fresh process; peak RSS includes Node + tsx)");
const empty = child(report("0", "0"));
console.log(`empty process:                      peak ${fmt(empty.peakMiB)} MiB`);
const naive = child(`import { readFileSync } from "node:fs"; ${report("Object.keys(o.vectors).length", `const o = JSON.parse(readFileSync(${JSON.stringify(defaultVectorsFile())}, "utf8"))`)}`);
console.log(`JSON.parse of the package file:     ${(naive.ms / 1000).toFixed(2)} s, peak ${fmt(naive.peakMiB)} MiB, ${fmt(naive.words)} words`);
for (const cap of [null, 100_000, 30_000]) {
  const r = child(`import { loadWordVectors } from ${JSON.stringify(LOADER)}; ${report("v.size", `const v = loadWordVectors({ maxWords: ${cap} })`)}`);
  console.log(`streaming reader, maxWords ${String(cap).padEnd(7)}:  ${(r.ms / 1000).toFixed(2)} s, peak ${fmt(r.peakMiB)} MiB (+${fmt(r.peakMiB - empty.peakMiB)} over empty), ${fmt(r.words)} words`);
}

// ---- (2) throughput after loading, per corpus (WMD's cost depends on how many words a pair shares)
const corpora: [string, LabelledPair[]][] = [
  ["MSRP train", readCorpus(readFileSync(new URL("msr_paraphrase_train.txt.gz", FIX))).pairs],
  ["PAWS dev", readCorpus(readFileSync(new URL("paws-wiki-labeled-final-dev.tsv.gz", FIX))).pairs],
];
const vectors = loadWordVectors();
const sim = new VectorSimilarity(vectors);
const syntactic = new PairScorer();

function measure(pairs: readonly LabelledPair[], rounds: number, fn: (a: string, b: string) => number) {
  let best = Infinity;
  let checksum = 0;
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    for (const p of pairs) checksum += fn(p.a, p.b);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e9);
  }
  return { pairsPerSecond: pairs.length / best, checksum };
}
const runs: [string, (a: string, b: string) => number][] = [
  ["syntactic scorer (baseline)", (a, b) => syntactic.score(a, b).syntactic],
  ["vectorCosine (bags + cosine)", (a, b) => sim.cosine(sim.bag(a), sim.bag(b))],
  ["wordMoverSimilarity (bags + exact WMD)", (a, b) => sim.wordMoverSimilarity(sim.bag(a), sim.bag(b))],
  ["relaxed WMD (bags + bound only)", (a, b) => sim.relaxedWmd(sim.bag(a), sim.bag(b))],
  ["wordVectors scorer (all three metrics)", (a, b) => sim.score(a, b).wordMoverSimilarity],
];
for (const [corpus, pairs] of corpora) {
  console.log(`\n== throughput after loading: ${fmt(pairs.length)} ${corpus} pairs, best of 5, 1 thread`);
  for (const [, fn] of runs) measure(pairs, 1, fn); // warm-up
  const results = runs.map(([name, fn]) => [name, measure(pairs, 5, fn)] as const);
  const base = results[0]![1].pairsPerSecond;
  for (const [name, r] of results) {
    console.log(`${name.padEnd(40)} ${fmt(r.pairsPerSecond).padStart(8)} pairs/s  (${(r.pairsPerSecond / base).toFixed(2)}× the syntactic scorer)`);
  }
}

// ---- (3) what a frequency cap costs: the calibrated verdict on MSRP train with fewer words
console.log("\n== the calibrated verdict (mean of cosine and WMS) on MSRP train under a frequency cap");
const msrp = readCorpus(readFileSync(new URL("msr_paraphrase_train.txt.gz", FIX))).pairs;
const threshold = shippedThresholds().thresholds["mean(vectorCosine,wordMoverSimilarity)"]!.threshold;
for (const cap of [null, 100_000, 30_000]) {
  const s = cap === null ? sim : new VectorSimilarity(loadWordVectors({ maxWords: cap }));
  const rows = msrp.map((p) => {
    const x = s.score(p.a, p.b);
    return { score: (x.vectorCosine + x.wordMoverSimilarity) / 2, label: p.label!, oov: x.vectorOov };
  });
  const e = evaluateThreshold(rows, threshold);
  const oov = rows.reduce((t, r) => t + r.oov, 0) / rows.length;
  console.log(`maxWords ${String(cap).padEnd(7)}: P ${e.precision.toFixed(3)} R ${e.recall.toFixed(3)} F1 ${e.f1.toFixed(3)}, mean OOV share ${(oov * 100).toFixed(1)} %`);
}

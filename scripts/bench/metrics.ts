/**
 * Benchmark: scorePair (all syntactic metrics) on every MSRP train pair, against a naive word-level Levenshtein
 * (the cheapest single metric) measured in the same run. Also prints each metric's mean over positive vs negative
 * MSRP pairs as a sanity check (paraphrases must score higher on `syntactic`).
 * Default input: the full MSRP train file from shared/data when present, else the repo's first 300 pairs
 * (test/fixtures/metrics/msrp-train-first300.txt).
 * Run: npx tsx scripts/bench/metrics.ts [path/to/msr_paraphrase_train.txt]
 */
import { existsSync, readFileSync } from "node:fs";
import { METRIC_NAMES, PairScorer, type PairMetrics } from "../../shared/metrics/index.ts";

const SHARED_MSRP = new URL("../../../shared/data/paraphrase/msr_paraphrase_train.txt", import.meta.url).pathname;
const DEFAULT_MSRP = existsSync(SHARED_MSRP) ? SHARED_MSRP : new URL("../../test/fixtures/metrics/msrp-train-first300.txt", import.meta.url).pathname;

interface LabelledPair {
  readonly positive: boolean;
  readonly a: string;
  readonly b: string;
}

/** MSRP rows `Quality \t #1 ID \t #2 ID \t #1 String \t #2 String`; malformed rows are counted, not fatal. */
function readMsrp(path: string): { pairs: LabelledPair[]; skipped: number } {
  const text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  const pairs: LabelledPair[] = [];
  let skipped = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line === "") continue;
    const cols = line.split("\t");
    if (cols.length !== 5 || (cols[0] !== "0" && cols[0] !== "1")) {
      skipped++; // also skips a "Quality" header line if a copy has one
      continue;
    }
    pairs.push({ positive: cols[0] === "1", a: cols[3]!, b: cols[4]! });
  }
  return { pairs, skipped };
}

/** The baseline: textbook word Levenshtein on whitespace-split lower-cased strings, no interning, full matrix. */
function naiveWordLevenshtein(a: string, b: string): number {
  const x = a.toLowerCase().split(/\s+/).filter(Boolean);
  const y = b.toLowerCase().split(/\s+/).filter(Boolean);
  const d: number[][] = [];
  for (let i = 0; i <= x.length; i++) d.push(new Array<number>(y.length + 1).fill(0));
  for (let i = 0; i <= x.length; i++) d[i]![0] = i;
  for (let j = 0; j <= y.length; j++) d[0]![j] = j;
  for (let i = 1; i <= x.length; i++)
    for (let j = 1; j <= y.length; j++)
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
  const longer = Math.max(x.length, y.length);
  return longer === 0 ? 0 : d[x.length]![y.length]! / longer;
}

/** Best-of-`rounds` throughput (pairs/s) of `fn` over all pairs; returns a checksum so work is not optimised away. */
function measure(pairs: readonly LabelledPair[], rounds: number, fn: (a: string, b: string) => number) {
  let best = Infinity;
  let checksum = 0;
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (const p of pairs) checksum += fn(p.a, p.b);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return { pairsPerSecond: pairs.length / best, seconds: best, checksum };
}

const path = process.argv[2] ?? DEFAULT_MSRP;
const { pairs, skipped } = readMsrp(path);
const rounds = 5;
console.log(`${path}\nMSRP pairs: ${pairs.length} (skipped malformed rows: ${skipped}); best of ${rounds} rounds; 1 thread`);

const scorer = new PairScorer();
measure(pairs, 1, naiveWordLevenshtein); // warm-up (JIT) for both
measure(pairs, 1, (a, b) => scorer.score(a, b).syntactic);

const baseline = measure(pairs, rounds, naiveWordLevenshtein);
const all = measure(pairs, rounds, (a, b) => scorer.score(a, b).syntactic);
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`baseline naive word Levenshtein: ${fmt(baseline.pairsPerSecond)} pairs/s (${baseline.seconds.toFixed(3)} s)`);
console.log(`scorePair (all ${METRIC_NAMES.length} metrics):  ${fmt(all.pairsPerSecond)} pairs/s (${all.seconds.toFixed(3)} s)`);
console.log(`ratio scorePair / baseline throughput: ${(all.pairsPerSecond / baseline.pairsPerSecond).toFixed(3)}` +
  ` (all metrics cost ${(baseline.pairsPerSecond / all.pairsPerSecond).toFixed(2)}× one naive Levenshtein)`);

const sums = { pos: new Map<keyof PairMetrics, number>(), neg: new Map<keyof PairMetrics, number>() };
let nPos = 0;
let nNeg = 0;
for (const p of pairs) {
  const m = scorer.score(p.a, p.b);
  const target = p.positive ? sums.pos : sums.neg;
  if (p.positive) nPos++;
  else nNeg++;
  for (const name of METRIC_NAMES) target.set(name, (target.get(name) ?? 0) + m[name]);
}
console.log(`\nmean per metric      positive (n=${nPos})  negative (n=${nNeg})  diff`);
for (const name of METRIC_NAMES) {
  const pos = (sums.pos.get(name) ?? 0) / Math.max(nPos, 1);
  const neg = (sums.neg.get(name) ?? 0) / Math.max(nNeg, 1);
  console.log(`${name.padEnd(20)} ${pos.toFixed(4).padStart(10)} ${neg.toFixed(4).padStart(20)} ${(pos - neg).toFixed(4).padStart(10)}`);
}
const posSyn = (sums.pos.get("syntactic") ?? 0) / Math.max(nPos, 1);
const negSyn = (sums.neg.get("syntactic") ?? 0) / Math.max(nNeg, 1);
console.log(posSyn > negSyn ? "\nsanity OK: positives score higher on syntactic" : "\nSANITY FAILED: positives do not score higher");

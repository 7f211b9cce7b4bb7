/**
 * Benchmark: the transformer scorers (embedding cosine, BERTScore) through the scorer seam in batches
 * of 64 pairs, as the dedup stage calls them, against the syntactic scorer measured in the same run.
 * No weights can be downloaded here, so the models are built: the tests' tiny lookup model (what the
 * machinery costs: tokenising, onnxruntime calls, pooling, matching) and a random-weight encoder of
 * all-MiniLM-L6-v2's exact shape (what a real MiniLM's arithmetic and weights cost on this machine).
 * `--base` adds a BERT-base-shaped encoder (all-mpnet-base-v2's size; slow).
 * Pairs: MSRP train (real sentences; shared/data when present, else the repo's first 300 pairs).
 *
 * Run: node --expose-gc --import tsx scripts/bench/transformer.ts [--base] [--pairs N]
 */
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { resolveConfig } from "../../shared/core/config.ts";
import { createScorers, ScorerCache, type TextPair } from "../../shared/plugins/scorers.ts";
import { loadTransformer } from "../../shared/semantic/transformer-model.ts";
import { writeTinyModel } from "../../test/semantic/tiny-model.ts";
import { sharedData, tempDir } from "./lib/common.ts";
import { BASE_12, MINILM_L6, parameterCount, writeShapedModel, type EncoderShape } from "./lib/shaped-model.ts";

const { values } = parseArgs({ options: { base: { type: "boolean", default: false }, pairs: { type: "string" } } });
const msrp = sharedData("paraphrase/msr_paraphrase_train.txt") ?? new URL("../../test/fixtures/metrics/msrp-train-first300.txt", import.meta.url).pathname;
const all: TextPair[] = readFileSync(msrp, "utf8").split(/\r?\n/).map((l) => l.split("\t")).filter((c) => c.length === 5 && (c[0] === "0" || c[0] === "1")).map((c) => [c[3]!, c[4]!] as const);
const limit = values.pairs ? Number(values.pairs) : 512;
const pairs = all.slice(0, limit);
const BATCH = 64;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));

/** Best-of-`rounds` pairs per second over `input` in dedup-sized batches, after one warm-up batch (JIT, first inference). */
async function throughput(score: (p: readonly TextPair[]) => Promise<unknown[]>, input: readonly TextPair[], rounds = 3): Promise<number> {
  await score(input.slice(0, BATCH));
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < input.length; i += BATCH) await score(input.slice(i, i + BATCH));
    best = Math.min(best, (performance.now() - t0) / 1000);
  }
  return input.length / best;
}

console.log(`${msrp}\n${pairs.length} MSRP pairs, batches of ${BATCH}; onnxruntime threads: its default (all ${(await import("node:os")).availableParallelism()} cores)`);
const syntactic = await createScorers(resolveConfig(), new ScorerCache());
// The baseline is fast: more rounds over every pair steady it against the machine's noise.
const baseline = await throughput(syntactic, all, 5);
console.log(`baseline syntactic scorer: ${fmt(baseline)} pairs/s`);

const t0 = performance.now();
await import("@huggingface/transformers");
console.log(`import @huggingface/transformers + onnxruntime-node: ${((performance.now() - t0) / 1000).toFixed(2)} s (once per process)`);

const dir = tempDir("pcbench-transformer-");
// Written one at a time, just before loading: the writer's buffers are garbage by the time RSS is read.
const models: Array<[string, () => string, EncoderShape | null]> = [["tiny lookup model (machinery only)", () => writeTinyModel(join(dir, "tiny")), null]];
const shaped = (name: string, s: EncoderShape) => [name, () => writeShapedModel(join(dir, name.split(" ")[0]!), s), s] as [string, () => string, EncoderShape];
models.push(shaped("MiniLM-L6-shaped (all-MiniLM-L6-v2 size)", MINILM_L6));
if (values.base) models.push(shaped("base-shaped (all-mpnet-base-v2 size)", BASE_12));

try {
  for (const [name, write, shape] of models) {
    const path = write();
    const file = statSync(join(path, "onnx/model.onnx")).size;
    (globalThis as { gc?: () => void }).gc?.();
    const rss0 = process.memoryUsage().rss;
    const model = await loadTransformer({ model: path, dtype: "fp32", maxTokens: 256, batchSize: 32, threads: null });
    const rss1 = process.memoryUsage().rss;
    const config = (scorers: string[]) => resolveConfig({ scoring: { scorers: scorers as never, transformer: { model: path } } });
    // a real model is ~100× slower than the lookup: fewer pairs keep the run short
    const input = shape ? pairs.slice(0, Math.max(BATCH * 2, Math.floor(pairs.length / (shape === BASE_12 ? 4 : 2)))) : pairs;
    const rate = async (scorers: string[]) => throughput(await createScorers(config(scorers), new ScorerCache()), input);
    const embedding = await rate(["embedding"]);
    const bertscore = await rate(["bertscore"]);
    const both = await rate(["syntactic", "embedding", "bertscore"]);
    const rss2 = process.memoryUsage().rss;
    console.log(`\n${name}${shape ? `: ${(parameterCount(shape) / 1e6).toFixed(1)} M parameters` : ""}, onnx file ${mb(file)}`);
    console.log(`  load ${model.loadSeconds.toFixed(2)} s; process RSS ${mb(rss0)} before load, ${mb(rss1)} after, ${mb(rss2)} after scoring ${input.length} pairs`);
    console.log(`  embedding: ${fmt(embedding)} pairs/s (${(baseline / embedding).toFixed(1)}× the syntactic scorer's time)`);
    console.log(`  bertscore: ${fmt(bertscore)} pairs/s (${(baseline / bertscore).toFixed(1)}×)`);
    console.log(`  syntactic + embedding + bertscore: ${fmt(both)} pairs/s (${(baseline / both).toFixed(1)}×; one inference per batch serves both)`);
  }
} finally {
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}
console.log(`\npeak RSS of this process: ${mb(process.resourceUsage().maxRSS * 1024)}`);

/**
 * Benchmark: the publishable outputs (report.html, Parquet, dataset card) of a large tier, against one
 * plain read + JSON.parse pass over the same file measured in the same run (the floor for anything
 * that streams the dataset). Pairs: the constructed semantic pairs of the report tests (real MSRP
 * texts with syntactic metrics, a cosine, Δsem,syn, paraphrase) repeated with distinct ids.
 * Run: npx tsx scripts/bench/publish.ts   (BENCH_PAIRS=200000 by default)
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SAMPLE_INPUTS } from "../../shared/cli/run-command.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { writePublication } from "../../shared/output/publish.ts";
import { readTier } from "../../shared/output/tier-dataset.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { semanticFolder, semanticPairs } from "../../test/output/constructed-output.ts";

const N = Number(process.env.BENCH_PAIRS ?? 200_000);
const root = mkdtempSync(join(tmpdir(), "paracap-bench-publish-"));
try {
  const runDir = join(root, "run");
  await runLocal({ inputs: SAMPLE_INPUTS, outDir: runDir, config: resolveConfig({}), workers: 1, progress: null });
  const dir = join(root, "out");
  mkdirSync(dir);
  semanticFolder(runDir, dir);
  const base = semanticPairs("gold", 0, 300);
  const fd = openSync(join(dir, "gold.jsonl"), "w");
  let buf: string[] = [];
  for (let i = 0; i < N; i++) {
    buf.push(JSON.stringify({ ...base[i % base.length]!, id: String(i).padStart(10, "0") }) + "\n");
    if (buf.length === 10_000) {
      writeSync(fd, buf.join(""));
      buf = [];
    }
  }
  writeSync(fd, buf.join(""));
  closeSync(fd);
  rmSync(join(dir, "gold.jsonl.gz"));
  const stats = JSON.parse(readFileSync(join(dir, "stats.json"), "utf8"));
  stats.tiers.gold.pairs = N;
  writeFileSync(join(dir, "stats.json"), JSON.stringify(stats));
  const store = new LocalStore(dir);
  const mb = statSync(join(dir, "gold.jsonl")).size / 2 ** 20;

  let t = performance.now();
  let n = 0;
  for await (const _ of readTier(store, "gold.jsonl", { trusted: true })) n++;
  const base_s = (performance.now() - t) / 1000;
  t = performance.now();
  await writePublication(store);
  const pub_s = (performance.now() - t) / 1000;
  const total = N + 120; // + the silver tier
  console.log(`gold.jsonl: ${n.toLocaleString("en-US")} pairs, ${mb.toFixed(0)} MB`);
  console.log(`baseline (read + JSON.parse): ${(n / base_s).toFixed(0)} pairs/s`);
  console.log(`publication (summary + Parquet + report.html + card): ${(total / pub_s).toFixed(0)} pairs/s, ${pub_s.toFixed(1)} s = ${(pub_s / base_s).toFixed(1)}× the baseline pass`);
  console.log(`gold.parquet ${(statSync(join(dir, "gold.parquet")).size / 2 ** 20).toFixed(1)} MB, report.html ${(statSync(join(dir, "report.html")).size / 1024).toFixed(0)} KB; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

/**
 * Benchmark: the annotation tools against plain passes measured in the same run.
 *  - stratified sampling (`paracap annotate --sample 100 --stratify delta`) of a large tier vs one
 *    validated read pass over it (readTier: the floor for anything that streams a dataset);
 *  - reading a labels file (tolerant, bounded lines, schema-checked) vs readFileSync + split + JSON.parse;
 *  - appending labels (one fsynced O_APPEND write each: the cost of "loses nothing");
 *  - agreement + Table 6 of 4 annotators × 1,000 pairs.
 * Pairs: the constructed semantic pairs of the report tests (real MSRP texts, syntactic metrics, a
 * cosine, Δsem,syn) repeated with distinct ids.
 * Run: npx tsx scripts/bench/annotate.ts   (BENCH_PAIRS=100000 by default)
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { computeAgreement } from "../../shared/annotate/agreement.ts";
import { appendRecord, labelsFile, LabelsFileRecord, newLabel, readLabelsFile, RELATIONS } from "../../shared/annotate/labels.ts";
import { samplePairs } from "../../shared/annotate/sample-pairs.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { readTier } from "../../shared/output/tier-dataset.ts";
import { semanticPairs } from "../../test/output/constructed-output.ts";

const N = Number(process.env.BENCH_PAIRS ?? 100_000);
const root = mkdtempSync(join(tmpdir(), "paracap-bench-annotate-"));
const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString("en-US")}/s`;
const time = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
};

try {
  const base = semanticPairs("gold", 0, 300);
  const ids: string[] = [];
  const fd = openSync(join(root, "gold.jsonl"), "w");
  let buf: string[] = [];
  for (let i = 0; i < N; i++) {
    const id = String(i).padStart(10, "0");
    if (i < 1000) ids.push(id);
    buf.push(JSON.stringify({ ...base[i % base.length]!, id }) + "\n");
    if (buf.length === 10_000) {
      writeSync(fd, buf.join(""));
      buf = [];
    }
  }
  writeSync(fd, buf.join(""));
  closeSync(fd);
  const mb = statSync(join(root, "gold.jsonl")).size / 2 ** 20;
  console.log(`tier: ${N.toLocaleString("en-US")} pairs, ${mb.toFixed(0)} MB`);

  const store = new LocalStore(root);
  const readS = await time(async () => {
    for await (const _ of readTier(store, "gold.jsonl"));
  });
  let strata = 0;
  const sampleS = await time(async () => {
    const s = await samplePairs(root, { n: 100, stratify: "delta", seed: "1" });
    strata = Object.keys(s.strata).length;
  });
  console.log(`read pass (baseline)       ${readS.toFixed(2)} s  ${rate(N, readS)} pairs`);
  console.log(`sample 100, delta strata   ${sampleS.toFixed(2)} s  ${rate(N, sampleS)} pairs  (${strata} strata; ${(sampleS / readS).toFixed(2)}× the read pass)`);

  // labels: 4 annotators × 1,000 pairs appended (fsync each), then read back
  const A = 4;
  const appendN = 1000;
  const appendS = await time(async () => {
    for (let i = 0; i < appendN; i++) await appendRecord(labelsFile(root, "a0"), newLabel({ pair: ids[i]!, paraphrase: i % 3 !== 0, relation: RELATIONS[i % 6]!, syntactic: 1 + (i % 5), semantic: 1 + ((i * 7) % 5) }, "a0"));
  });
  console.log(`append label (fsync each)  ${appendS.toFixed(2)} s  ${rate(appendN, appendS)} labels`);
  for (let a = 1; a < A; a++) {
    const lines = ids.map((id, i) => JSON.stringify(newLabel({ pair: id, paraphrase: (i + a) % 3 !== 0, relation: RELATIONS[(i + (a === 2 ? 1 : 0)) % 6]!, syntactic: 1 + ((i + a) % 5), semantic: 1 + ((i * 7) % 5) }, `a${a}`)) + "\n");
    const f = openSync(labelsFile(root, `a${a}`), "w");
    writeSync(f, lines.join(""));
    closeSync(f);
  }
  // a big labels file: 100k records
  const big = join(root, "labels", "big.jsonl");
  const bf = openSync(big, "w");
  const line = readFileSync(labelsFile(root, "a1"), "utf8");
  for (let i = 0; i < 100; i++) writeSync(bf, line);
  closeSync(bf);
  const plainS = await time(async () => {
    readFileSync(big, "utf8").split("\n").filter(Boolean).map((l) => LabelsFileRecord.parse(JSON.parse(l)));
  });
  let records = 0;
  const readLabelsS = await time(async () => {
    records = (await readLabelsFile(big)).records.length;
  });
  console.log(`labels read, plain+schema  ${plainS.toFixed(2)} s  ${rate(records, plainS)} records (baseline: whole file in memory)`);
  console.log(`labels read, bounded       ${readLabelsS.toFixed(2)} s  ${rate(records, readLabelsS)} records  (${(readLabelsS / plainS).toFixed(2)}× the baseline)`);

  const files = Array.from({ length: A }, (_, a) => labelsFile(root, `a${a}`));
  const agreeS = await time(() => computeAgreement(files, root));
  console.log(`agreement + Table 6        ${agreeS.toFixed(2)} s  (${A} annotators × ${ids.length} pairs, dataset of ${N.toLocaleString("en-US")} pairs streamed; ${(agreeS / readS).toFixed(2)}× the read pass)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

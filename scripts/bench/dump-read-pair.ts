/**
 * Reading a bz2 history dump as `paracap run` does (decoder child, its output into the reader, XML
 * scanned, revisions emitted with lazy texts) with two checkouts in one process, passes alternated:
 * this process's CPU (without the decoder child, which is the same binary on both sides) and the
 * full (mark-compact) collections each pass starts, counted by a PerformanceObserver. Issue 21: the
 * decoder's output is external memory, and each ~64 MB of it allocated starts a full collection.
 *
 *   BENCH_BEFORE=/work/main npx tsx scripts/bench/dump-read-pair.ts [history.xml.bz2]   (BENCH_PASSES=6)
 *
 * Both checkouts need a build (`npm run build`: dist/node is what is loaded).
 */
import { join } from "node:path";
import { loadavg } from "node:os";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { median, pairedBench, REPO } from "./lib/common.ts";

const { before, passes, file } = pairedBench("dump-read-pair", 6);

let majorGcs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
}).observe({ entryTypes: ["gc"] });

interface Pass {
  cpu: number;
  gcs: number;
  revisions: number;
  bytes: number;
}

async function side(checkout: string): Promise<{ name: string; pass(): Promise<Pass> }> {
  const { readDumpPages } = await import(pathToFileURL(join(checkout, "dist/node/shared/dump/page-reader.js")).href);
  const { Counters } = await import(pathToFileURL(join(checkout, "dist/node/shared/core/counters.js")).href);
  return {
    name: checkout,
    async pass() {
      const counters = new Counters();
      // the collections of the pass before are counted there
      await new Promise((r) => setTimeout(r, 50));
      const gc0 = majorGcs;
      const t0 = process.cpuUsage();
      let revisions = 0;
      for await (const _ of readDumpPages(file, { counters })) revisions++;
      const t = process.cpuUsage(t0);
      await new Promise((r) => setTimeout(r, 50));
      return { cpu: (t.user + t.system) / 1e3, gcs: majorGcs - gc0, revisions, bytes: counters.get("dump.bytes") };
    },
  };
}

const sides = [await side(before), await side(REPO)];
const runs = sides.map(() => [] as Pass[]);
for (let i = 0; i < passes; i++) {
  const order = i % 2 === 0 ? [0, 1] : [1, 0];
  for (const k of order) runs[k]!.push(await sides[k]!.pass());
  if (runs[0]![i]!.revisions !== runs[1]![i]!.revisions || runs[0]![i]!.bytes !== runs[1]![i]!.bytes) throw new Error("the two checkouts read different revisions or bytes");
}
const mb = runs[1]![0]!.bytes / 1e6;
console.log(`${file}: ${mb.toFixed(1)} MB of XML, ${runs[1]![0]!.revisions} revisions; ${passes} alternating passes each (decoder child's CPU not counted)`);
for (const [k, s] of sides.entries()) {
  const cpu = runs[k]!.map((p) => p.cpu);
  const gcs = runs[k]!.map((p) => p.gcs);
  console.log(`  ${k === 0 ? "before" : "this  "} ${s.name}: CPU min ${Math.min(...cpu).toFixed(0)} / median ${median(cpu).toFixed(0)} ms (${(median(cpu) / mb).toFixed(2)} ms per MB), full GCs a pass median ${median(gcs)} (${gcs.join(" ")})`);
}
const ratios = runs[1]!.map((p, i) => p.cpu / runs[0]![i]!.cpu);
console.log(`  this / before CPU: median of paired passes ${median(ratios).toFixed(2)}; load ${loadavg()[0]!.toFixed(1)}`);

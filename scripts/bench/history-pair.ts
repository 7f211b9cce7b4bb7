/**
 * The history hot path of two checkouts in one process, in alternating passes: what `paracap run`
 * does per MB of a full-history dump after decoding (issue 21: its own CPU against the decoder's),
 * without start-up, the decoder or the later phases. A busy shared machine disturbs this far less
 * than whole runs (both sides see the same load, caches and JIT state).
 *
 * The decompressed XML is held in memory as 1 MiB chunks (what the decoder's read-ahead hands on);
 * each pass of a side reads them with its own reader (`readPages`: XML, entity checks, lazy texts),
 * then runs its extract stage inline over the revisions (`documentChunks` with the MediaWiki source:
 * exact-revert replay, plain-text reuse, traced scans, caption features; then `collapseUses`), each
 * half timed in CPU (process.cpuUsage). Every pass compares the two sides' revisions, records and
 * counters (they must be equal).
 *
 *   BENCH_BEFORE=/work/main npx tsx scripts/bench/history-pair.ts [history.xml.bz2]   (BENCH_PASSES=9)
 *
 * Both checkouts need a build (`npm run build`: dist/node is what is loaded).
 */
import { join } from "node:path";
import { loadavg } from "node:os";
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { median, pairedBench, REPO } from "./lib/common.ts";

const { before, passes, file } = pairedBench("history-pair", 9);
const decoder = findSystemBzip2();
if (decoder === null) throw new Error("history-pair needs lbzip2 or bzip2 on PATH");

const xml = execFileSync(decoder, ["-dc", file], { maxBuffer: 4 << 30 });
const CHUNK = 1 << 20;
const chunks: Buffer[] = [];
for (let i = 0; i < xml.length; i += CHUNK) chunks.push(Buffer.from(xml.subarray(i, Math.min(xml.length, i + CHUNK))));
const mb = xml.length / 1e6;

interface Pass {
  read: number;
  extract: number;
  signature: string;
}

const cpuMs = (t0: NodeJS.CpuUsage): number => {
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1e3;
};

async function side(checkout: string): Promise<{ name: string; pass(): Promise<Pass> }> {
  const mod = async (p: string) => import(pathToFileURL(join(checkout, "dist/node/shared", p)).href);
  const { readPages } = await mod("dump/page-reader.js");
  const { mediawikiSource } = await mod("sources/mediawiki/mediawiki-source.js");
  const { documentChunks, collapseUses } = await mod("pipeline/extract-stage.js");
  const { resolveConfig } = await mod("core/config.js");
  const { Counters } = await mod("core/counters.js");
  const config = resolveConfig({});
  return {
    name: checkout,
    async pass() {
      const counters = new Counters();
      let t0 = process.cpuUsage();
      const revs: unknown[] = [];
      for await (const r of readPages(chunks, { counters })) revs.push(r);
      const read = cpuMs(t0);
      const chunker = documentChunks(mediawikiSource, config, counters);
      async function* revisions() {
        for (const r of revs) yield* chunker(r, "history");
      }
      const records: string[] = [];
      t0 = process.cpuUsage();
      for await (const rec of collapseUses(revisions(), counters)) records.push(`${rec.image}\u0000${rec.revisionId}\u0000${rec.ordinal}\u0000${rec.uses}\u0000${rec.caption?.text}\u0000${rec.alt?.text}`);
      const extract = cpuMs(t0);
      return { read, extract, signature: `${revs.length} ${records.join("\n")} ${JSON.stringify(counters.toJSON())}` };
    },
  };
}

const sides = [await side(before), await side(REPO)];
const times = sides.map(() => ({ read: [] as number[], extract: [] as number[] }));
for (let i = 0; i < passes; i++) {
  // alternate which side goes first, so neither always runs right after the other's garbage
  const order = i % 2 === 0 ? [0, 1] : [1, 0];
  const signatures: string[] = [];
  for (const k of order) {
    const p = await sides[k]!.pass();
    times[k]!.read.push(p.read);
    times[k]!.extract.push(p.extract);
    signatures.push(p.signature);
  }
  if (signatures[0] !== signatures[1]) throw new Error("the two checkouts' records or counters differ");
}
console.log(`${file}: ${mb.toFixed(1)} MB of XML, ${passes} alternating passes each (records and counters equal)`);
for (const [k, s] of sides.entries()) {
  const { read, extract } = times[k]!;
  const total = read.map((r, i) => r + extract[i]!);
  console.log(`  ${k === 0 ? "before" : "this  "} ${s.name}: read min ${Math.min(...read).toFixed(0)} / median ${median(read).toFixed(0)} ms, extract stage min ${Math.min(...extract).toFixed(0)} / median ${median(extract).toFixed(0)} ms; ${(median(total) / mb).toFixed(2)} ms CPU per MB (median)`);
}
const ratios = times[1]!.read.map((r, i) => (r + times[1]!.extract[i]!) / (times[0]!.read[i]! + times[0]!.extract[i]!));
console.log(`  this / before (read + extract stage): median of paired passes ${median(ratios).toFixed(2)}; load ${loadavg()[0]!.toFixed(1)}`);

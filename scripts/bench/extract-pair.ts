/**
 * The MediaWiki extractor of two checkouts in one process, on the same revisions, in alternating
 * passes: a before/after comparison of the hot path that a busy shared machine disturbs far less
 * than whole runs (both sides see the same load, caches and JIT state; whole-process CPU figures
 * swung ±10–20 % between runs at load 5–11 while these ratios stayed within a few per cent).
 *
 * Each side reads the history with its own reader (revisions held in memory: only extraction is
 * timed), then every pass builds a fresh `wikitextExtractor` (exact-revert replay, plain-text reuse,
 * traced scans: what `paracap run` does per revision) and times it in CPU (process.cpuUsage). The
 * first pass of each side also compares the two sides' outcomes and counters (they must be equal).
 *
 *   BENCH_BEFORE=/work/main npx tsx scripts/bench/extract-pair.ts [history.xml.bz2]   (BENCH_PASSES=24)
 *
 * Both checkouts need a build (`npm run build`: dist/node is what is loaded).
 */
import { join } from "node:path";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { median, pairedBench, REPO } from "./lib/common.ts";

const { before, passes, file } = pairedBench("extract-pair", 24);

interface Side {
  name: string;
  revs: unknown[];
  pass(): { ms: number; out: string; counters: string };
}

async function side(checkout: string): Promise<Side> {
  const mod = async (p: string) => import(pathToFileURL(join(checkout, "dist/node/shared", p)).href);
  const { readDumpPages } = await mod("dump/page-reader.js");
  const { wikitextExtractor } = await mod("sources/mediawiki/wikitext-extractor.js");
  const { resolveConfig } = await mod("core/config.js");
  const { Counters } = await mod("core/counters.js");
  const revs: unknown[] = [];
  for await (const rev of readDumpPages(file, {})) revs.push(rev);
  const config = resolveConfig({});
  return {
    name: checkout,
    revs,
    pass() {
      const counters = new Counters();
      const extract = wikitextExtractor(config, counters);
      const out: unknown[] = [];
      const t0 = process.cpuUsage();
      for (const r of revs) out.push(extract(r));
      const t = process.cpuUsage(t0);
      return { ms: (t.user + t.system) / 1e3, out: JSON.stringify(out), counters: JSON.stringify(counters) };
    },
  };
}

const a = await side(before);
const b = await side(REPO);
const ta: number[] = [];
const tb: number[] = [];
for (let i = 0; i < passes; i++) {
  // alternate which side goes first, so neither always runs right after the other's garbage
  const [x, y] = i % 2 === 0 ? [a.pass(), b.pass()] : [b.pass(), a.pass()].reverse();
  ta.push(x!.ms);
  tb.push(y!.ms);
  if (i === 0 && (x!.out !== y!.out || x!.counters !== y!.counters)) throw new Error("the two checkouts' outcomes or counters differ");
}
const ratios = ta.map((t, i) => tb[i]! / t);
console.log(`${file}: ${a.revs.length} revisions, ${passes} alternating passes each (outcomes and counters equal)`);
console.log(`  before ${a.name}: min ${Math.min(...ta).toFixed(0)} ms, median ${median(ta).toFixed(0)} ms CPU a pass`);
console.log(`  this   ${b.name}: min ${Math.min(...tb).toFixed(0)} ms, median ${median(tb).toFixed(0)} ms CPU a pass`);
console.log(`  this / before: ratio of minima ${(Math.min(...tb) / Math.min(...ta)).toFixed(2)}, median of paired passes ${median(ratios).toFixed(2)}; load ${loadavg()[0]!.toFixed(1)}`);

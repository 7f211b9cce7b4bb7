/**
 * What share of a history's revisions is read without scanning (issue 21, "no work twice"): exact
 * reverts to one of the page's last 8 texts (the extract stage's replay), revisions whose change
 * since the previous scanned text is plain text (wikitext-extractor.ts reuses that text's outcome),
 * and the rest, scanned on the byte path. Also the extraction time per MB against the string path
 * (decode every text, extractImageRefs) on the same revisions in the same run.
 *
 *   npx tsx scripts/bench/revision-reuse.ts [history.xml.bz2 …]   (default: the three in ../shared/data)
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { PageRevision } from "../../shared/core/records.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { decodeCharBytes, lazyRevision, rawText } from "../../shared/dump/revision-text.ts";
import { createWikitextExtractor } from "../../shared/sources/mediawiki/revision-reuse.ts";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";
import { Counters } from "../../shared/core/counters.ts";
import { SHARED_DATA } from "./lib/common.ts";

const files = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(join(SHARED_DATA, "wikipedia-history")).filter((f) => f.endsWith(".bz2")).map((f) => join(SHARED_DATA, "wikipedia-history", f));

/** The extract stage's exact-revert check: one of the page's last 8 texts, byte for byte. */
function revertFinder() {
  let page = -1;
  let last: Buffer[] = [];
  return (rev: PageRevision, raw: Buffer): boolean => {
    if (rev.pageId !== page) {
      page = rev.pageId;
      last = [];
    }
    const hit = last.some((t) => t.length === raw.length && t.equals(raw));
    if (!hit) {
      last.unshift(raw);
      if (last.length > 8) last.pop();
    }
    return hit;
  };
}

for (const file of files) {
  // hold the (non-repeated) revisions in memory so both paths time extraction only
  const revs: { title: string; pageId: number; revisionId: number; raw: Buffer }[] = [];
  let total = 0;
  let reverts = 0;
  const isRevert = revertFinder();
  for await (const rev of readDumpPages(file)) {
    total++;
    const raw = Buffer.from(rawText(rev)!);
    if (isRevert(rev, raw)) reverts++;
    else revs.push({ title: rev.title, pageId: rev.pageId, revisionId: rev.revisionId, raw });
  }
  const bytes = revs.reduce((n, r) => n + r.raw.length, 0);
  const lazy = () => revs.map((r) => lazyRevision(r.title, 0, r.pageId, r.revisionId, null, false, r.raw));
  const timeNew = () => {
    const x = createWikitextExtractor({});
    const list = lazy();
    const t0 = performance.now();
    for (const rev of list) x.extract(rev);
    return { ms: performance.now() - t0, stats: x.stats };
  };
  const timeOld = () => {
    const t0 = performance.now();
    for (const r of revs) extractImageRefs(decodeCharBytes(r.raw), { counters: new Counters() });
    return performance.now() - t0;
  };
  const runs: { old: number; now: number }[] = [];
  let stats = timeNew().stats;
  for (let i = 0; i < 3; i++) {
    const old = timeOld();
    const n = timeNew();
    stats = n.stats;
    runs.push({ old, now: n.ms });
  }
  const best = (f: (r: { old: number; now: number }) => number) => Math.min(...runs.map(f));
  const pct = (n: number) => `${((100 * n) / total).toFixed(1)} %`;
  console.log(`\n${file.split("/").pop()}: ${total} revisions, ${(bytes / 1e6).toFixed(1)} MB of distinct-revision text`);
  console.log(`  exact reverts (replayed by the extract stage)       ${String(reverts).padStart(6)}  ${pct(reverts)}`);
  console.log(`  plain-text changes (previous outcome reused)        ${String(stats.reused).padStart(6)}  ${pct(stats.reused)}`);
  console.log(`  scanned (byte path / string path)                   ${String(stats.bytes + stats.strings).padStart(6)}  ${pct(stats.bytes + stats.strings)}  (${stats.bytes} / ${stats.strings})`);
  console.log(`    of which resumed/joined an earlier scan (ScanTrace) ${String(stats.incremental).padStart(5)}; bytes walked ${(stats.scannedBytes / 1e6).toFixed(2)} of ${(stats.textBytes / 1e6).toFixed(1)} MB (${((100 * stats.scannedBytes) / Math.max(1, stats.textBytes)).toFixed(1)} %)`);
  console.log(`  extraction of the non-reverted texts: string path ${best((r) => r.old).toFixed(0)} ms (${(bytes / 1e3 / best((r) => r.old)).toFixed(0)} MB/s), new ${best((r) => r.now).toFixed(0)} ms (${(bytes / 1e3 / best((r) => r.now)).toFixed(0)} MB/s): ${(best((r) => r.old) / best((r) => r.now)).toFixed(1)}× (best of 3, alternated)`);
}

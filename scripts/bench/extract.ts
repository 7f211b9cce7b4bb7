/**
 * Benchmark: extractImageRefs over real enwiki pages, against wtf_wikipedia's `wtf(text).images()`
 * on the same pages in the same run (single-threaded). Prints MB/s of each, the speed ratio and how
 * many images each found.
 * Default input: the repo's pages-articles sample (shared/sample; the same 206 pages as the gensim
 * excerpt in shared/data).
 * Run: npx tsx scripts/bench/extract.ts [path/to/pages-articles.xml.bz2] [rounds]
 */
import { execFileSync } from "node:child_process";
import { decodeXML } from "entities";
import wtf from "wtf_wikipedia";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";

const DEFAULT_DUMP = new URL("../../shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2", import.meta.url).pathname;

/** The page texts of a dump (simple regex; the streaming reader lives in shared/dump). */
function loadPages(path: string): string[] {
  const xml = execFileSync("bzip2", ["-dc", path], { maxBuffer: 1 << 30 }).toString("utf8");
  const pages: string[] = [];
  for (const m of xml.matchAll(/<text\b[^>]*>([\s\S]*?)<\/text>/g)) pages.push(decodeXML(m[1]!));
  return pages;
}

/** Best-of-`rounds` seconds for `fn` over all pages; returns the found-image count of the last round. */
function measure(pages: readonly string[], rounds: number, fn: (text: string) => number): { seconds: number; images: number } {
  let best = Infinity;
  let images = 0;
  for (let r = 0; r < rounds; r++) {
    images = 0;
    const start = process.hrtime.bigint();
    for (const p of pages) images += fn(p);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return { seconds: best, images };
}

const path = process.argv[2] ?? DEFAULT_DUMP;
const rounds = Number(process.argv[3] ?? 3);
const pages = loadPages(path);
const mb = pages.reduce((n, p) => n + Buffer.byteLength(p, "utf8"), 0) / 1e6;
console.log(`${pages.length} pages, ${mb.toFixed(1)} MB of wikitext from ${path}`);

const ours = measure(pages, rounds, (t) => extractImageRefs(t).length);
const theirs = measure(pages, Math.max(1, Math.min(rounds, 2)), (t) => wtf(t).images().length);
const oursRate = mb / ours.seconds;
const theirsRate = mb / theirs.seconds;
console.log(`paracap extractImageRefs : ${oursRate.toFixed(1)} MB/s (${ours.seconds.toFixed(2)} s), ${ours.images} images`);
console.log(`wtf_wikipedia .images()  : ${theirsRate.toFixed(1)} MB/s (${theirs.seconds.toFixed(2)} s), ${theirs.images} images`);
console.log(`ratio: ${(oursRate / theirsRate).toFixed(1)}x (target >= 6x; throughput target >= 30 MB/s)`);

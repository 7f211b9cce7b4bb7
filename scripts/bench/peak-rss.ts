/**
 * Peak memory of whole runs on inputs built to exhaust it, and on the 151 MB history excerpt, beside
 * the decoder alone on the same file as the baseline measured in the same run. Target: < 1 GiB
 * whatever the input (issue 20). The hostile inputs:
 * - item 1, references per shard: 9 pages just under 8 MiB of `[[File:F{p}_{i%1000}.jpg|thumb|cap {i}]]`
 *   (2.07 million references in one shard);
 * - item 2, pairs per image: one image on 5,000 pages, each with its own caption, images.maxRefs 100000;
 * - item 3, a 1 GiB <title> in a small .gz (BENCH_BOMB_GIB=5 for 5 GiB);
 * - item 4, a 1 GiB attribute in a small .gz;
 * - the 1 GiB <text> in a small .gz.
 * `BENCH_HEAP_MB=<n>` runs paracap with --max-old-space-size=<n>. (paracap run caps V8's heap growth
 * at 1.25 times what is live, shared/runner/heap-growth.ts; `node --heap-growing-percent=<n>
 * bin/paracap.js …` overrides it.)
 */
import { createWriteStream, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { REPO, runTimed, sharedData, tempDir } from "./lib/common.ts";

const HEAD = '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">';
const AFTER = '<page><title>After</title><ns>0</ns><id>2</id><revision><id>20</id><text xml:space="preserve">[[File:Stari Most.jpg|thumb|The old bridge at Mostar was rebuilt in 2004 and reopened.]]</text></revision></page></mediawiki>';

async function* huge(bytes: number, letter: string): AsyncGenerator<Buffer> {
  const block = Buffer.alloc(1 << 20, letter);
  for (let n = 0; n < bytes; n += block.length) yield block;
}

async function* textBomb(bytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from(`${HEAD}<page><title>Bomb</title><ns>0</ns><id>1</id><revision><id>10</id><text xml:space="preserve">`);
  yield* huge(bytes, "a");
  yield Buffer.from(`</text></revision></page>${AFTER}`);
}

async function* titleBomb(bytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from(`${HEAD}<page><title>`);
  yield* huge(bytes, "t");
  yield Buffer.from(`</title><ns>0</ns><id>1</id><revision><id>10</id><text>x</text></revision></page>${AFTER}`);
}

async function* attributeBomb(bytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from(`${HEAD}<page><title>Bomb</title><ns>0</ns><id>1</id><revision><id>10</id><text bytes="`);
  yield* huge(bytes, "1");
  yield Buffer.from(`">x</text></revision></page>${AFTER}`);
}

/** Item 1: pages just under 8 MiB, each a run of file links with their own captions. */
async function* referencesShard(pages: number): AsyncGenerator<Buffer> {
  yield Buffer.from(`${HEAD}\n`);
  const limit = 8 * 1024 * 1024 - 4096;
  for (let p = 0; p < pages; p++) {
    const parts: string[] = [];
    let n = 0;
    for (let i = 0; ; i++) {
      const s = `[[File:F${p}_${i % 1000}.jpg|thumb|cap ${i}]]\n`;
      if (n + s.length > limit) break;
      parts.push(s);
      n += s.length;
    }
    yield Buffer.from(`<page><title>Refs ${p}</title><ns>0</ns><id>${p + 1}</id><revision><id>${p + 100}</id><text xml:space="preserve">${parts.join("")}</text></revision></page>\n`);
  }
  yield Buffer.from("</mediawiki>\n");
}

/** Item 2: one image on `n` pages, each with its own caption. */
async function* oneImageEverywhere(n: number): AsyncGenerator<Buffer> {
  yield Buffer.from(`${HEAD}\n`);
  for (let i = 0; i < n; i++) {
    yield Buffer.from(`<page><title>Page ${i}</title><ns>0</ns><id>${i + 1}</id><revision><id>${1000 + i}</id><text xml:space="preserve">[[File:Stari Most.jpg|thumb|The old bridge at Mostar was rebuilt in ${1000 + i} after war number ${i}.]]</text></revision></page>\n`);
  }
  yield Buffer.from("</mediawiki>\n");
}

const BIN = join(REPO, "bin/paracap.js");
const dir = tempDir("pcbench-rss-");
const gib = Number(process.env.BENCH_BOMB_GIB ?? 1);
const heap = process.env.BENCH_HEAP_MB ? [`--max-old-space-size=${Number(process.env.BENCH_HEAP_MB)}`] : [];
const only = process.env.BENCH_ONLY?.split(",");

const gz = async (name: string, gen: AsyncGenerator<Buffer>) => {
  const file = join(dir, name);
  await pipeline(gen, createGzip({ level: 1 }), createWriteStream(file));
  return file;
};
interface Case { label: string; file: string; decoder: string; args: string[] }
const cases: Array<[string, () => Promise<Case>]> = [
  ["refs", async () => ({ label: "item 1: 2.07 M references in one shard (9 × 8 MiB pages)", file: await gz("refs-pages-articles.xml.gz", referencesShard(9)), decoder: "gzip", args: ["--tiers", "gold"] })],
  ["pairs", async () => {
    const config = join(dir, "many-refs.json");
    writeFileSync(config, JSON.stringify({ images: { maxRefs: 100_000 } }));
    return { label: "item 2: one image on 5,000 pages, maxRefs 100000", file: await gz("one-image-pages-articles.xml.gz", oneImageEverywhere(5000)), decoder: "gzip", args: ["--tiers", "silver", "--config", config] };
  }],
  ["title", async () => ({ label: `item 3: ${gib} GiB <title> in a .gz`, file: await gz("title.xml.gz", titleBomb(gib * 2 ** 30)), decoder: "gzip", args: ["--tiers", "gold"] })],
  ["attribute", async () => ({ label: `item 4: ${gib} GiB attribute in a .gz`, file: await gz("attribute.xml.gz", attributeBomb(gib * 2 ** 30)), decoder: "gzip", args: ["--tiers", "gold"] })],
  ["text", async () => ({ label: `${gib} GiB <text> in a .gz`, file: await gz("text.xml.gz", textBomb(gib * 2 ** 30)), decoder: "gzip", args: ["--tiers", "gold"] })],
];
const history = sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2");
if (history) cases.push(["history", async () => ({ label: "151 MB history excerpt", file: history, decoder: "bzip2", args: ["--tiers", "bronze"] })]);

console.log(`paracap run ${heap.join(" ") || "(node's default heap limit)"}`);
console.log("| input | paracap run: wall s | peak RSS MiB | decoder alone: wall s | ratio (decoder / run) |");
console.log("|---|---:|---:|---:|---:|");
for (const [key, make] of cases) {
  if (only && !only.includes(key)) continue;
  const c = await make();
  const flag = c.label.includes("history") ? "--history" : "--input";
  const run = await runTimed(BIN, ["run", flag, c.file, "--out", join(dir, `out-${key}`), "--quiet", "--fresh", ...c.args], { node: true, nodeArgs: heap });
  const base = await runTimed(c.decoder, ["-dc", c.file], { stdoutTo: "/dev/null" });
  const rss = (run.maxRssKiB ?? 0) / 1024;
  console.log(`| ${c.label} | ${run.seconds.toFixed(1)} | ${rss.toFixed(0)}${rss < 1024 ? "" : " (over 1 GiB!)"} | ${base.seconds.toFixed(1)} | ${(base.seconds / run.seconds).toFixed(2)} |`);
}

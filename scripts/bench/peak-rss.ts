/**
 * Peak memory of whole runs on inputs built to exhaust it, and on the 151 MB history excerpt: a
 * small .gz expanding to one huge <text> (1 GiB; BENCH_BOMB_GIB=5 for the 5 GiB case), beside the
 * decoder alone on the same file as the baseline measured in the same run. Target: < 1 GiB whatever
 * the input.
 */
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { REPO, runTimed, sharedData, tempDir } from "./lib/common.ts";

async function* bomb(textBytes: number): AsyncGenerator<Buffer> {
  yield Buffer.from('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/"><page><title>Bomb</title><ns>0</ns><id>1</id><revision><id>10</id><text xml:space="preserve">');
  const block = Buffer.alloc(1 << 20, "a");
  for (let n = 0; n < textBytes; n += block.length) yield block;
  yield Buffer.from('</text></revision></page><page><title>After</title><ns>0</ns><id>2</id><revision><id>20</id><text xml:space="preserve">[[File:Stari Most.jpg|thumb|The old bridge at Mostar was rebuilt in 2004 and reopened.]]</text></revision></page></mediawiki>');
}

const BIN = join(REPO, "bin/paracap.js");
const dir = tempDir("pcbench-rss-");
const gib = Number(process.env.BENCH_BOMB_GIB ?? 1);
const bombFile = join(dir, "bomb.xml.gz");
await pipeline(bomb(gib * 2 ** 30), createGzip({ level: 1 }), createWriteStream(bombFile));

const inputs: Array<[string, string, string]> = [[`${gib} GiB <text> in a .gz`, bombFile, "gzip"]];
const history = sharedData("wikipedia-history/enwiki-Anarchism-history-rev04000-05999.xml.bz2");
if (history) inputs.push(["151 MB history excerpt", history, "bzip2"]);

console.log("| input | paracap run: wall s | peak RSS MiB | decoder alone: wall s | ratio (decoder / run) |");
console.log("|---|---:|---:|---:|---:|");
for (const [label, file, decoder] of inputs) {
  const flag = label.includes("history") ? "--history" : "--input";
  const run = await runTimed(BIN, ["run", flag, file, "--out", join(dir, `out-${decoder}`), "--quiet", "--fresh", ...(label.includes("history") ? ["--tiers", "bronze"] : ["--tiers", "gold"])], { node: true });
  const base = await runTimed(decoder, ["-dc", file], { stdoutTo: "/dev/null" });
  const rss = (run.maxRssKiB ?? 0) / 1024;
  console.log(`| ${label} | ${run.seconds.toFixed(1)} | ${rss.toFixed(0)}${rss < 1024 ? "" : " (over 1 GiB!)"} | ${base.seconds.toFixed(1)} | ${(base.seconds / run.seconds).toFixed(2)} |`);
}

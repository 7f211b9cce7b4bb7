/**
 * bz2 decoding on every core with a single-threaded decoder (bz2-parallel.ts), alternated in rounds
 * in one run: the JS block decoder on worker threads against the same decoder in one thread, and
 * `bzip2` children fed repacked runs of blocks against one `bzip2 -dc`; `lbzip2 -dc` as the
 * yardstick. Every path's output is hashed and must equal the others'.
 *
 *   npx tsx scripts/bench/bz2-parallel.ts [file.xml.bz2 …]    (BENCH_ROUNDS=3; default: the 26 MB history excerpt)
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { findSystemBzip2, jsBunzip2, systemBunzip2 } from "../../shared/dump/bz2-decoders.ts";
import { binaryJobDecoder, jsJobDecoder, parallelBunzip2 } from "../../shared/dump/bz2-parallel.ts";
import { median, REPO } from "./lib/common.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const DATA = new URL("../../../shared/data/wikipedia-history/", import.meta.url).pathname;
const fallback = `${DATA}enwiki-Anarchism-history-rev02900-03299.xml.bz2`;
const files = process.argv.length > 2 ? process.argv.slice(2) : [existsSync(fallback) ? fallback : `${REPO}shared/sample/enwiki-Anarchism-history-sample.xml.bz2`];
const bzip2 = findSystemBzip2(undefined, ["bzip2"]);
const lbzip2 = findSystemBzip2(undefined, ["lbzip2"]);
const lanes = availableParallelism();

type Path = [string, (file: string) => AsyncIterable<Buffer>];
const open = (file: string) => createReadStream(file, { highWaterMark: 1 << 20 });
const paths: Path[] = [
  ["JS blocks, one thread", (f) => jsBunzip2(open(f), f)],
  [`JS blocks, ${lanes} worker threads`, (f) => parallelBunzip2(open(f), f, jsJobDecoder(lanes))],
];
if (bzip2) {
  paths.push(["bzip2 -dc, one process", (f) => systemBunzip2(open(f), bzip2, f)]);
  paths.push([`bzip2, ${lanes} children on repacked blocks`, (f) => parallelBunzip2(open(f), f, binaryJobDecoder(bzip2, lanes))]);
}
if (lbzip2) paths.push(["lbzip2 -dc (yardstick)", (f) => systemBunzip2(open(f), lbzip2, f)]);

async function time(make: () => AsyncIterable<Buffer>): Promise<{ s: number; n: number; sha: string }> {
  const t = performance.now();
  const h = createHash("sha256");
  let n = 0;
  for await (const c of make()) {
    h.update(c);
    n += c.length;
  }
  return { s: (performance.now() - t) / 1000, n, sha: h.digest("hex") };
}

for (const file of files) {
  console.log(`\n${file} (${rounds} rounds, ${lanes} cores)`);
  const secs = new Map<string, number[]>(paths.map(([name]) => [name, []]));
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    const shas = new Set<string>();
    const line: string[] = [];
    for (const [name, make] of paths) {
      const { s, n, sha } = await time(() => make(file));
      secs.get(name)!.push(s);
      shas.add(sha);
      bytes = n;
      line.push(`${name} ${s.toFixed(2)} s`);
    }
    if (shas.size !== 1) throw new Error(`the decoders disagree on ${file}`);
    console.log(`  round ${r + 1} (load ${loadavg().map((l) => l.toFixed(1)).join(" ")}): ${line.join(", ")}`);
  }
  const ref = (name: string) => secs.get(name) ?? null;
  const pair = (a: string, b: string) => {
    const x = ref(a);
    const y = ref(b);
    return x && y ? median(x.map((s, i) => y[i]! / s)).toFixed(2) : "n/a";
  };
  for (const [name] of paths) console.log(`  ${name.padEnd(44)} ${(bytes / 1e6 / Math.min(...secs.get(name)!)).toFixed(1).padStart(7)} MB/s (best)`);
  console.log(`  speed-up, median of paired rounds: JS ${pair(paths[1]![0], paths[0]![0])}×` + (bzip2 ? `, bzip2 ${pair(paths[3]![0], paths[2]![0])}×` : ""));
  if (lbzip2 && bzip2) console.log(`  as a share of lbzip2's speed: bzip2 children ${pair(paths[3]![0], "lbzip2 -dc (yardstick)")}, one bzip2 ${pair(paths[2]![0], "lbzip2 -dc (yardstick)")}`);
}

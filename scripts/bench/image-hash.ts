/**
 * Images per second per core for decode (EXIF orientation, ICC → sRGB, two antialiased rasters) +
 * all five perceptual hashes, with and without the pixel MD5 (only the md5 pivot and `paracap hash`
 * compute it), against sharp-phash (one DCT hash on a 32×32 greyscale resize, shrink-on-load) on the
 * same images in the same run. "Per core" divides by the process's CPU time (user + system, all
 * threads, libvips' included), so the figure holds on a shared machine; wall-clock rates are printed
 * too. Run it niced (`nice -n 10`) on a shared machine.
 *
 *   npx tsx scripts/bench/image-hash.ts [rounds=10]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadavg } from "node:os";
import sharp from "sharp";
import { createRequire } from "node:module";
import { decodeImage } from "../../shared/pixels/decode.ts";
import { imageHashes } from "../../shared/pixels/hashes.ts";

// CommonJS (module.exports = phash) whose typings claim an ES default export
const phash = createRequire(import.meta.url)("sharp-phash") as (image: Buffer) => Promise<string>;

const ROUNDS = Number(process.argv[2] ?? 20);
sharp.cache(false); // no libvips operation cache across rounds
sharp.concurrency(1); // one libvips thread per image: the figure is per core

const DIR = new URL("../../test/fixtures/data/images/", import.meta.url).pathname;
const files = ["jimagehash", "imagehash"].flatMap((d) => readdirSync(join(DIR, d)).filter((f) => !f.endsWith(".md")).map((f) => join(DIR, d, f)));
const images = files.map((f) => readFileSync(f));
const pixels = (await Promise.all(images.map((b) => sharp(b).metadata()))).reduce((s, m) => s + (m.width ?? 0) * (m.height ?? 0), 0);
console.log(`${images.length} real images (${(pixels / images.length / 1e3).toFixed(0)} kpx, ${(images.reduce((s, b) => s + b.length, 0) / images.length / 1e3).toFixed(0)} KB on average; JPEG and PNG, 100×67 … 1000×1000), ${ROUNDS} rounds, one image at a time; in each round every contender reads the corpus once (interleaved, so load drift hits all alike)`);

interface Rate {
  perCpuSecond: number;
  perWallSecond: number;
}

type Contender = readonly [name: string, one: (b: Buffer) => Promise<unknown>];

async function measure(corpus: Buffer[], contenders: readonly Contender[]): Promise<Rate[]> {
  for (const [, one] of contenders) for (const b of corpus) await one(b); // warm-up
  const cpu = contenders.map(() => 0);
  const wall = contenders.map(() => 0);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, [, one]] of contenders.entries()) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (const b of corpus) await one(b);
      wall[i] = wall[i]! + (performance.now() - t0) / 1000;
      const c = process.cpuUsage(c0);
      cpu[i] = cpu[i]! + (c.user + c.system) / 1e6;
    }
  }
  const n = ROUNDS * corpus.length;
  return contenders.map(([name], i) => {
    const rate = { perCpuSecond: n / cpu[i]!, perWallSecond: n / wall[i]! };
    console.log(`  ${name.padEnd(52)} ${rate.perCpuSecond.toFixed(0).padStart(5)} img/s per core (CPU ${cpu[i]!.toFixed(1)} s), ${rate.perWallSecond.toFixed(0).padStart(5)} img/s wall`);
    return rate;
  });
}

const decodeAndHash = (md5: boolean) => async (b: Buffer) => {
  const r = await decodeImage(b, { maxPixels: 50_000_000, md5 });
  if (r.ok) imageHashes(r.image);
};
const jpegs = images.filter((b) => b[0] === 0xff && b[1] === 0xd8);
for (const [label, corpus] of [
  [`web-sized JPEG photos (${jpegs.length}: 500×333 … 671×482, and a 100×67 thumbnail; 4 carry an sRGB profile)`, jpegs],
  [`all ${images.length} images (PNG up to 1000×1000 RGBA included)`, images],
] as const) {
  console.log(`\n${label}`);
  const [perceptual, withMd5, baseline] = (await measure(corpus, [
    ["paracap: decode + ahash/dhash/phash/rahash/rphash", decodeAndHash(false)],
    ["paracap: the same + md5 of the decoded pixels", decodeAndHash(true)],
    ["sharp-phash 2.2 (one hash, no full decode)", (b) => phash(b)],
  ])) as [Rate, Rate, Rate];
  const verdict = (r: Rate) => `${(r.perCpuSecond / baseline.perCpuSecond).toFixed(2)}× sharp-phash per core, target ≥ 150 img/s/core ${r.perCpuSecond >= 150 ? "met" : "NOT met"}`;
  console.log(`  all perceptual hashes: ${verdict(perceptual)}`);
  console.log(`  with md5:              ${verdict(withMd5)}`);
}
console.log(`\nmachine load ${loadavg()[0]!.toFixed(1)} on a shared 2-core box (CPU time inflates under contention); peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);

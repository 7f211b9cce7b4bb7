/**
 * bz2 decoding paths, alternated in rounds in the same run: the system binary with the 4 MiB
 * hold-back that keeps a damaged block's unverified bytes from the reader (open-dump.ts) against
 * the binary passed straight through, on the 151 MB history excerpt; and the pure-JS block decoder
 * (CRC-verified blocks, resync after damage: bz2-blocks.ts) against unbzip2-stream, which it
 * replaced, on the 26 MB one.
 *
 *   npx tsx scripts/bench/bz2-decoders.ts [big.xml.bz2] [small.xml.bz2]
 */
import { existsSync } from "node:fs";
import { createReadStream } from "node:fs";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { decompressStream } from "../../shared/dump/open-dump.ts";
const DATA = new URL("../../../shared/data/wikipedia-history/", import.meta.url).pathname;
const REPO_SAMPLE = new URL("../../shared/sample/enwiki-Anarchism-history-sample.xml.bz2", import.meta.url).pathname;
const orSample = (p: string) => (existsSync(p) ? p : REPO_SAMPLE);
const big = process.argv[2] ?? orSample(`${DATA}enwiki-Anarchism-history-rev04000-05999.xml.bz2`);
const small = process.argv[3] ?? orSample(`${DATA}enwiki-Anarchism-history-rev02900-03299.xml.bz2`);
async function decode(path: string, hold: boolean, decoder: "system" | "js" = "system") {
  const t0 = performance.now(); let n = 0;
  const open = () => createReadStream(path, { highWaterMark: 1 << 20 });
  for await (const c of decompressStream(open(), { file: path, decoder, ...(hold ? { reopen: open } : {}) })) n += (c as Buffer).length;
  return { n, s: (performance.now() - t0) / 1000 };
}
async function unbz(path: string) {
  const t0 = performance.now(); let n = 0;
  const d = (createRequire(import.meta.url)("unbzip2-stream") as () => NodeJS.ReadWriteStream)();
  d.on("data", (b: Buffer) => (n += b.length));
  const done = new Promise((r) => d.on("end", r));
  const buf = readFileSync(path); for (let i = 0; i < buf.length; i += 1 << 20) d.write(buf.subarray(i, i + (1 << 20))); d.end(); await done;
  return { n, s: (performance.now() - t0) / 1000 };
}
for (let r = 0; r < 3; r++) {
  const a = await decode(big, true); const b = await decode(big, false);
  console.log(`round ${r}: system with 4 MiB hold ${a.s.toFixed(2)} s, without ${b.s.toFixed(2)} s (${(a.n / 1e6).toFixed(1)} MB)`);
}
for (let r = 0; r < 3; r++) {
  const a = await decode(small, false, "js"); const b = await unbz(small);
  console.log(`round ${r}: js block decoder ${a.s.toFixed(2)} s, unbzip2-stream ${b.s.toFixed(2)} s (${(a.n / 1e6).toFixed(1)} MB)`);
}

/**
 * Dump reader throughput on the 151 MB (decompressed) Anarchism history excerpt (shared/data; the
 * repo's history sample when it is absent).
 * Baseline, measured in the same run: `lbzip2 -dc` into /dev/null. Then openDumpStream (decode
 * through the child process into JS), readPages without reading the texts (decode + scan: what the
 * local runner's main thread does, texts are decoded in the workers), readPages with every text
 * read, the saxes-based reader it replaced (page-reader-saxes.ts, texts read), and the pure-JS
 * decoder on a smaller file against its own lbzip2 baseline: the block decoder that verifies each
 * block and resynchronises after damage (bz2-blocks.ts) beside unbzip2-stream, which it replaced,
 * and a copy of the small file with one flipped bit read through both decoders (the binary stops
 * at the damage; the JS decoder then re-decodes from the start and skips the damaged block).
 *
 *   npx tsx scripts/bench/dump-reader.ts [big.xml.bz2] [small.xml.bz2]
 */
import { spawn } from "node:child_process";
import { existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { readDumpPages, readPages } from "../../shared/dump/page-reader.ts";
import { readPagesSaxes } from "../../test/dump/page-reader-saxes.ts";
import { Counters } from "../../shared/core/counters.ts";

const DATA = new URL("../../../shared/data/wikipedia-history/", import.meta.url).pathname;
const REPO_SAMPLE = new URL("../../shared/sample/enwiki-Anarchism-history-sample.xml.bz2", import.meta.url).pathname;
const orSample = (p: string) => (existsSync(p) ? p : REPO_SAMPLE);
const big = process.argv[2] ?? orSample(`${DATA}enwiki-Anarchism-history-rev04000-05999.xml.bz2`);
const small = process.argv[3] ?? orSample(`${DATA}enwiki-Anarchism-history-rev02900-03299.xml.bz2`);

interface Result {
  name: string;
  bytes: number;
  seconds: number;
}

async function timed(name: string, run: () => Promise<number>): Promise<Result> {
  const t0 = process.hrtime.bigint();
  const bytes = await run();
  return { name, bytes, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

/** The baseline: the decoder binary alone, writing to /dev/null (size comes from the openDumpStream run). */
function systemDecodeToNull(bin: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["-dc", path], { stdio: ["ignore", openSync("/dev/null", "w"), "inherit"] });
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(-1) : reject(new Error(`${bin} exit ${code}`))));
  });
}

async function decodeOnly(path: string, decoder: "system" | "js"): Promise<number> {
  let n = 0;
  for await (const chunk of openDumpStream(path, { decoder })) n += (chunk as Buffer).length;
  return n;
}

async function parseAll(path: string, how: "scan" | "texts" | "saxes"): Promise<number> {
  const counters = new Counters();
  let revisions = 0;
  let chars = 0;
  let peakRss = 0;
  const pages = how === "saxes" ? readPagesSaxes(openDumpStream(path), { counters, file: path }) : readDumpPages(path, { counters });
  for await (const rev of pages) {
    revisions++;
    if (how !== "scan") chars += rev.text.length;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }
  console.log(`${how}: ${revisions} revisions, ${chars} text chars, peak RSS ${(peakRss / 1e6).toFixed(0)} MB (constant-memory check)`);
  if (revisions !== counters.get("dump.revisions.emitted")) throw new Error("revision count mismatch");
  return counters.get("dump.bytes");
}

function report(r: Result, bytes: number, baseline: Result | null): void {
  const mbs = bytes / 1e6 / r.seconds;
  const ratio = baseline ? ` ${(mbs / (bytes / 1e6 / baseline.seconds)).toFixed(2)}x baseline` : "";
  console.log(`${r.name.padEnd(44)} ${(bytes / 1e6).toFixed(1).padStart(7)} MB ${r.seconds.toFixed(2).padStart(6)} s ${mbs.toFixed(1).padStart(7)} MB/s${ratio}`);
}

async function main(): Promise<void> {
  const bin = findSystemBzip2();
  if (!bin) throw new Error("the baseline needs lbzip2 or bzip2 on PATH");
  console.log(`big: ${big}\nsmall: ${small}\nbaseline decoder: ${bin}`);

  const decoded = await timed("openDumpStream system (decode into JS)", () => decodeOnly(big, "system"));
  const baseline = await timed(`baseline: ${bin.split("/").pop()} -dc > /dev/null`, () => systemDecodeToNull(bin, big));
  const scanned = await timed("readPages, texts not read (system decoder)", () => parseAll(big, "scan"));
  const parsed = await timed("readPages, every text read", () => parseAll(big, "texts"));
  const saxes = await timed("saxes reader (before), every text read", () => parseAll(big, "saxes"));
  const bytes = decoded.bytes;
  report(baseline, bytes, null);
  report(decoded, bytes, baseline);
  report(scanned, scanned.bytes, baseline);
  report(parsed, parsed.bytes, baseline);
  report(saxes, saxes.bytes, baseline);

  // The parsers alone, on the decompressed XML held in memory (64 KB chunks, like the decoder pipe's):
  // no decoder competing for the cores. Best of 3.
  const xml: Buffer[] = [];
  for await (const chunk of openDumpStream(big)) xml.push(chunk as Buffer);
  const inMemory = async (name: string, read: (chunks: Buffer[]) => AsyncIterable<{ text: string }>, texts: boolean) => {
    let best: Result | null = null;
    for (let r = 0; r < 3; r++) {
      const t = await timed(name, async () => {
        let n = 0;
        for await (const rev of read(xml)) n += texts ? rev.text.length : 1;
        return n;
      });
      if (best === null || t.seconds < best.seconds) best = t;
    }
    report(best!, bytes, null);
  };
  console.log("parsers alone, XML in memory:");
  await inMemory("readPages, texts not read", (c) => readPages(c), false);
  await inMemory("readPages, every text read", (c) => readPages(c), true);
  await inMemory("saxes reader (before), every text read", (c) => readPagesSaxes(c), true);

  const smallBase = await timed(`baseline (small): ${bin.split("/").pop()} -dc > /dev/null`, () => systemDecodeToNull(bin, small));
  const js = await timed("openDumpStream js decoder (small)", () => decodeOnly(small, "js"));
  const before = await timed("unbzip2-stream (before, no resync) (small)", () => unbzip2Stream(small));
  report(smallBase, js.bytes, null);
  report(js, js.bytes, smallBase);
  report(before, before.bytes, smallBase);

  // One flipped bit in the middle of the small file: only its block is lost, whatever the decoder.
  const damaged = join(tmpdir(), `paracap-bench-flip-${process.pid}.xml.bz2`);
  const bytes2 = Buffer.from(readFileSync(small));
  bytes2[bytes2.length >> 1]! ^= 0x10;
  writeFileSync(damaged, bytes2);
  const counted = async (decoder: "system" | "js") => {
    const counters = new Counters();
    try {
      for await (const _ of readDumpPages(damaged, { counters, decoder })) void _;
    } catch {
      // the read ends naming the damage once everything else is read
    }
    console.log(`damaged (${decoder}): ${counters.get("dump.damaged_blocks")} block(s) lost, ${counters.get("dump.revisions.emitted")} revisions read`);
    return counters.get("dump.bytes");
  };
  const dSys = await timed("damaged small, system decoder + JS resync", () => counted("system"));
  const dJs = await timed("damaged small, js decoder", () => counted("js"));
  report(dSys, dSys.bytes, smallBase);
  report(dJs, dJs.bytes, smallBase);
}

/** The JS decoder before the block decoder: unbzip2-stream, fed by direct writes. */
async function unbzip2Stream(path: string): Promise<number> {
  const decoder = (createRequire(import.meta.url)("unbzip2-stream") as () => NodeJS.ReadWriteStream)();
  let n = 0;
  decoder.on("data", (d: Buffer) => (n += d.length));
  const done = new Promise<void>((resolve, reject) => {
    decoder.on("end", resolve);
    decoder.on("error", reject);
  });
  for (const chunk of [readFileSync(path)]) for (let i = 0; i < chunk.length; i += 1 << 20) decoder.write(chunk.subarray(i, i + (1 << 20)));
  decoder.end();
  await done;
  return n;
}

await main();

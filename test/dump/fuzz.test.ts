/**
 * Bit flips in real dumps (fixed seeds): the reader never crashes or hangs, every revision it reads
 * is accounted for, and from damaged bz2 no caption comes out that the undamaged dump does not
 * have (a damaged block is lost, never read as text). A flip in block k loses at most the pages
 * that overlap block k (the one open at the gap included); every other page is read.
 */
import { rng } from "../seeded-random.ts";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { bz2Blocks, findMagic } from "../../shared/dump/bz2-blocks.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";
import { removeTempDirs, SAMPLE_CURRENT, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);


let dir: string;
let xml: Buffer;
let bz2: Buffer;
let knownCaptions: Set<string>;
let cleanIds: number[];
/** bit offset in the bz2 file and decoded span of each block */
let blocks: { bit: number; from: number; to: number }[];
/** each page's decoded span and revision ids */
let pages: { from: number; to: number; revs: number[] }[];

/** Captions of every revision of a file, with the reader's accounting; damage ends the read. */
async function read(file: string, decoder: "auto" | "js" = "auto"): Promise<{ captions: string[]; ids: number[]; counters: Counters; damaged: boolean }> {
  const counters = new Counters();
  const captions: string[] = [];
  const ids: number[] = [];
  let damaged = false;
  try {
    for await (const rev of readDumpPages(file, { counters, namespaces: [0], decoder })) {
      ids.push(rev.revisionId);
      let refs;
      try {
        refs = extractImageRefs(rev.text);
      } catch {
        continue;
      }
      for (const r of refs) if (r.caption) captions.push(r.caption);
    }
  } catch (err) {
    if (!(err instanceof DumpError)) throw err; // anything else is a crash
    damaged = true;
  }
  return { captions, ids, counters, damaged };
}

function accounted(c: Counters): boolean {
  const skipped = Object.entries(c.toJSON()).filter(([k]) => k.startsWith("dump.skipped.")).reduce((n, [, v]) => n + v, 0);
  return c.get("dump.revisions") === c.get("dump.revisions.emitted") + skipped;
}

beforeAll(async () => {
  dir = tempDir("paracap-fuzz-");
  // the first ~600 KB of the embedded sample (whole pages), in 100 kB bz2 blocks: several blocks to damage
  const whole = execFileSync("bzip2", ["-dc", SAMPLE_CURRENT], { maxBuffer: 1 << 26 });
  const cut = whole.indexOf("</page>", 600_000) + "</page>".length;
  xml = Buffer.concat([whole.subarray(0, cut), Buffer.from("\n</mediawiki>\n")]);
  writeFileSync(join(dir, "clean.xml"), xml);
  bz2 = execFileSync("bzip2", ["-1", "-c"], { input: xml, maxBuffer: 1 << 26 });
  const clean = await read(join(dir, "clean.xml"));
  knownCaptions = new Set(clean.captions);
  cleanIds = clean.ids;
  expect(knownCaptions.size).toBeGreaterThan(50);
  // block layout: header bit offsets (block magic starts with 0x31) and decoded spans
  const bits: number[] = [];
  for (let at = findMagic(bz2, 0); at >= 0; at = findMagic(bz2, at + 1)) {
    if (((((bz2[at >>> 3]! << 8) | (bz2[(at >>> 3) + 1] ?? 0)) >>> (8 - (at & 7))) & 0xff) === 0x31) bits.push(at);
  }
  blocks = [];
  let from = 0;
  for await (const piece of bz2Blocks(Readable.from([bz2]))) {
    if (!Buffer.isBuffer(piece)) throw new Error("the clean file has a gap");
    blocks.push({ bit: bits[blocks.length]!, from, to: from + piece.length });
    from += piece.length;
  }
  expect(blocks.length).toBe(bits.length);
  expect(blocks.length).toBeGreaterThan(4);
  pages = [];
  for (let at = xml.indexOf("<page>"); at >= 0; at = xml.indexOf("<page>", at + 1)) {
    const to = xml.indexOf("</page>", at);
    pages.push({ from: at, to, revs: [...xml.toString("utf8", at, to).matchAll(/<revision>\s*<id>(\d+)<\/id>/g)].map((m) => Number(m[1])) });
  }
});

describe("bit flips", () => {
  it("in bz2: no crash, every revision accounted for, no caption the clean dump lacks, only the damaged block's pages lost (24 seeds, 6 of them on the JS decoder)", async () => {
    const invented: string[] = [];
    const overLost: string[] = [];
    let damagedRuns = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const r = rng(seed);
      const bad = Buffer.from(bz2);
      // skip the 4-byte stream header so the input still reads as bz2
      const at = 4 + Math.floor(r() * (bad.length - 4));
      const bitInByte = Math.floor(r() * 8);
      bad[at]! ^= 1 << bitInByte;
      const flipBit = at * 8 + (7 - bitInByte);
      const file = join(dir, `flip-${seed}.xml.bz2`);
      writeFileSync(file, bad);
      // every 4th seed: the pure-JS decoder (~1 s a read); the others: the system binary (lbzip2/bzip2) with its JS fallback
      const got = await read(file, seed % 4 === 1 ? "js" : "auto");
      if (got.damaged) damagedRuns++;
      expect(accounted(got.counters), `seed ${seed}`).toBe(true);
      for (const c of got.captions) if (!knownCaptions.has(c)) invented.push(`seed ${seed}: ${c.slice(0, 80)}`);
      {
        // block k holds the flip (the end-of-stream marker counts with the last block)
        const k = blocks.findLastIndex((b) => b.bit <= flipBit);
        const span = blocks[Math.max(0, k)]!;
        const mayLose = new Set(pages.filter((p) => p.from < span.to && p.to > span.from).flatMap((p) => p.revs));
        const got_ = new Set(got.ids);
        const lost = cleanIds.filter((id) => !got_.has(id) && !mayLose.has(id));
        if (lost.length > 0) overLost.push(`seed ${seed} (block ${k}): ${lost.length} revisions outside the block lost`);
        // revisions come out in the clean order, none invented
        expect(got.ids, `seed ${seed}`).toEqual(cleanIds.filter((id) => got_.has(id)));
      }
    }
    expect(invented).toEqual([]);
    expect(overLost).toEqual([]);
    expect(damagedRuns).toBeGreaterThan(12);
  });

  it("in plain XML: no crash, no hang, every revision accounted for (50 seeds)", async () => {
    for (let seed = 1; seed <= 50; seed++) {
      const r = rng(1000 + seed);
      const bad = Buffer.from(xml);
      for (let k = 0; k < 3; k++) bad[Math.floor(r() * bad.length)]! ^= 1 << Math.floor(r() * 8);
      const file = join(dir, `flip-${seed}.xml`);
      writeFileSync(file, bad);
      const got = await read(file);
      expect(accounted(got.counters), `seed ${seed}`).toBe(true);
    }
  });
});

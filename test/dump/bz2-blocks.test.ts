/**
 * The block-level bz2 decoder: decodes real dumps exactly as bzip2 does, and on damage loses only
 * the damaged block (found again at its successor's 48-bit magic), never passing an unverified
 * byte on. Through readDumpPages: a flip in the first block no longer loses the file.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { bz2Blocks, findMagic, type InputGap } from "../../shared/dump/bz2-blocks.ts";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { HISTORY_0000, WIKIPEDIA2VEC_09 } from "./real-data.ts";
import { sampleIn200kBlocks } from "./decoder-setup.ts";

afterAll(removeTempDirs);

/** Feeds `data` in pieces of `size` bytes and collects the verified blocks and the gaps. */
async function decode(data: Buffer, size = 1 << 20): Promise<{ blocks: Buffer[]; gaps: InputGap[] }> {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) pieces.push(data.subarray(i, i + size));
  const blocks: Buffer[] = [];
  const gaps: InputGap[] = [];
  for await (const p of bz2Blocks(Readable.from(pieces))) {
    if (Buffer.isBuffer(p)) blocks.push(p);
    else gaps.push(p);
  }
  return { blocks, gaps };
}

/** Bit offsets of every block header of a bz2 file (the end-of-stream marker excluded). */
function blockStarts(bz2: Buffer): number[] {
  const starts: number[] = [];
  for (let at = findMagic(bz2, 0); at >= 0; at = findMagic(bz2, at + 1)) {
    const byte = bz2[at >>> 3]!; // block magic starts 0x31..., end-of-stream 0x17...
    const first = ((byte << 8) | (bz2[(at >>> 3) + 1] ?? 0)) >>> (8 - (at & 7));
    if ((first & 0xff) === 0x31) starts.push(at);
  }
  return starts;
}

let dir: string;
let xml: Buffer;
/** the sample cut to 1.3 MB of XML in 200 kB blocks (7; test/dump/decoder-setup.ts) */
let bz2: Buffer;

beforeAll(() => {
  dir = tempDir("paracap-bz2blocks-");
  ({ xml, bz2 } = sampleIn200kBlocks());
});

describe("bz2Blocks", () => {
  it("decodes real dumps byte for byte as bzip2 does, whatever the chunking, one verified block at a time", async () => {
    for (const size of [1 << 20, 4096, 7]) {
      const { blocks, gaps } = await decode(size === 7 ? bz2.subarray(0, 60_000) : bz2, size);
      if (size === 7) continue; // a cut file: only that it ends (checked below)
      expect(gaps).toEqual([]);
      expect(Buffer.concat(blocks).equals(xml)).toBe(true);
      expect(blocks.length).toBe(blockStarts(bz2).length);
    }
    const two = Buffer.concat([readFileSync(WIKIPEDIA2VEC_09), readFileSync(HISTORY_0000)]);
    const { blocks, gaps } = await decode(two, 65536);
    expect(gaps).toEqual([]);
    expect(Buffer.concat(blocks).equals(execFileSync("bzip2", ["-dc"], { input: two, maxBuffer: 1 << 28 }))).toBe(true);
  });

  it("finds the block magic at every bit offset", () => {
    const starts = blockStarts(bz2);
    expect(starts.length).toBe(7);
    expect(starts[0]).toBe(32); // right after "BZh9"
    // bzip2 blocks are not byte-aligned: the real starts use several different bit offsets
    expect(new Set(starts.map((s) => s & 7)).size).toBeGreaterThan(1);
    for (let shift = 0; shift < 8; shift++) {
      const b = Buffer.alloc(20);
      // 0x314159265359 written at bit 40 + shift
      let v = 0x314159265359n << BigInt(160 - 48 - 40 - shift);
      for (let k = 19; k >= 0; k--, v >>= 8n) b[k] = Number(v & 0xffn);
      expect(findMagic(b, 0)).toBe(40 + shift);
      expect(findMagic(b, 41 + shift)).toBe(-1);
    }
  });

  it("loses only the block with a flipped bit (the first one too) and resumes at the next block", async () => {
    const clean = await decode(bz2);
    const starts = blockStarts(bz2);
    for (const k of [0, 3, 6]) {
      const bad = Buffer.from(bz2);
      const bit = Math.floor((starts[k]! + (starts[k + 1] ?? bad.length * 8 - 80)) / 2);
      bad[bit >>> 3]! ^= 0x80 >>> (bit & 7);
      const got = await decode(bad);
      expect(got.gaps).toHaveLength(1);
      const gap = got.gaps[0]!;
      expect(gap.kind).toBe("damaged");
      expect(gap.blocks).toBe(1);
      expect(gap.at).toBe(Buffer.concat(clean.blocks.slice(0, k)).length);
      expect(gap.compressedAt).toBe(starts[k]! >>> 3);
      // everything but block k, unchanged: nothing unverified came out
      expect(Buffer.concat(got.blocks).equals(Buffer.concat(clean.blocks.filter((_, i) => i !== k)))).toBe(true);
    }
  });

  it("a flip in a block header itself: that block is lost, the next one found", async () => {
    const starts = blockStarts(bz2);
    const bad = Buffer.from(bz2);
    const bit = starts[2]! + 10; // inside the magic
    bad[bit >>> 3]! ^= 0x80 >>> (bit & 7);
    const got = await decode(bad);
    expect(got.gaps.map((g) => g.blocks)).toEqual([1]);
    expect(got.gaps[0]!.reason).toMatch(/no block header/);
    expect(got.blocks.length).toBe(6);
  });

  it("truncation and trailing garbage are told apart", async () => {
    const cut = await decode(bz2.subarray(0, Math.floor(bz2.length / 2)));
    expect(cut.gaps.map((g) => g.kind)).toEqual(["truncated"]);
    expect(Buffer.concat(cut.blocks).equals(xml.subarray(0, Buffer.concat(cut.blocks).length))).toBe(true);
    const garbage = await decode(Buffer.concat([bz2, Buffer.from("this is not bz2\n".repeat(100))]));
    expect(garbage.gaps.map((g) => [g.kind, g.skippedBytes])).toEqual([["trailing", 1600]]);
    expect(Buffer.concat(garbage.blocks).equals(xml)).toBe(true);
  });
});

describe("readDumpPages over damaged bz2", () => {
  async function read(file: string, decoder: "js" | "system"): Promise<{ ids: number[]; counters: Counters; error: DumpError | null }> {
    const counters = new Counters();
    const ids: number[] = [];
    let error: DumpError | null = null;
    try {
      for await (const rev of readDumpPages(file, { counters, decoder, namespaces: [0] })) ids.push(rev.revisionId);
    } catch (err) {
      if (!(err instanceof DumpError)) throw err;
      error = err;
    }
    return { ids, counters, error };
  }

  const decoders = findSystemBzip2() ? (["js", "system"] as const) : (["js"] as const);
  for (const decoder of decoders) {
    it(`one flipped bit in the first block loses that block's pages only (${decoder})`, async () => {
      const cleanFile = join(dir, "clean.xml.bz2");
      writeFileSync(cleanFile, bz2);
      const clean = await read(cleanFile, "js");
      expect(clean.error).toBeNull();
      const starts = blockStarts(bz2);
      const bad = Buffer.from(bz2);
      const bit = Math.floor((starts[0]! + starts[1]!) / 2);
      bad[bit >>> 3]! ^= 0x80 >>> (bit & 7);
      const file = join(dir, `first-block-${decoder}.xml.bz2`);
      writeFileSync(file, bad);
      const got = await read(file, decoder);
      // the pages that start after the first block's 200 kB all come through, in order
      const firstBlockEnd = (await decode(bz2.subarray(0, (starts[1]! >>> 3) + 1))).blocks[0]!.length;
      const after = revisionIdsAfter(xml, firstBlockEnd);
      expect(after.length).toBeGreaterThan(clean.ids.length / 2);
      expect(got.ids).toEqual(clean.ids.filter((id) => after.includes(id)));
      expect(got.error?.message).toMatch(/1 damaged bz2 block skipped \(\d+ compressed bytes, the first at compressed byte 4: block CRC mismatch|1 damaged bz2 block skipped/);
      expect(got.error?.offset).toBe(0);
      expect(got.counters.get("dump.damaged_blocks")).toBe(1);
      expect(got.counters.get("dump.damaged_bytes")).toBeGreaterThan(20_000);
      expect(got.counters.get("dump.revisions")).toBe(got.counters.get("dump.revisions.emitted") + skipped(got.counters));
    });
  }

  it("the page across the gap is dropped and counted, never spliced", async () => {
    const starts = blockStarts(bz2);
    const bad = Buffer.from(bz2);
    const bit = Math.floor((starts[2]! + starts[3]!) / 2);
    bad[bit >>> 3]! ^= 0x80 >>> (bit & 7);
    const file = join(dir, "third-block.xml.bz2");
    writeFileSync(file, bad);
    const clean = await decode(bz2);
    const lostFrom = Buffer.concat(clean.blocks.slice(0, 2)).length;
    const lostTo = lostFrom + clean.blocks[2]!.length;
    const counters = new Counters();
    const texts = new Map<number, string>();
    await expect(async () => {
      for await (const rev of readDumpPages(file, { counters, decoder: "js", namespaces: [0] })) texts.set(rev.revisionId, rev.text);
    }).rejects.toThrow(/damaged bz2 block/);
    // the block boundaries fall inside pages: both are cut
    const cut = pagesAcross(xml, [lostFrom, lostTo]);
    expect(cut).toHaveLength(2);
    expect(counters.get("dump.damage.pages_cut")).toBe(1); // the page open when the gap came
    for (const id of cut) expect(texts.has(id)).toBe(false);
    // every revision read is the clean one, whole
    const cleanTexts = new Map<number, string>();
    for await (const rev of readDumpPages(join(dir, "clean.xml.bz2"), { decoder: "js", namespaces: [0] })) cleanTexts.set(rev.revisionId, rev.text);
    for (const [id, text] of texts) expect(text).toBe(cleanTexts.get(id));
  });
});

function skipped(c: Counters): number {
  return Object.entries(c.toJSON())
    .filter(([k]) => k.startsWith("dump.skipped."))
    .reduce((n, [, v]) => n + v, 0);
}

/** Page spans of a dump's XML with the first revision id of each. */
function pageSpans(x: Buffer): { from: number; to: number; revs: number[] }[] {
  const spans: { from: number; to: number; revs: number[] }[] = [];
  for (let at = x.indexOf("<page>"); at >= 0; at = x.indexOf("<page>", at + 1)) {
    const to = x.indexOf("</page>", at);
    const body = x.toString("utf8", at, to);
    spans.push({ from: at, to, revs: [...body.matchAll(/<revision>\s*<id>(\d+)<\/id>/g)].map((m) => Number(m[1])) });
  }
  return spans;
}

function revisionIdsAfter(x: Buffer, offset: number): number[] {
  return pageSpans(x)
    .filter((s) => s.from >= offset)
    .flatMap((s) => s.revs);
}

/** Revision ids of the pages that contain one of the offsets. */
function pagesAcross(x: Buffer, offsets: number[]): number[] {
  return pageSpans(x)
    .filter((s) => offsets.some((o) => s.from < o && o < s.to))
    .flatMap((s) => s.revs);
}

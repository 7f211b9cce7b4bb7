import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import type { PageRevision } from "../../shared/core/records.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { planByteRangeShards, readMultistreamIndex, writeMultistream, type ByteRangeShard } from "../../shared/dump/multistream.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { bunzip, collect, collectUntilError, DUMPSTER_DIVE, fingerprint, GENSIM, HISTORY_2900, sha, tmp } from "./real-data.ts";

const ALL = { namespaces: [0, 4], skipRedirects: false };

async function decode(path: string, start: number, end: number | null): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of openDumpStream(path, { start, end: end ?? undefined })) parts.push(c as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

describe("multistream repack of the gensim enwiki excerpt (206 pages)", () => {
  let out: string;
  let indexPath: string;
  let streams: number;
  let offsets: number[];
  let single: PageRevision[];

  beforeAll(async () => {
    out = join(tmp(), "enwiki-test-pages-articles-multistream.xml.bz2");
    const result = await writeMultistream(GENSIM, out, { pagesPerStream: 10 });
    indexPath = result.indexPath;
    streams = result.streams;
    expect(result.pages).toBe(206);
    offsets = (await readMultistreamIndex(indexPath)).offsets;
    single = await collect(readDumpPages(GENSIM, ALL));
  });

  it("a shard whose start is not a bz2 stream (an index of another dump) fails with that message", async () => {
    const { mediawikiSource } = await import("../../shared/sources/mediawiki/mediawiki-source.ts");
    const { fileBytes } = await import("../../shared/io/file-bytes.ts");
    const { resolveConfig } = await import("../../shared/core/config.ts");
    const { Counters } = await import("../../shared/core/counters.ts");
    const shard = { id: "s1", uri: out, source: "mediawiki", kind: "current" as const, start: offsets[1]! + 7, end: offsets[2]!, fragment: true };
    await expect(async () => {
      for await (const _ of mediawikiSource.documents(shard, fileBytes(out), resolveConfig({}), new Counters())) void _;
    }).rejects.toThrow(/multistream index does not match this dump: no bz2 stream starts at byte \d+/);
    // the right offset reads its ten pages
    let n = 0;
    for await (const _ of mediawikiSource.documents({ ...shard, start: offsets[1]! }, fileBytes(out), resolveConfig({ dump: { namespaces: [0, 1, 2, 4, 6, 10, 14] } }), new Counters())) n++;
    expect(n).toBeGreaterThan(0);
  });

  it("decompresses to exactly the original XML, as header + 21 page streams + closing stream", async () => {
    expect(bunzip(out).equals(bunzip(GENSIM))).toBe(true);
    expect(streams).toBe(1 + 21 + 1);
    expect(indexPath).toBe(out.replace(/\.xml\.bz2$/, "-index.txt.bz2"));
    expect(offsets).toHaveLength(21);
    const header = await decode(out, 0, offsets[0]!);
    expect(header).toMatch(/^<mediawiki [^>]*>\n\s*<siteinfo>/);
    expect(header).toContain("</siteinfo>");
    expect(header).not.toContain("<page>");
    const firstStream = await decode(out, offsets[0]!, offsets[1]!);
    expect(firstStream.startsWith("  <page>")).toBe(true);
    expect(firstStream.split("<page>").length - 1).toBe(10);
    expect(firstStream.trimEnd().endsWith("</page>")).toBe(true);
  });

  it("writes Wikipedia's index lines (offset:pageid:title), 10 pages per offset", () => {
    const lines = bunzip(indexPath).toString("utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(206);
    expect(lines[0]).toBe(`${offsets[0]}:10:AccessibleComputing`);
    expect(lines[1]).toBe(`${offsets[0]}:12:Anarchism`);
    expect(lines[10]!.startsWith(`${offsets[1]}:`)).toBe(true);
    expect(lines.map((l) => l.split(":").slice(1).join(":"))).toEqual(single.map((r) => `${r.pageId}:${r.title}`));
  });

  it("reads a plain (uncompressed) index the same", async () => {
    const plain = join(tmp(), "index.txt");
    writeFileSync(plain, bunzip(indexPath));
    expect((await readMultistreamIndex(plain)).offsets).toEqual(offsets);
  });

  it("shards read independently add up to the single-stream read, in order", async () => {
    const size = statSync(out).size;
    const shards = planByteRangeShards(out, size, offsets, Math.ceil(size / 5));
    expect(shards.length).toBeGreaterThanOrEqual(4);
    const counters = new Counters();
    const perShard = await Promise.all(
      shards.map((s) => collect(readDumpPages(s.path, { ...ALL, start: s.start, end: s.end ?? undefined, fragment: s.start > 0, counters }))),
    );
    for (const pages of perShard) expect(pages.length).toBeGreaterThan(0);
    expect(perShard.flat().map(fingerprint)).toEqual(single.map(fingerprint));
    expect(counters.get("dump.pages")).toBe(206);
    expect(counters.get("dump.bytes")).toBe(bunzip(GENSIM).length);
  });

  it("a middle shard reads the same with the JS decoder", async () => {
    const size = statSync(out).size;
    const shards = planByteRangeShards(out, size, offsets, Math.ceil(size / 5));
    const middle = shards[2]!;
    const system = await collect(readDumpPages(out, { ...ALL, start: middle.start, end: middle.end ?? undefined, decoder: "system" }));
    const js = await collect(readDumpPages(out, { ...ALL, start: middle.start, end: middle.end ?? undefined, decoder: "js" }));
    expect(js.map(fingerprint)).toEqual(system.map(fingerprint));
    expect(system.length).toBeGreaterThan(0);
  });

  it("with the index's page counts, every shard knows its pages: they add up to the 206", async () => {
    const size = statSync(out).size;
    const { offsets: o, pagesAt } = await readMultistreamIndex(indexPath);
    const shards = planByteRangeShards(out, size, o, Math.ceil(size / 5), pagesAt);
    expect(shards.reduce((n, s) => n + s.pages!, 0)).toBe(206);
    for (const s of shards) {
      const counters = new Counters();
      await collect(readDumpPages(out, { ...ALL, start: s.start, end: s.end ?? undefined, fragment: s.start > 0, counters, expectedPages: s.pages }));
      expect(counters.get("dump.pages")).toBe(s.pages);
    }
    // without the counts, no shard claims any
    expect(planByteRangeShards(out, size, o, Math.ceil(size / 5)).every((s) => s.pages === undefined)).toBe(true);
  });

  // lbzip2 takes a stream whose header is damaged for trailing garbage: it stops there and exits 0
  for (const decoder of ["system", "js"] as const) {
    it(`a damaged stream header inside a shard is counted lost pages and a damaged shard, not silence (${decoder} decoder)`, async () => {
      const size = statSync(out).size;
      const { offsets: o, pagesAt } = await readMultistreamIndex(indexPath);
      const shards = planByteRangeShards(out, size, o, Math.ceil(size / 3), pagesAt);
      const victim = shards.find((s) => s.start > 0 && s.end !== null && o.filter((x) => x > s.start && x < s.end!).length >= 2)!;
      expect(victim).toBeDefined();
      const streamsInside = o.filter((x) => x > victim.start && x < victim.end!);
      const hit = streamsInside[streamsInside.length - 1]!; // the shard's last stream: what follows it is the next shard
      const damaged = join(tmp(), `damaged-${decoder}-pages-articles-multistream.xml.bz2`);
      const bytes = readFileSync(out);
      expect(bytes.toString("latin1", hit, hit + 3)).toBe("BZh");
      bytes[hit + 1] = "X".charCodeAt(0);
      writeFileSync(damaged, bytes);

      const counters = new Counters();
      const read: PageRevision[] = [];
      let error: unknown = null;
      try {
        for await (const p of readDumpPages(damaged, { ...ALL, start: victim.start, end: victim.end!, fragment: true, counters, expectedPages: victim.pages, decoder })) read.push(p);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(DumpError);
      // every page is accounted for: read, or counted missing
      expect(read.length + counters.get("dump.damage.pages_missing")).toBe(victim.pages);
      // the block decoder resyncs at the stream's first block: only the 4 header bytes are skipped, no
      // page is lost; after the binary (which stops there without a word) the streams' layout finds them
      expect((error as Error).message).toMatch(/4 damaged compressed bytes skipped .*no whole block was lost/);
      expect(counters.get("dump.damage.pages_missing")).toBe(0);
    });
  }

  it("fewer whole pages than the index lists (pages lost where no decoder saw damage) is a DumpError counting them", async () => {
    const size = statSync(out).size;
    const { offsets: o, pagesAt } = await readMultistreamIndex(indexPath);
    const shard = planByteRangeShards(out, size, o, Math.ceil(size / 3), pagesAt).find((s) => s.start > 0 && s.end !== null)!;
    const listed = shard.pages!;
    const counters = new Counters();
    const { items, error } = await collectUntilError(readDumpPages(out, { ...ALL, start: shard.start, end: shard.end!, fragment: true, counters, expectedPages: listed + 2 }));
    expect(items.length).toBe(listed);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as Error).message).toMatch(new RegExp(`the multistream index lists ${listed + 2} pages here, ${listed} were read whole: 2 lost`));
    expect(counters.get("dump.damage.pages_missing")).toBe(2);
  });

  it("a range that does not start at a stream boundary is a DumpError", async () => {
    const bad = offsets[3]! + 17;
    await expect(collect(readDumpPages(out, { start: bad, end: offsets[5] }))).rejects.toBeInstanceOf(DumpError);
  });
});

describe("planByteRangeShards", () => {
  const offsets = [600, 1000, 5000, 5200, 9000, 12000];
  const check = (shards: ByteRangeShard[], size: number) => {
    expect(shards[0]!.start).toBe(0);
    expect(shards.at(-1)!.end).toBeNull();
    for (let i = 1; i < shards.length; i++) expect(shards[i]!.start).toBe(shards[i - 1]!.end);
    for (const s of shards) expect([0, ...offsets]).toContain(s.start);
    expect(shards.every((s) => s.start < size)).toBe(true);
  };

  it("groups whole streams into contiguous ranges of about the target size", () => {
    const shards = planByteRangeShards("/d/x-multistream.xml.bz2", 15000, offsets, 4000);
    check(shards, 15000);
    expect(shards.map((s) => [s.start, s.end])).toEqual([
      [0, 5000],
      [5000, 9000],
      [9000, null],
    ]);
    expect(shards.map((s) => s.id)).toEqual(["x-multistream.xml.bz2@0", "x-multistream.xml.bz2@5000", "x-multistream.xml.bz2@9000"]);
  });

  it("is deterministic and handles unsorted, duplicate offsets", () => {
    const a = planByteRangeShards("x.bz2", 15000, offsets, 3000);
    const b = planByteRangeShards("x.bz2", 15000, [...offsets].reverse().concat([5000, 600]), 3000);
    expect(b).toEqual(a);
    check(a, 15000);
  });

  it("one shard for a huge target, one per stream for a tiny one", () => {
    expect(planByteRangeShards("x.bz2", 15000, offsets, 1e9)).toEqual([{ id: "x.bz2@0", path: "x.bz2", start: 0, end: null }]);
    expect(planByteRangeShards("x.bz2", 15000, offsets, 1)).toHaveLength(offsets.length + 1);
  });

  it("rejects an index that does not fit the dump", () => {
    expect(() => planByteRangeShards("x.bz2", 8000, offsets, 1000)).toThrow(DumpError);
    expect(() => planByteRangeShards("x.bz2", 15000, offsets, 0)).toThrow(RangeError);
  });
});

describe("readMultistreamIndex", () => {
  it("names the bad line of a damaged index", async () => {
    const path = join(tmp(), "bad-index.txt");
    writeFileSync(path, "600:10:AccessibleComputing\n600:12:Anarchism\n<html>oops</html>\n");
    await expect(readMultistreamIndex(path)).rejects.toThrow(/line 3 of the multistream index/);
  });

  it("reads a bz2 index made by the bzip2 binary", async () => {
    const path = join(tmp(), "i-index.txt.bz2");
    writeFileSync(path, execFileSync("bzip2", ["-c"], { input: "900:3:C\n600:1:A\n600:2:B: with colon\n" }));
    const index = await readMultistreamIndex(path);
    expect(index.offsets).toEqual([600, 900]);
    expect([...index.pagesAt]).toEqual([[900, 1], [600, 2]]);
  });
});

describe("writeMultistream input", () => {
  it("takes XML text chunks too and keeps it byte-identical", async () => {
    const text = bunzip(GENSIM).toString("utf8");
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 4093) chunks.push(text.slice(i, i + 4093));
    const out = join(tmp(), "chunks-multistream.xml.bz2");
    const r = await writeMultistream((async function* () { yield* chunks; })(), out, {});
    expect(r.streams).toBe(1 + 3 + 1); // 206 pages at Wikipedia's 100 per stream
    expect(sha(bunzip(out))).toBe(sha(text));
  });

  it("cuts at the same places whatever the chunking (tags split between chunks), in linear time", async () => {
    const text = readFileSync(DUMPSTER_DIVE, "utf8"); // plain XML
    const write = async (size: number) => {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      const out = join(tmp(), `c${size}-multistream.xml.bz2`);
      const r = await writeMultistream((async function* () { yield* chunks; })(), out, { pagesPerStream: 3 });
      return { r, data: bunzip(out), index: bunzip(r.indexPath).toString("utf8") };
    };
    const whole = await write(text.length);
    expect(whole.r.pages).toBe(8);
    for (const size of [1, 2, 3, 5, 7, 64]) {
      const got = await write(size);
      expect(got.r).toMatchObject({ streams: whole.r.streams, pages: 8 });
      expect(got.data.equals(whole.data)).toBe(true);
      expect(got.index.replace(/^\d+/gm, "")).toBe(whole.index.replace(/^\d+/gm, "")); // same pages per stream
    }
    // one 26 MB page (history excerpt) in 256-byte chunks: linear whatever the chunking. Re-searching
    // the page so far at every chunk (the quadratic cut this once was) would search ~1.3 TB here and
    // not finish within the file's timeout; no wall-clock budget (no test depends on speed).
    const bytes = bunzip(HISTORY_2900); // decoded once per test run (decoding is not what is tested here)
    const history = await writeMultistream((async function* () {
      for (let i = 0; i < bytes.length; i += 256) yield bytes.subarray(i, i + 256);
    })(), join(tmp(), "h-multistream.xml.bz2"));
    expect(history.pages).toBe(1);
    expect(history.streams).toBe(3);
  });
});

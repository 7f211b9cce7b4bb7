import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ChunkPool, chunkHolds, holdChunk, releaseChunk } from "../../shared/dump/chunk-pool.ts";
import { spawnChunked } from "../../shared/dump/decoder-output.ts";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { readPages } from "../../shared/dump/page-reader.ts";
import { lazyRevision, rawText, releaseRevisionText } from "../../shared/dump/revision-text.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { PageRevision } from "../../shared/core/records.ts";
import { wikitextExtractor } from "../../shared/sources/mediawiki/wikitext-extractor.ts";
import { mediawikiSource } from "../../shared/sources/mediawiki/mediawiki-source.ts";
import { extractInline } from "../../shared/pipeline/extract-stage.ts";
import { SAMPLE_HISTORY } from "../runner/helpers.ts";

const KiB = 1024;

/** A pool that overwrites a chunk as soon as it is free: bytes read through a stale view come out wrong. */
class PoisonPool extends ChunkPool {
  fresh = 0;
  reused = 0;
  override take(): Buffer {
    if (this.freeChunks() > 0) this.reused++;
    else this.fresh++;
    return super.take();
  }
  override giveBack(memory: ArrayBuffer): void {
    new Uint8Array(memory).fill(0x26); // "&": stale text reads as broken entities
    super.giveBack(memory);
  }
}

describe("ChunkPool", () => {
  it("reuses a chunk's memory only once every hold is released", () => {
    const pool = new ChunkPool(64 * KiB, 4);
    const a = pool.take();
    expect(chunkHolds(a)).toBe(1);
    const view = a.subarray(10, 20);
    holdChunk(view);
    expect(chunkHolds(a)).toBe(2);
    releaseChunk(a);
    expect(pool.freeChunks()).toBe(0);
    const b = pool.take();
    expect(b.buffer).not.toBe(a.buffer);
    releaseChunk(view);
    expect(pool.freeChunks()).toBe(1);
    const c = pool.take();
    expect(c.buffer).toBe(a.buffer);
    expect(chunkHolds(c)).toBe(1);
  });

  it("catches a hold or release of a chunk already free, and ignores other memory", () => {
    const pool = new ChunkPool(64 * KiB, 4);
    const a = pool.take();
    releaseChunk(a);
    expect(() => releaseChunk(a)).toThrow(/released more often than held/);
    expect(() => holdChunk(a.subarray(5))).toThrow(/held after its last hold/);
    const other = Buffer.alloc(100);
    holdChunk(other);
    releaseChunk(other);
    expect(chunkHolds(other)).toBe(0);
  });

  it("keeps at most maxFree free chunks", () => {
    const pool = new ChunkPool(64 * KiB, 2);
    const taken = [pool.take(), pool.take(), pool.take()];
    for (const t of taken) releaseChunk(t);
    expect(pool.freeChunks()).toBe(2);
  });
});

describe("releaseRevisionText", () => {
  it("lets a pooled text go (reading it after throws) and leaves other texts readable", () => {
    const pool = new ChunkPool(64 * KiB, 2);
    const chunk = pool.take();
    const n = chunk.write("a &amp; b", "utf8");
    const rev = lazyRevision("T", 0, 1, 2, null, false, chunk.subarray(0, n));
    expect(chunkHolds(chunk)).toBe(2);
    releaseChunk(chunk);
    releaseRevisionText(rev);
    expect(pool.freeChunks()).toBe(1);
    expect(rawText(rev)).toBeUndefined();
    expect(() => rev.text).toThrow(/after its reader released it/);

    const plain = lazyRevision("T", 0, 1, 3, null, false, Buffer.from("c &lt; d"));
    releaseRevisionText(plain);
    expect(plain.text).toBe("c < d");
  });

  it("gives a decoded text's chunk back when it is decoded", () => {
    const pool = new ChunkPool(64 * KiB, 2);
    const chunk = pool.take();
    const n = chunk.write("x", "utf8");
    const rev = lazyRevision("T", 0, 1, 2, null, false, chunk.subarray(0, n));
    releaseChunk(chunk);
    expect(rev.text).toBe("x");
    expect(pool.freeChunks()).toBe(1);
    releaseRevisionText(rev); // nothing left to release
    expect(rev.text).toBe("x");
  });
});

describe("the MediaWiki extractor's holds", () => {
  /** A revision whose raw text is in a chunk of `pool`, held by the revision alone. */
  function pooledRevision(pool: ChunkPool, pageId: number, text: string): { rev: PageRevision; chunk: Buffer } {
    const chunk = pool.take();
    const n = chunk.write(text, "utf8");
    const rev = lazyRevision(`P${pageId}`, 0, pageId, pageId * 10, null, false, chunk.subarray(0, n));
    releaseChunk(chunk); // the reader's hold
    return { rev, chunk };
  }

  it("holds the texts it keeps for the next revision after the revision let go, and gives them back on the next page", () => {
    const pool = new ChunkPool(64 * KiB, 4);
    const extract = wikitextExtractor(resolveConfig(), new Counters());
    const a = pooledRevision(pool, 1, "Text with [[File:Example.jpg|thumb|An example caption of a picture]] and &amp; more.");
    const refs = extract(a.rev);
    expect(refs.refs?.length).toBe(1);
    releaseRevisionText(a.rev); // as the extract stage does once the revision is out
    expect(rawText(a.rev)).toBeUndefined(); // let go by the revision…
    expect(chunkHolds(a.chunk)).toBeGreaterThan(0); // …but kept by the extractor (last text, recent texts)
    const b = pooledRevision(pool, 2, "Another page, no images.");
    extract(b.rev);
    releaseRevisionText(b.rev);
    expect(chunkHolds(a.chunk)).toBe(0);
    expect(chunkHolds(b.chunk)).toBeGreaterThan(0);
    expect(pool.freeChunks()).toBe(1);
  });
});

const bzip2 = findSystemBzip2();

describe.skipIf(process.platform === "win32" || bzip2 === null)("a history read through pooled chunks", () => {
  /** Every revision's references and the extract stage's counters, reading `input` as a run does. */
  async function extractAll(input: AsyncIterable<Buffer> | Buffer[]) {
    const counters = new Counters();
    const out: unknown[] = [];
    for await (const r of extractInline(mediawikiSource, readPages(input, { counters: new Counters() }), "history", resolveConfig(), counters)) out.push(r);
    return { out, counters: counters.toJSON() };
  }

  it("extracts the same references as from unpooled bytes, with chunks reused under the extractor's memory", async () => {
    const xml = execFileSync(bzip2!, ["-dc", SAMPLE_HISTORY], { maxBuffer: 1 << 26 });
    const reference = await extractAll([xml]);

    // small chunks, so the 7.8 MB sample goes through each one's memory many times
    const pool = new PoisonPool(128 * KiB, 8);
    const spawned = await spawnChunked(bzip2!, ["-dc", SAMPLE_HISTORY], { chunkBytes: 128 * KiB, maxAhead: 1 << 20, pool });
    if (spawned === null) throw new Error("no Unix-domain socket here");
    spawned.child.stdin!.end();
    const pooled = await extractAll(spawned.output);

    expect(pooled.out.length).toBeGreaterThan(100);
    expect(pooled.out).toEqual(reference.out);
    expect(pooled.counters).toEqual(reference.counters);
    // most chunks were a reused one's memory (overwritten when freed): nothing read a freed chunk
    expect(pool.fresh + pool.reused).toBeGreaterThanOrEqual(Math.floor(xml.length / (128 * KiB)));
    expect(pool.reused).toBeGreaterThan(pool.fresh * 2);
  });
});

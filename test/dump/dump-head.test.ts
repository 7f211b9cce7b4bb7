/**
 * A dump's head (its <siteinfo>, its first page) is read before a run starts, once per input file,
 * one file after another: it must cost the first block, not the whole file. The full read holds a
 * binary's output back by 4 MiB and scans the whole file's layout beside it.
 */
import { createReadStream, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_COMPRESSED_BLOCK } from "../../shared/dump/bz2-parallel.ts";
import { decompressStream, openDumpHead, openDumpStream } from "../../shared/dump/open-dump.ts";
import { DATA, removeTempDirs, SAMPLE_CURRENT, SAMPLE_HISTORY, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** The file's bytes in 64 KiB pieces, counting what the reader pulled. */
function counted(path: string): { source: AsyncIterable<Buffer>; pulled: () => number } {
  let pulled = 0;
  const source = (async function* () {
    for await (const piece of createReadStream(path, { highWaterMark: 1 << 16 })) {
      pulled += (piece as Buffer).length;
      yield piece as Buffer;
    }
  })();
  return { source, pulled: () => pulled };
}

async function firstBytes(stream: NodeJS.ReadableStream & { destroy(): void }, n: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let have = 0;
  for await (const piece of stream) {
    parts.push(piece as Buffer);
    have += (piece as Buffer).length;
    if (have >= n) break;
  }
  stream.destroy();
  return Buffer.concat(parts).subarray(0, n);
}

describe("reading a dump's head", () => {
  it("pulls only the compressed bytes its first block needs", async () => {
    // 8 MB of bz2 (six streams of a real history excerpt): the block decoder reads at most one
    // block's longest possible length ahead
    const file = join(tempDir("paracap-head-"), "six-streams.xml.bz2");
    writeFileSync(file, Buffer.concat(Array(6).fill(readFileSync(join(DATA, "wikipedia-history", "enwiki-Anarchism-history-rev02900-03299.xml.bz2")))));
    const { source, pulled } = counted(file);
    // (as openDumpStream passes it: the full read scans the whole file's layout through it)
    let reopened = 0;
    const reopen = () => {
      reopened++;
      return counted(file).source;
    };
    const head = decompressStream(source, { file, head: true, reopen });
    const first = await firstBytes(head, 4096);
    expect(first.toString("latin1")).toContain("<siteinfo>");
    expect(reopened).toBe(0);
    expect(pulled()).toBeLessThanOrEqual(MAX_COMPRESSED_BLOCK + 2 * (1 << 16));
    expect(pulled()).toBeLessThan(readFileSync(file).length / 3);
  });

  it("gives the bytes the full read gives, for bz2, plain and UTF-16 dumps", async () => {
    const files = [
      SAMPLE_CURRENT,
      SAMPLE_HISTORY,
      join(DATA, "wikipedia", "bgwiki-latest-pages-articles-shortened.xml.bz2"),
      join(DATA, "wikipedia", "dumpster-dive-tinywiki-latest-pages-articles.xml"),
    ];
    for (const file of files) {
      const want = await firstBytes(openDumpStream(file), 200_000);
      expect(await firstBytes(openDumpHead(file), 200_000), file).toEqual(want);
    }
  });

  it("fails on a damaged first block as the full read does, with the file named", async () => {
    const bytes = readFileSync(SAMPLE_HISTORY);
    const damaged = Buffer.from(bytes);
    damaged[2000] = damaged[2000]! ^ 0x55; // inside the first block's data
    const path = join(tempDir("paracap-head-"), "damaged.xml.bz2");
    writeFileSync(path, damaged);
    await expect(firstBytes(openDumpHead(path), 4096)).rejects.toThrow(/damaged\.xml\.bz2/);
  });
});

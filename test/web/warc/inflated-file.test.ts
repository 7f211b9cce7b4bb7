/**
 * A gzip member's inflated bytes opened anywhere, as the plain reader's resync opens a file: near the
 * reader they come from the bytes held; behind them, from a second inflation from the start; and
 * never past the end the live inflation gave the member.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ByteCursor } from "../../../shared/web/warc/byte-cursor.ts";
import { InflatedFile } from "../../../shared/web/warc/inflated-file.ts";
import { DATA } from "./warc-helpers.ts";

const bytes = gunzipSync(readFileSync(`${DATA}dolma-sample-0000.warc.gz`));

async function* chunks(b: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

/** `n` bytes of the file from `at` (fewer at its end), as the reader's probe reads them. */
async function read(file: InflatedFile, at: number, n: number): Promise<Buffer> {
  const cur = new ByteCursor(file.open(at), at);
  try {
    await cur.fill(n);
    return Buffer.from(cur.buffered.subarray(0, n));
  } finally {
    await cur.close();
  }
}

describe("InflatedFile", () => {
  it("reads at any offset, ahead or behind a 64 KB window, give dolma's bytes; behind the window the member is inflated again once per step back", async () => {
    let again = 0;
    const file = new InflatedFile(chunks(bytes, 16 * 1024), () => (again++, chunks(bytes, 10_000)), 64 * 1024);
    // ahead, then just behind, then far behind (the second inflation serves both, then goes on), then past the end
    const steps: [number, number, number][] = [[0, 5000, 0], [300_000, 70_000, 0], [320_000, 20_000, 0], [100_000, 3000, 1], [150_000, 200_000, 1], [50_000, 10, 2], [bytes.length - 100, 1000, 2], [bytes.length + 5, 10, 2]];
    for (const [at, n, inflations] of steps) {
      expect((await read(file, at, n)).equals(bytes.subarray(at, at + n)), `${at}`).toBe(true);
      expect(again, `${at}`).toBe(inflations);
    }
    await file.close();
  });

  it("a read behind the window never passes the end the live inflation gave (a second inflation may read on into a member not joined)", async () => {
    const member = bytes.subarray(0, 500_000);
    const file = new InflatedFile(chunks(member, 16 * 1024), () => chunks(bytes, 10_000), 64 * 1024);
    expect((await read(file, 499_000, 10_000)).equals(member.subarray(499_000))).toBe(true);
    expect((await read(file, 400_000, 200_000)).equals(member.subarray(400_000))).toBe(true);
    await file.close();
  });
});

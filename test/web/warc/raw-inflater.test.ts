/**
 * The reused native inflate stream (raw-inflater.ts) gives inflateRawSync's bytes and consumed count for
 * every gzip member of the real Common Crawl and dolma WARCs, one after another on one stream; a member cut
 * short inflates what it has; it returns null (the caller then runs inflateRawSync) when the output buffer
 * fills or the data is damaged, and inflates correctly again after an error.
 */
import { readFileSync } from "node:fs";
import { constants, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { RawInflater } from "../../../shared/web/warc/raw-inflater.ts";
import { DATA } from "./warc-helpers.ts";

const SYNC = constants.Z_SYNC_FLUSH;

/** Where the deflate data of the gzip member at `at` starts (RFC 1952 header fields). */
function deflateStart(b: Buffer, at: number): number {
  const flags = b[at + 3]!;
  let i = at + 10;
  if (flags & 4) i += 2 + b.readUInt16LE(i);
  if (flags & 8) i = b.indexOf(0, i) + 1;
  if (flags & 16) i = b.indexOf(0, i) + 1;
  if (flags & 2) i += 2;
  return i;
}

/** The deflate data of every member of a .warc.gz (each followed by the rest of the file, as the reader gives it). */
function members(file: string): Buffer[] {
  const b = readFileSync(DATA + file);
  const out: Buffer[] = [];
  for (let at = 0; at < b.length; ) {
    const start = deflateStart(b, at);
    const r = inflateRawSync(b.subarray(start), { info: true }) as unknown as { engine: { bytesWritten: number } };
    out.push(b.subarray(start));
    at = start + r.engine.bytesWritten + 8;
  }
  return out;
}

function stock(input: Buffer, chunkSize: number) {
  const r = inflateRawSync(input, { info: true, finishFlush: SYNC, chunkSize }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  return { buffer: r.buffer, bytesWritten: r.engine.bytesWritten };
}

describe("RawInflater", () => {
  it("inflates every member of the real WARCs as inflateRawSync does, on one stream", () => {
    const inflater = new RawInflater();
    let n = 0;
    for (const file of ["commoncrawl-whirlwind.warc.gz", "dolma-sample-0000.warc.gz"]) {
      for (const m of members(file)) {
        const want = stock(m, 16 * 1024);
        const got = inflater.inflate(m, want.buffer.length + 1, SYNC);
        expect(got).not.toBeNull();
        expect(got!.bytesWritten).toBe(want.bytesWritten);
        expect(got!.buffer.equals(want.buffer)).toBe(true);
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
  });

  it("inflates a cut member as far as it goes, consuming all of it", () => {
    const m = members("commoncrawl-whirlwind.warc.gz")[1]!;
    const cut = m.subarray(0, stock(m, 16 * 1024).bytesWritten >> 1);
    const want = stock(cut, 1 << 20);
    const got = new RawInflater().inflate(cut, 1 << 20, SYNC)!;
    expect(got.bytesWritten).toBe(cut.length);
    expect(got.buffer.equals(want.buffer)).toBe(true);
    expect(got.buffer.length).toBeGreaterThan(0);
  });

  it("returns null when the output buffer fills, and after damaged data, then inflates again", () => {
    const [a, b] = members("commoncrawl-whirlwind.warc.gz");
    const inflater = new RawInflater();
    const size = stock(a!, 16 * 1024).buffer.length;
    expect(inflater.inflate(a!, size, SYNC)).toBeNull(); // exactly full: the end is not known
    const damaged = Buffer.from(a!);
    damaged[0] = 0xff; // a reserved block type
    expect(() => inflateRawSync(damaged, { finishFlush: SYNC })).toThrow();
    expect(inflater.inflate(damaged, size + 1, SYNC)).toBeNull();
    const again = inflater.inflate(b!, 1 << 20, SYNC);
    expect(again?.buffer.equals(stock(b!, 1 << 20).buffer)).toBe(true);
  });
});

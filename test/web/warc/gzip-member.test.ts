/**
 * A gzip member is inflated once: while the bytes held show no later member's header, more are read
 * first (inflating a member the held bytes cut would inflate it twice). Reading ahead changes nothing
 * else: the member's bytes and the cursor's position are what they were, and a source that fails
 * while reading ahead still gives the member held, then fails at the next read (as before). The
 * cursor joins the chunks of one fill once and keeps what it read before a failure.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ByteCursor, ByteSourceError } from "../../../shared/web/warc/byte-cursor.ts";
import { inflateHeldMember, inflateWholeMember, isGzipMagic } from "../../../shared/web/warc/gzip-member.ts";
import { DATA, gzipRecords, htmlResponse } from "./warc-helpers.ts";

/** `bytes` in chunks of `size`, then (optionally) a failure instead of the end. */
async function* chunks(bytes: Buffer, size: number, fail?: Error): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  if (fail) throw fail;
}

/** The byte lengths of the members of a per-record gzip file (each member's compressed size). */
function memberSizes(records: Buffer[]): number[] {
  return records.map((r) => gzipRecords([r]).length);
}

/** Text that compresses to about half: hex digits of a fixed pseudo-random sequence. */
function hexText(n: number, seed: number): string {
  let x = seed;
  let s = "";
  while (s.length < n) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    s += x.toString(16);
  }
  return s.slice(0, n);
}

// members larger than what is held at first (64 KiB) and than the chunks, of different sizes
const pages = Array.from({ length: 5 }, (_, i) => htmlResponse(`https://example.org/${i}`, `<p>${hexText(150_000 + i * 9_973, i + 1)}</p>`));
const file = gzipRecords(pages);
const sizes = memberSizes(pages);

describe("a member is inflated whole, once", () => {
  it("reads on until a later member's header is held, then gives the member and stands at the next", async () => {
    expect(Math.min(...sizes)).toBeGreaterThan(64 * 1024);
    for (const size of [4096, 65_536]) {
      const cur = new ByteCursor(chunks(file, size));
      let at = 0;
      for (let m = 0; m < pages.length; m++) {
        const held = inflateHeldMember(cur);
        const whole = held !== undefined ? held : await inflateWholeMember(cur);
        expect(whole !== null && whole.equals(pages[m]!)).toBe(true);
        at += sizes[m]!;
        expect(cur.position).toBe(at);
        // the next member's header was read before this one was inflated (the last one's input ended)
        if (m + 1 < pages.length) expect(isGzipMagic(cur.buffered)).toBe(true);
      }
      expect(await cur.fill(1)).toBe(false);
    }
  });

  it("a source failing while it reads ahead still gives the member held; the next read fails with the same error", async () => {
    const first = sizes[0]!;
    for (const extra of [0, 1, 2]) {
      const error = new Error("connection reset");
      // the first member whole and the next one's first bytes (too few to show its header), then a failure
      const cur = new ByteCursor(chunks(file.subarray(0, first + extra), 70_000, error));
      expect((await inflateWholeMember(cur))?.equals(pages[0]!)).toBe(true);
      expect(cur.position).toBe(first);
      const failed = await cur.fill(first + 10).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ByteSourceError);
      expect((failed as ByteSourceError).cause).toBe(error);
      await expect(cur.more()).rejects.toBe(failed); // and every read after it
    }
  });

  it("a gzip header inside a member's data (its size read from the bytes before it) changes nothing inflated", async () => {
    // stored (level 0) members keep their data as it is: here a fake trailer claiming 4 GB, 7 bytes or
    // 0 bytes, then a gzip header, inside the first member; the real next member follows
    for (const claimed of [0xffffffff, 7, 0]) {
      const fake = Buffer.alloc(8);
      fake.writeUInt32LE(claimed, 4);
      const data = Buffer.concat([Buffer.from(hexText(3000, 9)), fake, Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.from(hexText(2000, 10))]);
      const second = Buffer.from(hexText(5000, 11));
      const bytes = Buffer.concat([gzipSync(data, { level: 0 }), gzipSync(second), Buffer.alloc(70_000)]);
      const cur = new ByteCursor(chunks(bytes, 100_000));
      await cur.fill(1);
      const whole = inflateHeldMember(cur) ?? (await inflateWholeMember(cur));
      expect(whole?.equals(data)).toBe(true);
      const next = inflateHeldMember(cur) ?? (await inflateWholeMember(cur));
      expect(next?.equals(second)).toBe(true);
    }
  });

  it("a cursor keeps the chunks it read before a failure in the middle of a fill", async () => {
    const bytes = readFileSync(`${DATA}commoncrawl-whirlwind.warc.gz`);
    const cur = new ByteCursor(chunks(bytes.subarray(0, 5000), 1000, new Error("gone")));
    await expect(cur.fill(10_000)).rejects.toBeInstanceOf(ByteSourceError);
    expect(cur.buffered.equals(bytes.subarray(0, 5000))).toBe(true);
    expect(gunzipSync(bytes).subarray(0, 8).toString("latin1")).toBe("WARC/1.0");
  });
});

import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { sniffFormat } from "../../shared/dump/magic.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { bunzip, collectUntilError, DUMPSTER_DIVE, GENSIM, HISTORY_0000, sha, tmp, WIKIPEDIA2VEC_09 } from "./real-data.ts";

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe("sniffFormat", () => {
  it("tells bz2, gzip, plain and unsupported compressions apart by magic bytes", () => {
    expect(sniffFormat(readFileSync(GENSIM).subarray(0, 6))).toBe("bz2");
    expect(sniffFormat(gzipSync(Buffer.from("<mediawiki/>")).subarray(0, 6))).toBe("gzip");
    expect(sniffFormat(readFileSync(DUMPSTER_DIVE).subarray(0, 6))).toBe("plain");
    expect(sniffFormat(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))).toEqual({ unsupported: "xz" });
    // "BZh" without a block-size digit is not bz2
    expect(sniffFormat(Buffer.from("BZhx__"))).toBe("plain");
  });
});

describe("openDumpStream", () => {
  it("decodes bz2 identically with the system binary and the pure-JS decoder", async () => {
    const expected = sha(bunzip(HISTORY_0000));
    expect(sha(await readAll(openDumpStream(HISTORY_0000, { decoder: "system" })))).toBe(expected);
    expect(sha(await readAll(openDumpStream(HISTORY_0000, { decoder: "js" })))).toBe(expected);
  });

  it("decodes every stream of a multi-stream bz2 in both modes", async () => {
    const dir = tmp();
    const multi = join(dir, "two-streams.bz2");
    writeFileSync(multi, Buffer.concat([readFileSync(WIKIPEDIA2VEC_09), readFileSync(HISTORY_0000)]));
    const expected = sha(Buffer.concat([bunzip(WIKIPEDIA2VEC_09), bunzip(HISTORY_0000)]));
    expect(sha(await readAll(openDumpStream(multi, { decoder: "system" })))).toBe(expected);
    expect(sha(await readAll(openDumpStream(multi, { decoder: "js" })))).toBe(expected);
  });

  it("reads a byte range holding one whole stream", async () => {
    const dir = tmp();
    const multi = join(dir, "two-streams.bz2");
    const first = readFileSync(WIKIPEDIA2VEC_09);
    writeFileSync(multi, Buffer.concat([first, readFileSync(HISTORY_0000)]));
    const second = await readAll(openDumpStream(multi, { start: first.length }));
    expect(sha(second)).toBe(sha(bunzip(HISTORY_0000)));
    const firstOnly = await readAll(openDumpStream(multi, { start: 0, end: first.length, decoder: "js" }));
    expect(sha(firstOnly)).toBe(sha(bunzip(WIKIPEDIA2VEC_09)));
  });

  it("passes plain XML through and decodes gzip (sniffed, whatever the name)", async () => {
    const xml = readFileSync(DUMPSTER_DIVE);
    expect(sha(await readAll(openDumpStream(DUMPSTER_DIVE)))).toBe(sha(xml));
    const dir = tmp();
    const misnamed = join(dir, "dump.xml"); // gzip content under an .xml name
    writeFileSync(misnamed, gzipSync(xml));
    expect(sha(await readAll(openDumpStream(misnamed)))).toBe(sha(xml));
  });

  for (const decoder of ["system", "js"] as const) {
    it(`turns a truncated bz2 into a DumpError after the good bytes (${decoder})`, async () => {
      const dir = tmp();
      const half = join(dir, "half.bz2");
      const whole = readFileSync(GENSIM);
      writeFileSync(half, whole.subarray(0, Math.floor(whole.length / 2)));
      const { items, error } = await collectUntilError(openDumpStream(half, { decoder }) as AsyncIterable<Buffer>);
      expect(error).toBeInstanceOf(DumpError);
      const e = error as DumpError;
      expect(e.file).toBe(half);
      expect(e.message).toContain(half);
      expect(e.message).toMatch(/truncated or corrupt/);
      // The offset is what was delivered, and what was delivered is a true prefix of the dump.
      const delivered = Buffer.concat(items);
      expect(e.offset).toBe(delivered.length);
      const full = bunzip(GENSIM);
      expect(delivered.length).toBeLessThan(full.length);
      expect(delivered.equals(full.subarray(0, delivered.length))).toBe(true);
      // unbzip2-stream decodes block by block, so it deterministically delivers the good blocks first
      if (decoder === "js") expect(delivered.length).toBeGreaterThan(1_000_000);
    });
  }

  it("delivers the same longest good prefix of a truncated bz2 with the system binary, run after run", async () => {
    const bin = findSystemBzip2();
    if (bin === null) return void console.warn("skipped: needs lbzip2 or bzip2 on PATH");
    const dir = tmp();
    const cut = join(dir, "cut.bz2");
    writeFileSync(cut, readFileSync(GENSIM).subarray(0, 900_000));
    // Alone, lbzip2 writes 0 to 2,702,200 bytes of this file and bzip2 2,700,000 (its last buffer is lost).
    const alone = spawnSync(bin, ["-dc", cut], { maxBuffer: 1 << 28 }).stdout;
    const { items: jsItems } = await collectUntilError(openDumpStream(cut, { decoder: "js" }) as AsyncIterable<Buffer>);
    const expected = Buffer.concat(jsItems);
    expect(expected.length).toBeGreaterThanOrEqual(alone.length);
    expect(expected.equals(bunzip(GENSIM).subarray(0, expected.length))).toBe(true);
    for (let round = 0; round < 3; round++) {
      const { items, error } = await collectUntilError(openDumpStream(cut, { decoder: "system" }) as AsyncIterable<Buffer>);
      expect(error).toBeInstanceOf(DumpError);
      const delivered = Buffer.concat(items);
      expect(delivered.length).toBe(expected.length);
      expect(delivered.equals(expected)).toBe(true);
      expect((error as DumpError).offset).toBe(expected.length);
    }
  });

  it("turns truncated gzip into a DumpError", async () => {
    const dir = tmp();
    const gz = join(dir, "cut.xml.gz");
    const whole = gzipSync(readFileSync(DUMPSTER_DIVE));
    writeFileSync(gz, whole.subarray(0, whole.length - 20));
    const { error } = await collectUntilError(openDumpStream(gz) as AsyncIterable<Buffer>);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toMatch(/gzip data is truncated or corrupt/);
  });

  it("names compressions it cannot read (xz, zstd and 7z are read: external-decoders.test.ts)", async () => {
    const dir = tmp();
    // a zip's local file header, then the dump
    const zip = join(dir, "dump.xml.bz2");
    writeFileSync(zip, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), readFileSync(DUMPSTER_DIVE)]));
    const { error } = await collectUntilError(openDumpStream(zip) as AsyncIterable<Buffer>);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toMatch(/zip-compressed input is not supported/);
  });

  it("stops the decoder when the consumer stops early", async () => {
    const stream = openDumpStream(GENSIM, { decoder: "system" });
    for await (const _ of stream) break;
    expect((stream as unknown as { destroyed: boolean }).destroyed).toBe(true);
  });
});

describe("findSystemBzip2", () => {
  it("finds lbzip2 or bzip2 on a PATH and nothing on an empty one", async () => {
    const { findSystemBzip2 } = await import("../../shared/dump/bz2-decoders.ts");
    expect(findSystemBzip2("")).toBeNull();
    expect(findSystemBzip2("/nonexistent:/usr/bin")).toMatch(/\/usr\/bin\/l?bzip2$/);
  });
});

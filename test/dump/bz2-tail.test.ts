/**
 * Bytes after the last bz2 stream (bz2-tail.ts): every decoder — lbzip2, bzip2 (one child per job)
 * and the JS block decoder — reads a real dump with garbage appended to the same revisions, the
 * same dump.* counters (dump.trailing_bytes) and the same error, as the sequential JS decoder does.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { findStreamsEnd, scanStreamsEnd } from "../../shared/dump/bz2-tail.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { bunzip, collectUntilError, fingerprint, TABLE_MARKUP } from "./real-data.ts";
import { withOnlyOnPath } from "./decoder-setup.ts";

afterAll(removeTempDirs);

const LBZIP2 = findSystemBzip2(undefined, ["lbzip2"]);
const BZIP2 = findSystemBzip2(undefined, ["bzip2"]);

interface Read {
  revisions: string[];
  counters: Record<string, number>;
  error: string | null;
}

async function read(file: string, decoder: "system" | "js"): Promise<Read> {
  const counters = new Counters();
  const { items, error } = await collectUntilError(readDumpPages(file, { counters, decoder }));
  if (error !== null && !(error instanceof DumpError)) throw error;
  return { revisions: items.map(fingerprint), counters: counters.toJSON(), error: error === null ? null : (error as DumpError).message };
}

/** The read with each decoder there is, by name. */
async function everyDecoder(file: string): Promise<Record<string, Read>> {
  const out: Record<string, Read> = { js: await read(file, "js") };
  if (LBZIP2) out.lbzip2 = await withOnlyOnPath(LBZIP2, "lbzip2", () => read(file, "system"));
  else console.warn("lbzip2 not on PATH: not compared");
  if (BZIP2) out.bzip2 = await withOnlyOnPath(BZIP2, "bzip2", () => read(file, "system"));
  else console.warn("bzip2 not on PATH: not compared");
  return out;
}

function bzip2(data: Buffer): Buffer {
  return execFileSync("bzip2", ["-c"], { input: data, maxBuffer: 1 << 30 });
}

function withTail(source: string, tail: Buffer, name: string): string {
  const file = join(tempDir("paracap-tail-"), name);
  writeFileSync(file, Buffer.concat([readFileSync(source), tail]));
  return file;
}

describe("bytes after the last bz2 stream", () => {
  const text = Buffer.from("some garbage appended by a careless upload\n");
  // the same XML as two bz2 streams (a multi-stream file)
  const xml = bunzip(TABLE_MARKUP);
  const half = xml.length >> 1;
  const twoStreams = Buffer.concat([bzip2(xml.subarray(0, half)), bzip2(xml.subarray(half))]);
  const cases: Array<{ name: string; source: string; tail: Buffer; trailing: number | null }> = [
    { name: "text.xml.bz2", source: TABLE_MARKUP, tail: text, trailing: text.length },
    { name: "three-zeros.xml.bz2", source: TABLE_MARKUP, tail: Buffer.alloc(3), trailing: 3 },
    // garbage longer than what lbzip2 reads ahead: it stops reading
    { name: "long.xml.bz2", source: TABLE_MARKUP, tail: Buffer.alloc(3 << 20, "no magic here "), trailing: 3 << 20 },
    // a stream header with no block after it is damage, not trailing bytes: the binaries fail on it too
    { name: "header.xml.bz2", source: TABLE_MARKUP, tail: Buffer.from("BZh9garbage"), trailing: null },
  ];

  it("are counted the same by lbzip2, bzip2 and the JS decoder, and the revisions before them are all read", async () => {
    const clean = await everyDecoder(TABLE_MARKUP);
    expect(clean.js!.counters["dump.trailing_bytes"]).toBeUndefined();
    for (const c of cases) {
      const file = withTail(c.source, c.tail, c.name);
      const got = await everyDecoder(file);
      for (const [decoder, r] of Object.entries(got)) {
        expect({ decoder, ...r }, c.name).toEqual({ decoder, ...got.js! });
      }
      const js = got.js!;
      if (c.trailing === null) {
        expect(js.error, c.name).toMatch(/no block header where a block should start/);
        expect(js.counters["dump.damaged_blocks"]).toBe(1);
      } else {
        expect(js.error, c.name).toBeNull();
        expect(js.counters["dump.trailing_bytes"], c.name).toBe(c.trailing);
      }
      expect(js.revisions, c.name).toEqual(clean.js!.revisions);
      expect({ ...js.counters, "dump.trailing_bytes": 0, "dump.damaged_blocks": 0, "dump.damaged_bytes": 0 }).toEqual({ ...clean.js!.counters, "dump.trailing_bytes": 0, "dump.damaged_blocks": 0, "dump.damaged_bytes": 0 });
    }
    // a multi-stream file with garbage after its last stream
    const multi = writeMulti(Buffer.concat([twoStreams, text]));
    const got = await everyDecoder(multi);
    for (const [decoder, r] of Object.entries(got)) expect({ decoder, ...r }).toEqual({ decoder, ...got.js! });
    expect(got.js!.error).toBeNull();
    expect(got.js!.counters["dump.trailing_bytes"]).toBe(text.length);
    expect(got.js!.revisions).toEqual(clean.js!.revisions);

    // garbage between two streams, the second far smaller than what lbzip2 reads ahead: lbzip2
    // stops at the garbage and exits 0 having read the whole input, so only the layout tells
    const between = await everyDecoder(writeMulti(Buffer.concat([bzip2(xml.subarray(0, half)), text, bzip2(xml.subarray(half))])));
    for (const [decoder, r] of Object.entries(between)) expect({ decoder, ...r }).toEqual({ decoder, ...between.js! });
    expect(between.js!.counters["dump.damaged_bytes"] ?? between.js!.counters["dump.trailing_bytes"]).toBeGreaterThan(0);
    expect(between.js!.revisions.length).toBeGreaterThan(0);
  });

  function writeMulti(data: Buffer): string {
    const file = join(tempDir("paracap-tail-"), "multi.xml.bz2");
    writeFileSync(file, data);
    return file;
  }

  it("are found by the streams' layout, after the last stream or between two", async () => {
    const data = readFileSync(TABLE_MARKUP);
    expect(await findStreamsEnd(Readable.from([data]))).toBe("clean");
    expect(await findStreamsEnd(Readable.from([twoStreams]))).toBe("clean");
    const first = bzip2(xml.subarray(0, half));
    const mid = await findStreamsEnd(Readable.from([Buffer.concat([first, text, bzip2(xml.subarray(half))])]));
    expect(mid).not.toBeNull();
    expect(mid).not.toBe("clean");
    expect((mid as Exclude<typeof mid, "clean" | null>).at).toBe(first.length);
    for await (const _ of (mid as Exclude<typeof mid, "clean" | null>).rest); // closes the file the scan holds
    const end = await findStreamsEnd(Readable.from([Buffer.concat([data, text])]));
    expect(end).not.toBeNull();
    expect(end).not.toBe("clean");
    const { at, rest } = end as Exclude<typeof end, "clean" | null>;
    expect(at).toBe(data.length);
    const after: Buffer[] = [];
    for await (const c of rest) after.push(c);
    expect(Buffer.concat(after).equals(text)).toBe(true);
  });

  /** A source of `data` in 64 KiB pieces that says whether it was read to its end or closed. */
  function tracked(data: Buffer): { src: AsyncIterable<Buffer>; state: () => "open" | "ended" | "closed" } {
    let state: "open" | "ended" | "closed" = "open";
    async function* pieces(): AsyncGenerator<Buffer> {
      try {
        for (let i = 0; i < data.length; i += 64 << 10) yield data.subarray(i, i + (64 << 10));
        state = "ended";
      } finally {
        if (state === "open") state = "closed";
      }
    }
    return { src: pieces(), state: () => state };
  }

  it("scanned beside the decoder: the same answer, and a cancelled scan closes its input (also the rest it held)", async () => {
    const data = readFileSync(TABLE_MARKUP);
    const whole = tracked(data);
    const scan = scanStreamsEnd(whole.src);
    expect(await scan.end).toBe("clean");
    await scan.cancel();
    expect(whole.state()).toBe("ended");

    // the decoder failed or the reader stopped before the scan's end: it stops and closes its input
    const big = Buffer.concat([twoStreams, twoStreams, twoStreams, twoStreams]);
    const early = tracked(big);
    const stopped = scanStreamsEnd(early.src);
    await stopped.cancel();
    expect(early.state()).toBe("closed");
    expect(await stopped.end).toBeNull();

    // a scan that found bytes after the streams holds the input's rest: cancel closes it
    const trailing = tracked(Buffer.concat([data, text, text, text]));
    const held = scanStreamsEnd(trailing.src);
    const end = await held.end;
    expect(end).not.toBe("clean");
    expect(end).not.toBeNull();
    expect(trailing.state()).toBe("open");
    await held.cancel();
    expect(trailing.state()).toBe("closed");
  });
});

/**
 * Bytes after the last bz2 stream (bz2-tail.ts): every decoder — lbzip2, bzip2 (one child per job)
 * and the JS block decoder — reads a real dump with garbage appended to the same revisions, the
 * same dump.* counters (dump.trailing_bytes) and the same error, as the sequential JS decoder does.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { findSystemBzip2 } from "../../shared/dump/bz2-decoders.ts";
import { findStreamsEnd, layoutStreamsEnd, scanStreamsEnd, streamsEndChecks, streamsFillInput, type StreamsEndScan } from "../../shared/dump/bz2-tail.ts";
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
    expect(await findStreamsEnd(() => Readable.from([data]))).toBe("clean");
    expect(await findStreamsEnd(() => Readable.from([twoStreams]))).toBe("clean");
    const first = bzip2(xml.subarray(0, half));
    const mid = await findStreamsEnd(() => Readable.from([Buffer.concat([first, text, bzip2(xml.subarray(half))])]));
    expect(mid).not.toBeNull();
    expect(mid).not.toBe("clean");
    expect((mid as Exclude<typeof mid, "clean" | null>).at).toBe(first.length);
    for await (const _ of (mid as Exclude<typeof mid, "clean" | null>).rest); // closes the file the scan holds
    const end = await findStreamsEnd(() => Readable.from([Buffer.concat([data, text])]));
    expect(end).not.toBeNull();
    expect(end).not.toBe("clean");
    const { at, rest } = end as Exclude<typeof end, "clean" | null>;
    expect(at).toBe(data.length);
    const after: Buffer[] = [];
    for await (const c of rest) after.push(c);
    expect(Buffer.concat(after).equals(text)).toBe(true);
  });

  /** An opener of `data` in 64 KiB pieces that says whether each source it opened was read to its end or closed. */
  function tracked(data: Buffer): { open: () => AsyncIterable<Buffer>; states: () => Array<"open" | "ended" | "closed"> } {
    const states: Array<"open" | "ended" | "closed"> = [];
    async function* pieces(n: number): AsyncGenerator<Buffer> {
      try {
        for (let i = 0; i < data.length; i += 64 << 10) yield data.subarray(i, i + (64 << 10));
        states[n] = "ended";
      } finally {
        if (states[n] === "open") states[n] = "closed";
      }
    }
    return {
      open: () => {
        states.push("open");
        return pieces(states.length - 1);
      },
      states: () => states,
    };
  }

  it("scanned beside the decoder: the same answer, and a cancelled scan closes its input (also the rest it held)", async () => {
    const data = readFileSync(TABLE_MARKUP);
    const whole = tracked(data);
    const scan = scanStreamsEnd(whole.open);
    expect(await scan.end).toBe("clean");
    await scan.cancel();
    // proven clean by the quick pass: read once
    expect(whole.states()).toEqual(["ended"]);

    // the decoder failed or the reader stopped before the scan's end: it stops and closes its input
    const big = Buffer.concat([twoStreams, twoStreams, twoStreams, twoStreams]);
    const early = tracked(big);
    const stopped = scanStreamsEnd(early.open);
    await stopped.cancel();
    expect(early.states()).toEqual(["closed"]);
    expect(await stopped.end).toBeNull();

    // a scan that found bytes after the streams holds the input's rest: cancel closes it
    const trailing = tracked(Buffer.concat([data, text, text, text]));
    const held = scanStreamsEnd(trailing.open);
    const end = await held.end;
    expect(end).not.toBe("clean");
    expect(end).not.toBeNull();
    // the quick pass gave up and closed its source; the layout scan's is held
    expect(trailing.states()).toEqual(["closed", "open"]);
    await held.cancel();
    expect(trailing.states()).toEqual(["closed", "closed"]);

    // cancelled while the layout scan runs (after the quick pass gave up at the garbage): it stops and closes its input
    const late = tracked(Buffer.concat([big, text]));
    let lateScan: StreamsEndScan | undefined;
    const opened = (): AsyncIterable<Buffer> => {
      const src = late.open();
      if (late.states().length === 1) return src;
      return (async function* () {
        let pieces = 0;
        for await (const c of src) {
          // once the layout scan has read its second piece
          if (++pieces === 2) void lateScan!.cancel();
          yield c;
        }
      })();
    };
    lateScan = scanStreamsEnd(opened);
    expect(await lateScan.end).toBeNull();
    await lateScan.cancel();
    expect(late.states()).toEqual(["closed", "closed"]);
  });
});

/** Every answer of findStreamsEnd (quick pass, then the layout scan if it gives up) and of the layout scan alone, on `data` cut into `pieces`. */
async function bothAnswers(data: Buffer, pieces: number[] = [data.length]): Promise<{ quick: boolean; found: string; layout: string; took: "quick" | "layout" }> {
  const open = () => Readable.from(cut(data, pieces));
  const show = async (r: Awaited<ReturnType<typeof layoutStreamsEnd>>): Promise<string> => {
    if (r === null || r === "clean") return String(r);
    const rest: Buffer[] = [];
    for await (const c of r.rest) rest.push(c);
    const tail = Buffer.concat(rest);
    expect(tail.equals(data.subarray(r.at))).toBe(true);
    return `after ${r.at}`;
  };
  const before = { ...streamsEndChecks };
  const found = await show(await findStreamsEnd(open));
  const took = streamsEndChecks.quick > before.quick ? "quick" : "layout";
  expect(streamsEndChecks.quick + streamsEndChecks.layout).toBe(before.quick + before.layout + 1);
  return { quick: await streamsFillInput(open()), found, layout: await show(await layoutStreamsEnd(open())), took };
}

/** `data` in pieces of the given sizes, taken in turn (the last piece holds what is left). */
function cut(data: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0, n = 0; i < data.length; n++) {
    const size = Math.max(1, sizes[n % sizes.length]!);
    out.push(data.subarray(i, i + size));
    i += size;
  }
  return out;
}

/** Chunkings: whole, 1 MiB and 64 KiB (as read from a file), and small odd pieces that split headers and magics. */
const CHUNKINGS: number[][] = [[1 << 30], [1 << 20], [64 << 10], [7], [1, 2, 3, 5, 8, 13, 4099]];

describe("the quick pass over the streams' layout", () => {
  const EMPTY = execFileSync("bzip2", ["-c"], { input: Buffer.alloc(0) });
  const ALL_DATA = new URL("../../../shared/data/", import.meta.url).pathname;
  const files = [
    ...readdirSync(ALL_DATA, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".bz2"))
      .map((f) => join(ALL_DATA, f)),
    TABLE_MARKUP,
  ];

  it("proves every real file clean, single- or multi-stream, with empty streams, however it is cut", async () => {
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const data = readFileSync(f);
      for (const pieces of data.length > 200_000 ? CHUNKINGS.slice(1, 3) : CHUNKINGS) {
        expect({ f, pieces, ...(await bothAnswers(data, pieces)) }).toEqual({ f, pieces, quick: true, found: "clean", layout: "clean", took: "quick" });
      }
    }
    const small = readFileSync(TABLE_MARKUP);
    const xml = bunzip(TABLE_MARKUP);
    const half = xml.length >> 1;
    const clean = [
      Buffer.concat([bzip2(xml.subarray(0, half)), bzip2(xml.subarray(half))]),
      Buffer.concat([small, small, small]),
      EMPTY,
      Buffer.concat([EMPTY, small, EMPTY, EMPTY, small, EMPTY]),
      Buffer.alloc(0),
    ];
    for (const [i, data] of clean.entries()) {
      for (const pieces of CHUNKINGS) expect({ i, pieces, ...(await bothAnswers(data, pieces)) }).toEqual({ i, pieces, quick: true, found: "clean", layout: "clean", took: "quick" });
    }
  });

  it("gives up on anything else, and the layout scan answers: trailing or in-between garbage, truncation, a fake header in the data, a bad CRC", async () => {
    const data = readFileSync(TABLE_MARKUP);
    const xml = bunzip(TABLE_MARKUP);
    const half = xml.length >> 1;
    const first = bzip2(xml.subarray(0, half));
    const second = bzip2(xml.subarray(half));
    const text = Buffer.from("some garbage appended by a careless upload\n");
    // garbage between two streams that ends the way a stream does: end-of-stream magic, a CRC, padding
    const eosLike = Buffer.concat([text, Buffer.from([0x17, 0x72, 0x45, 0x38, 0x50, 0x90, 1, 2, 3, 4])]);
    // a stream header with its first block magic, byte-aligned, inside a block's compressed data
    const fakeHeader = Buffer.from([0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59]);
    const mid = data.length >> 1;
    const set = (at: number, byte: number): Buffer => {
      const out = Buffer.from(data);
      out[at] = byte;
      return out;
    };
    const flip = (at: number, bit = 1): Buffer => {
      const out = Buffer.from(data);
      out[at]! ^= bit;
      return out;
    };
    const cases: Record<string, Buffer> = {
      trailing: Buffer.concat([data, text]),
      "trailing zeros": Buffer.concat([data, Buffer.alloc(3)]),
      "trailing header": Buffer.concat([data, Buffer.from("BZh9garbage")]),
      "trailing empty-stream header": Buffer.concat([data, EMPTY.subarray(0, 10)]),
      between: Buffer.concat([first, text, second]),
      "between, ending like a stream": Buffer.concat([first, eosLike, second]),
      "between empty streams": Buffer.concat([EMPTY, text, EMPTY]),
      "fake header inserted": Buffer.concat([data.subarray(0, mid), fakeHeader, data.subarray(mid)]),
      "fake header written over": Buffer.concat([data.subarray(0, mid), fakeHeader, data.subarray(mid + fakeHeader.length)]),
      "fake header at a stream's end": Buffer.concat([first, fakeHeader, second]),
      "first block's CRC": flip(11),
      "stream CRC": flip(data.length - 2, 0x10),
      "padding bit": flip(data.length - 1, 1),
      "no header": data.subarray(4),
      "block size 0": set(3, 0x30),
      "block size 10": set(3, 0x3a),
      "a byte after the header": Buffer.concat([data.subarray(0, 4), Buffer.from("x"), data.subarray(4)]),
      "a byte after the second header": Buffer.concat([first, second.subarray(0, 4), Buffer.alloc(1), second.subarray(4)]),
      "garbage first": Buffer.concat([text, data]),
    };
    for (const n of [1, 2, 3, 4, 5, 9, 10, 11, 14, mid, data.length - 11, data.length - 10, data.length - 6, data.length - 5, data.length - 4, data.length - 1]) {
      cases[`cut at ${n}`] = data.subarray(0, n);
    }
    cases["second stream cut"] = Buffer.concat([first, second.subarray(0, second.length - 3)]);
    for (const [name, bytes] of Object.entries(cases)) {
      for (const pieces of [CHUNKINGS[0]!, CHUNKINGS[2]!, CHUNKINGS[4]!]) {
        const got = await bothAnswers(bytes, pieces);
        expect({ name, pieces, found: got.found }).toEqual({ name, pieces, found: got.layout });
        // a padding bit set is not looked at by the layout scan: still clean
        if (got.layout === "clean") expect({ name, ...got }).toMatchObject({ quick: true, took: "quick" });
        else expect({ name, ...got }).toMatchObject({ quick: false, took: "layout" });
      }
    }
    // a block's end further than a block reaches: the layout scan's answer depends on how the input is cut
    // (a stream of one block whose CRC is right, but whose end-of-stream magic is 2.4 MB away)
    const far = Buffer.concat([data.subarray(0, 14), Buffer.alloc(2_400_000), EMPTY.subarray(4, 10), data.subarray(10, 14)]);
    for (const pieces of CHUNKINGS.slice(0, 3)) {
      const got = await bothAnswers(far, pieces);
      expect({ pieces, ...got }).toEqual({ pieces, quick: false, took: "layout", found: got.layout, layout: pieces[0] === 64 << 10 ? "null" : "clean" });
    }
    expect((await bothAnswers(cases["fake header inserted"]!)).layout).toBe("null");
    expect((await bothAnswers(cases["first block's CRC"]!)).layout).toBe("null");
    expect((await bothAnswers(cases["between, ending like a stream"]!)).layout).toBe(`after ${first.length}`);
  });

  it("agrees with the layout scan on made-up layouts: magics at every bit shift, stray magics, cut anywhere", async () => {
    // layouts the scan cannot tell from bzip2's (it decodes nothing): random "compressed" bits between magics
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return Math.floor((seed / 2 ** 32) * n);
    };
    const BLOCK = [0x314159, 0x265359];
    const EOS = [0x177245, 0x385090];
    let quickClean = 0;
    let stray = 0;
    for (let round = 0; round < 300; round++) {
      const bits: number[] = [];
      const put = (v: number, n: number) => {
        for (let i = n - 1; i >= 0; i--) bits.push((v >>> i) & 1);
      };
      /** bits of blocks' data with 60 more after them, where a stray magic can be put */
      const inside: number[] = [];
      for (let st = 1 + rand(3); st > 0; st--) {
        for (const c of "BZh") put(c.charCodeAt(0), 8);
        put(0x31 + rand(9), 8);
        let combined = 0;
        for (let b = rand(4); b > 0; b--) {
          put(BLOCK[0]!, 24);
          put(BLOCK[1]!, 24);
          const crc = rand(2 ** 32);
          put(crc, 32);
          combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
          for (let n = rand(300); n > 0; n--) {
            if (n > 60 && rand(4) === 0) inside.push(bits.length);
            bits.push(rand(2));
          }
        }
        put(EOS[0]!, 24);
        put(EOS[1]!, 24);
        put(combined, 32);
        while (bits.length % 8 !== 0) bits.push(0);
      }
      const bytes = (b: number[]) => {
        const out = Buffer.alloc(b.length >> 3);
        for (let i = 0; i < b.length; i++) out[i >> 3]! |= b[i]! << (7 - (i & 7));
        return out;
      };
      const whole = bytes(bits);
      const variants: Record<string, Buffer> = { clean: whole, cut: whole.subarray(0, rand(whole.length)), trailing: Buffer.concat([whole, whole.subarray(0, 1 + rand(12))]) };
      if (inside.length > 0) {
        // a magic of either kind at any bit inside a block's data
        const at = inside[rand(inside.length)]!;
        const magic = rand(2) === 0 ? BLOCK : EOS;
        const b = bits.slice();
        for (let i = 0; i < 48; i++) b[at + i] = (i < 24 ? magic[0]! >>> (23 - i) : magic[1]! >>> (47 - i)) & 1;
        variants.stray = bytes(b);
        stray++;
      }
      for (const [v, data] of Object.entries(variants)) {
        const pieces = [1 + rand(20), 1 + rand(3), 1 + rand(40)];
        const got = await bothAnswers(data, pieces);
        expect({ round, v, found: got.found, quick: got.quick }).toEqual({ round, v, found: got.layout, quick: got.layout === "clean" });
        if (v === "clean") expect(got.took).toBe("quick");
        if (v === "stray") expect(got.layout).not.toBe("clean");
        if (got.quick) quickClean++;
      }
    }
    expect(quickClean).toBeGreaterThanOrEqual(300);
    expect(stray).toBeGreaterThan(100);
  });
});

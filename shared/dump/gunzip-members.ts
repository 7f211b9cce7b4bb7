/**
 * gzip decoding member by member, as gzip itself reads: concatenated members are read to the end,
 * and bytes after the last member that do not start another one are trailing garbage, counted and
 * ignored (gzip warns "trailing garbage ignored"). Node's gunzip instead fails on them and drops
 * the output it had not yet pushed. Each member's header is parsed here; its deflate data is
 * inflated by zlib (inflateRaw stops exactly at the member's end), and its trailer is checked.
 */
import { createInflateRaw, crc32 as zlibCrc32 } from "node:zlib";
import type { InputGap } from "./bz2-blocks.ts";
import { DumpError } from "./errors.ts";

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/** zlib.crc32 arrived in Node 20.15; without it only the length in the trailer is checked. */
const crc32: ((data: Uint8Array, value?: number) => number) | undefined = typeof zlibCrc32 === "function" ? zlibCrc32 : undefined;

/** Length of the gzip member header at buf[0..], 0 if buf does not start one, -1 if more bytes are needed. */
function headerLength(buf: Buffer, ended: boolean): number {
  if (buf.length < 10) return ended || (buf.length >= 1 && buf[0] !== 0x1f) || (buf.length >= 2 && buf[1] !== 0x8b) ? 0 : -1;
  if (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8 || (buf[3]! & 0xe0) !== 0) return 0;
  const flags = buf[3]!;
  let at = 10;
  if (flags & FEXTRA) {
    if (buf.length < at + 2) return ended ? 0 : -1;
    at += 2 + buf.readUInt16LE(at);
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (flags & flag) {
      const nul = buf.indexOf(0, at);
      if (nul < 0) return ended ? 0 : -1;
      at = nul + 1;
    }
  }
  if (flags & FHCRC) at += 2;
  if (buf.length < at) return ended ? 0 : -1;
  return at;
}

/**
 * Decompressed bytes of gzip input. Damaged members end the stream with a DumpError (after the
 * bytes before them); trailing garbage after a good member is reported to `onTrailing` (as a
 * gap of kind "trailing") and ignored.
 */
export async function* gunzipMembers(src: AsyncIterable<Buffer>, file: string, onTrailing?: (gap: InputGap) => void): AsyncGenerator<Buffer> {
  const it = src[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  /** input offset of buf[0] */
  let offset = 0;
  let ended = false;
  let decoded = 0;
  let members = 0;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const r = await it.next();
    if (r.done) {
      ended = true;
      return false;
    }
    buf = buf.length === 0 ? r.value : Buffer.concat([buf, r.value]);
    return true;
  };
  const corrupt = (why: string): DumpError => new DumpError(file, decoded, `gzip data is truncated or corrupt (${why})`);

  try {
    for (;;) {
      let hlen = headerLength(buf, ended);
      while (hlen < 0 || (buf.length === 0 && !ended)) {
        if (!(await more())) break;
        hlen = headerLength(buf, ended);
      }
      if (buf.length === 0 && ended) {
        if (members === 0) throw corrupt("empty input");
        return;
      }
      if (hlen <= 0) {
        if (members === 0) throw corrupt("no gzip header");
        // trailing garbage (zero padding included): read to the end, count it, keep what was read
        let skipped = buf.length;
        const at = offset;
        buf = Buffer.alloc(0);
        while (await more()) {
          skipped += buf.length;
          buf = Buffer.alloc(0);
        }
        onTrailing?.({ at: decoded, compressedAt: at, skippedBytes: skipped, blocks: 0, reason: "bytes after the last gzip member", kind: "trailing" });
        return;
      }
      buf = buf.subarray(hlen);
      offset += hlen;
      members++;

      // the member's deflate data: zlib stops at its end (bytesWritten = the compressed bytes used)
      const z = createInflateRaw();
      // the chunks fed that zlib may not have used up (the member's end is in one of them)
      const fed: Buffer[] = [];
      /** member offset of fed[0] */
      let fedStart = 0;
      let zEnded = false;
      let zError: Error | null = null;
      let sourceError: unknown = null;
      z.once("end", () => (zEnded = true));
      // once the member has ended, zlib is done with (ending the iteration destroys it: AbortError)
      z.on("error", (err) => {
        if (!zEnded) zError = err;
      });
      const feed = (chunk: Buffer): boolean => {
        while (fed.length > 0 && fedStart + fed[0]!.length <= z.bytesWritten) fedStart += fed.shift()!.length;
        fed.push(chunk);
        return z.write(chunk);
      };
      const pump = (async () => {
        if (buf.length > 0 && !feed(buf)) await drainOrEnd(z);
        buf = Buffer.alloc(0);
        while (!zEnded && zError === null && (await more())) {
          // the member may have ended while this chunk was read: it then stays in buf for the next
          if (zEnded || zError !== null) break;
          const chunk = buf;
          buf = Buffer.alloc(0);
          if (!feed(chunk)) await drainOrEnd(z);
        }
        if (!zEnded && zError === null) z.end(); // input ended inside the member
      })().catch((err: unknown) => {
        // an I/O failure of the source, not damaged data
        sourceError = err;
        z.destroy();
      });
      let crc = 0;
      let size = 0;
      try {
        for await (const out of z as AsyncIterable<Buffer>) {
          if (crc32) crc = crc32(out, crc);
          size += out.length;
          decoded += out.length;
          yield out;
        }
      } catch (err) {
        await pump;
        if (sourceError !== null) throw sourceError;
        throw corrupt(err instanceof Error ? err.message : String(err));
      }
      await pump;
      if (sourceError !== null) throw sourceError;
      if (zError !== null) throw corrupt((zError as Error).message);
      // what was fed past the member's deflate data: its trailer, then whatever follows
      const used = z.bytesWritten;
      const rest = Buffer.concat(fed).subarray(used - fedStart);
      offset += used;
      buf = buf.length > 0 ? Buffer.concat([rest, buf]) : rest;
      while (buf.length < 8 && (await more()));
      if (buf.length < 8) throw corrupt("the input ends inside a gzip member");
      const storedCrc = buf.readUInt32LE(0);
      const storedSize = buf.readUInt32LE(4);
      if (crc32 && storedCrc !== crc >>> 0) throw corrupt(`CRC mismatch in gzip member ${members}`);
      if (storedSize !== size % 2 ** 32) throw corrupt(`length mismatch in gzip member ${members}`);
      buf = buf.subarray(8);
      offset += 8;
    }
  } finally {
    await it.return?.();
  }
}

function drainOrEnd(z: NodeJS.ReadWriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      z.off("drain", done);
      z.off("end", done);
      z.off("error", done);
      z.off("close", done);
      resolve();
    };
    z.on("drain", done);
    z.on("end", done);
    z.on("error", done);
    z.on("close", done);
  });
}

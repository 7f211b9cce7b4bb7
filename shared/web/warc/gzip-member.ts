/**
 * gzip members of a per-record-compressed WARC (`.warc.gz`): one member is inflated at a time with
 * pako (warcio's own inflater), which stops exactly at the member's end, so every record knows the
 * file offset of its member, a shard can own the members that start in its range, and a damaged
 * member costs only itself. A boundary found by scanning is verified by decoding before it is trusted.
 */
import { createRequire } from "node:module";
import { constants as zlibConstants, crc32, inflateRawSync } from "node:zlib";
import type Pako from "pako";
import { ByteSourceError, type ByteCursor } from "./byte-cursor.ts";
import { RawInflater } from "./raw-inflater.ts";

export class GzipMemberError extends Error {}

const CHUNK = 16 * 1024;

export function isGzipMagic(b: Buffer, at = 0): boolean {
  return b.length >= at + 3 && b[at] === 0x1f && b[at + 1] === 0x8b && b[at + 2] === 8;
}

/** pako's Inflate as it is (its typings omit the stream state this module reads). */
type PakoInflate = Pako.Inflate & { ended: boolean; strm: { avail_in: number } };
const Z_SYNC_FLUSH = 2;

/** pako, required at its first use: every run loads this module, few stream a large member (~30 ms of CPU). */
const pako = (() => {
  let lib: typeof Pako | null = null;
  return (): typeof Pako => (lib ??= createRequire(import.meta.url)("pako") as typeof Pako);
})();

function newInflate(chunkSize: number): PakoInflate {
  return new (pako().Inflate)({ chunkSize }) as PakoInflate;
}

function asBuffer(a: Uint8Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/** Bytes of a gzip member's fixed header; flags of its optional fields (RFC 1952). */
const GZIP_HEADER = 10;
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/** Where the deflate data of the gzip member at the start of `b` begins, or null when its header is not all in `b` (or unusual). */
function deflateStart(b: Buffer): number | null {
  if (b.length < GZIP_HEADER || !isGzipMagic(b)) return null;
  const flags = b[3]!;
  if (flags & 0xe0) return null; // reserved bits: leave it to the careful path
  let at = GZIP_HEADER;
  if (flags & FEXTRA) {
    if (b.length < at + 2) return null;
    at += 2 + b.readUInt16LE(at);
  }
  for (const f of [FNAME, FCOMMENT]) {
    if (!(flags & f)) continue;
    const nul = b.indexOf(0, at);
    if (nul < 0) return null;
    at = nul + 1;
  }
  if (flags & FHCRC) at += 2;
  return at <= b.length ? at : null;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 8]);

/** zlib's smallest output chunk (Z_MIN_CHUNK) and its default (the chunk of an unknown size) */
const MIN_CHUNK = 64;
const DEFAULT_CHUNK = 16 * 1024;
/** deflate's largest expansion: 258 bytes from 2 bits, so a byte of input gives at most ~1032 */
const MAX_DEFLATE_RATIO = 1032;

/**
 * The output chunk for inflating the member whose deflate data starts at `start`: its inflated size
 * (and one byte, so the end is found without another chunk) as the trailer before the next member's
 * header gives it, when the bytes hold one. zlib then fills one buffer and returns it as it is,
 * instead of 16 KB chunks joined by a copy. A size read from bytes that only look like a header (inside
 * compressed data) costs at most a larger buffer: it is capped by the output bound and by what the
 * compressed bytes before it could inflate to, and the inflated bytes are the same whatever it is.
 */
function outputChunk(b: Buffer, start: number, maxOutput: number): number {
  const next = b.indexOf(GZIP_MAGIC, start);
  if (next < start + 8) return DEFAULT_CHUNK;
  const size = b.readUInt32LE(next - 4) + 1;
  return Math.max(MIN_CHUNK, Math.min(size, maxOutput, MAX_DEFLATE_RATIO * (next - start) + MIN_CHUNK));
}

/**
 * The native stream every member read in this thread is inflated with (reset between members; the
 * calls are synchronous, so one is never used by two at once): a cache of a zlib stream, holding no
 * data between calls.
 */
const inflater = new RawInflater();

/**
 * The whole member at the start of the cursor's buffered bytes, inflated at once with Node's native
 * zlib (several times pako's speed) when it inflates to at most `maxOutput` bytes: its bytes (the
 * member consumed), "cut" when the member goes on past the buffered bytes, or "stream" (damaged,
 * larger, an unusual header): then it is inflated as a stream with pako, which stops exactly at its end.
 */
function inflateBuffered(cur: ByteCursor, maxOutput: number): Buffer | "cut" | "stream" {
  const b = cur.buffered;
  const start = deflateStart(b);
  if (start === null) return b.length < 1024 ? "cut" : "stream";
  // a sync flush at the end: a member cut by the buffer's end inflates what it has instead of throwing
  // (an error's stack costs more than the inflation); it then used every byte, so its trailer is missing
  const input = b.subarray(start);
  const chunkSize = outputChunk(b, start, maxOutput);
  let out = inflater.inflate(input, chunkSize, zlibConstants.Z_SYNC_FLUSH);
  if (out === null) {
    try {
      const stock = inflateRawSync(input, { info: true, maxOutputLength: maxOutput, finishFlush: zlibConstants.Z_SYNC_FLUSH, chunkSize }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      out = { buffer: stock.buffer, bytesWritten: stock.engine.bytesWritten };
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === "Z_BUF_ERROR" ? "cut" : "stream";
    }
  }
  const trailer = start + out.bytesWritten;
  if (b.length < trailer + 8) return "cut";
  // the trailer: CRC-32 and length of the data (a mismatch is left to pako, which reports it)
  if (b.readUInt32LE(trailer) !== crc32(out.buffer) || b.readUInt32LE(trailer + 4) !== out.buffer.length % 2 ** 32) return "stream";
  cur.skip(trailer + 8);
  return out.buffer;
}

/**
 * Whether the bytes held, which start with a member, hold the start of a later one (or what looks like
 * it: the bytes of a gzip header may also occur inside compressed data). Without one, the member most
 * likely goes on past them, and inflating it now would inflate it twice (cut, then whole).
 */
function laterMemberHeld(b: Buffer): boolean {
  return b.indexOf(GZIP_MAGIC, 3) >= 0;
}

/** Compressed bytes held before a member is inflated at once, when the input has them. */
const AHEAD = 64 * 1024;

/** Above this a member is inflated as a stream (its body may be skipped, never held); so is one whose compressed bytes exceed it. */
export const FAST_MEMBER_BYTES = 4 * 1024 * 1024;

/**
 * The decompressed bytes of the gzip member that starts at the cursor; the cursor is left just past
 * the member (its trailer included). Damaged or cut data throws a GzipMemberError. A member whose
 * compressed bytes can be buffered and that inflates to at most `maxFast` bytes is inflated at once
 * (native zlib; the buffer grows by doubling, so a member cut by a chunk edge costs at most a few
 * retries); any other is streamed through pako, so memory stays bounded whatever the member claims.
 */
export async function* inflateMember(cur: ByteCursor, maxFast = FAST_MEMBER_BYTES): AsyncGenerator<Buffer> {
  const whole = await inflateWholeMember(cur, maxFast);
  if (whole !== null) {
    if (whole.length > 0) yield whole;
    return;
  }
  yield* inflateStreamed(cur);
}

/**
 * The member at the cursor inflated at once (native zlib) and consumed, when its compressed bytes
 * can be buffered and it inflates to at most `maxFast` bytes; else null, the cursor still at the
 * member (inflateMember then streams it).
 */
export async function inflateWholeMember(cur: ByteCursor, maxFast = FAST_MEMBER_BYTES): Promise<Buffer | null> {
  // most members are a few KB: with this much held, few are cut by the end of the buffered bytes (each cut one is inflated twice)
  let ended = cur.buffered.length < AHEAD && !(await cur.fill(AHEAD));
  // nor is one followed by the header of another: read on until one shows (or the input ends) before inflating
  while (!ended && cur.buffered.length < maxFast && !laterMemberHeld(cur.buffered)) {
    try {
      ended = !(await cur.fill(Math.min(maxFast, Math.max(2 * cur.buffered.length, 64 * 1024))));
    } catch (e) {
      // a source that fails here fails again at the next read: the member held is inflated first, as it was
      if (e instanceof ByteSourceError) break;
      throw e;
    }
  }
  for (;;) {
    const fast = inflateBuffered(cur, maxFast);
    if (Buffer.isBuffer(fast)) return fast;
    if (fast === "stream" || ended || cur.buffered.length >= maxFast) return null; // pako decides (and says how it is damaged)
    ended = !(await cur.fill(Math.min(maxFast, Math.max(2 * cur.buffered.length, 64 * 1024))));
  }
}

/**
 * inflateWholeMember decided without waiting, when enough bytes are held that it would not read more
 * before its first attempt: the member inflated (consumed), null (to be streamed), or undefined when it
 * needs more bytes (inflateWholeMember then does as it always does). Most members of a crawl are small
 * and read this way, without the promises of an async call.
 */
export function inflateHeldMember(cur: ByteCursor, maxFast = FAST_MEMBER_BYTES): Buffer | null | undefined {
  if (cur.buffered.length < AHEAD || !laterMemberHeld(cur.buffered)) return undefined;
  const fast = inflateBuffered(cur, maxFast);
  if (Buffer.isBuffer(fast)) return fast;
  if (fast === "stream" || cur.buffered.length >= maxFast) return null;
  return undefined;
}

/** The member at the cursor streamed through pako, which stops exactly at its end. */
async function* inflateStreamed(cur: ByteCursor): AsyncGenerator<Buffer> {
  const inf = newInflate(CHUNK);
  let out: Buffer[] = [];
  inf.onData = (c: Uint8Array) => void out.push(asBuffer(c));
  for (;;) {
    if (cur.buffered.length === 0 && !(await cur.more())) throw new GzipMemberError("the input ends inside a gzip member");
    const input = cur.buffered;
    inf.push(input, false);
    if (inf.err) throw new GzipMemberError(`damaged gzip member: ${inf.msg || `zlib status ${inf.err}`}`);
    const used = inf.ended ? input.length - inf.strm.avail_in : input.length;
    cur.skip(used);
    const ready = out;
    out = [];
    for (const c of ready) yield c;
    if (inf.ended) return;
  }
}

/** The first bytes `bytes` (a candidate member start) inflate to, null when they do not inflate. */
export function inflatedStart(bytes: Buffer): Buffer | null {
  const inf = newInflate(1024);
  const out: Uint8Array[] = [];
  inf.onData = (c: Uint8Array) => void out.push(c);
  inf.push(bytes, Z_SYNC_FLUSH);
  if (inf.err && !inf.ended) return null;
  return Buffer.concat(out.map(asBuffer));
}

/** True when `bytes` (a candidate member start) inflate to the start of a WARC record. */
export function decodesToWarc(bytes: Buffer): boolean {
  const head = inflatedStart(bytes)?.subarray(0, 16).toString("latin1");
  return head !== undefined && /^WARC\/\d\.\d+\r?\n/.test(head);
}

/** How far ahead a candidate member is decoded to verify it (a WARC header fits easily). */
const VERIFY_BYTES = 4096;

/**
 * Whether the member at the cursor (after padding) goes on with a record the member before it ended
 * inside (a writer that cut one record into members): it inflates, and not to blank lines and a
 * `WARC/` line. Returns the padding before it, or null (the cursor is not moved).
 */
export async function continuingMember(cur: ByteCursor): Promise<number | null> {
  await cur.fill(VERIFY_BYTES);
  let pad = 0;
  const b = cur.buffered;
  while (pad < b.length && (b[pad] === 10 || b[pad] === 13 || b[pad] === 32 || b[pad] === 9 || b[pad] === 0)) pad++;
  if (!isGzipMagic(cur.buffered, pad)) return null;
  await cur.fill(pad + VERIFY_BYTES);
  const start = inflatedStart(cur.buffered.subarray(pad, pad + VERIFY_BYTES));
  if (start === null) return null;
  const text = start.toString("latin1").trimStart();
  return text.length === 0 || text.startsWith("WARC/") ? null : pad;
}

/**
 * Moves the cursor to the next gzip member that decodes to a WARC record (a `1f 8b 08` inside
 * compressed data is not trusted until then), or to `limit` (a shard's end: a member from there on
 * is the next shard's; a file gzipped whole has none after its start, and each shard would scan
 * to the file's end). Returns the bytes skipped; the cursor is at the end of input when none is found.
 * `verify`: what a member must decode to (an ARC record for an ARC, arc-reader.ts).
 */
export async function seekGzipMember(cur: ByteCursor, limit = Infinity, verify: (bytes: Buffer) => boolean = decodesToWarc): Promise<number> {
  let skipped = 0;
  const drop = (n: number): boolean => {
    const within = Math.min(n, Math.max(0, limit - cur.position));
    skipped += within;
    cur.skip(within);
    return within < n || cur.position >= limit;
  };
  for (;;) {
    if (cur.position >= limit) return skipped;
    await cur.fill(3);
    const buf = cur.buffered;
    if (buf.length < 3) {
      drop(buf.length);
      return skipped;
    }
    const at = buf.indexOf(0x1f);
    if (at < 0 || at > buf.length - 3) {
      const n = at < 0 ? buf.length : at;
      if (drop(n)) return skipped;
      if (n === 0 && !(await cur.more())) {
        drop(cur.buffered.length);
        return skipped;
      }
      continue;
    }
    if (drop(at)) return skipped;
    if (isGzipMagic(cur.buffered)) {
      await cur.fill(VERIFY_BYTES);
      if (verify(cur.buffered.subarray(0, VERIFY_BYTES))) return skipped;
    }
    if (drop(1)) return skipped;
  }
}

/** An error of a member's inflated bytes as its inflation threw it (a cursor over them wraps it as a failed read). */
export function fromInflated(err: unknown): unknown {
  while (err instanceof ByteSourceError && (err.cause instanceof ByteSourceError || err.cause instanceof GzipMemberError)) err = err.cause;
  return err;
}

/**
 * bz2 decoding on several cores when the decoder itself is single-threaded (the `bzip2` binary, or
 * the JS block decoder), as lbzip2 does: bz2 blocks are independent once found. The main thread
 * scans the compressed bytes for block headers (48-bit magics at any bit offset), hands runs of
 * blocks out as jobs — to worker threads running the JS block decoder, or to `bzip2` children fed
 * each run repacked as streams of its own — and delivers the outputs in order, a bounded number of
 * jobs ahead.
 *
 * A found header is only a bit pattern and may occur inside compressed data by chance, so it is
 * never trusted: a job's output is delivered only when every block in it decoded with a matching
 * CRC and ended exactly at the next header found (the JS worker checks the end bit; `bzip2` fails on
 * a repacked block that is cut short or runs on, and checks the stream CRC we compute from the
 * blocks' stored CRCs). At the first job that fails, or anything in the stream's layout not
 * expected (damage, truncation, trailing bytes), this decoder stops with a DumpError after the
 * verified bytes before it; open-dump.ts then finishes the input with the sequential block decoder,
 * exactly as after the binary stops, so damaged input is counted as before.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { findMagic, magicKind, read32At } from "./bz2-blocks.ts";
import { DumpError } from "./errors.ts";
import { workerEntry } from "../core/worker-entry.ts";
import { spawnChunked } from "./decoder-output.ts";
import { sharedChunkPool } from "./chunk-pool.ts";

/** A run of consecutive blocks of one or more streams, with the bytes that hold them. */
export interface Bz2Job {
  /** compressed bytes from the byte holding the first block's header to the byte holding the last block's end */
  bytes: Buffer;
  /** per stream touched: its block-size digit and its blocks as [start, end) bit offsets in `bytes`, with their stored CRCs */
  segments: Array<{ level: number; blocks: Array<{ start: number; end: number; crc: number }> }>;
}

/** Decodes jobs, a few at a time; a result is the job's verified bytes (in order) or why it failed. */
export interface Bz2JobDecoder {
  readonly lanes: number;
  decode(job: Bz2Job): Promise<Buffer[] | { damage: string }>;
  close(): Promise<void>;
}

export interface JsJobRequest {
  id: number;
  bytes: Uint8Array;
  /** start and end bit of each block, flattened */
  bounds: number[];
}
export type JsJobResponse = { id: number; data: Uint8Array } | { id: number; damage: string };

/**
 * Where the input stops being bz2 streams at a stream boundary: `at` is the compressed byte (from the
 * source's start) just past the last complete stream, `rest` the input from there on.
 */
export interface StreamsEnd {
  at: number;
  rest: AsyncIterable<Buffer>;
}

/** A point where the layout is not what an undamaged file has; `after` when it is at a stream boundary. */
export interface LayoutStop {
  stop: string;
  after?: StreamsEnd;
}

/** Blocks per job: a few MB of output, so a `bzip2` child's start-up is a small share of its work. */
const BLOCKS_PER_JOB = 4;
/** Compressed bytes searched at a time for the next header (indexOf has no end bound). */
const SCAN_WINDOW = 64 << 10;
/** The longest a compressed block can be (900k symbols of at most 20 bits, plus tables); the layout scan looks no further for a block's end. */
export const MAX_COMPRESSED_BLOCK = (900_000 * 20) / 8 + 64 * 1024;

/** What a decoder binary's output is read in (the size of the one-child decoder's chunks: one pool). */
const JOB_OUTPUT_CHUNK = 1 << 20;

/** Cores this process may decode on (at most `threads` when given); parallel decoding is pointless on one. */
export function decodeLanes(threads?: number): number {
  return Math.max(1, Math.min(8, availableParallelism(), threads ?? Infinity));
}

/**
 * Splits a bz2 byte source into jobs of verified layout: stream headers, block headers, end-of-stream
 * markers with their CRC. Yields `{ stop }` where the layout is not what an undamaged file has (the
 * jobs before it are whole); returns at the clean end of the input. A stop where a stream header
 * should start (bytes after the last stream) carries the input from there (`after`), to be read
 * before this generator is resumed or closed.
 */
export async function* bz2Jobs(src: AsyncIterable<Buffer>): AsyncGenerator<Bz2Job | LayoutStop> {
  const it = src[Symbol.asyncIterator]();
  let buf: Buffer = Buffer.alloc(0);
  /** bytes of the source before buf[0] */
  let dropped = 0;
  let ended = false;
  /** appends at least one more chunk; false at the end of the input */
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
  const have = async (bits: number): Promise<boolean> => {
    while (buf.length * 8 < bits) if (!(await more())) return false;
    return true;
  };
  /** bit of the next magic at or after `from`, reading on as needed; -1 if none within a block's reach */
  const nextMagic = async (from: number): Promise<number> => {
    let lo = from;
    for (;;) {
      const hi = Math.min(buf.length, (lo >>> 3) + SCAN_WINDOW);
      const at = findMagic(buf.subarray(0, hi), lo);
      if (at >= 0) return at;
      if (hi === buf.length) {
        if (buf.length * 8 - from > MAX_COMPRESSED_BLOCK * 8 || !(await more())) return -1;
      }
      lo = Math.max(lo, (hi - 6) * 8);
    }
  };

  let pos = 0; // bit position in buf
  let job: Bz2Job["segments"] = [];
  let jobStart = 0; // byte in buf where the open job starts
  let jobBlocks = 0;
  const flush = (): Bz2Job | null => {
    if (jobBlocks === 0) return null;
    const last = job[job.length - 1]!.blocks;
    const endByte = Math.ceil(last[last.length - 1]!.end / 8);
    const shift = jobStart * 8;
    const out: Bz2Job = {
      bytes: Buffer.from(buf.subarray(jobStart, endByte)),
      segments: job.map((s) => ({ level: s.level, blocks: s.blocks.map((b) => ({ start: b.start - shift, end: b.end - shift, crc: b.crc })) })),
    };
    job = [];
    jobBlocks = 0;
    // the bytes before pos are done with
    const keep = pos >>> 3;
    buf = buf.subarray(keep);
    dropped += keep;
    pos -= keep * 8;
    return out;
  };
  const stop = function* (why: string, atStreamBoundary = false): Generator<Bz2Job | LayoutStop> {
    const j = flush();
    if (j) yield j;
    if (!atStreamBoundary) return void (yield { stop: why });
    const from = pos >>> 3;
    const rest = async function* (): AsyncGenerator<Buffer> {
      try {
        if (buf.length > from) yield buf.subarray(from);
        for (;;) {
          const r = await it.next();
          if (r.done) return;
          yield r.value;
        }
      } finally {
        await it.return?.();
      }
    };
    yield { stop: why, after: { at: dropped + from, rest: rest() } };
  };

  try {
    yield* layout();
  } finally {
    await it.return?.();
  }

  async function* layout(): AsyncGenerator<Bz2Job | LayoutStop> {
    for (;;) {
      // a stream header "BZh1".."BZh9" at a byte boundary, or the end of the input
      pos = Math.ceil(pos / 8) * 8;
      if (!(await have(pos + 32))) {
        if (buf.length * 8 === pos) break;
        return yield* stop("the input ends inside a bz2 stream header", true);
      }
      const h = pos >>> 3;
      if (buf[h] !== 0x42 || buf[h + 1] !== 0x5a || buf[h + 2] !== 0x68 || buf[h + 3]! < 0x31 || buf[h + 3]! > 0x39) {
        return yield* stop("no bz2 stream header where one should start", true);
      }
      const segment = { level: buf[h + 3]! - 0x30, blocks: [] as Array<{ start: number; end: number; crc: number }> };
      pos += 32;
      let combined = 0;
      for (;;) {
        if (!(await have(pos + 80))) return yield* stop("the input ends inside a bz2 stream");
        const kind = magicKind(buf, pos);
        if (kind === "eos") {
          if (read32At(buf, pos + 48) !== combined) return yield* stop("stream CRC mismatch");
          pos += 80;
          break;
        }
        if (kind !== "block") return yield* stop("no block header where a block should start");
        const end = await nextMagic(pos + 48);
        if (end < 0) return yield* stop("no block or end-of-stream header after a block");
        const crc = read32At(buf, pos + 48);
        combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
        if (jobBlocks === 0) jobStart = pos >>> 3;
        if (segment.blocks.length === 0) job.push(segment);
        segment.blocks.push({ start: pos, end, crc });
        jobBlocks++;
        pos = end;
        if (jobBlocks >= BLOCKS_PER_JOB) {
          yield flush()!;
          // the rest of this stream's blocks go into a new segment of the next job
          segment.blocks = [];
        }
      }
    }
    const j = flush();
    if (j) yield j;
  }
}

/**
 * Decoded bytes of a bz2 source, decoded `decoder.lanes` jobs at a time and delivered in order.
 * Ends with a DumpError (offset: bytes delivered) at the first job or layout that does not verify.
 * With `afterStreams`, bytes after the last complete stream are not an error: once every job before
 * them is delivered, what `afterStreams` makes of them (given the bytes delivered so far) follows.
 */
export async function* parallelBunzip2(src: AsyncIterable<Buffer>, file: string, decoder: Bz2JobDecoder, afterStreams?: (end: StreamsEnd, delivered: number) => AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const jobs = bz2Jobs(src);
  const inFlight: Array<Promise<Buffer[] | { damage: string }>> = [];
  const ahead = decoder.lanes * 2;
  let delivered = 0;
  let stopped: string | null = null;
  let after: StreamsEnd | undefined;
  let scanned = false;
  try {
    for (;;) {
      while (!scanned && inFlight.length < ahead) {
        const r = await jobs.next();
        if (r.done) scanned = true;
        else if ("stop" in r.value) {
          stopped = r.value.stop;
          after = r.value.after;
          scanned = true;
        } else inFlight.push(decoder.decode(r.value));
      }
      const next = inFlight.shift();
      if (next === undefined) break;
      const out = await next;
      if (!Array.isArray(out)) throw new DumpError(file, delivered, `bz2 data is truncated or corrupt (${out.damage})`);
      for (const piece of out) {
        delivered += piece.length;
        if (piece.length > 0) yield piece;
      }
    }
    if (after !== undefined && afterStreams !== undefined) yield* afterStreams(after, delivered);
    else if (stopped !== null) throw new DumpError(file, delivered, `bz2 data is truncated or corrupt (${stopped})`);
  } finally {
    await jobs.return(undefined);
    await Promise.allSettled(inFlight);
    await decoder.close();
  }
}

/** The JS block decoder on `lanes` worker threads. */
export function jsJobDecoder(lanes = decodeLanes()): Bz2JobDecoder {
  const entry = workerEntry("bz2-block-worker", import.meta.url);
  const workers: Worker[] = [];
  const waiting = new Map<number, (r: Buffer[] | { damage: string }) => void>();
  const queue: JsJobRequest[] = [];
  const idle: Worker[] = [];
  let nextId = 0;
  let failure: Error | null = null;
  const dispatch = (): void => {
    while (idle.length > 0 && queue.length > 0) {
      const req = queue.shift()!;
      idle.pop()!.postMessage(req, [req.bytes.buffer as ArrayBuffer]);
    }
  };
  const fail = (err: Error): void => {
    failure = err;
    for (const [, resolve] of waiting) resolve({ damage: `bz2 worker failed: ${err.message}` });
    waiting.clear();
  };
  const spawnOne = (): Worker => {
    const w = new Worker(new URL("../runner/worker-bootstrap.mjs", import.meta.url), { workerData: { entry } });
    w.on("message", (res: JsJobResponse) => {
      const resolve = waiting.get(res.id);
      waiting.delete(res.id);
      idle.push(w);
      dispatch();
      resolve?.("data" in res ? [Buffer.from(res.data.buffer, res.data.byteOffset, res.data.length)] : { damage: res.damage });
    });
    w.on("error", fail);
    return w;
  };
  return {
    lanes,
    decode(job) {
      if (failure) return Promise.resolve({ damage: `bz2 worker failed: ${failure.message}` });
      if (workers.length < lanes) {
        const w = spawnOne();
        workers.push(w);
        idle.push(w);
      }
      const bounds: number[] = [];
      for (const s of job.segments) for (const b of s.blocks) bounds.push(b.start, b.end);
      // a copy of its own, so its memory moves to the worker instead of being cloned
      const bytes = new Uint8Array(job.bytes);
      const req: JsJobRequest = { id: nextId++, bytes, bounds };
      return new Promise((resolve) => {
        waiting.set(req.id, resolve);
        queue.push(req);
        dispatch();
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

const EOS_MAGIC = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];

/**
 * One job as bz2 streams of its own, for a decoder binary: per segment, "BZh<level>", the blocks'
 * bits copied from the original (they start mid-byte there, at a byte boundary here), the
 * end-of-stream marker and the CRC combined from the blocks' stored CRCs.
 */
export function repackJob(job: Bz2Job): Buffer {
  const parts: Buffer[] = [];
  for (const seg of job.segments) {
    const start = seg.blocks[0]!.start;
    const end = seg.blocks[seg.blocks.length - 1]!.end;
    let combined = 0;
    for (const b of seg.blocks) combined = (((combined << 1) | (combined >>> 31)) ^ b.crc) >>> 0;
    const bits = end - start;
    const out = Buffer.alloc(4 + Math.ceil((bits + 80) / 8));
    out.write(`BZh${seg.level}`, 0, "latin1");
    const src = job.bytes;
    const s = start & 7;
    const first = start >>> 3;
    const wholeBytes = bits >>> 3;
    if (s === 0) src.copy(out, 4, first, first + wholeBytes);
    else for (let k = 0; k < wholeBytes; k++) out[4 + k] = ((src[first + k]! << s) | (src[first + k + 1]! >>> (8 - s))) & 0xff;
    // the last partial byte, then the marker and CRC, bit by bit
    let o = (4 + wholeBytes) * 8;
    const put = (bit: number): void => {
      if (bit) out[o >>> 3] = out[o >>> 3]! | (0x80 >>> (o & 7));
      o++;
    };
    for (let b = start + wholeBytes * 8; b < end; b++) put((src[b >>> 3]! >>> (7 - (b & 7))) & 1);
    for (const byte of EOS_MAGIC) for (let k = 7; k >= 0; k--) put((byte >>> k) & 1);
    for (let k = 31; k >= 0; k--) put((combined >>> k) & 1);
    parts.push(out);
  }
  return Buffer.concat(parts);
}

/**
 * A single-threaded decoder binary (`bzip2`), one child per job, `lanes` at a time. Its output is read
 * into pooled chunks (decoder-output.ts, chunk-pool.ts) where a Unix-domain socket can be set up, as
 * the one-child decoder's is: no 64 KiB buffer per pipe read, nor a copy joining them.
 */
export function binaryJobDecoder(bin: string, lanes = decodeLanes()): Bz2JobDecoder {
  let running = 0;
  const waiting: Array<() => void> = [];
  const children = new Set<ChildProcess>();
  const run = async (input: Buffer): Promise<Buffer[] | { damage: string }> => {
    // (a job's output is verified by the exit code before any of it is delivered: read it all)
    const chunked = await spawnChunked(bin, ["-dc"], { chunkBytes: JOB_OUTPUT_CHUNK, maxAhead: Infinity, pool: sharedChunkPool(JOB_OUTPUT_CHUNK) }).catch(() => null);
    const child = chunked?.child ?? spawn(bin, ["-dc"], { stdio: ["pipe", "pipe", "pipe"] });
    children.add(child);
    let err = "";
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      if (err.length < 500) err += d;
    });
    child.stdin!.on("error", () => {}); // an early exit is told by the exit code
    const exited = new Promise<{ code: number | null; signal: string | null; error?: Error }>((resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, error }));
      child.once("close", (code, signal) => resolve({ code, signal }));
    });
    child.stdin!.end(input);
    const out: Buffer[] = [];
    let readError: unknown = null;
    try {
      if (chunked !== null) for await (const c of chunked.output) out.push(c);
      else {
        const pieces: Buffer[] = [];
        for await (const d of child.stdout!) pieces.push(d as Buffer);
        out.push(Buffer.concat(pieces));
      }
    } catch (e) {
      readError = e;
    }
    const { code, signal, error } = await exited;
    children.delete(child);
    if (error) return { damage: `cannot run ${bin}: ${error.message}` };
    if (code === 0 && readError === null) return out;
    if (code === 0) return { damage: `reading ${bin}'s output failed: ${readError instanceof Error ? readError.message : String(readError)}` };
    return { damage: `${bin} ${code === null ? `killed by ${signal}` : `exit ${code}`}: ${err.trim().replace(/\s+/g, " ")}` };
  };
  return {
    lanes,
    async decode(job) {
      const input = repackJob(job);
      if (running >= lanes) await new Promise<void>((resolve) => waiting.push(resolve));
      running++;
      try {
        return await run(input);
      } finally {
        running--;
        waiting.shift()?.();
      }
    },
    async close() {
      for (const c of children) c.kill();
    },
  };
}

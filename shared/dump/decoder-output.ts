/**
 * A decoder child process whose output is read straight into chunks of our own.
 *
 * Why: read from an ordinary `child.stdout`, every 64 KiB the pipe delivers is a new buffer, and
 * joining them into the 1 MiB chunks the reader wants (read-ahead.ts) copies every byte again. Both
 * are external memory: on a full-history run the reader puts ~2× the XML through it, and V8 starts a
 * full collection for each ~64 MB of external memory allocated (15 of them on 607 MB of XML), besides
 * the copying. Here the child writes into a Unix-domain socket whose reading end is a net.Socket with
 * `onread`: the kernel copies each read into the free tail of the chunk being filled, so the XML is
 * allocated once and never copied before the page scanner sees it. Chunks come from a pool
 * (chunk-pool.ts): each view handed on carries a hold, and a chunk is written again only once every
 * holder has let go (revision texts stay views of it until then).
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { holdChunk, releaseChunk, type ChunkPool } from "./chunk-pool.ts";

export interface ChunkedOutputOptions {
  /** chunks handed on: at least this many bytes (but the last), at most chunkBytes */
  chunkBytes: number;
  /** bytes read ahead of the consumer before reading pauses (the decoder then waits) */
  maxAhead: number;
  /** told the size of every read as it arrives (before the consumer takes it) */
  onData?: (bytes: number) => void;
  /**
   * where chunks come from (chunkBytes is then the pool's): each chunk handed on carries one hold
   * (chunk-pool.ts) that its consumer releases when done with it; without a pool chunks are fresh
   */
  pool?: ChunkPool;
}

export interface ChunkedChild {
  child: ChildProcess;
  /** the child's stdout, in chunks; ends at the child's end of output, fails on a read error */
  output: AsyncGenerator<Buffer>;
}

/**
 * Spawns `bin args` with stdin and stderr piped as usual and stdout read into our chunks, or null
 * where a Unix-domain socket cannot be set up (the caller then reads an ordinary pipe).
 */
export async function spawnChunked(bin: string, args: readonly string[], opts: ChunkedOutputOptions): Promise<ChunkedChild | null> {
  if (process.platform === "win32") return null;
  const reader = new ChunkReader(opts);
  const pair = await socketPair(reader).catch(() => null);
  if (pair === null) return null;
  const spawnOpts: SpawnOptions = { stdio: ["pipe", pair.childEnd, "pipe"] };
  let child: ChildProcess;
  try {
    child = spawn(bin, args, spawnOpts);
  } finally {
    // the child holds its own copy of the writing end: ours must go, or the reading end never sees
    // the end of output (destroy, not end: a shutdown would end the child's side too)
    pair.childEnd.destroy();
  }
  return { child, output: reader.chunks(pair.ours) };
}

/** A connected socket pair through a listening socket in the temp folder (removed once connected). */
async function socketPair(reader: ChunkReader): Promise<{ ours: Socket; childEnd: Socket }> {
  const path = join(tmpdir(), `paracap-${process.pid}-${randomBytes(6).toString("hex")}.sock`);
  const server = createServer({ pauseOnConnect: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    const accepted = new Promise<Socket>((resolve, reject) => {
      server.once("connection", resolve);
      server.once("error", reject);
    });
    const ours = connect({ path, allowHalfOpen: true, onread: { buffer: () => reader.space(), callback: (n: number) => reader.filled(n) } });
    await new Promise<void>((resolve, reject) => {
      ours.once("connect", resolve);
      ours.once("error", reject);
    });
    const childEnd = await accepted;
    return { ours, childEnd };
  } finally {
    server.close();
    rmSync(path, { force: true });
  }
}

/** Fills chunks from `onread` and queues the full ones for the consumer. */
class ChunkReader {
  private chunk: Buffer;
  /** chunk[start..at) is read and not yet handed on */
  private start = 0;
  private at = 0;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private socket: Socket | null = null;
  private paused = false;
  private ended = false;
  private failure: { error: unknown } | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly opts: ChunkedOutputOptions) {
    this.chunk = this.newChunk();
  }

  /** a chunk to fill, held by this reader until it moves on to the next */
  private newChunk(): Buffer {
    return this.opts.pool?.take() ?? Buffer.allocUnsafeSlow(this.opts.chunkBytes);
  }

  /** where the next read goes: the free tail of the chunk being filled */
  space(): Buffer {
    return this.chunk.subarray(this.at);
  }

  /** `n` bytes were read into space(); false pauses reading */
  filled(n: number): boolean {
    this.opts.onData?.(n);
    this.at += n;
    // a chunk is handed on once so full that the next read would be short
    if (this.chunk.length - this.at < READ_AT_LEAST) {
      this.handOn();
      releaseChunk(this.chunk);
      this.chunk = this.newChunk();
      this.start = 0;
      this.at = 0;
    }
    this.notify();
    if (this.queued >= this.opts.maxAhead) {
      this.paused = true;
      return false;
    }
    return true;
  }

  private handOn(): void {
    if (this.at === this.start) return;
    const out = this.chunk.subarray(this.start, this.at);
    holdChunk(out);
    this.start = this.at;
    this.queue.push(out);
    this.queued += out.length;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  async *chunks(socket: Socket): AsyncGenerator<Buffer> {
    this.socket = socket;
    const onEnd = () => {
      this.ended = true;
      this.notify();
    };
    const onError = (error: unknown) => {
      this.failure = { error };
      this.notify();
    };
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.once("error", onError);
    try {
      for (;;) {
        if (this.queue.length === 0 && (this.ended || this.failure)) this.handOn(); // the last, partial chunk
        if (this.queue.length > 0) {
          const out = this.queue.shift()!;
          this.queued -= out.length;
          if (this.paused && this.queued < this.opts.maxAhead / 2) {
            this.paused = false;
            socket.resume();
          }
          yield out;
          continue;
        }
        if (this.failure) throw (this.failure as { error: unknown }).error;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      socket.off("error", onError);
      socket.destroy();
      // (chunks still queued are dropped with their holds: they are not reused, only collected)
      releaseChunk(this.chunk);
      this.chunk = EMPTY;
      this.start = this.at = 0;
    }
  }
}

const EMPTY = Buffer.alloc(0);

/** Free bytes a chunk must still have to take another read (a pipe or socket hands on up to 64 KiB). */
const READ_AT_LEAST = 64 << 10;

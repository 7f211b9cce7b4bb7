/**
 * Opens a dump file (or a byte range of it) as its decompressed XML bytes. The container format is
 * taken from magic bytes, never from the file name: a multistream shard has no name of its own,
 * and uploaded files are often misnamed.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { bz2Blocks, type Bz2Piece, type DamageLog } from "./bz2-blocks.ts";
import { isParallelDecoder, jsBunzip2, resolveBz2Decoder, systemBunzip2, type Bz2Decoder } from "./bz2-decoders.ts";
import { binaryJobDecoder, decodeLanes, jsJobDecoder, parallelBunzip2, type StreamsEnd } from "./bz2-parallel.ts";
import { scanStreamsEnd, type StreamsEndScan } from "./bz2-tail.ts";
import { DumpError } from "./errors.ts";
import { externalDecode, isExternalFormat } from "./external-decoders.ts";
import { gunzipMembers } from "./gunzip-members.ts";
import { MAGIC_BYTES, sniffFormat } from "./magic.ts";

export interface OpenDumpOptions {
  /** first byte of the range to read (a bz2 stream boundary for compressed multistream dumps) */
  start?: number;
  /** end of the range, exclusive; default: end of file */
  end?: number;
  /** bz2 decoder: system binary, pure JS, or the binary when one is on PATH (default) */
  decoder?: Bz2Decoder;
  /** told the size of every chunk of the file read (progress and ETA on compressed input) */
  onInput?: (bytes: number) => void;
  /** damaged bz2 blocks are skipped and recorded here (without it, damage ends the stream) */
  damage?: DamageLog;
  /** only the first bytes will be read (see openDumpHead) */
  head?: boolean;
}

export interface DecompressOptions {
  decoder?: Bz2Decoder;
  /** names the input in error messages */
  file: string;
  /**
   * Reads the same raw bytes again from the start. Lets damaged bz2 input decoded by a binary be
   * re-decoded in JS past what the binary delivered, so damage loses no good pages, deterministically.
   */
  reopen?: () => AsyncIterable<Buffer>;
  /**
   * Told the size of the decoded bytes as the decoder produces them, which may be ahead of what the
   * consumer has read (progress: the share of the input really processed).
   */
  onDecoded?: (bytes: number) => void;
  /** damaged bz2 blocks are skipped and recorded here (without it, damage ends the stream) */
  damage?: DamageLog;
  /** cores the decoder may use (ByteSource.decoderThreads); default all */
  threads?: number;
  /** the bytes as one whole local file, when they are (a 7z archive is read in place: external-decoders.ts) */
  localPath?: string;
  /**
   * only the first bytes will be read (openDumpHead): bz2 by the JS block decoder, first block first,
   * neither held back nor checked for what follows the streams (`reopen` is not used)
   */
  head?: boolean;
}

/**
 * Decompressed XML byte stream of a dump file or of the byte range [start, end) of it. bz2 (also
 * multi-stream), gzip and plain XML are recognised by their magic bytes. Damaged compressed data
 * makes the stream fail with a DumpError; the bytes decoded before it are delivered first.
 */
export function openDumpStream(path: string, opts: OpenDumpOptions = {}): Readable {
  const start = opts.start ?? 0;
  if (!Number.isInteger(start) || start < 0) throw new RangeError(`start must be a non-negative integer, got ${opts.start}`);
  if (opts.end !== undefined && (!Number.isInteger(opts.end) || opts.end < start)) throw new RangeError(`end must be an integer >= start (${start}), got ${opts.end}`);
  const raw: AsyncIterable<Buffer> =
    opts.end === start
      ? Readable.from([])
      : createReadStream(path, { start, end: opts.end === undefined ? undefined : opts.end - 1, highWaterMark: 1 << 20 });
  const file = start === 0 && opts.end === undefined ? path : `${path}[${start}..${opts.end ?? "end"}]`;
  const counted = opts.onInput ? countChunks(raw, opts.onInput) : raw;
  const reopen = () => (opts.end === start ? Readable.from([]) : createReadStream(path, { start, end: opts.end === undefined ? undefined : opts.end - 1, highWaterMark: 1 << 20 }));
  return decompressStream(counted, { decoder: opts.decoder, file, reopen, damage: opts.damage, ...(file === path ? { localPath: path } : {}), ...(opts.head ? { head: true } : {}) });
}

/**
 * The start of a dump file, decompressed, for readers that look at its first bytes only (its
 * <siteinfo>, its first page) and then destroy the stream. bz2 is decoded by the JS block decoder,
 * which delivers the first block, CRC-checked, after decoding it alone (~900 kB, ~0.1 s here). The
 * path openDumpStream takes holds a binary's output back until 4 MiB more are decoded (see
 * UNVERIFIED_HOLD) and scans the whole file's layout beside it: ~0.4 s of waiting per input file
 * before a run's first shard starts, where these heads are read one file after another. Damage
 * fails the stream with a DumpError after the good blocks, as the full read would.
 */
export function openDumpHead(path: string): Readable {
  return openDumpStream(path, { head: true });
}

async function* countChunks(src: AsyncIterable<Buffer>, onInput: (bytes: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of src) {
    onInput(chunk.length);
    yield chunk;
  }
}

/**
 * Decompresses any byte source (a file range, a cloud object stream) the same way as
 * openDumpStream, sniffing the format from its first bytes.
 */
export function decompressStream(raw: AsyncIterable<Buffer>, opts: DecompressOptions): Readable {
  return Readable.from(decompressed(raw, opts), { objectMode: false });
}

async function* decompressed(raw: AsyncIterable<Buffer>, opts: DecompressOptions): AsyncGenerator<Buffer> {
  const it = raw[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let exhausted = false;
  while (headBytes < MAGIC_BYTES) {
    const r = await it.next();
    if (r.done) {
      exhausted = true;
      break;
    }
    head.push(r.value);
    headBytes += r.value.length;
  }
  const source = replay(head, exhausted ? null : it);
  const format = sniffFormat(Buffer.concat(head));
  const told = opts.onDecoded;
  if (typeof format === "object") {
    // xz, zstd and 7z are read by their programs; the rest is named
    if (isExternalFormat(format.unsupported)) return yield* externalDecode(format.unsupported, source, { file: opts.file, localPath: opts.localPath, onDecoded: told });
    await it.return?.();
    throw new DumpError(opts.file, null, `${format.unsupported}-compressed input is not supported: recompress it with bzip2 or gzip`);
  }
  // Decoders without a read-ahead produce as the consumer reads: tell each chunk as it goes out.
  const counted = async function* (chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const c of chunks) {
      told?.(c.length);
      yield c;
    }
  };
  if (format === "plain") {
    yield* counted(source);
  } else if (format === "gzip") {
    const damage = opts.damage;
    yield* counted(gunzipMembers(source, opts.file, damage ? (gap) => damage.gaps.push(gap) : undefined));
  } else {
    if (opts.head) return yield* counted(jsBunzip2(source, opts.file, opts.damage));
    const bin = resolveBz2Decoder(opts.decoder ?? "auto");
    // A single-threaded decoder (bzip2, JS) runs on every core through bz2-parallel.ts; it stops at
    // the first damage, after which the sequential JS decoder reads the input again (needs reopen).
    const lanes = decodeLanes(opts.threads);
    const parallel = opts.reopen !== undefined && lanes > 1 && (bin === null || !isParallelDecoder(bin));
    if (parallel) {
      const decoder = bin === null ? jsJobDecoder(lanes) : binaryJobDecoder(bin, lanes);
      // bytes after the last stream: the block decoder reads them where the layout scan stopped
      const recovery = new Recovery(opts.reopen!, opts.file, opts.damage, 0);
      const after = (end: StreamsEnd, delivered: number) => recovery.after(end, delivered);
      yield* counted(recovery.run(parallelBunzip2(source, opts.file, decoder, after)));
    } else if (bin === null) yield* counted(jsBunzip2(source, opts.file, opts.damage));
    else if (!opts.reopen) yield* systemBunzip2(source, bin, opts.file, told, opts.threads);
    else {
      // The binary skips bytes after a stream that start no other (and every stream after them)
      // without a word and exits 0, however little follows: the streams' layout is scanned beside it
      // and its answer used at its end (bz2-tail.ts), so every decoder reads and counts the same.
      const recovery = new Recovery(opts.reopen, opts.file, opts.damage, UNVERIFIED_HOLD);
      yield* recovery.run(systemBunzip2(source, bin, opts.file, told, opts.threads), true);
    }
  }
}

/**
 * Decoded bytes of the binary's output held back before the reader sees them. Neither binary
 * checks a block's CRC before writing the block out (lbzip2 writes a damaged first block's first
 * 64 KiB), so output is passed on only once the binary has written this much more after it, or has
 * finished without error; on damage the held bytes are dropped and the JS block decoder, which
 * verifies each block first, delivers from there. Text blocks decode to about 900 kB, so a damaged
 * block's bytes never reach the reader unless the block decodes to more than this (long runs of
 * one byte); the gap then says how many unverified bytes were passed on.
 */
const UNVERIFIED_HOLD = 4 << 20;

/**
 * Finishes what a binary or the parallel decoder leaves: their output, held back by `hold` bytes
 * (see UNVERIFIED_HOLD); if they stop at damage, the JS block decoder's output past the bytes already
 * passed on, skipping each damaged block (recorded in `damage`) and going on to the end. The
 * binary's output has no block boundaries, so the JS decoder starts again from the first byte
 * (slow, but only on damage). Bytes after the last stream are read by the block decoder from where
 * the streams end (found by a layout scan, no decoding), so they are counted as the JS decoder
 * counts them, without decoding the input twice.
 */
class Recovery {
  /** bytes passed on to the reader */
  private delivered = 0;
  /** the block decoder is reading the bytes after the streams: its errors are final */
  private inTail = false;

  constructor(
    private readonly reopen: () => AsyncIterable<Buffer>,
    private readonly file: string,
    private readonly damage: DamageLog | undefined,
    /** bytes held back (0 for a decoder that delivers only CRC-verified bytes) */
    private readonly hold: number,
  ) {}

  /**
   * The primary decoder's output, then, when it finished without error and `checkLayout` says so, the
   * block decoder's output from the end of the streams if anything but streams follows.
   */
  async *run(primary: AsyncIterable<Buffer>, checkLayout = false): AsyncGenerator<Buffer> {
    const held: Buffer[] = [];
    let heldBytes = 0;
    // the layout scan reads the input beside the decoder (its answer is wanted only at the end)
    let scan: StreamsEndScan | null = checkLayout ? scanStreamsEnd(this.reopen) : null;
    try {
      for await (const chunk of primary) {
        held.push(chunk);
        heldBytes += chunk.length;
        while (held.length > 0 && heldBytes - held[0]!.length >= this.hold) {
          const out = held.shift()!;
          heldBytes -= out.length;
          this.delivered += out.length;
          yield out;
        }
      }
      // the decoder finished without error: every block was checked
      this.delivered += heldBytes;
      yield* held.splice(0);
      if (scan === null) return;
      const end = await scan.end;
      scan = null;
      if (end === "clean") return;
      if (end !== null) return yield* this.after(end, this.delivered);
      // the layout breaks inside a stream the binary decoded: decode it all again, as on damage
    } catch (err) {
      if (!(err instanceof DumpError) || this.inTail) throw err;
    } finally {
      // the decoder failed or the reader stopped early: the scan's answer is not wanted
      await scan?.cancel();
    }
    yield* this.blocks(bz2Blocks(this.reopen()), 0, 0, this.delivered);
  }

  /** The block decoder's output and gaps for the bytes after the streams, `delivered` bytes in. */
  after(end: StreamsEnd, delivered: number): AsyncGenerator<Buffer> {
    this.inTail = true;
    return this.blocks(bz2Blocks(end.rest), delivered, end.at, delivered);
  }

  /**
   * Block decoder pieces whose output starts `seen` bytes into the decoded input and whose input
   * starts at compressed byte `compressedBase`: until the first gap, the bytes up to `delivered`
   * were already passed on.
   */
  private async *blocks(pieces: AsyncIterable<Bz2Piece>, seen: number, compressedBase: number, delivered: number): AsyncGenerator<Buffer> {
    let pastGap = false;
    for await (const p of pieces) {
      if (Buffer.isBuffer(p)) {
        if (pastGap) {
          delivered += p.length;
          yield p;
          continue;
        }
        const from = Math.max(0, delivered - seen);
        seen += p.length;
        if (from < p.length) {
          yield from === 0 ? p : p.subarray(from);
          delivered = seen;
        }
        continue;
      }
      const piece = { ...p, compressedAt: p.compressedAt + compressedBase };
      const unverified = pastGap ? 0 : Math.max(0, delivered - seen);
      const reason = unverified > 0 ? `${piece.reason}; the bz2 binary had already passed on ${unverified} unverified bytes of it (use lbzip2 or --decoder js)` : piece.reason;
      if (!this.damage) {
        if (piece.kind === "trailing") continue;
        throw new DumpError(this.file, delivered, `bz2 data is truncated or corrupt (${reason}, at compressed byte ${piece.compressedAt})`);
      }
      this.damage.gaps.push({ ...piece, at: delivered, reason });
      pastGap = true;
    }
  }
}

/** The chunks already read to sniff the format, then the rest of the source. */
async function* replay(head: Buffer[], rest: AsyncIterator<Buffer> | null): AsyncGenerator<Buffer> {
  yield* head;
  if (rest === null) return;
  try {
    for (;;) {
      const r = await rest.next();
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await rest.return?.();
  }
}

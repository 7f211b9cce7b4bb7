/** How a runner hands an input file's bytes to a source: a local file, a Cloud Storage object, an HTTP resource. */
import { statSync } from "node:fs";

/** Bytes of one input file, as a runner can read them. */
export interface ByteSource {
  /** names the file in messages and damage reports (a path, or gs://bucket/object) */
  readonly label: string;
  /** bytes [start, end) of the file; end undefined = to the end of the file */
  read(start?: number, end?: number): AsyncIterable<Buffer>;
  /**
   * The same bytes as `read`, for a second pass over bytes the first pass reads and counts (a bz2
   * layout scan beside the decoder, a recovery after damage): not counted as input read, so progress
   * and decoder shares see each byte once (default: `read`)
   */
  reread?(start?: number, end?: number): AsyncIterable<Buffer>;
  /** told the size of decoded bytes as a decompressing source produces them (progress only) */
  onDecoded?: (bytes: number) => void;
  /**
   * Cores a decompressor of these bytes may use (default: all). A runner that decodes shards side by
   * side gives each its share: lbzip2 running more threads than it has cores loses most of its speed
   * (bz2-decoders.ts, decoderArgs).
   */
  decoderThreads?: number;
  /** the file on this machine that holds these bytes, when there is one (a 7z archive is read in place) */
  localPath?: string;
  /** the file's size in bytes, when the runner knows it without reading (a planned object's): where a parquet footer is */
  size?: number;
}

/** A read's chunks; when the consumer stops early, the rest of the (bounded) read is consumed, not abandoned. */
export async function* drained(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = chunks[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await it.next();
      } catch (e) {
        finished = true;
        throw e;
      }
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!finished) {
      try {
        while (!(await it.next()).done);
      } catch {
        // the consumer has what it needed; a failure in bytes it will not use is not its error
      }
    }
  }
}

/**
 * The bytes of a file from `start` to its end, read as bounded windows, each drained: a consumer may
 * stop anywhere (a shard ends mid-file) without leaving an HTTP response abandoned mid-body (its
 * socket stays open, paused, until the server drops it; through the storage library's shared agent it
 * used to cut every other request, see gcs-client.ts). A window asks for one byte more
 * than it hands on, to learn whether the file goes on without reading past its end.
 */
export async function* windowedRead(read: ByteSource["read"], start: number, window = 1 << 20): AsyncGenerator<Buffer> {
  for (let pos = start; ; pos += window) {
    let got = 0;
    for await (const chunk of drained(read(pos, pos + window + 1))) {
      const keep = chunk.subarray(0, Math.max(0, window - got));
      got += chunk.length;
      if (keep.length > 0) yield keep;
    }
    if (got <= window) return;
  }
}

/** The file's size where a reader needs its end (a parquet footer, a zip's directory): what the runner knows (a planned object's), else the local file's; null: not known. */
export function knownSize(bytes: ByteSource): number | null {
  if (bytes.size !== undefined) return bytes.size;
  return bytes.localPath ? statSync(bytes.localPath).size : null;
}

/** The bytes of `chunks` from offset `start` on (a decoded stream entered past its start: the bytes before are read and dropped). */
export async function* bytesFrom(chunks: AsyncIterable<Buffer>, start: number): AsyncGenerator<Buffer> {
  let skip = start;
  for await (const c of chunks) {
    if (skip >= c.length) {
      skip -= c.length;
      continue;
    }
    yield skip > 0 ? c.subarray(skip) : c;
    skip = 0;
  }
}

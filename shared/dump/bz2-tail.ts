/**
 * Bytes after the last bz2 stream, found the same whatever decoder ran. The JS block decoder reads
 * them (a gap of kind "trailing", counted as dump.trailing_bytes, or damage when blocks follow);
 * lbzip2 and bzip2 skip them silently and exit 0 (lbzip2 also skips every stream after them). So
 * after a binary succeeds, the input's last bytes are checked for a stream's end; only when they
 * are not one, or the binary stopped reading early, is the input scanned again for where its
 * streams end (block headers only, no decoding), and the block decoder reads on from there.
 */
import { magicKind } from "./bz2-blocks.ts";
import { bz2Jobs, type StreamsEnd } from "./bz2-parallel.ts";

/** An end-of-stream marker, its CRC and the padding to the byte fit in this many final bytes. */
const TAIL_BYTES = 11;

/** A source passed on unchanged, keeping its last few bytes. */
export interface WatchedSource {
  chunks: AsyncIterable<Buffer>;
  /** the last bytes seen (up to TAIL_BYTES), once the source is read */
  last(): Buffer;
}

export function watchTail(src: AsyncIterable<Buffer>): WatchedSource {
  let last: Buffer = Buffer.alloc(0);
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of src) {
      last = chunk.length >= TAIL_BYTES ? chunk : Buffer.concat([last.subarray(Math.max(0, last.length - TAIL_BYTES)), chunk]);
      yield chunk;
    }
  }
  return { chunks: chunks(), last: () => (last.length > TAIL_BYTES ? last.subarray(last.length - TAIL_BYTES) : last) };
}

/**
 * True when `tail` (the input's last bytes) ends with an end-of-stream marker, its CRC and zero
 * padding to the byte, as every bz2 stream does; false means bytes follow the last stream. (Bytes
 * appended after a stream that themselves end like one are not told apart: they would have to
 * hold the 48-bit marker at the right place.)
 */
export function endsWithStreamEnd(tail: Buffer): boolean {
  const bits = tail.length * 8;
  for (let pad = 0; pad < 8; pad++) {
    const at = bits - 80 - pad;
    if (at < 0) break;
    if (magicKind(tail, at) !== "eos") continue;
    const mask = (1 << pad) - 1;
    if ((tail[tail.length - 1]! & mask) === 0) return true;
  }
  return false;
}

/**
 * Where the bz2 streams of `src` end, from their layout (no block is decoded): "clean" when they
 * fill the input; the first byte after the last complete stream with the rest of the input when
 * something else follows; null when the layout breaks inside a stream (damage: the caller decodes
 * again from the start).
 */
export async function findStreamsEnd(src: AsyncIterable<Buffer>): Promise<StreamsEnd | "clean" | null> {
  const jobs = bz2Jobs(src);
  for (;;) {
    const r = await jobs.next();
    if (r.done) return "clean";
    if (!("stop" in r.value)) continue;
    // the rest is read through the source the suspended layout scan holds (closed by the rest)
    if (r.value.after) return r.value.after;
    await jobs.return(undefined);
    return null;
  }
}

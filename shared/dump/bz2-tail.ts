/**
 * Bytes after a bz2 stream that start no other, found the same whatever decoder ran. The JS block
 * decoder reads them (a gap of kind "trailing", counted as dump.trailing_bytes, or damage when
 * blocks follow); lbzip2 and bzip2 skip them and every stream after them silently and exit 0,
 * having read the whole input when little follows. So after a binary succeeds, the input is scanned
 * again for where its streams end (block headers only, no decoding: ~40 ms of CPU per 9 MB, against
 * ~3 s to decode it), and the block decoder reads on from there. The last bytes alone cannot tell:
 * garbage between two streams leaves a normal end behind it.
 */
import { bz2Jobs, type StreamsEnd } from "./bz2-parallel.ts";

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

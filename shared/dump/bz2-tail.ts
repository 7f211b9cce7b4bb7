/**
 * Bytes after a bz2 stream that start no other, found the same whatever decoder ran. The JS block
 * decoder reads them (a gap of kind "trailing", counted as dump.trailing_bytes, or damage when
 * blocks follow); lbzip2 and bzip2 skip them and every stream after them silently and exit 0,
 * having read the whole input when little follows. So after a binary succeeds, the input is scanned
 * again for where its streams end (block headers only, no decoding: ~40 ms of CPU per 9 MB, against
 * ~3 s to decode it), and the block decoder reads on from there. The last bytes alone cannot tell:
 * garbage between two streams leaves a normal end behind it. The scan runs beside the binary
 * (`scanStreamsEnd`): after it, on a 2-core machine, nothing else would use the cores it took.
 */
import { bz2Jobs, type StreamsEnd } from "./bz2-parallel.ts";

/**
 * Where the bz2 streams of `src` end, from their layout (no block is decoded): "clean" when they
 * fill the input; the first byte after the last complete stream with the rest of the input when
 * something else follows; null when the layout breaks inside a stream (damage: the caller decodes
 * again from the start).
 */
export async function findStreamsEnd(src: AsyncIterable<Buffer>, cancelled: () => boolean = () => false): Promise<StreamsEnd | "clean" | null> {
  const jobs = bz2Jobs(src);
  for (;;) {
    const r = await jobs.next();
    if (r.done) return "clean";
    if (cancelled()) {
      await jobs.return(undefined);
      return null;
    }
    if (!("stop" in r.value)) continue;
    // the rest is read through the source the suspended layout scan holds (closed by the rest)
    if (r.value.after) return r.value.after;
    await jobs.return(undefined);
    return null;
  }
}

/** A layout scan started before its answer is needed; `cancel` ends it and closes what it holds. */
export interface StreamsEndScan {
  /** the answer of findStreamsEnd; never rejects when `cancel` is called first */
  readonly end: Promise<StreamsEnd | "clean" | null>;
  /** stops the scan (its answer is then not wanted) and closes its input, also the rest it may hold */
  cancel(): Promise<void>;
}

/** Starts findStreamsEnd on `src` now, so it runs while the caller decodes the same input. */
export function scanStreamsEnd(src: AsyncIterable<Buffer>): StreamsEndScan {
  let cancelled = false;
  const end = findStreamsEnd(src, () => cancelled);
  // a failure is seen by whoever awaits `end`; one after cancel is nobody's
  end.catch(() => undefined);
  return {
    end,
    async cancel() {
      cancelled = true;
      const r = await end.catch(() => null);
      // the suspended scan holding the rest closes its input when the rest is closed after a first read
      if (r !== null && r !== "clean") {
        const it = r.rest[Symbol.asyncIterator]();
        try {
          await it.next();
        } catch {
          // closing is all that is wanted
        }
        await it.return?.();
      }
    },
  };
}

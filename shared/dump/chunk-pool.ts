/**
 * Chunks of decoded dump bytes that are used again once nothing reads them any more.
 *
 * Why: the decoder's output is read into 1 MiB chunks (decoder-output.ts). Fresh ones are external
 * memory: V8 starts a scavenge for every ~32 MB of it allocated and a full collection for every
 * ~64 MB, and the kernel maps every page of a fresh chunk in again (a fault per 4 KiB). A full-history
 * run puts its whole XML through them. Reused chunks cost none of that.
 *
 * A chunk is reused only when every holder has let go: holds are counted per chunk (its
 * ArrayBuffer), taken by whoever keeps a view of it beyond the call it got it in (the decoder's
 * reader while filling it, each view handed on, the page scanner while it scans or collects a field
 * in it, a revision's still-encoded text, the extractor's memory of recent texts) and given back when
 * that view is dropped. A view dropped without giving its hold back only keeps its chunk from being
 * reused (the garbage collector frees it as before): forgetting a release costs speed, never bytes.
 * Holding or releasing a view of memory that is not a pool's chunk does nothing.
 */

interface Entry {
  pool: ChunkPool;
  holds: number;
}

/** The pools' chunks, by their memory (weak: a chunk nobody releases is collected as usual). */
const inUse = new WeakMap<ArrayBufferLike, Entry>();

export class ChunkPool {
  private readonly free: ArrayBuffer[] = [];

  /**
   * @param chunkBytes the size of every chunk
   * @param maxFree free chunks kept for reuse at most (the rest are left to the garbage collector)
   */
  constructor(
    readonly chunkBytes: number,
    private readonly maxFree: number,
  ) {}

  /** A chunk (reused if one is free), held once by the caller; its bytes are arbitrary. */
  take(): Buffer {
    const reused = this.free.pop();
    const chunk = reused !== undefined ? Buffer.from(reused) : Buffer.allocUnsafeSlow(this.chunkBytes);
    inUse.set(chunk.buffer, { pool: this, holds: 1 });
    return chunk;
  }

  /** Free chunks now (for tests). */
  freeChunks(): number {
    return this.free.length;
  }

  /** @internal a chunk whose last hold was released */
  giveBack(memory: ArrayBuffer): void {
    if (this.free.length < this.maxFree) this.free.push(memory);
    else inUse.delete(memory);
  }
}

/** One more hold on the chunk `view` is part of (no-op for other memory). */
export function holdChunk(view: Uint8Array): void {
  const e = inUse.get(view.buffer);
  if (e === undefined) return;
  if (e.holds <= 0) throw new Error("a chunk was held after its last hold was released (its bytes may already be reused)");
  e.holds++;
}

/** Gives back a hold on the chunk `view` is part of; its last hold makes it free for reuse. */
export function releaseChunk(view: Uint8Array): void {
  const memory = view.buffer;
  const e = inUse.get(memory);
  if (e === undefined) return;
  if (e.holds <= 0) throw new Error("a chunk was released more often than held");
  // (the entry stays, at 0 holds, so a hold or release of a stale view is caught while it is free)
  if (--e.holds === 0) e.pool.giveBack(memory as ArrayBuffer);
}

/** Holds on the chunk `view` is part of (0 when it is not a pool's chunk in use; for tests). */
export function chunkHolds(view: Uint8Array): number {
  return inUse.get(view.buffer)?.holds ?? 0;
}

const shared = new Map<number, ChunkPool>();

/**
 * The process's pool of `chunkBytes` chunks (created on first use). Shared by the files a run reads
 * one after the other, so the second file reuses the first one's chunks; `maxFree` bounds what an
 * idle pool keeps.
 */
export function sharedChunkPool(chunkBytes: number, maxFree = 48): ChunkPool {
  let pool = shared.get(chunkBytes);
  if (pool === undefined) {
    pool = new ChunkPool(chunkBytes, maxFree);
    shared.set(chunkBytes, pool);
  }
  return pool;
}

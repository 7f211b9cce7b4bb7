/**
 * The cores each shard's decoder may use when a local run decodes shards side by side
 * (ByteSource.decoderThreads).
 *
 * Why: lbzip2 starts a thread per core, and lbzip2s that together run more threads than there are
 * cores lose most of their speed (two `lbzip2 -dc` at once on 2 cores: 2.5× the wall and CPU of the
 * same two files one after another; with `-n 1` each, 1.1×; scripts/bench/decoder-threads.ts). An
 * equal share is not enough either: a decoder keeps the threads it started with, so a large shard
 * started beside small ones would go on alone on its share of the cores once they end (a 152 MB and
 * a 26 MB history on 2 cores: 2.2 s with `-n 1` each, 1.6 s with 2 and 1). So a shard gets the cores in
 * proportion to its bytes among those decoded beside it (the running shards' bytes still to read and
 * the next shards to start), within the cores the running decoders leave free; shards start largest
 * first (the local runner orders them), so the last to run are the small ones.
 */

/**
 * Threads for a decoder of `size` bytes started beside decoders with `others` bytes still to read
 * (running, or next to start), when the running ones already took `taken` cores: its share of the
 * cores by bytes, rounded, at most what is free, at least one; undefined (the decoder's default, all
 * cores) when it runs alone. Rounded, not floored: a 152 MB history beside a 26 MB one on 2 cores gets
 * both (1.71), and the small one the one thread more, which it gives back soon (1.5–1.7 s against
 * 2.2 s with one each); what is free caps the sum everywhere else.
 */
export function decoderThreads(cores: number, size: number, others: readonly number[], taken: number): number | undefined {
  if (others.length === 0) return undefined;
  const total = size + others.reduce((a, b) => a + b, 0);
  const share = total > 0 ? Math.round((cores * size) / total) : Math.floor(cores / (others.length + 1));
  return Math.max(1, Math.min(share, cores - taken));
}

interface Running {
  size: number;
  read: number;
  threads: number;
}

/** The shards of one phase, in the order they start, and the decoders running now. */
export class DecoderShares {
  /** shards not started yet (id → bytes), in start order */
  private readonly waiting: Map<string, number>;
  private readonly running = new Map<string, Running>();

  /**
   * @param cores the machine's
   * @param sideBySide shards the runner decodes at once (1: every decoder gets all cores)
   * @param shards the phase's shards and their bytes, in the order they start
   */
  constructor(
    private readonly cores: number,
    private readonly sideBySide: number,
    shards: readonly { id: string; size: number }[],
  ) {
    this.waiting = new Map(shards.map((s) => [s.id, s.size]));
  }

  /**
   * A shard's decoder starts: the threads it may use (undefined: all cores), and what to tell of
   * the bytes it reads (so later shards see how much the running ones still have to read).
   */
  start(id: string, size: number): { threads: number | undefined; onRead: (bytes: number) => void } {
    this.waiting.delete(id);
    this.running.delete(id); // a shard read again (a retry) counts once
    if (this.sideBySide <= 1) return { threads: undefined, onRead: () => {} };
    const running = [...this.running.values()];
    const next = [...this.waiting.values()].slice(0, Math.max(0, this.sideBySide - running.length - 1));
    const taken = running.reduce((n, r) => n + r.threads, 0);
    const threads = decoderThreads(this.cores, size, [...running.map((r) => Math.max(0, r.size - r.read)), ...next], taken);
    const mine: Running = { size, read: 0, threads: threads ?? this.cores };
    this.running.set(id, mine);
    return { threads, onRead: (bytes) => (mine.read += bytes) };
  }

  /** The shard is done (read, failed or resumed from an earlier run). */
  end(id: string): void {
    this.waiting.delete(id);
    this.running.delete(id);
  }
}

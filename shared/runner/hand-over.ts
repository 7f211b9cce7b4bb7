/**
 * Runs tasks one at a time, except that a task may hand over early: the next one then starts while it
 * finishes. The local runner reads shards this way on two cores: a shard's decoder process (lbzip2 on
 * both cores) ends before the shard's task does — its last decoded bytes are still to parse, its
 * outputs and marker to write — and the next shard's decoder starts then instead of after it, so the
 * cores do not idle between shards. At most two tasks run at once (the one that handed over, the next).
 */

/** A task; it calls `handOver` (at most once counts) when the next may start beside its rest. */
export type HandOverTask<T> = (item: T, handOver: () => void) => Promise<void>;

/**
 * Every item's task, started in order. The first failure stops further starts; the tasks still
 * running are waited for (so none runs on unobserved) and the failure is thrown.
 */
export async function forEachHandingOver<T>(items: readonly T[], task: HandOverTask<T>): Promise<void> {
  const running: Promise<void>[] = [];
  try {
    for (const item of items) {
      let handOver!: () => void;
      const handedOver = new Promise<void>((resolve) => (handOver = resolve));
      const run = task(item, handOver);
      run.catch(() => {}); // observed when awaited below
      running.push(run);
      await Promise.race([run, handedOver]);
      // the one before has had its overlap: the next starts only once it is done
      while (running.length > 1) await running.shift();
    }
    while (running.length > 0) await running.shift();
  } catch (err) {
    await Promise.allSettled(running);
    throw err;
  }
}

/**
 * k-way merge of sorted JSONL objects that never reads more than `fanIn` of them at once: with more
 * inputs, groups of `fanIn` are first merged into intermediate runs in the store (level by level),
 * so open files stay bounded whatever the partition count. The result is the same sequence a single
 * merge of all inputs would give (ties go to the earlier input at every level).
 */
import type { z } from "zod";
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter, readJsonl } from "../io/jsonl.ts";

export const MERGE_FAN_IN = 32;

export interface BoundedMergeOptions<T> {
  /** checks each record read back (absent: the records are trusted, as runs this process wrote) */
  schema?: z.ZodType<T>;
  /** sort key; inputs are sorted ascending by it under `compare` */
  key: (record: T) => string;
  compare: (a: string, b: string) => number;
  /** object name of intermediate run `i` of merge level `level` */
  scratch: (level: number, i: number) => string;
  fanIn?: number;
}

export async function* mergeSorted<T>(store: BlobStore, names: string[], opts: BoundedMergeOptions<T>): AsyncGenerator<T> {
  const fanIn = Math.max(2, opts.fanIn ?? MERGE_FAN_IN);
  let inputs = names;
  let scratch: string[] = [];
  try {
    for (let level = 0; inputs.length > fanIn; level++) {
      const runs: string[] = [];
      for (let i = 0; i * fanIn < inputs.length; i++) {
        const name = opts.scratch(level, i);
        const out = new JsonlWriter(store.writer(name));
        try {
          for await (const r of mergeFew(store, inputs.slice(i * fanIn, (i + 1) * fanIn), opts)) await out.write(r);
        } catch (err) {
          await out.abort();
          throw err;
        }
        await out.close();
        runs.push(name);
      }
      for (const s of scratch) await store.delete(s);
      scratch = runs;
      inputs = runs;
    }
    yield* mergeFew(store, inputs, opts);
  } finally {
    for (const s of scratch) await store.delete(s);
  }
}

/** Plain k-way merge; every input is open at once (callers keep `names` short). */
async function* mergeFew<T>(store: BlobStore, names: string[], opts: BoundedMergeOptions<T>): AsyncGenerator<T> {
  // each input's head and its key (taken once per record, not once per comparison: keys can be long)
  const sources: { it: AsyncIterator<T>; head: IteratorResult<T>; key: string }[] = [];
  const keyOf = (h: IteratorResult<T>) => (h.done ? "" : opts.key(h.value));
  try {
    for (const name of names) {
      const it = readJsonl(store, name, opts.schema)[Symbol.asyncIterator]();
      const head = await it.next();
      sources.push({ it, head, key: keyOf(head) });
    }
    for (;;) {
      let best = -1;
      let bestKey = "";
      for (let i = 0; i < sources.length; i++) {
        const s = sources[i]!;
        if (s.head.done) continue;
        if (best < 0 || opts.compare(s.key, bestKey) < 0) {
          best = i;
          bestKey = s.key;
        }
      }
      if (best < 0) return;
      const src = sources[best]!;
      yield (src.head as IteratorYieldResult<T>).value;
      src.head = await src.it.next();
      src.key = keyOf(src.head);
    }
  } finally {
    // an early exit (error, or the consumer stopped) closes every input still open
    for (const s of sources) if (!s.head.done) await s.it.return?.(undefined);
  }
}

/**
 * Records grouped by a key, groups in key order, records of a group in arrival order, holding at most
 * `runRecords` records whatever the input's size: past that, sorted runs go to the store and come back
 * through a bounded k-way merge (ties to the earlier run, so arrival order within a key is kept). A
 * partition of a large run (millions of caption-list lines, a text pivot's 16 records per caption) is
 * no longer held whole; input that fits in one run never touches the store.
 */
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter } from "../io/jsonl.ts";
import { mergeSorted } from "./bounded-merge.ts";

/** Records held before a sorted run is written (~1 KB each for a caption-list reference with features). */
export const SORT_RUN_RECORDS = 65_536;

export interface SortedGroupsOptions<T> {
  key: (record: T) => string;
  /** where runs go; null: every record is held (tests, small inputs) */
  store: BlobStore | null;
  /** object name of run `i`, and of intermediate merge run `i` of level `level` */
  run: (i: number) => string;
  scratch: (level: number, i: number) => string;
  runRecords?: number;
  /** told each run written (its record count): a diagnostic */
  onRun?: (records: number) => void;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function* sortedGroups<T>(records: AsyncIterable<T>, opts: SortedGroupsOptions<T>): AsyncGenerator<T[]> {
  const limit = Math.max(1, opts.runRecords ?? SORT_RUN_RECORDS);
  const { store } = opts;
  // the held records by key, each key's in arrival order
  let held = new Map<string, T[]>();
  let count = 0;
  const runs: string[] = [];
  const spill = async () => {
    const name = opts.run(runs.length);
    await writeRun(store!, name, held);
    opts.onRun?.(count);
    runs.push(name);
    held = new Map();
    count = 0;
  };
  try {
    for await (const r of records) {
      const k = opts.key(r);
      const list = held.get(k);
      if (list) list.push(r);
      else held.set(k, [r]);
      if (store && ++count >= limit) await spill();
    }
    if (runs.length === 0) {
      for (const k of [...held.keys()].sort(cmp)) yield held.get(k)!;
      return;
    }
    if (count > 0) await spill();
    let group: T[] = [];
    let key: string | null = null;
    for await (const r of mergeSorted<T>(store!, runs, { key: opts.key, compare: cmp, scratch: opts.scratch })) {
      const k = opts.key(r);
      if (k !== key && group.length > 0) {
        yield group;
        group = [];
      }
      key = k;
      group.push(r);
    }
    if (group.length > 0) yield group;
  } finally {
    for (const name of runs) await store!.delete(name);
  }
}

async function writeRun<T>(store: BlobStore, name: string, held: Map<string, T[]>): Promise<void> {
  const out = new JsonlWriter(store.writer(name));
  try {
    for (const k of [...held.keys()].sort(cmp)) for (const r of held.get(k)!) await out.write(r);
  } catch (err) {
    await out.abort();
    throw err;
  }
  await out.close();
}

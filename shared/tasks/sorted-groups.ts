/**
 * Records sorted by a key (ties in arrival order), or grouped by it, holding at most `runRecords`
 * records whatever the input's size: past that, sorted runs go to the store and come back through a
 * bounded k-way merge (ties to the earlier run, so arrival order within a key is kept). A partition
 * of a large run (millions of caption-list lines, a text pivot's 16 records per caption, a million
 * candidate pairs) is no longer held whole; input that fits in one run never touches the store.
 */
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter } from "../io/jsonl.ts";
import type { Sorter } from "../pipeline/sorter.ts";
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
const byKey = <T>(x: { k: string; r: T }, y: { k: string; r: T }) => cmp(x.k, y.k);

/** A Sorter over sorted runs in `store`, named by the sort's name under `dir`. */
export function spillingSorter(store: BlobStore, dir: string, opts: Pick<SortedGroupsOptions<unknown>, "runRecords" | "onRun"> = {}): Sorter {
  return (records, key, name) => sortedRecords(records, {
    key, store, ...opts,
    run: (i) => `${dir}/${name}-run-${i}.jsonl`,
    scratch: (level, i) => `${dir}/${name}-merge-${level}-${i}.jsonl`,
  });
}

/** Records in key order, ties in arrival order. */
export async function* sortedRecords<T>(records: AsyncIterable<T>, opts: SortedGroupsOptions<T>): AsyncGenerator<T> {
  const limit = Math.max(1, opts.runRecords ?? SORT_RUN_RECORDS);
  const { store } = opts;
  let held: { k: string; r: T }[] = [];
  const runs: string[] = [];
  const spill = async () => {
    const name = opts.run(runs.length);
    // Array.prototype.sort is stable: ties stay in arrival order
    await writeRun(store!, name, held.sort(byKey));
    opts.onRun?.(held.length);
    runs.push(name);
    held = [];
  };
  try {
    for await (const r of records) {
      held.push({ k: opts.key(r), r });
      if (store && held.length >= limit) await spill();
    }
    if (runs.length === 0) {
      held.sort(byKey);
      for (let i = 0; i < held.length; i++) {
        const { r } = held[i]!;
        held[i] = undefined!; // let yielded records go
        yield r;
      }
      return;
    }
    if (held.length > 0) await spill();
    yield* mergeSorted<T>(store!, runs, { key: opts.key, compare: cmp, scratch: opts.scratch });
  } finally {
    for (const name of runs) await store!.delete(name);
  }
}

/** Groups of records with equal keys, in key order, records of a group in arrival order. */
export async function* sortedGroups<T>(records: AsyncIterable<T>, opts: SortedGroupsOptions<T>): AsyncGenerator<T[]> {
  let group: T[] = [];
  let key: string | null = null;
  for await (const r of sortedRecords(records, opts)) {
    const k = opts.key(r);
    if (k !== key && group.length > 0) {
      yield group;
      group = [];
    }
    key = k;
    group.push(r);
  }
  if (group.length > 0) yield group;
}

async function writeRun<T>(store: BlobStore, name: string, held: readonly { r: T }[]): Promise<void> {
  const out = new JsonlWriter(store.writer(name));
  try {
    for (const { r } of held) await out.write(r);
  } catch (err) {
    await out.abort();
    throw err;
  }
  await out.close();
}

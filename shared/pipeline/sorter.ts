/**
 * How a stage sorts what it cannot stream (the dedup's pairs): records by `key` (code-unit order),
 * ties in arrival order; `name` tells one run's sorts apart. A task hands its stage a sorter that
 * holds a bounded number of records (tasks/sorted-groups.ts, records back through JSON: plain data
 * only); the default holds them all.
 */
export type Sorter = <T>(records: AsyncIterable<T>, key: (record: T) => string, name: string) => AsyncIterable<T>;

export const sortInMemory: Sorter = async function* <T>(records: AsyncIterable<T>, key: (record: T) => string) {
  const held: { k: string; r: T }[] = [];
  for await (const r of records) held.push({ k: key(r), r });
  // Array.prototype.sort is stable: ties stay in arrival order
  held.sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0));
  for (const { r } of held) yield r;
};

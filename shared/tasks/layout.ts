/** Object names of a run in the work store: deterministic, so retries overwrite instead of duplicating. */
const pad = (n: number) => String(n).padStart(5, "0");

export const layout = {
  manifest: () => `manifest.json`,
  extractPart: (shard: string, p: number) => `extract/${shard}/p-${pad(p)}.jsonl`,
  extractDone: (shard: string) => `extract/${shard}/_DONE.json`,
  // Group output is filed by the dedup partition that reads it: dedup q lists one folder and reads
  // only the files that exist, so its work does not grow with the partition count.
  groupPart: (p: number, q: number) => `pairs/q-${pad(q)}/p-${pad(p)}.jsonl`,
  groupPartsFor: (q: number) => `pairs/q-${pad(q)}/`,
  groupPartsRoot: "pairs",
  groupDone: (p: number) => `group/p-${pad(p)}/_DONE.json`,
  dedupPart: (q: number, tier: string) => `dedup/q-${pad(q)}/${tier}.jsonl`,
  dedupDone: (q: number) => `dedup/q-${pad(q)}/_DONE.json`,
  /** one item's entry of a per-item cache (item-cache.ts), fanned out by the first hex digits of its id */
  itemCache: (namespace: string, id: string) => `cache/${namespace}/${id.slice(0, 2)}/${id}.json`,
  /** intermediate runs of the aggregate's bounded merge (removed once the tier file is written) */
  mergeRun: (tier: string, level: number, i: number) => `merge/${tier}/l${level}-${pad(i)}.jsonl`,
};

/** Object names of a run in the work store: deterministic, so retries overwrite instead of duplicating. */
const pad = (n: number) => String(n).padStart(5, "0");

export const layout = {
  manifest: () => `manifest.json`,
  extractPart: (shard: string, p: number) => `extract/${shard}/p-${pad(p)}.jsonl`,
  extractDone: (shard: string) => `extract/${shard}/_DONE.json`,
  groupPart: (p: number, q: number) => `group/p-${pad(p)}/q-${pad(q)}.jsonl`,
  groupDone: (p: number) => `group/p-${pad(p)}/_DONE.json`,
  dedupPart: (q: number, tier: string) => `dedup/q-${pad(q)}/${tier}.jsonl`,
  dedupDone: (q: number) => `dedup/q-${pad(q)}/_DONE.json`,
};

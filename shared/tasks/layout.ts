/**
 * Object names of a run in the work store that belong to no phase's data: deterministic, so retries
 * overwrite instead of duplicating. Datasets are named by their wiring (datasets.ts), markers by their
 * phase (phase-task.ts).
 */
export const layout = {
  manifest: () => `manifest.json`,
  /** one item's entry of a per-item cache (item-cache.ts), fanned out by the first hex digits of its id */
  itemCache: (namespace: string, id: string) => `cache/${namespace}/${id.slice(0, 2)}/${id}.json`,
};

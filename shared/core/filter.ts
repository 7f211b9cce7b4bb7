/**
 * Filters return a verdict; `applyFilter` counts it. Funnel rows are derived from these counters and
 * from each filter's own metadata (paper step, unit), never maintained by hand.
 */
import { filterCounter } from "./counter-names.ts";
import type { Counters } from "./counters.ts";

/** keep, or drop with a reason (snake_case, stable: it becomes a counter name). */
export type Verdict = true | { drop: string };

/**
 * What a filter judges: one image (with its corpus-wide counts), one reference, one caption, or one
 * candidate pair. The funnel counts an image or reference filter in references, a caption filter in
 * captions and a pair filter in pairs.
 */
export type FilterUnit = "image" | "reference" | "caption" | "pair";

/** A filter's identity and place in the method, without its rule (also describes stateful steps such as unique-candidate dedup). */
export interface FilterInfo {
  /** versioned rule id, `<name>_v<version>`: a report says which rule version dropped what */
  readonly id: string;
  readonly name: string;
  /** bumped when the rule changes what it keeps, so counters of different rules never mix */
  readonly version: number;
  /** the step of the paper's Table 3 (docs/method.md) this filter implements; null: not in the paper (ours, or the thesis's) */
  readonly paperStep: number | null;
  readonly unit: FilterUnit;
  /** one-line description for the report */
  readonly description: string;
}

/**
 * A filter may await (read an image's pixels, ask a model): its verdict is then a promise. Stages take
 * `Filter<T>` and await only verdicts that are promises, so synchronous filters cost no microtask.
 */
export interface Filter<T> extends FilterInfo {
  keep(record: T): Verdict | Promise<Verdict>;
}

/** A filter that decides at once; `applyFilter` on it returns a plain boolean. */
export interface SyncFilter<T> extends Filter<T> {
  keep(record: T): Verdict;
}

export interface FilterSpec<T, V extends Verdict | Promise<Verdict> = Verdict> extends Omit<FilterInfo, "id"> {
  keep(record: T): V;
}

/** A filter whose id is built from its name and version (synchronous unless its `keep` returns a promise). */
export function defineFilter<T>(spec: FilterSpec<T>): SyncFilter<T>;
export function defineFilter<T>(spec: FilterSpec<T, Verdict | Promise<Verdict>>): Filter<T>;
export function defineFilter<T>(spec: FilterSpec<T, Verdict | Promise<Verdict>>): Filter<T> {
  return { id: filterId(spec.name, spec.version), ...spec };
}

/** The metadata of a step that is not a plain per-record filter. */
export function defineFilterInfo(spec: Omit<FilterInfo, "id">): FilterInfo {
  return { id: filterId(spec.name, spec.version), ...spec };
}

function filterId(name: string, version: number): string {
  if (!/^[a-z][a-z0-9_]*$/.test(name) || !Number.isInteger(version) || version < 1) throw new Error(`invalid filter name/version: ${name} v${version}`);
  return `${name}_v${version}`;
}

/**
 * Runs one filter on one record of a tier and counts `filter.<tier>.<id>.in`, `.kept`, `.dropped`
 * and `.dropped.<reason>`, each weighted by `weight` (a history reference repeated in N revisions
 * weighs N), with the record as a sample of its reason. A promised verdict is counted when it
 * settles (a rejected one rejects, uncounted); a verdict given at once is counted and returned at once.
 */
export function applyFilter<T>(filter: SyncFilter<T>, record: T, counters: Counters, tier: string, weight?: number): boolean;
export function applyFilter<T>(filter: Filter<T>, record: T, counters: Counters, tier: string, weight?: number): boolean | Promise<boolean>;
export function applyFilter<T>(filter: Filter<T>, record: T, counters: Counters, tier: string, weight = 1): boolean | Promise<boolean> {
  const verdict = filter.keep(record);
  if (verdict === true) {
    countFilterVerdict(filter, counters, tier, true, weight);
    return true;
  }
  if (verdict instanceof Promise) return verdict.then((v) => countVerdict(filter, record, counters, tier, weight, v));
  return countVerdict(filter, record, counters, tier, weight, verdict);
}

function countVerdict<T>(filter: Filter<T>, record: T, counters: Counters, tier: string, weight: number, verdict: Verdict): boolean {
  if (verdict === true) {
    countFilterVerdict(filter, counters, tier, true, weight);
    return true;
  }
  countFilterVerdict(filter, counters, tier, verdict.drop, weight);
  const example = exampleOf(record);
  if (example !== null) counters.samples.add(filterCounter(tier, filter.id, "dropped", verdict.drop), example);
  return false;
}

/** The counts of one verdict (true: kept; a string: dropped for that reason), for steps that decide without a Filter. */
export function countFilterVerdict(info: FilterInfo, counters: Counters, tier: string, verdict: true | string, weight = 1): void {
  counters.inc(filterCounter(tier, info.id, "in"), weight);
  if (verdict === true) {
    counters.inc(filterCounter(tier, info.id, "kept"), weight);
    return;
  }
  counters.inc(filterCounter(tier, info.id, "dropped"), weight);
  counters.inc(filterCounter(tier, info.id, "dropped", verdict), weight);
}

/**
 * What a report shows of a dropped record: a caption's text, a pair's two texts, an image's name
 * (with the page of a single reference). The records filters see are of these few shapes.
 */
export function exampleOf(record: unknown): string | null {
  if (typeof record !== "object" || record === null) return null;
  const r = record as { text?: unknown; a?: { text?: unknown }; b?: { text?: unknown }; image?: unknown; page?: unknown };
  if (typeof r.a?.text === "string" && typeof r.b?.text === "string") return `${r.a.text} ⟷ ${r.b.text}`;
  if (typeof r.text === "string") return r.text;
  if (typeof r.image === "string") return typeof r.page === "string" ? `${r.image} (on ${r.page})` : r.image;
  return null;
}

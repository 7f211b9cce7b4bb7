/**
 * Filters return a verdict; `applyFilter` counts it. Funnel rows are derived from these counters,
 * never maintained by hand.
 */
import type { Counters } from "./counters.ts";

/** keep, or drop with a reason (snake_case, stable: it becomes a counter name). */
export type Verdict = true | { drop: string };

export interface Filter<T> {
  /** versioned rule id, e.g. "min_words_v1", so a report can say which rule version dropped what */
  readonly id: string;
  /** one-line description for the report */
  readonly description: string;
  keep(record: T): Verdict;
}

/**
 * Runs one filter on one record and counts `<prefix>.<id>.in`, `.kept`, `.dropped` and
 * `.dropped.<reason>`, each weighted by `weight` (a history reference repeated in N revisions
 * weighs N).
 */
export function applyFilter<T>(
  filter: Filter<T>,
  record: T,
  counters: Counters,
  prefix: string,
  weight = 1,
): boolean {
  const key = `${prefix}.${filter.id}`;
  counters.inc(`${key}.in`, weight);
  const verdict = filter.keep(record);
  if (verdict === true) {
    counters.inc(`${key}.kept`, weight);
    return true;
  }
  counters.inc(`${key}.dropped`, weight);
  counters.inc(`${key}.dropped.${verdict.drop}`, weight);
  const example = exampleOf(record);
  if (example !== null) counters.samples.add(`${key}.dropped.${verdict.drop}`, example);
  return false;
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

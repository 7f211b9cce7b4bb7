/**
 * Funnel rows (paper Table 3), derived from the filter list of a tier. Each row's numbers are
 * accumulated as counters `funnel.<tier>.<row>.<column>` by the stage that applies the row's filter.
 */
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { CaptionFeatures, CaptionType, ShuffleRef } from "../core/records.ts";
import { captionFilters, divergentFilter, hasCaptionFilter, imageFilters, minCaptionedUsesFilter, pairFilters, setSizeFilter } from "./filters.ts";
import type { TierSpec } from "./tiers.ts";

export const FUNNEL_COLUMNS = ["images", "images_ge2", "images_ge5", "references", "captions", "candidates"] as const;
export type FunnelColumn = (typeof FUNNEL_COLUMNS)[number];

export interface FunnelRowSpec {
  readonly id: string;
  readonly label: string;
  /** the step of the paper's Table 3 (docs/method.md) this row implements; rows of one step share it */
  readonly paperStep: number;
  /** the unit the row's filter counts in (its in = kept + dropped); null for row 0 (no filter) */
  readonly unit: "references" | "captions" | "pairs" | null;
}

/**
 * Counter suffix on the distinct-uses bound row (`filter.<tier>.max_uses_v1.paper_rule_dropped`, and
 * `…_images`): the references and images the paper's rule (≤ N references, every revision counted)
 * would have dropped at that row, so a report can show both rules side by side.
 */
export const PAPER_RULE_DROPPED = "paper_rule_dropped";

export const UNIQUE_ROW: FunnelRowSpec = { id: "unique_v1", label: "pair is unique corpus-wide (exact texts; duplicates keep the smallest id)", paperStep: 7, unit: "pairs" };

/**
 * The rows of a tier's funnel, in paper order. Columns (see countImageRow): images, references and
 * captions still in the funnel after the row's filter, and candidates = the pairs those captions form.
 * Rows 0–8 count candidates as Σ per image and caption type of C(n, 2) over distinct uses (at the
 * "captioned references" row that is exactly the pairs built); pair rows count the pairs kept.
 */
export function funnelRows(config: ParacapConfig, tier: TierSpec, opts: { setSizeMax?: number | null } = {}): FunnelRowSpec[] {
  const captioned = minCaptionedUsesFilter(2);
  const setSize = opts.setSizeMax === undefined || opts.setSizeMax === null ? [] : [setSizeFilter(opts.setSizeMax)];
  const imageStep = (id: string) => (id.startsWith("min_refs") ? 1 : id.startsWith("max_refs") || id.startsWith("max_uses") ? 2 : 0);
  return [
    { id: "all", label: "all image references", paperStep: 0, unit: null },
    ...imageFilters(config, tier).map((f) => ({ id: f.id, label: f.description, paperStep: imageStep(f.id), unit: "references" as const })),
    { id: hasCaptionFilter.id, label: hasCaptionFilter.description, paperStep: 3, unit: "references" },
    ...captionFilters(config, tier).map((f) => ({ id: f.id, label: f.description, paperStep: captionFilterStep(f.id), unit: "captions" as const })),
    { id: captioned.id, label: captioned.description, paperStep: 6, unit: "references" },
    ...setSize.map((f) => ({ id: f.id, label: f.description, paperStep: 6, unit: "pairs" as const })),
    UNIQUE_ROW,
    // divergent is step 8; significant difference and its refinement (spelling fix) step 9
    ...pairFilters(config).map((f) => ({ id: f.id, label: f.description, paperStep: f.id === divergentFilter.id ? 8 : 9, unit: "pairs" as const })),
  ];
}

/** Table 3 step of a caption filter: empty or unrendered → 3 (has a caption), words/profanity/language → 4, sentence/verb → 5. */
function captionFilterStep(id: string): number {
  if (id.startsWith("non_empty") || id.startsWith("readable") || id.startsWith("rendered")) return 3;
  if (id.startsWith("is_sentence") || id.startsWith("has_verb")) return 5;
  return 4;
}

/** One distinct use of an image while it moves through the caption filters. */
export interface UseState {
  readonly ref: ShuffleRef;
  caption: CaptionFeatures | null;
  alt: CaptionFeatures | null;
}

export const CAPTION_TYPES: readonly CaptionType[] = ["caption", "alt"];

/** Adds one image's contribution to a funnel row. Candidates = Σ over caption types of C(n, 2) distinct uses. */
export function countImageRow(counters: Counters, tier: string, row: string, uses: readonly UseState[]): void {
  if (uses.length === 0) return;
  const p = `funnel.${tier}.${row}`;
  let references = 0;
  let captions = 0;
  let nCaption = 0;
  let nAlt = 0;
  for (const u of uses) {
    references += u.ref.uses;
    const k = (u.caption ? 1 : 0) + (u.alt ? 1 : 0);
    captions += k * u.ref.uses;
    if (u.caption) nCaption++;
    if (u.alt) nAlt++;
  }
  counters.inc(`${p}.images`);
  if (references >= 2) counters.inc(`${p}.images_ge2`);
  if (references >= 5) counters.inc(`${p}.images_ge5`);
  counters.inc(`${p}.references`, references);
  counters.inc(`${p}.captions`, captions);
  counters.inc(`${p}.candidates`, (nCaption * (nCaption - 1)) / 2 + (nAlt * (nAlt - 1)) / 2);
}

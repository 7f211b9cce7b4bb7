/**
 * Funnel rows (paper Table 3), derived from the filter list of a tier. Each row's numbers are
 * accumulated as counters `funnel.<tier>.<row>.<column>` by the stage that applies the row's filter.
 */
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { CaptionFeatures, CaptionType, ShuffleRef } from "../core/records.ts";
import { captionFilters, divergentFilter, hasCaptionFilter, maxRefsFilter, minCaptionedUsesFilter, minRefsFilter, significantDifferenceFilter } from "./filters.ts";
import type { TierSpec } from "./tiers.ts";

export const FUNNEL_COLUMNS = ["images", "images_ge2", "images_ge5", "references", "captions", "candidates"] as const;
export type FunnelColumn = (typeof FUNNEL_COLUMNS)[number];

export interface FunnelRowSpec {
  readonly id: string;
  readonly label: string;
  /** the unit the row's filter counts in (its in = kept + dropped) */
  readonly unit: "references" | "captions" | "pairs" | null;
}

export const UNIQUE_ROW: FunnelRowSpec = { id: "unique_v1", label: "unique candidates (corpus-wide, exact text)", unit: "pairs" };

export function funnelRows(config: ParacapConfig, tier: TierSpec): FunnelRowSpec[] {
  return [
    { id: "all", label: "all image references", unit: null },
    { id: minRefsFilter(config.images.minRefs).id, label: minRefsFilter(config.images.minRefs).description, unit: "references" },
    { id: maxRefsFilter(tier.maxRefs).id, label: maxRefsFilter(tier.maxRefs).description, unit: "references" },
    { id: hasCaptionFilter.id, label: hasCaptionFilter.description, unit: "references" },
    ...captionFilters(config, tier).map((f) => ({ id: f.id, label: f.description, unit: "captions" as const })),
    { id: minCaptionedUsesFilter(2).id, label: minCaptionedUsesFilter(2).description, unit: "references" },
    UNIQUE_ROW,
    { id: divergentFilter.id, label: divergentFilter.description, unit: "pairs" },
    { id: significantDifferenceFilter.id, label: significantDifferenceFilter.description, unit: "pairs" },
  ];
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

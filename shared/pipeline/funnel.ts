/**
 * Funnel rows (paper Table 3), derived from the filter lists of a tier (filters.ts): one row per
 * filter, its step, label and unit read from the filter's own metadata. Each row's numbers are
 * accumulated as counters `funnel.<tier>.<row>.<column>` (core/counter-names.ts) by the stage that
 * applies the row's filter.
 */
import type { ParacapConfig } from "../core/config.ts";
import { funnelCounter, type FunnelCounterColumn } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import type { FilterInfo, FilterUnit } from "../core/filter.ts";
import { CAPTION_TYPES, type CaptionFeatures, type CaptionType, type ShuffleRef } from "../core/records.ts";
import { funnelSteps, tierFilters, type TierFilters } from "./filters.ts";
import type { TierSpec } from "./tiers.ts";

export const FUNNEL_COLUMNS = ["images", "images_ge2", "images_ge5", "references", "captions", "candidates"] as const satisfies readonly FunnelCounterColumn[];
export type FunnelColumn = (typeof FUNNEL_COLUMNS)[number];

export type FunnelUnit = "references" | "captions" | "pairs";

export interface FunnelRowSpec {
  readonly id: string;
  readonly label: string;
  /**
   * the step of the paper's Table 3 (docs/method.md) this row sits in: the filter's own step, or, for
   * a filter that is not in the paper, the step of the row above it (rows of one step share it)
   */
  readonly paperStep: number;
  /** whether the row's rule is the paper's (false: ours or the thesis's; null for row 0, no filter) */
  readonly inPaper: boolean | null;
  /** the unit the row's filter counts in (its in = kept + dropped); null for row 0 (no filter) */
  readonly unit: FunnelUnit | null;
}

/** The unit a filter's counts are in: image and reference filters are weighted by references. */
export const FUNNEL_UNIT: Record<FilterUnit, FunnelUnit> = { image: "references", reference: "references", caption: "captions", pair: "pairs" };

/**
 * The rows of a tier's funnel, in paper order. Columns (see countImageRow): images, references and
 * captions still in the funnel after the row's filter, and candidates = the pairs those captions form.
 * Rows 0–8 count candidates as Σ per image and caption type of C(n, 2) over distinct uses (at the
 * "captioned references" row that is exactly the pairs built); pair rows count the pairs kept.
 */
export function funnelRows(config: ParacapConfig, tier: TierSpec, opts: { setSizeMax?: number | null; phaseFilters?: readonly FilterInfo[] } = {}): FunnelRowSpec[] {
  return funnelRowsOf(tierFilters(config, tier, opts), opts.phaseFilters);
}

/**
 * The rows of the tier's filters, with the filters of phases a pipeline adds between group and dedup
 * (pair filters on candidates) placed where they run: after the group rows, before unique-candidate dedup.
 */
export function funnelRowsOf(filters: TierFilters, phaseFilters: readonly FilterInfo[] = []): FunnelRowSpec[] {
  const rows: FunnelRowSpec[] = [{ id: "all", label: "all image references", paperStep: 0, inPaper: null, unit: null }];
  const steps = funnelSteps(filters);
  const at = steps.indexOf(filters.unique);
  steps.splice(at, 0, ...phaseFilters);
  for (const f of steps) rows.push(rowOf(f, rows[rows.length - 1]!.paperStep));
  return rows;
}

function rowOf(f: FilterInfo, stepAbove: number): FunnelRowSpec {
  return { id: f.id, label: f.description, paperStep: f.paperStep ?? stepAbove, inPaper: f.paperStep !== null, unit: FUNNEL_UNIT[f.unit] };
}

/** One distinct use of an image while it moves through the caption filters. */
export interface UseState {
  readonly ref: ShuffleRef;
  caption: CaptionFeatures | null;
  alt: CaptionFeatures | null;
  title: CaptionFeatures | null;
  nearby: CaptionFeatures | null;
}


/** A use's state before any caption filter: every caption type it carries. */
export function useState(ref: ShuffleRef): UseState {
  return { ref, caption: ref.caption, alt: ref.alt, title: ref.title ?? null, nearby: ref.nearby ?? null };
}

/** Whether a use still has a caption of some type. */
export function isCaptioned(u: UseState): boolean {
  return CAPTION_TYPES.some((t) => u[t] !== null);
}

/** Adds one image's contribution to a funnel row. Candidates = Σ over caption types of C(n, 2) distinct uses. */
export function countImageRow(counters: Counters, tier: string, row: string, uses: readonly UseState[]): void {
  if (uses.length === 0) return;
  let references = 0;
  let captions = 0;
  const perType = CAPTION_TYPES.map(() => 0);
  for (const u of uses) {
    references += u.ref.uses;
    let k = 0;
    CAPTION_TYPES.forEach((t, i) => {
      if (u[t]) {
        k++;
        perType[i]!++;
      }
    });
    captions += k * u.ref.uses;
  }
  counters.inc(funnelCounter(tier, row, "images"));
  if (references >= 2) counters.inc(funnelCounter(tier, row, "images_ge2"));
  if (references >= 5) counters.inc(funnelCounter(tier, row, "images_ge5"));
  counters.inc(funnelCounter(tier, row, "references"), references);
  counters.inc(funnelCounter(tier, row, "captions"), captions);
  counters.inc(funnelCounter(tier, row, "candidates"), perType.reduce((n, m) => n + (m * (m - 1)) / 2, 0));
}

/**
 * stats.json: the funnel per tier (paper Table 3) derived from merged counters, plus shard health.
 * Every filter row carries in / kept / dropped-by-reason, so a reader can check kept + dropped = in.
 */
import { z } from "zod";
import type { ParacapConfig } from "../core/config.ts";
import { filterCounter, filterReasonsPrefix, funnelCounter, groupCappedPairsCounter, PAIRS_CAPPED_REASON, pivotCounter, WEB_SET_COUNTERS, INVALID_FILE_NAME_COUNTER, isPivotUnreadableSamples } from "../core/counter-names.ts";
import { TEXT_PIVOT_NAMES } from "../core/plugin-names.ts";
import type { Counters } from "../core/counters.ts";
import type { FilterInfo } from "../core/filter.ts";
import { FUNNEL_COLUMNS, funnelRows } from "../pipeline/funnel.ts";
import { tierSpecs } from "../pipeline/tiers.ts";
import { boundFromMoments } from "../pipeline/set-size-bound.ts";

export const FunnelRow = z.object({
  step: z.number().int(),
  /** the step of the paper's Table 3 (docs/method.md) this row implements, or sits in when in_paper is false */
  paper_step: z.number().int(),
  /** whether the row's rule is the paper's (false: ours or the thesis's, from the filter's metadata); null for row 0 */
  in_paper: z.boolean().nullable(),
  id: z.string(),
  label: z.string(),
  unit: z.enum(["references", "captions", "pairs"]).nullable(),
  images: z.number().nullable(),
  images_ge2: z.number().nullable(),
  images_ge5: z.number().nullable(),
  references: z.number().nullable(),
  mean_refs_per_image: z.number().nullable(),
  captions: z.number().nullable(),
  /** null on a row before extraction (a source's caption filter: no images or pairs yet) */
  candidates: z.number().nullable(),
  filter: z.object({
    in: z.number(),
    kept: z.number(),
    dropped: z.number(),
    reasons: z.record(z.string(), z.number()),
    /** a few of the dropped records per reason, chosen deterministically (core/samples.ts) */
    examples: z.record(z.string(), z.array(z.string())).optional(),
  }).nullable(),
});
export type FunnelRow = z.infer<typeof FunnelRow>;

/** Distinct images / uses / captions among a tier's final pairs, counted while the output is written. */
export interface FinalRowCounts {
  images: number;
  images_ge2: number;
  images_ge5: number;
  references: number;
  captions: number;
  pairs: number;
}

export const Stats = z.object({
  version: z.literal(1),
  inputs: z.array(z.object({ uri: z.string(), kind: z.string(), shards: z.number(), tiers: z.array(z.string()) })),
  shards: z.object({
    total: z.number(),
    ok: z.number(),
    /** damaged shards: pages before `offset` (decompressed bytes of `file`) were used, the rest skipped */
    corrupt: z.array(z.object({ shard: z.string(), file: z.string(), offset: z.number().nullable(), error: z.string() })),
    /** shards that never finished (cloud: dead-lettered); their pages are not in the datasets */
    missing: z.array(z.string()),
  }),
  /** true when every shard was read to its end: none missing, none damaged */
  /** dead-lettered partition tasks (`group-3`, `dedup-7`): the images or pairs hashed to them are missing */
  failedTasks: z.array(z.string()),
  complete: z.boolean(),
  extraction: z.record(z.string(), z.number()),
  /**
   * a few examples per extraction counter that keeps them (a damaged WARC record's file@offset and
   * reason, a WARC not fetched, a repaired entity); absent when there are none, so those stats keep their bytes
   */
  extraction_examples: z.record(z.string(), z.array(z.string())).optional(),
  tiers: z.record(z.string(), z.object({ input: z.string(), pairs: z.number(), funnel: z.array(FunnelRow) })),
  counters: z.record(z.string(), z.number()),
  /** the pivot, when not the default resource identity (absent otherwise, so those stats keep their bytes) */
  pivot: z.object({ name: z.string(), settings: z.record(z.string(), z.unknown()).optional() }).optional(),
});
export type Stats = z.infer<typeof Stats>;

/** Which pivot a run used, in words (report.md, report.html); null for the default resource identity. */
export function pivotLine(stats: Stats): string | null {
  const p = stats.pivot;
  if (!p) return null;
  if (p.name === "url") return "Pivot: url (an image is its normalised URL: scheme and host case, default ports, fragments and CDN resize parameters folded).";
  if (p.name !== "canonical" && p.name !== "minhash") return `Pivot: ${p.name} (an image is its pixels; see "Image identity from pixels").`;
  const pairs = Object.entries(stats.counters).filter(([k]) => k.startsWith(`pivot.${p.name}.`) && k.endsWith(".pairs")).reduce((n, [, v]) => n + v, 0);
  const what = p.name === "canonical" ? "captions with one Déjà canonical form, across images" : "captions whose word sets are similar by min-hash (Chung & Knight), across images";
  const unreadable = Object.entries(stats.counters).filter(([k]) => k.startsWith(`pivot.${p.name}.captions_unreadable.`));
  const skipped = unreadable.length === 0 ? "" : ` Not keyed, unreadable: ${unreadable.map(([k, v]) => `${v.toLocaleString("en-US")} ${k.slice(k.lastIndexOf(".") + 1)}`).join(", ")}.`;
  return `Pivot: ${p.name} (${what}); ${pairs.toLocaleString("en-US")} candidate pairs before dedup. Pairs carry \`pivot\` and each side its own \`image\`.${skipped}`;
}

/** A caption filter a source applies before extraction, and the tier name its counters are under. */
export interface SourceCaptionFilter {
  tier: string;
  info: FilterInfo;
}

/**
 * The funnel rows of the sources' caption filters (web captions: length, boilerplate, profanity,
 * language) that this run applied: they act before any reference exists, so each row counts captions
 * only (in, kept, dropped by reason, examples), the same in every tier's funnel.
 */
function sourceFilterRows(counters: Counters, filters: readonly SourceCaptionFilter[]): FunnelRow[] {
  return filters
    .filter(({ tier, info }) => counters.get(filterCounter(tier, info.id, "in")) > 0)
    .map(({ tier, info }, step) => {
      const kept = counters.get(filterCounter(tier, info.id, "kept"));
      return {
        step,
        paper_step: 0,
        in_paper: false,
        id: info.id,
        label: `before extraction (${tier} captions): ${info.description}`,
        unit: "captions" as const,
        images: null,
        images_ge2: null,
        images_ge5: null,
        references: null,
        mean_refs_per_image: null,
        captions: kept,
        candidates: null,
        filter: { in: counters.get(filterCounter(tier, info.id, "in")), kept, dropped: counters.get(filterCounter(tier, info.id, "dropped")), reasons: counters.withPrefix(filterReasonsPrefix(tier, info.id)), ...examplesOf(counters, tier, info.id) },
      };
    });
}

export function funnelTable(config: ParacapConfig, counters: Counters, tier: string, final: FinalRowCounts, phaseFilters: readonly FilterInfo[] = [], sourceFilters: readonly SourceCaptionFilter[] = []): FunnelRow[] {
  const before = sourceFilterRows(counters, sourceFilters);
  const rows = tierFunnel(config, counters, tier, final, phaseFilters);
  return before.length === 0 ? rows : [...before, ...rows.map((r) => ({ ...r, step: r.step + before.length }))];
}

function tierFunnel(config: ParacapConfig, counters: Counters, tier: string, final: FinalRowCounts, phaseFilters: readonly FilterInfo[]): FunnelRow[] {
  const spec = tierSpecs(config).find((t) => t.name === tier)!;
  const rows = funnelRows(config, spec, { setSizeMax: runSetSizeMax(config, counters), phaseFilters });
  // pairs over the per-image cap were never made: the first pair row counts them as its drops
  const capped = counters.get(groupCappedPairsCounter(tier));
  // so are a text pivot's meetings it did not pair (the group rows' candidates count every meeting)
  const notPaired = textPivotNotPaired(config, counters, tier);
  const firstPairRow = rows.findIndex((r) => r.unit === "pairs");
  return rows.map((row, step) => {
    const isPairRow = row.unit === "pairs";
    const isLast = step === rows.length - 1;
    const col = (c: (typeof FUNNEL_COLUMNS)[number]) => counters.get(funnelCounter(tier, row.id, c));
    const images = isPairRow ? (isLast ? final.images : null) : col("images");
    const references = isPairRow ? (isLast ? final.references : null) : col("references");
    const filterIn = counters.get(filterCounter(tier, row.id, "in"));
    return {
      step,
      paper_step: row.paperStep,
      in_paper: row.inPaper,
      id: row.id,
      label: row.label,
      unit: row.unit,
      images,
      images_ge2: isPairRow ? (isLast ? final.images_ge2 : null) : col("images_ge2"),
      images_ge5: isPairRow ? (isLast ? final.images_ge5 : null) : col("images_ge5"),
      references,
      mean_refs_per_image: images && references !== null ? round(references / images, 2) : null,
      captions: isPairRow ? (isLast ? final.captions : null) : col("captions"),
      candidates: isLast ? final.pairs : col("candidates"),
      filter: row.unit === null ? null : withNotPaired(step === firstPairRow ? notPaired : null, withCapped(step === firstPairRow ? capped : 0, {
        in: filterIn,
        kept: counters.get(filterCounter(tier, row.id, "kept")),
        dropped: counters.get(filterCounter(tier, row.id, "dropped")),
        reasons: counters.withPrefix(filterReasonsPrefix(tier, row.id)),
        ...examplesOf(counters, tier, row.id),
      }, counters.samples.get(groupCappedPairsCounter(tier)))),
    };
  });
}

type RowFilter = { in: number; kept: number; dropped: number; reasons: Record<string, number>; examples?: Record<string, string[]> };

/** A row's filter with `capped` pairs (never made) added as dropped, reason PAIRS_CAPPED_REASON; unchanged when none. */
function withCapped(capped: number, f: RowFilter, examples: string[]): RowFilter {
  if (capped === 0) return f;
  return {
    ...f,
    in: f.in + capped,
    dropped: f.dropped + capped,
    reasons: { ...f.reasons, [PAIRS_CAPPED_REASON]: capped },
    ...(examples.length > 0 ? { examples: { ...f.examples, [PAIRS_CAPPED_REASON]: examples } } : {}),
  };
}

/**
 * A text pivot's meetings in its groups that it did not make into pairs (group-stage.ts
 * textPivotPairs: `pivot.<name>.<tier>.pair.<reason>`, and `pairs_capped` of groups over the bucket
 * cap), by reason `pivot_<reason>`; null for image pivots or when none.
 */
function textPivotNotPaired(config: ParacapConfig, counters: Counters, tier: string): { reasons: Record<string, number>; examples: Record<string, string[]> } | null {
  if (!(TEXT_PIVOT_NAMES as readonly string[]).includes(config.pivot)) return null;
  const reasons: Record<string, number> = {};
  for (const [reason, n] of Object.entries(counters.withPrefix(pivotCounter(config.pivot, `${tier}.pair.`)))) if (n > 0) reasons[`pivot_${reason}`] = n;
  const capped = counters.get(pivotCounter(config.pivot, `${tier}.pairs_capped`));
  if (capped > 0) reasons["pivot_group_capped"] = capped;
  if (Object.keys(reasons).length === 0) return null;
  const cappedExamples = counters.samples.get(pivotCounter(config.pivot, `${tier}.groups_capped`));
  return { reasons, examples: capped > 0 && cappedExamples.length > 0 ? { pivot_group_capped: cappedExamples } : {} };
}

/** A row's filter with a text pivot's meetings it did not pair added as dropped (never made); unchanged when none. */
function withNotPaired(notPaired: ReturnType<typeof textPivotNotPaired>, f: RowFilter): RowFilter {
  if (notPaired === null) return f;
  const n = Object.values(notPaired.reasons).reduce((a, b) => a + b, 0);
  const examples = { ...f.examples, ...notPaired.examples };
  return { ...f, in: f.in + n, dropped: f.dropped + n, reasons: { ...f.reasons, ...notPaired.reasons }, ...(Object.keys(examples).length > 0 ? { examples } : {}) };
}

function examplesOf(counters: Counters, tier: string, filterId: string): { examples?: Record<string, string[]> } {
  const examples: Record<string, string[]> = {};
  for (const reason of Object.keys(counters.withPrefix(filterReasonsPrefix(tier, filterId)))) {
    const e = counters.samples.get(filterCounter(tier, filterId, "dropped", reason));
    if (e.length > 0) examples[reason] = e;
  }
  return Object.keys(examples).length > 0 ? { examples } : {};
}

function round(x: number, digits: number): number {
  const m = 10 ** digits;
  return Math.round(x * m) / m;
}

/** The equivalence-set size bound the dedup phase applied (null when none applied), from the merged counters. */
export function runSetSizeMax(config: ParacapConfig, counters: Counters): number | null {
  const z = config.images.setSizeZ;
  if (z === null || counters.get(WEB_SET_COUNTERS.images) === 0) return null;
  const moments = { sets: counters.get(WEB_SET_COUNTERS.sets), sum: counters.get(WEB_SET_COUNTERS.sum), sumSq: counters.get(WEB_SET_COUNTERS.sumSq) };
  return boundFromMoments(moments, z).max;
}

/**
 * The examples the extraction kept (core/samples.ts), for stats.json's `extraction_examples`: those of
 * the extraction counters (`isExtraction`, the sources' prefixes) and of file names MediaWiki
 * would refuse (INVALID_FILE_NAME_COUNTER) and of captions a text pivot could not key; `{}` when there are none, so a run without them keeps its stats.json bytes.
 */
export function extractionExamples(counters: Counters, isExtraction: (name: string) => boolean): { extraction_examples?: Record<string, string[]> } {
  const all = counters.samples.toJSON();
  const kept = Object.fromEntries(Object.entries(all).filter(([name]) => isExtraction(name) || name === INVALID_FILE_NAME_COUNTER || isPivotUnreadableSamples(name)));
  return Object.keys(kept).length > 0 ? { extraction_examples: kept } : {};
}

/** " in 12.3 s", or the time of a run that resumed another (without the earlier run's), or nothing when unknown. */
export function runTime(elapsedSeconds: number | null, resumed: boolean): string {
  if (elapsedSeconds === null) return "";
  return ` in ${elapsedSeconds.toFixed(1)} s${resumed ? " (this run resumed an earlier one, whose time is not counted)" : ""}`;
}

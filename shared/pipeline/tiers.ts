/**
 * Tiers are filter configurations over the same stages, computed in one pass (paper §3):
 * gold = current revisions + sentence classifier, silver = current + verb heuristic,
 * bronze = full history + verb heuristic with the reference ceiling scaled by 18 average revisions.
 */
import type { ParacapConfig, TierName } from "../core/config.ts";
import type { InputKind } from "../core/records.ts";
import { TEXT_PIVOT_NAMES } from "../core/plugin-names.ts";

export interface TierSpec {
  readonly name: TierName;
  readonly input: InputKind;
  readonly maxRefs: number;
  /** what `maxRefs` counts: every reference (paper) or distinct uses (history default) */
  readonly maxRefsUnit: "references" | "uses";
  readonly captionRule: "sentence" | "verb";
}

export function tierSpecs(config: ParacapConfig): TierSpec[] {
  const all: Record<TierName, TierSpec> = {
    gold: { name: "gold", input: tierInput("gold"), maxRefs: config.images.maxRefs, maxRefsUnit: "references", captionRule: "sentence" },
    silver: { name: "silver", input: tierInput("silver"), maxRefs: config.images.maxRefs, maxRefsUnit: "references", captionRule: "verb" },
    bronze: { name: "bronze", input: tierInput("bronze"), maxRefs: config.images.maxRefsHistory, maxRefsUnit: config.images.maxRefsHistoryUnit, captionRule: "verb" },
  };
  // A text pivot groups captions, not images: the ceiling on an image's references (logos, flags) has
  // no meaning for a caption group, which is bounded by the pivot's bucket cap on distinct uses instead.
  const textPivot = (TEXT_PIVOT_NAMES as readonly string[]).includes(config.pivot);
  return config.tiers.map((t) => (textPivot ? { ...all[t], maxRefs: config.pivots.bucketCap, maxRefsUnit: "uses" as const } : all[t]));
}

/** The kind of input that feeds a tier: current revisions (or a single crawl) or a history (revisions, re-crawls). */
export function tierInput(tier: TierName | string): InputKind {
  return tier === "bronze" ? "history" : "current";
}

/** The requested tiers that inputs of these kinds can feed, and those they cannot. */
export function fedTiers(tiers: readonly TierName[], kinds: ReadonlySet<InputKind>): { fed: TierName[]; skipped: TierName[] } {
  const fed = tiers.filter((t) => kinds.has(tierInput(t)));
  return { fed, skipped: tiers.filter((t) => !fed.includes(t)) };
}

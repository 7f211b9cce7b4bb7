/**
 * Fingerprints per phase, so a configuration change that only affects later phases (filters, bounds,
 * tiers, scorers) reuses the extracted shards instead of forcing a full re-extraction.
 *
 * `extract` covers the shard plan and every key the extract phase reads: what is read from the dump,
 * how wikitext becomes captions, caption features, the pivot and the partition count. It is derived by
 * removing the keys that only later phases read (LATER_ONLY), so a key added to the schema counts as
 * extract-relevant until it is listed here: the safe direction (a needless re-extraction, never a stale
 * shard). `all` covers the whole plan, as the run fingerprint always has.
 */
import type { ParacapConfig } from "../core/config.ts";
import { stableId } from "../core/hash.ts";

/** Keys (top-level, or `section.key`) that no extract task reads. */
const LATER_ONLY = [
  "preset", // only fills other keys, which are fingerprinted themselves
  "tiers", // extraction reads every shard; the tiers pick what group/dedup build from it
  "images",
  "pairs",
  "scoring",
  "report",
  "captions.minWords",
  "captions.maxWords",
  "captions.profanity",
  "captions.englishOnly",
] as const;

export interface PhaseFingerprints {
  /** the shard plan and the extract-relevant config: extract markers carry it */
  extract: string;
  /** the whole plan (report settings aside): group, dedup and aggregate markers carry it */
  all: string;
}

export function phaseFingerprints(config: ParacapConfig, shards: unknown): PhaseFingerprints {
  const { report: _report, ...planConfig } = config;
  return {
    extract: stableId("extract", JSON.stringify(extractConfig(config)), JSON.stringify(shards)),
    all: stableId(JSON.stringify(planConfig), JSON.stringify(shards)),
  };
}

/** The config without the keys only later phases read. */
export function extractConfig(config: ParacapConfig): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(config);
  for (const key of LATER_ONLY) {
    const [section, name] = key.split(".") as [string, string | undefined];
    if (name === undefined) delete out[section];
    else delete (out[section] as Record<string, unknown>)[name];
  }
  return out;
}

/**
 * Per-phase fingerprints: every config key is read by some phase (so a change to it redoes that
 * phase), a change to a later phase's key keeps every phase before it, and a change upstream redoes
 * everything downstream.
 */
import { describe, expect, it } from "vitest";
import { ParacapConfig, resolveConfig } from "../../shared/core/config.ts";
import { createManifest } from "../../shared/tasks/manifest.ts";
import { BUILTIN_PIPELINE } from "../../shared/tasks/phases.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";

const SHARD: ShardSpec = { id: "s0", uri: "a.xml", source: "mediawiki", kind: "current", start: null, end: null, fragment: false };

/** Every leaf key of the config ("section.key", or "key" for a top-level value). */
function leafKeys(value: unknown, path: string[] = []): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [path.join(".")];
  return Object.entries(value).flatMap(([k, v]) => leafKeys(v, [...path, k]));
}

const covers = (declared: string, key: string) => key === declared || key.startsWith(`${declared}.`);

describe("phase fingerprints", () => {
  it("every config key is declared by a phase of the built-in pipeline (preset only fills other keys)", () => {
    const declared = BUILTIN_PIPELINE.phases.flatMap((p) => p.configKeys);
    const undeclared = leafKeys(ParacapConfig.parse({})).filter((k) => k !== "preset" && !declared.some((d) => covers(d, k)));
    expect(undeclared).toEqual([]);
  });

  it("a later phase's key keeps the earlier phases; an extract key redoes every phase", () => {
    const f = (layer: object) => createManifest("t", resolveConfig(layer), [SHARD], BUILTIN_PIPELINE.phases).phaseFingerprints;
    const base = f({});
    const scoring = f({ scoring: { paraphraseThreshold: 0.5 } });
    expect(scoring.extract).toBe(base.extract);
    expect(scoring.group).toBe(base.group);
    expect(scoring.dedup).not.toBe(base.dedup);
    expect(scoring.aggregate).not.toBe(base.aggregate);
    const words = f({ captions: { minWords: 9 } });
    expect(words.extract).toBe(base.extract);
    expect(words.group).not.toBe(base.group);
    const pages = f({ extraction: { maxPageBytes: 1 << 20 } });
    for (const phase of ["extract", "group", "dedup", "aggregate"]) expect(pages[phase], phase).not.toBe(base[phase]);
    const report = f({ report: { samplesPerTier: 2 } });
    expect(report.dedup).toBe(base.dedup);
    expect(report.aggregate).not.toBe(base.aggregate);
  });
});

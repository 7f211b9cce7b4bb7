/**
 * Aggregate task: merges the dedup partitions into one sorted JSONL per tier, reduces every task's
 * counters into stats.json, and writes report.md, config.json, the publishable outputs (report.html,
 * Parquet, dataset card: output/publish.ts) and a _SUCCESS marker last.
 */
import { isDiagnosticCounter } from "../core/counter-names.ts";
import { Counters } from "../core/counters.ts";
import { phaseShape } from "../core/phase-names.ts";
import { ScoredPair } from "../core/records.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { JsonlWriter } from "../io/jsonl.ts";
import { cmp } from "../pipeline/group-stage.ts";
import { writePublication } from "../output/publish.ts";
import { renderReport } from "../output/report.ts";
import { extractionExamples, funnelTable, type FinalRowCounts, type SourceCaptionFilter, type Stats } from "../output/stats.ts";
import { mergeSorted } from "./bounded-merge.ts";
import { finalRowCounts } from "./final-row-counts.ts";
import { spillingSorter } from "./sorted-groups.ts";
import type { DatasetReader } from "./datasets.ts";
import type { RunManifest } from "./manifest.ts";
import { readMarker, type TaskMarker } from "./markers.ts";
import { doneObject, fingerprintOf, shardPhaseOf, unitsOf, type OnceContext, type Phase } from "./phase-task.ts";
import type { OncePhase } from "./phase-task.ts";
import { tierInput } from "../pipeline/tiers.ts";
import { TierName } from "../core/config.ts";
import { tierParquet } from "../output/parquet-tier.ts";

/** Scratch objects of the aggregate's bounded merge (removed once the tier file is written). */
const mergeRun = (tier: string, level: number, i: number) => `aggregate/merge/${tier}/l${level}-${String(i).padStart(5, "0")}.jsonl`;
/** Folder of the sorted runs of the distinct counts (removed once counted). */
const useRuns = (tier: string) => `aggregate/uses/${tier}`;

/** The once phase: merges every unit phase's markers and the scored pairs, and publishes the outputs. */
export const aggregatePhase: OncePhase = {
  ...phaseShape("aggregate"),
  unit: "once",
  consumes: ["scored"],
  produces: [],
  configKeys: ["tiers", "report"],
  run: (ctx) => runAggregateTask(ctx),
  async published(manifest, output) {
    const success = await output.readText(OUTPUT_FILES.success);
    return success !== null && success.includes(manifest.fingerprint);
  },
};

export const OUTPUT_FILES = { stats: "stats.json", report: "report.md", config: "config.json", success: "_SUCCESS" } as const;
export const tierFile = (tier: string) => `${tier}.jsonl`;

export async function runAggregateTask(ctx: OnceContext): Promise<Stats> {
  const { manifest, work, output, phases, options: opts } = ctx;
  const counters = new Counters();
  const corrupt: Stats["shards"]["corrupt"] = [];
  const missing: string[] = [];
  let ok = 0;
  /** damaged shards whose input could not be fetched: a rerun reads them again */
  let unreachable = 0;
  const shardPhase = shardPhaseOf(phases);
  for (const shard of manifest.shards) {
    const m = await readMarker(work, doneObject(shardPhase.name, { unit: "shard", key: shard.id, shard }));
    if (!m || m.fingerprint !== fingerprintOf(shardPhase, manifest) || m.status === "failed") {
      missing.push(shard.id);
      continue;
    }
    counters.merge(m.counters);
    if (m.samples) counters.samples.merge(m.samples);
    if (m.status === "corrupt") {
      corrupt.push({ shard: shard.id, file: m.damage?.file ?? shard.uri, offset: m.damage?.offset ?? null, error: m.error ?? "unknown" });
      if (m.damage?.transient) unreachable++;
    }
    else ok++;
  }
  if (missing.length > 0 && !opts.allowMissingShards) {
    throw new Error(`cannot aggregate: ${missing.length} ${shardPhase.name} shard(s) not done: ${missing.slice(0, 5).join(", ")}`);
  }
  // A failed (dead-lettered) partition contributes nothing; the run then says it is incomplete.
  const failedTasks: string[] = [];
  for (const phase of phases) {
    if (phase.unit !== "partition") continue;
    for (const unit of unitsOf(phase, manifest)) {
      const m = await requireMarker(work, doneObject(phase.name, unit), fingerprintOf(phase, manifest));
      if (m.status === "failed") failedTasks.push(`${phase.name}-${unit.key}`);
      else {
        counters.merge(m.counters);
        if (m.samples) counters.samples.merge(m.samples);
      }
    }
  }

  // The outputs are rewritten from here: until _SUCCESS is written again the folder holds no finished
  // run (an earlier run's, left while this one fails midway, would be taken for this one's by a rerun);
  // tiers this run does not publish (an earlier run's, with other --tiers) go.
  await output.delete(OUTPUT_FILES.success);
  for (const t of TierName.options) {
    if (manifest.config.tiers.includes(t)) continue;
    for (const name of [tierFile(t), `${tierFile(t)}.gz`, tierParquet(t)]) await output.delete(name);
  }

  const tiers: Stats["tiers"] = {};
  const samples: Record<string, ScoredPair[]> = {};
  const scored = ctx.read<ScoredPair>("scored");
  // the sources' caption filters (web captions), once each even when several sources share them
  // (in the funnel of the tiers those sources' shards feed: a crawl read as current input is no part of bronze)
  const sourceFilters = new Map<string, SourceCaptionFilter & { sources: Set<string> }>();
  for (const s of ctx.sources.all()) {
    for (const info of s.captionFilters?.filters ?? []) {
      const key = `${s.captionFilters!.tier}\u0000${info.id}`;
      const f = sourceFilters.get(key) ?? { tier: s.captionFilters!.tier, info, sources: new Set<string>() };
      f.sources.add(s.name);
      sourceFilters.set(key, f);
    }
  }
  for (const tier of manifest.config.tiers) {
    const final = await mergeTier(manifest, work, output, scored, tier, manifest.config.report.samplesPerTier, (s) => (samples[tier] = s));
    const phaseRows = phases.flatMap((p) => p.funnelFilters?.(manifest.config, tier) ?? []);
    const fed = (f: { sources: Set<string> }) => manifest.shards.some((s) => f.sources.has(s.source) && tierInput(tier) === s.kind);
    const filters = [...sourceFilters.values()].filter(fed).map(({ tier: label, info }) => ({ tier: label, info }));
    tiers[tier] = { input: tierInput(tier), pairs: final.pairs, funnel: funnelTable(manifest.config, counters, tier, final, phaseRows, filters) };
  }

  const inputs = new Map<string, Stats["inputs"][number]>();
  for (const s of manifest.shards) {
    const e = inputs.get(s.uri) ?? { uri: s.uri, kind: s.kind, shards: 0, tiers: manifest.config.tiers.filter((t) => tierInput(t) === s.kind) };
    e.shards++;
    inputs.set(s.uri, e);
  }
  // Feature-cache and item-cache hits depend on how the run went (workers, reruns): diagnostics, not results.
  const snapshot = Object.fromEntries(Object.entries(counters.toJSON()).filter(([k]) => !isDiagnosticCounter(k)));
  const stats: Stats = {
    version: 1,
    inputs: [...inputs.values()],
    shards: { total: manifest.shards.length, ok, corrupt, missing },
    // complete: every shard was read to its end (none missing, none damaged) and every partition done
    failedTasks,
    complete: missing.length === 0 && corrupt.length === 0 && failedTasks.length === 0,
    extraction: Object.fromEntries(Object.entries(snapshot).filter(([k]) => ctx.sources.isExtractionCounter(k))),
    ...extractionExamples(counters, ctx.sources.isExtractionCounter),
    tiers,
    counters: snapshot,
    // which pivot ran, only when not the default (resource runs keep their stats.json bytes)
    ...(manifest.config.pivot !== "resource" ? { pivot: { name: manifest.config.pivot, settings: manifest.config.pivots } } : {}),
  };
  await output.writeText(OUTPUT_FILES.stats, JSON.stringify(stats, null, 2) + "\n");
  await output.writeText(OUTPUT_FILES.config, JSON.stringify(manifest.config, null, 2) + "\n");
  const now = (opts.now ?? (() => new Date()))();
  // the whole run to here, the aggregate's own work included
  const elapsedSeconds = opts.startedAt !== undefined ? Math.max(0, now.getTime() - opts.startedAt) / 1000 : opts.elapsedSeconds ?? null;
  const timing = { generated: now.toISOString(), elapsedSeconds, ...(opts.resumed ? { resumed: true } : {}) };
  await output.writeText(OUTPUT_FILES.report, renderReport(stats, samples, { ...timing, preset: manifest.config.preset, sources: ctx.sources }));
  await writePublication(output, timing);
  // retry: a rerun could read more (missing shards, failed partitions, inputs not fetched); damage in the
  // input itself is final, and a rerun of the same run then has nothing to do
  const retry = missing.length > 0 || failedTasks.length > 0 || unreachable > 0;
  await output.writeText(OUTPUT_FILES.success, JSON.stringify({ fingerprint: manifest.fingerprint, complete: stats.complete, retry }) + "\n");
  return stats;
}

async function requireMarker(work: BlobStore, name: string, fingerprint: string): Promise<TaskMarker> {
  const m = await readMarker(work, name);
  if (!m || m.fingerprint !== fingerprint) throw new Error(`cannot aggregate: task not done: ${name}`);
  return m;
}

/** Merge of the tier's dedup partitions (each sorted by id) into one file sorted by id, with bounded open files and memory. */
async function mergeTier(manifest: RunManifest, work: BlobStore, output: BlobStore, scored: DatasetReader<ScoredPair>, tier: string, sampleCount: number, onSamples: (s: ScoredPair[]) => void): Promise<FinalRowCounts> {
  const parts: string[] = [];
  for (let q = 0; q < manifest.config.partitions; q++) parts.push(...(await scored.objects(q, tier)));
  const merged = mergeSorted(work, parts, { schema: ScoredPair, key: (p) => p.id, compare: cmp, scratch: (level, i) => mergeRun(tier, level, i) });
  const out = new JsonlWriter(output.writer(tierFile(tier)));
  const samples: ScoredPair[] = [];
  async function* written(): AsyncGenerator<ScoredPair> {
    for await (const pair of merged) {
      await out.write(pair);
      if (samples.length < sampleCount) samples.push(pair);
      yield pair;
    }
    await out.close();
  }
  // the distinct counts sort the pairs' sides in bounded runs (aggregate/uses/), read back once the file is written
  const final = await finalRowCounts(written(), spillingSorter(work, useRuns(tier)));
  onSamples(samples);
  return final;
}

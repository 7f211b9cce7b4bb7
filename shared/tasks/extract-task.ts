/**
 * Extract task: one shard → references partitioned by hash(image key) → completion marker.
 * A corrupt shard (truncated bz2, malformed XML) keeps what was read before the damage and is marked
 * "corrupt" with the error; the run goes on and the report lists it.
 */
import { corruptShardsCounter, extractCounter } from "../core/counter-names.ts";
import type { Counters } from "../core/counters.ts";
import { phaseShape } from "../core/phase-names.ts";
import { partitionOf } from "../core/hash.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { collapseUses, type RevisionRefs } from "../pipeline/extract-stage.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";
import type { ByteSource } from "../io/byte-source.ts";
import type { Source } from "../sources/source.ts";
import { layout } from "./layout.ts";
import { PartitionedWriter } from "./partitioned-writer.ts";
import type { RunManifest } from "./manifest.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import { readMarker, type TaskMarker } from "./markers.ts";
import { runUnitTask, shardPhaseOf, type PhaseEndContext, type RunnerDeps, type UnitOutcome, type UnitPhase } from "./phase-task.ts";

export interface ExtractTaskDeps {
  /** the bytes of the shard's file (runner-specific: a local file or a Cloud Storage object) */
  bytes(shard: ShardSpec): ByteSource;
  /** per-document extraction; a runner may fan it out over worker threads (order must be kept) */
  extractDocuments?(source: Source, docs: AsyncIterable<unknown>, shard: ShardSpec, counters: Counters): AsyncIterable<RevisionRefs>;
  /** errors that mean "the input is damaged" rather than "retry me" */
  isCorruptInput(err: unknown): boolean;
}

/** The shard phase: what it reads, writes and names (shape in core/phase-names.ts). */
export const extractPhase: UnitPhase = {
  ...phaseShape("extract"),
  unit: "shard",
  fingerprint: "extract",
  done: layout.extractDone,
  outputs: (manifest, unit) => Array.from({ length: manifest.config.partitions }, (_, p) => layout.extractPart(unit.key, p)),
  run: (ctx) => {
    if (ctx.unit.unit !== "shard") throw new Error(`extract runs on shards, not on ${ctx.unit.unit}s`);
    return extractShard(ctx.manifest, ctx.unit.shard, ctx.work, ctx.runner, ctx.counters);
  },
  afterPhase: nothingRead,
};

/** One extract task outside a runner's phase loop (benchmarks): the same marker rules. */
export function runExtractTask(manifest: RunManifest, shard: ShardSpec, work: BlobStore, deps: ExtractTaskDeps): Promise<TaskMarker> {
  return runUnitTask(extractPhase, manifest, work, { unit: "shard", key: shard.id, shard }, { extract: deps, sources: BUILTIN_SOURCES });
}

async function extractShard(manifest: RunManifest, shard: ShardSpec, work: BlobStore, runner: RunnerDeps, counters: Counters): Promise<UnitOutcome> {
  const deps = runner.extract;
  const partitions = manifest.config.partitions;
  const source = runner.sources.get(shard.source);
  const docs = source.documents(shard, deps.bytes(shard), manifest.config, counters);
  const revisions = deps.extractDocuments
    ? deps.extractDocuments(source, docs, shard, counters)
    : inlineExtract(source, docs, shard, manifest, counters);
  const out = new PartitionedWriter(work, (p) => layout.extractPart(shard.id, p));
  let outcome: UnitOutcome = { status: "ok", error: null };
  try {
    for await (const ref of collapseUses(revisions, counters)) {
      await out.write(partitionOf(ref.image, partitions), ref);
      counters.inc(extractCounter(ref.kind, "shuffle_records"));
    }
  } catch (err) {
    if (!deps.isCorruptInput(err)) {
      await out.abort();
      throw err;
    }
    outcome = { status: "corrupt", error: err instanceof Error ? err.message : String(err), damage: damageOf(err, shard) };
    counters.inc(corruptShardsCounter(extractPhase.name));
  }
  await out.close();
  return outcome;
}

/**
 * No document read from any shard (not a MediaWiki export, garbage, every shard lost): the run
 * stops with the reason instead of publishing empty datasets.
 */
async function nothingRead({ manifest, work, sources, phases }: PhaseEndContext): Promise<string | void> {
  // the phase as the pipeline has it (a caller may have renamed it)
  const shardPhase = shardPhaseOf(phases);
  const markers = await Promise.all(manifest.shards.map((s) => readMarker(work, shardPhase.done(s.id))));
  if (markers.some((m, i) => (m?.counters[sources.get(manifest.shards[i]!.source).documentsCounter] ?? 0) > 0)) return;
  const why = [...new Set(markers.map((m) => m?.error).filter((e): e is string => !!e))].slice(0, 3).join("; ");
  const n = new Set(manifest.shards.map((s) => s.uri)).size;
  return `no pages read from the input${n > 1 ? "s" : ""}${why ? `: ${why}` : ""}`;
}

async function* inlineExtract(source: Source, docs: AsyncIterable<unknown>, shard: ShardSpec, manifest: RunManifest, counters: Counters): AsyncGenerator<RevisionRefs> {
  const extract = source.createExtractor(manifest.config, counters);
  for await (const d of docs) yield extract(d, shard.kind);
}

/** File and offset of a damaged-input error (DumpError carries both); the shard's file otherwise. */
function damageOf(err: unknown, shard: ShardSpec): NonNullable<TaskMarker["damage"]> {
  const e = err as { file?: unknown; offset?: unknown };
  const file = typeof e?.file === "string" ? e.file : shard.uri;
  const offset = typeof e?.offset === "number" ? e.offset : null;
  return { file, offset };
}

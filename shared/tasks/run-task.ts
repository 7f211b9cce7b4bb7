/**
 * One task of a built-in phase outside a runner's phase loop (benchmarks, tests): the same marker
 * rules and wiring as inside a run.
 */
import type { BlobStore } from "../io/blob-store.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import type { RunManifest } from "./manifest.ts";
import type { TaskMarker } from "./markers.ts";
import { inputlessRunner, runUnitTask, taskData, type OnceOptions, type RunnerDeps } from "./phase-task.ts";
import type { Stats } from "../output/stats.ts";
import type { SourceRegistry } from "../sources/registry.ts";
import { BUILTIN_PIPELINE, type Pipeline } from "./phases.ts";

export function runShardTask(manifest: RunManifest, shard: ShardSpec, work: BlobStore, runner: Omit<RunnerDeps, "sources"> & { sources?: RunnerDeps["sources"] }, pipeline: Pipeline = BUILTIN_PIPELINE): Promise<TaskMarker> {
  return runUnitTask(pipeline.shardPhase, manifest, work, { unit: "shard", key: shard.id, shard }, { sources: BUILTIN_SOURCES, ...runner }, pipeline.wiring);
}

export function runPartitionTask(phaseName: string, manifest: RunManifest, partition: number, work: BlobStore, pipeline: Pipeline = BUILTIN_PIPELINE): Promise<TaskMarker> {
  const phase = pipeline.get(phaseName);
  if (phase.unit !== "partition") throw new Error(`phase ${phaseName} has no partition tasks`);
  return runUnitTask(phase, manifest, work, { unit: "partition", key: String(partition), partition }, inputlessRunner(BUILTIN_SOURCES), pipeline.wiring);
}

/** The pipeline's once phase (the aggregate) outside a runner. */
export function runOnceTask(manifest: RunManifest, work: BlobStore, output: BlobStore, options: OnceOptions = {}, pipeline: Pipeline = BUILTIN_PIPELINE, sources: SourceRegistry = BUILTIN_SOURCES): Promise<Stats> {
  return pipeline.final.run({ manifest, work, output, phases: pipeline.phases, sources, options, ...taskData(pipeline.final, manifest, work, pipeline.wiring, null) });
}

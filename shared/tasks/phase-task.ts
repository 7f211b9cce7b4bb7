/**
 * A phase bound to its task, and the one wrapper that makes every task resumable and idempotent:
 * a task whose completion marker carries the run's fingerprint is done (its marker is returned, the
 * work is not redone); otherwise it runs, counts its unit, and writes its marker last, so a crash
 * before the marker means "not done" and a retry overwrites the same deterministic outputs.
 */
import { taskCounter } from "../core/counter-names.ts";
import { Counters } from "../core/counters.ts";
import type { PhaseShape } from "../core/phase-names.ts";
import type { BlobStore } from "../io/blob-store.ts";
import type { Stats } from "../output/stats.ts";
import type { SourceRegistry } from "../sources/registry.ts";
import type { AggregateOptions } from "./aggregate-task.ts";
import type { ExtractTaskDeps } from "./extract-task.ts";
import type { RunManifest } from "./manifest.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import { marker, readMarker, writeMarker, type TaskMarker } from "./markers.ts";

/** One task's unit of work; `key` names it in markers, messages and dead letters. */
export type UnitRef = { unit: "shard"; key: string; shard: ShardSpec } | { unit: "partition"; key: string; partition: number };

/** What a runner supplies to the tasks beyond the work store (only the phases that need it read it). */
export interface RunnerDeps {
  /** how the shard phase reads input bytes and extracts documents */
  extract: ExtractTaskDeps;
  /** the input sources shards may name */
  sources: SourceRegistry;
}

export interface UnitContext {
  manifest: RunManifest;
  work: BlobStore;
  unit: UnitRef;
  /** counted into the task's marker */
  counters: Counters;
  runner: RunnerDeps;
}

/** How a task ended when not plainly "ok" (a damaged input shard keeps what was read before the damage). */
export interface UnitOutcome {
  status: TaskMarker["status"];
  error: string | null;
  damage?: TaskMarker["damage"];
}

export interface PhaseEndContext {
  manifest: RunManifest;
  work: BlobStore;
  sources: SourceRegistry;
  phases: readonly Phase[];
}

/** A phase whose tasks each do one shard or one partition and leave a completion marker. */
export interface UnitPhase extends PhaseShape {
  readonly unit: "shard" | "partition";
  /** which manifest fingerprint its markers carry: "extract" phases survive later-phase config changes */
  readonly fingerprint: "extract" | "all";
  /** completion marker of one unit; under `<name>/` (the fan-in lists that folder) */
  done(key: string): string;
  /** objects one task writes: removed when its task is dead-lettered, so no partial output reaches the next phase */
  outputs(manifest: RunManifest, unit: UnitRef): string[];
  /** work-store folders its tasks write outside `<name>/`; cleared with it when a resumed run must redo the phase */
  readonly workDirs?: readonly string[];
  run(ctx: UnitContext): Promise<UnitOutcome | void>;
  /**
   * Runs once after the phase's last task, before the next phase starts (local runner: after the
   * phase loop; cloud: in the fan-in). A returned string stops the run with that reason.
   */
  afterPhase?(ctx: PhaseEndContext): Promise<string | void>;
}

export interface OnceContext {
  manifest: RunManifest;
  work: BlobStore;
  output: BlobStore;
  phases: readonly Phase[];
  options: AggregateOptions;
}

/** A phase with one task for the whole run (the aggregate): it publishes the outputs. */
export interface OncePhase extends PhaseShape {
  readonly unit: "once";
  run(ctx: OnceContext): Promise<Stats>;
  /** true when the outputs of this run are already published (a redelivered message does nothing) */
  published(manifest: RunManifest, output: BlobStore): Promise<boolean>;
}

export type Phase = UnitPhase | OncePhase;

/**
 * The phase that reads the input, one task per shard: its markers tell which shards were read (the
 * aggregate, `cloud status`, the progress line). Found by its unit, not its name, so a renamed or
 * added phase works.
 */
export function shardPhaseOf(phases: readonly Phase[]): UnitPhase {
  const found = phases.filter((p): p is UnitPhase => p.unit === "shard");
  if (found.length !== 1) throw new Error(`a pipeline needs exactly one phase over input shards, found ${found.length}${found.length ? ` (${found.map((p) => p.name).join(", ")})` : ""}`);
  return found[0]!;
}

/** The units of a phase for a run, in order. */
export function unitsOf(phase: UnitPhase, manifest: RunManifest): UnitRef[] {
  if (phase.unit === "shard") return manifest.shards.map((shard) => ({ unit: "shard", key: shard.id, shard }));
  return Array.from({ length: manifest.config.partitions }, (_, partition) => ({ unit: "partition", key: String(partition), partition }));
}

/** The unit a task message or dead letter names, or null when the run has no such unit. */
export function findUnit(phase: UnitPhase, manifest: RunManifest, ref: { shardId?: string; partition?: number }): UnitRef | null {
  if (phase.unit === "shard") {
    const shard = manifest.shards.find((s) => s.id === ref.shardId);
    return shard ? { unit: "shard", key: shard.id, shard } : null;
  }
  const p = ref.partition;
  return p !== undefined && p < manifest.config.partitions ? { unit: "partition", key: String(p), partition: p } : null;
}

export function fingerprintOf(phase: UnitPhase, manifest: RunManifest): string {
  return phase.fingerprint === "extract" ? manifest.extractFingerprint : manifest.fingerprint;
}

/** The marker of a finished unit of this run, or null. */
export async function finishedMarker(phase: UnitPhase, manifest: RunManifest, work: BlobStore, unit: UnitRef): Promise<TaskMarker | null> {
  const m = await readMarker(work, phase.done(unit.key));
  return m && m.fingerprint === fingerprintOf(phase, manifest) ? m : null;
}

/** Runs one task of `phase` unless its marker says it is done; returns the marker. */
export async function runUnitTask(phase: UnitPhase, manifest: RunManifest, work: BlobStore, unit: UnitRef, runner: RunnerDeps): Promise<TaskMarker> {
  const existing = await finishedMarker(phase, manifest, work, unit);
  if (existing) return existing;
  const counters = new Counters();
  const outcome = (await phase.run({ manifest, work, unit, counters, runner })) ?? { status: "ok", error: null };
  counters.inc(taskCounter(phase.name, phase.unit));
  const m = marker(`${phase.name}:${unit.key}`, fingerprintOf(phase, manifest), counters, outcome.status, outcome.error, outcome.damage);
  await writeMarker(work, phase.done(unit.key), m);
  return m;
}

/**
 * Marks a unit whose task will never succeed (dead-lettered) as failed, unless it finished after
 * all: its partial outputs are removed and a "failed" marker lets the phase complete without it.
 */
export async function failUnit(phase: UnitPhase, manifest: RunManifest, work: BlobStore, unit: UnitRef, error: string): Promise<void> {
  if (await finishedMarker(phase, manifest, work, unit)) return;
  for (const name of phase.outputs(manifest, unit)) await work.delete(name);
  await writeMarker(work, phase.done(unit.key), marker(`${phase.name}:${unit.key}`, fingerprintOf(phase, manifest), {}, "failed", error));
}

export interface PartitionTaskSpec extends PhaseShape {
  /** completion marker of partition `key` (default `<name>/p-00000/_DONE.json`) */
  done?(key: string): string;
  outputs(manifest: RunManifest, partition: number): string[];
  workDirs?: readonly string[];
  run(manifest: RunManifest, partition: number, work: BlobStore, counters: Counters): Promise<void>;
  afterPhase?(ctx: PhaseEndContext): Promise<string | void>;
}

/** A partition phase from its task body; `runPartition` runs one task with the marker rules. */
export function partitionTask(spec: PartitionTaskSpec): UnitPhase & { runPartition(manifest: RunManifest, partition: number, work: BlobStore): Promise<TaskMarker> } {
  const partitionOf = (unit: UnitRef): number => {
    if (unit.unit !== "partition") throw new Error(`${spec.name} runs on partitions, not on ${unit.unit}s`);
    return unit.partition;
  };
  const phase: UnitPhase = {
    ...spec,
    unit: "partition",
    fingerprint: "all",
    done: spec.done ?? ((key) => `${spec.name}/p-${key.padStart(5, "0")}/_DONE.json`),
    outputs: (manifest, unit) => spec.outputs(manifest, partitionOf(unit)),
    run: (ctx) => spec.run(ctx.manifest, partitionOf(ctx.unit), ctx.work, ctx.counters),
  };
  return {
    ...phase,
    // Partition tasks need nothing from the runner.
    runPartition: (manifest, partition, work) => runUnitTask(phase, manifest, work, { unit: "partition", key: String(partition), partition }, NO_RUNNER),
  };
}

/** The runner of tasks that read no input: partition tasks, wherever they run. */
export const NO_RUNNER: RunnerDeps = {
  extract: {
    bytes: () => {
      throw new Error("a partition task reads no input bytes");
    },
    isCorruptInput: () => false,
  },
  get sources(): never {
    throw new Error("a partition task reads no input sources");
  },
};

/**
 * A phase bound to its task, and the one wrapper that makes every task resumable and idempotent:
 * a task whose completion marker carries the phase's fingerprint is done (its marker is returned, the
 * work is not redone); otherwise it runs, counts its unit, and writes its marker last, so a crash
 * before the marker means "not done" and a retry overwrites the same deterministic outputs.
 *
 * A phase declares its data (datasets it consumes and produces, summaries), the config keys its tasks
 * read (its fingerprint covers them and its inputs' fingerprints) and the funnel rows of the filters
 * it applies; the pipeline (phases.ts) wires the rest. Every task gets one context: its unit, its
 * datasets, the run's services and, for a shard, the input.
 */
import { taskCounter } from "../core/counter-names.ts";
import { Counters } from "../core/counters.ts";
import type { ParacapConfig } from "../core/config.ts";
import type { FilterInfo } from "../core/filter.ts";
import type { PhaseShape } from "../core/phase-names.ts";
import type { ByteSource } from "../io/byte-source.ts";
import type { BlobStore } from "../io/blob-store.ts";
import type { Stats } from "../output/stats.ts";
import type { RevisionRefs } from "../pipeline/extract-stage.ts";
import type { SourceRegistry } from "../sources/registry.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import type { AnySource } from "../sources/source.ts";
import { DatasetReader, DatasetWriter, datasetObject, summaryObject, taskFileName, type DatasetSpec, type SummarySpec } from "./datasets.ts";
import type { RunManifest } from "./manifest.ts";
import { marker, readMarker, writeMarker, type TaskMarker } from "./markers.ts";

/** One task's unit of work; `key` names it in markers, messages and dead letters. */
export type UnitRef = { unit: "shard"; key: string; shard: ShardSpec } | { unit: "partition"; key: string; partition: number };

/**
 * Services a runner hands every task (an image fetcher, a model, a block list): by name, so a phase
 * added by a caller receives its own without any runner knowing it.
 */
export type Services = Readonly<Record<string, unknown>>;

/** What a runner supplies to every task beyond the work store. */
export interface RunnerDeps {
  /** the input sources shards may name */
  sources: SourceRegistry;
  /** the bytes of a shard's file (a local file, a Cloud Storage object pinned at planning) */
  bytes(shard: ShardSpec): ByteSource;
  /** errors that mean "the input is damaged" rather than "retry me" */
  isCorruptInput(err: unknown): boolean;
  /** per-document extraction; a runner may fan it out over worker threads (order must be kept) */
  extractDocuments?(source: AnySource, docs: AsyncIterable<unknown>, shard: ShardSpec, counters: Counters): AsyncIterable<RevisionRefs>;
  services?: Services;
}

/** The runner of tasks that read no input (partition tasks in a worker thread, tests). */
export function inputlessRunner(sources: SourceRegistry, services: Services = {}): RunnerDeps {
  return {
    sources,
    services,
    bytes: () => {
      throw new Error("this task reads no input bytes");
    },
    isCorruptInput: () => false,
  };
}

/** Data handles of one task, from the pipeline's wiring. */
export interface TaskData {
  /** a dataset this phase consumes, as written by the phase wired to it */
  read<T>(name: string): DatasetReader<T>;
  /** a dataset this phase produces, written for this task */
  write<T>(name: string): DatasetWriter<T>;
  /** a summary an earlier phase computed after its last task; null when it wrote none */
  summary<T>(name: string): Promise<T | null>;
}

export interface UnitContext extends TaskData {
  manifest: RunManifest;
  work: BlobStore;
  unit: UnitRef;
  /** counted into the task's marker */
  counters: Counters;
  runner: RunnerDeps;
  /** a service the runner was given; a clear error when it was not */
  service<T>(name: string): T;
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
  /** the phase that just ended (as the pipeline has it) */
  self: UnitPhase;
  /** stores a summary this phase declares, for later phases */
  writeSummary(name: string, value: unknown): Promise<void>;
}

/** What every phase declares about its data, settings and funnel. */
export interface PhaseDecl extends PhaseShape {
  /** dataset names read; each must be produced by an earlier phase (the latest one wins) */
  readonly consumes: readonly string[];
  /** datasets written */
  readonly produces: readonly DatasetSpec[];
  /** summaries written once after the phase's last task (afterPhase) */
  readonly summaries?: readonly SummarySpec[];
  /**
   * config keys its tasks read ("section" or "section.key"): a change to one of them, or to what the
   * phase reads, redoes the phase on resume; nothing else does
   */
  readonly configKeys: readonly string[];
  /** funnel rows of the filters the phase applies (after the built-in group rows), per tier */
  funnelFilters?(config: ParacapConfig, tier: string): readonly FilterInfo[];
}

/** A phase whose tasks each do one shard or one partition and leave a completion marker. */
export interface UnitPhase extends PhaseDecl {
  readonly unit: "shard" | "partition";
  /** work-store folders its tasks write outside `<name>/` and its datasets; cleared with it when a resumed run must redo the phase */
  readonly workDirs?: readonly string[];
  run(ctx: UnitContext): Promise<UnitOutcome | void>;
  /**
   * Runs once after the phase's last task, before the next phase starts (local runner: after the
   * phase loop; cloud: in the fan-in). A returned string stops the run with that reason.
   */
  afterPhase?(ctx: PhaseEndContext): Promise<string | void>;
}

export interface OnceOptions {
  /** write the datasets even if some input shards never finished (they are listed as missing) */
  allowMissingShards?: boolean;
  elapsedSeconds?: number | null;
  /** instead of elapsedSeconds: when the run started (ms since the epoch); the time is taken as the report is written */
  startedAt?: number;
  /** this run resumed an earlier one: its time leaves out what the earlier run did */
  resumed?: boolean;
  now?: () => Date;
}

export interface OnceContext extends TaskData {
  manifest: RunManifest;
  work: BlobStore;
  output: BlobStore;
  phases: readonly Phase[];
  /** the run's sources: their counters go to stats.json's extraction, their lines to the report */
  sources: SourceRegistry;
  options: OnceOptions;
}

/** A phase with one task for the whole run (the aggregate): it publishes the outputs. */
export interface OncePhase extends PhaseDecl {
  readonly unit: "once";
  run(ctx: OnceContext): Promise<Stats>;
  /** true when the outputs of this run are already published (a redelivered message does nothing) */
  published(manifest: RunManifest, output: BlobStore): Promise<boolean>;
}

export type Phase = UnitPhase | OncePhase;

/** Which phase wrote each dataset and summary a phase reads: the pipeline's wiring (phases.ts). */
export interface Wiring {
  /** the producer of `dataset` as `phase` reads it */
  producer(phase: string, dataset: string): { phase: UnitPhase; spec: DatasetSpec };
  summaryProducer(phase: string, name: string): { phase: UnitPhase; spec: SummarySpec };
}

/** Completion marker of a unit: `<phase>/<task>/_DONE.json` (the cloud fan-in lists `<phase>/`). */
export function doneObject(phase: string, unit: UnitRef): string {
  return `${phase}/${taskFileName(unit)}/_DONE.json`;
}

/** The phase that reads the input, one task per shard. Found by its unit, not its name. */
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

export function fingerprintOf(phase: Phase, manifest: RunManifest): string {
  const f = manifest.phaseFingerprints[phase.name];
  if (f === undefined) throw new Error(`the run's manifest has no fingerprint for phase "${phase.name}" (planned with another pipeline)`);
  return f;
}

/** The marker of a finished unit of this run, or null. */
export async function finishedMarker(phase: UnitPhase, manifest: RunManifest, work: BlobStore, unit: UnitRef): Promise<TaskMarker | null> {
  const m = await readMarker(work, doneObject(phase.name, unit));
  return m && m.fingerprint === fingerprintOf(phase, manifest) ? m : null;
}

/** Objects a unit's task writes (its datasets' objects for every partition and part): removed when it is dead-lettered. */
export function unitOutputs(phase: UnitPhase, manifest: RunManifest, unit: UnitRef): string[] {
  const task = taskFileName(unit);
  const out: string[] = [];
  for (const ds of phase.produces) {
    const parts: readonly (string | undefined)[] = ds.parts?.(manifest.config) ?? [undefined];
    for (let q = 0; q < manifest.config.partitions; q++) for (const part of parts) out.push(datasetObject(phase.name, ds.name, q, task, part));
  }
  return out;
}

/** The data handles of a task of `phase`, from the wiring. */
export function taskData(phase: Phase, manifest: RunManifest, work: BlobStore, wiring: Wiring, unit: UnitRef | null): TaskData {
  return {
    read<T>(name: string) {
      if (!phase.consumes.includes(name)) throw new Error(`phase "${phase.name}" reads dataset "${name}" but does not declare it in consumes`);
      const { phase: producer, spec } = wiring.producer(phase.name, name);
      return new DatasetReader<T>(work, producer.name, spec as DatasetSpec<T>, unitsOf(producer, manifest).map(taskFileName));
    },
    write<T>(name: string) {
      const spec = phase.produces.find((d) => d.name === name);
      if (!spec) throw new Error(`phase "${phase.name}" writes dataset "${name}" but does not declare it in produces`);
      if (!unit) throw new Error(`phase "${phase.name}" runs once: it publishes outputs, it writes no dataset`);
      return new DatasetWriter<T>(work, phase.name, spec as DatasetSpec<T>, taskFileName(unit));
    },
    async summary<T>(name: string) {
      const { phase: producer, spec } = wiring.summaryProducer(phase.name, name);
      const text = await work.readText(summaryObject(producer.name, name));
      return text === null ? null : (spec.schema.parse(JSON.parse(text)) as T);
    },
  };
}

function serviceGetter(phase: string, services: Services | undefined) {
  return <T>(name: string): T => {
    if (!services || !(name in services)) throw new Error(`phase "${phase}" needs the service "${name}", which the runner was not given (runLocal({ services }) / registerFunctions(deps, pipeline, services))`);
    return services[name] as T;
  };
}

/** Runs one task of `phase` unless its marker says it is done; returns the marker. */
export async function runUnitTask(phase: UnitPhase, manifest: RunManifest, work: BlobStore, unit: UnitRef, runner: RunnerDeps, wiring: Wiring): Promise<TaskMarker> {
  const existing = await finishedMarker(phase, manifest, work, unit);
  if (existing) return existing;
  const counters = new Counters();
  const ctx: UnitContext = { manifest, work, unit, counters, runner, service: serviceGetter(phase.name, runner.services), ...taskData(phase, manifest, work, wiring, unit) };
  const outcome = (await phase.run(ctx)) ?? { status: "ok", error: null };
  counters.inc(taskCounter(phase.name, phase.unit));
  const m = marker(`${phase.name}:${unit.key}`, fingerprintOf(phase, manifest), counters, outcome.status, outcome.error, outcome.damage);
  await writeMarker(work, doneObject(phase.name, unit), m);
  return m;
}

/**
 * Marks a unit whose task will never succeed (dead-lettered) as failed, unless it finished after
 * all: its partial outputs are removed and a "failed" marker lets the phase complete without it.
 */
export async function failUnit(phase: UnitPhase, manifest: RunManifest, work: BlobStore, unit: UnitRef, error: string): Promise<void> {
  if (await finishedMarker(phase, manifest, work, unit)) return;
  for (const name of unitOutputs(phase, manifest, unit)) await work.delete(name);
  await writeMarker(work, doneObject(phase.name, unit), marker(`${phase.name}:${unit.key}`, fingerprintOf(phase, manifest), {}, "failed", error));
}

/** A partition phase: the declaration plus the task body, with `unit: "partition"` filled in. */
export type PartitionTaskSpec = Omit<UnitPhase, "unit"> & { unit?: PhaseShape["unit"] };

export function partitionTask(spec: PartitionTaskSpec): UnitPhase {
  return { ...spec, unit: "partition" };
}

/** The partition a partition task works on. */
export function partitionOfUnit(phase: string, unit: UnitRef): number {
  if (unit.unit !== "partition") throw new Error(`${phase} runs on partitions, not on ${unit.unit}s`);
  return unit.partition;
}

/** What a phase's afterPhase gets, wherever it runs (local phase loop, cloud fan-in). */
export function phaseEndContext(self: UnitPhase, manifest: RunManifest, work: BlobStore, sources: SourceRegistry, pipeline: { phases: readonly Phase[] }): PhaseEndContext {
  return {
    manifest,
    work,
    sources,
    phases: pipeline.phases,
    self,
    async writeSummary(name, value) {
      const spec = self.summaries?.find((s) => s.name === name);
      if (!spec) throw new Error(`phase "${self.name}" writes summary "${name}" but does not declare it in summaries`);
      await work.writeText(summaryObject(self.name, name), JSON.stringify(spec.schema.parse(value)) + "\n");
    },
  };
}

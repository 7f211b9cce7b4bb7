/**
 * The cloud runner's stage logic, behind thin function handlers (functions/): each call does one
 * task of the shared pipeline against Cloud Storage and fans out or in through Pub/Sub.
 *
 * Every stage is idempotent under at-least-once delivery: task outputs have deterministic names
 * and contents (a retry overwrites them with the same bytes), counters travel only in completion
 * markers (a retried task counts once), and each phase starts the next exactly once (fan-in.ts).
 */
import type { Bucket } from "@google-cloud/storage";
import { z } from "zod";
import { resolveConfig, type ParacapConfig, type ParacapConfigInput } from "../core/config.ts";
import { layerFromEnv } from "../core/env-layer.ts";
import { applyModelFlag } from "../semantic/model-flag.ts";
import { stableId } from "../core/hash.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import { DumpError } from "../dump/errors.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { GcsStore } from "../io/gcs-store.ts";
import { tierFile } from "../tasks/aggregate-task.ts";
import { layout } from "../tasks/layout.ts";
import { RunManifest } from "../tasks/manifest.ts";
import { failUnit, findUnit, phaseEndContext, runUnitTask, taskData, unitsOf, type OncePhase, type Phase, type RunnerDeps, type Services, type UnitPhase } from "../tasks/phase-task.ts";
import type { Pipeline } from "../tasks/phases.ts";
import { asPipelineSet, BUILTIN_PIPELINES, type ServedPipelines } from "../tasks/pipeline-set.ts";
import type { CloudEnv } from "./env.ts";
import { fanIn } from "./fan-in.ts";
import { GzipDatasets } from "./gzip-output.ts";
import { PART_OF_MANIFEST, type StorageObjectEvent, type TaskMessage } from "./messages.ts";
import { ObjectVersion, PlanError, planRun, runId, type InputBucket } from "./plan-run.ts";
import { bucketBytes, InputChangedError } from "./shard-reader.ts";
import { PLAN_OUTCOME, RUN_FAILED, type PlanOutcome } from "./run-records.ts";
import { uploadKind } from "./upload-kind.ts";

/** A run's area in a bucket, plus the one metadata read the cloud stages need. */
export interface CloudStore extends BlobStore {
  /** creation time of the object's current generation; null if absent */
  timeCreated(name: string): Promise<Date | null>;
}

export interface CloudDeps {
  env: CloudEnv;
  /** the input bucket: ranged shard reads */
  input: Bucket;
  /** reads the input bucket for planning (index offsets need decompression) */
  inputBucket: InputBucket;
  /** a run's work area: `runs/<runId>/` in the work bucket */
  workStore(runId: string): CloudStore;
  /** a run's outputs: `<runId>/` in the output bucket */
  outputStore(runId: string): CloudStore;
  publish(topic: string, message: TaskMessage): Promise<void>;
  log(message: string): void;
  /** the input sources shards may name (default: the built-in ones) */
  sources?: SourceRegistry;
  /** services every task may ask for by name */
  services?: Services;
}

/** The stores of a deployment: GCS prefixes of the work and output buckets. */
export function gcsRunStores(work: Bucket, output: Bucket): Pick<CloudDeps, "workStore" | "outputStore"> {
  return {
    workStore: (runId) => new GcsStore(work, `runs/${runId}/`),
    outputStore: (runId) => new GcsStore(output, `${runId}/`),
  };
}

/** The deployment's config: the environment layer (parsed with the env), as `paracap run` reads it. */
export function baseConfig(env: CloudEnv): ParacapConfig {
  return resolveConfig(deploymentLayer(env));
}

/** The deployment's config layer, unresolved: what an upload's config is resolved on (planRun). */
export function deploymentLayer(env: CloudEnv): ParacapConfigInput {
  const layer = { ...layerFromEnv(env), dump: { decoder: "auto" as const } };
  if (!env.PARACAP_MODEL) return layer;
  // A deployment's model (a directory in the deployed source, or a hub id fetched at cold start) means
  // its scorers, unless a run's manifest names scorers: the model flag's choices become keys of the layer.
  const config = resolveConfig(layer);
  applyModelFlag(config, env.PARACAP_MODEL);
  return { ...layer, scoring: { scorers: config.scoring.scorers, transformer: { model: config.scoring.transformer.model } } };
}

async function loadManifest(work: BlobStore, runId: string): Promise<RunManifest> {
  return (await loadPlannedRun(work, runId)).manifest;
}

/** The pipeline of a planned run: chosen from its manifest's config, as the planner chose it. */
function runPipeline(served: ServedPipelines, manifest: RunManifest): Pipeline {
  const pipeline = asPipelineSet(served).choose(manifest.config);
  if ("refused" in pipeline) throw new PermanentError(`run ${manifest.runId}: ${pipeline.refused}`);
  return pipeline;
}

function phaseOf(pipeline: Pipeline, name: string, runId: string): Phase {
  const phase = pipeline.phases.find((p) => p.name === name);
  if (!phase) throw new PermanentError(`run ${runId} has no phase "${name}" (its phases: ${pipeline.phases.map((p) => p.name).join(", ")})`);
  return phase;
}

/** The stored manifest carries, beside the shared RunManifest, the input generations it pinned. */
const PinnedInputs = z.object({ inputs: z.record(z.string(), ObjectVersion).default({}) });

async function loadPlannedRun(work: BlobStore, runId: string): Promise<{ manifest: RunManifest; inputs: Record<string, ObjectVersion> }> {
  const text = await work.readText(layout.manifest());
  if (text === null) throw new PermanentError(`run ${runId} has no manifest`);
  const json: unknown = JSON.parse(text);
  return { manifest: RunManifest.parse(json), inputs: PinnedInputs.parse(json).inputs };
}

/** Reserved work-area prefix (never a run id): content key of each planned upload → its run id. */
const UPLOADS = "_uploads";

/**
 * plan: an upload to the input bucket → run manifest → one extract task per shard. An upload that
 * starts no run (not a dump, a broken manifest, the same bytes as a run already planned) leaves a
 * plan outcome under its run id, so `cloud status` can say what happened to it.
 */
export async function planStage(event: StorageObjectEvent, deps: CloudDeps, served: ServedPipelines = BUILTIN_PIPELINES): Promise<string | null> {
  const id = runId(event.name, event.generation);
  const record = (outcome: PlanOutcome) => deps.workStore(id).writeText(PLAN_OUTCOME, JSON.stringify(outcome) + "\n");
  let result;
  try {
    result = await planRun(event, deploymentLayer(deps.env), deps.inputBucket, deps.env.PARACAP_SHARD_BYTES, served, deps.sources ?? BUILTIN_SOURCES);
  } catch (e) {
    if (e instanceof PlanError || e instanceof DumpError) {
      await record({ status: "failed", reason: e.message });
      throw new PermanentError(`plan: ${event.name}: ${e.message}`);
    }
    throw e;
  }
  if ("ignored" in result) {
    deps.log(`plan: ignored: ${result.ignored}`);
    // Parts of a manifest and an index before its dump are steps of one upload, not runs of their own.
    if (!event.metadata?.[PART_OF_MANIFEST] && uploadKind(event.name, deps.sources ?? BUILTIN_SOURCES)?.kind !== "companion") await record({ status: "ignored", reason: result.ignored });
    return null;
  }
  const planned = result.manifest;
  // The same upload name, config and bytes as a run already planned: point at that run instead of
  // reading everything again (a redelivered event finds its own run id and goes on).
  const key = stableId(event.name, planned.fingerprint, JSON.stringify(Object.entries(result.inputs).map(([o, v]) => [o, v.size, v.md5Hash ?? null, v.crc32c ?? null])));
  const uploads = deps.workStore(UPLOADS);
  if (!(await uploads.createIfAbsent(`${key}.json`, planned.runId))) {
    const first = await uploads.readText(`${key}.json`);
    if (first !== null && first !== planned.runId) {
      await record({ status: "duplicate", of: first, reason: `${event.name} has the same bytes and config as run ${first}; not starting a second run` });
      deps.log(`plan: ${event.name}: same bytes as run ${first}; reusing it`);
      return first;
    }
  }
  const work = deps.workStore(planned.runId);
  // A redelivered event plans the same run id; the first manifest stays authoritative.
  await work.createIfAbsent(layout.manifest(), JSON.stringify({ ...planned, inputs: result.inputs }, null, 2));
  const m = await loadManifest(work, planned.runId);
  const pipeline = runPipeline(served, m);
  await publishPhase(pipeline.phases[0]!, m, deps);
  deps.log(`plan: run ${m.runId}: ${m.shards.length} shard(s) planned, ${pipeline.phases[0]!.name} published`);
  return m.runId;
}

/** The runner a cloud task gets: ranged reads of the input objects pinned at planning, the deployment's sources and services. */
function cloudRunner(deps: CloudDeps, inputs: Record<string, ObjectVersion>): RunnerDeps {
  return {
    sources: deps.sources ?? BUILTIN_SOURCES,
    services: deps.services ?? {},
    bytes: (s) => bucketBytes(deps.input, s.uri, inputs[s.uri]),
    // A replaced input is as final as a damaged one: retrying cannot bring the planned bytes back.
    isCorruptInput: (err) => err instanceof DumpError || err instanceof InputChangedError,
  };
}

/**
 * One task of the phase the message names, in the pipeline of the message's run (chosen from the
 * run's config, as at planning): a shard or partition task, or the once phase.
 */
export async function stageTask(task: TaskMessage, messageId: string, deps: CloudDeps, served: ServedPipelines = BUILTIN_PIPELINES): Promise<void> {
  const work = deps.workStore(task.runId);
  const planned = await loadPlannedRun(work, task.runId);
  const pipeline = runPipeline(served, planned.manifest);
  const phase = phaseOf(pipeline, task.type, task.runId);
  if (phase.unit === "once") return onceStageTask(phase, task, planned.manifest, deps, pipeline);
  return unitStageTask(phase, task, messageId, planned, deps, pipeline);
}

/**
 * One task of a shard or partition phase (the phase's marker makes a redelivery a no-op), then the
 * phase's fan-in: the last task to finish starts the next phase.
 */
async function unitStageTask(phase: UnitPhase, task: TaskMessage, messageId: string, { manifest, inputs }: { manifest: RunManifest; inputs: Record<string, ObjectVersion> }, deps: CloudDeps, pipeline: Pipeline): Promise<void> {
  const work = deps.workStore(task.runId);
  const unit = findUnit(phase, manifest, task);
  if (!unit) throw new PermanentError(`run ${task.runId} has no ${phase.name} ${phase.unit} ${task.shardId ?? task.partition}`);
  await runUnitTask(phase, manifest, work, unit, cloudRunner(deps, inputs), pipeline.wiring);
  await phaseFanIn(phase, manifest, work, messageId, deps, pipeline);
}

/** Where the winner of a phase's fan-in is recorded (its creation time also dates the phase's end). */
const triggerOf = (phase: Phase) => `${phase.name}/_TRIGGERED`;

async function phaseFanIn(phase: UnitPhase, manifest: RunManifest, work: BlobStore, messageId: string, deps: CloudDeps, pipeline: Pipeline): Promise<void> {
  await fanIn(work, {
    markerPrefix: `${phase.name}/`,
    markerSuffix: "/_DONE.json",
    expected: unitsOf(phase, manifest).length,
    trigger: triggerOf(phase),
    messageId,
    publishNext: async () => {
      const stop = await phase.afterPhase?.(phaseEndContext(phase, manifest, work, deps.sources ?? BUILTIN_SOURCES, pipeline));
      // The run fails with the reason, as the local runner refuses, instead of publishing empty datasets.
      if (stop) return work.writeText(RUN_FAILED, JSON.stringify({ error: stop }) + "\n");
      if (phase.next !== null) await publishPhase(pipeline.get(phase.next), manifest, deps);
    },
  });
}

/** One message per task of `phase`. */
async function publishPhase(phase: Phase, manifest: RunManifest, deps: CloudDeps): Promise<void> {
  const topic = deps.env.topics[phase.name];
  if (!topic) throw new Error(`no topic for phase ${phase.name} in the function's environment`);
  const runId = manifest.runId;
  const messages: TaskMessage[] =
    phase.unit === "once"
      ? [{ type: phase.name, runId }]
      : unitsOf(phase, manifest).map((u) => (u.unit === "shard" ? { type: phase.name, runId, shardId: u.key } : { type: phase.name, runId, partition: u.partition }));
  await Promise.all(messages.map((m) => deps.publish(topic, m)));
}

/**
 * The once phase (aggregate): datasets (gzip), stats.json, report.md, config.json, then `_SUCCESS`.
 * A redelivery after `_SUCCESS` does nothing; a retry before it rewrites the same bytes: the
 * report's time and duration come from the run's own objects (manifest → the previous phase's
 * fan-in), not from the clock.
 */
async function onceStageTask(phase: OncePhase, task: TaskMessage, manifest: RunManifest, deps: CloudDeps, pipeline: Pipeline): Promise<void> {
  const work = deps.workStore(task.runId);
  const output = deps.outputStore(task.runId);
  if (await phase.published(manifest, output)) {
    deps.log(`${phase.name}: run ${task.runId} already published`);
    return;
  }
  const planned = await work.timeCreated(layout.manifest());
  const previous = pipeline.previous(phase.name);
  const finished = (previous ? await work.timeCreated(triggerOf(previous)) : null) ?? planned;
  const stats = await phase.run({
    manifest,
    work,
    output: new GzipDatasets(output, new Set(manifest.config.tiers.map(tierFile))),
    phases: pipeline.phases,
    sources: deps.sources ?? BUILTIN_SOURCES,
    ...taskData(phase, manifest, work, pipeline.wiring, null),
    options: {
      allowMissingShards: true,
      now: () => finished ?? new Date(0),
      elapsedSeconds: planned && finished ? (finished.getTime() - planned.getTime()) / 1000 : null,
    },
  });
  deps.log(`${phase.name}: run ${task.runId}: ${Object.entries(stats.tiers).map(([t, s]) => `${t} ${s.pairs}`).join(", ")} pairs${stats.complete ? "" : ` (INCOMPLETE: ${stats.shards.missing.length} shard(s) missing, ${stats.shards.corrupt.length} damaged, ${stats.failedTasks.length} task(s) failed)`}`);
}

/**
 * A message that exhausted its delivery attempts. A shard or partition task is marked failed and
 * its partial outputs are removed, so the run finishes without it and says it is incomplete; a dead
 * once-task (aggregate) is recorded for `cloud status` (rerun it by republishing its message).
 */
export async function deadLetterTask(task: TaskMessage, attempts: number | null, deps: CloudDeps, served: ServedPipelines = BUILTIN_PIPELINES): Promise<void> {
  const work = deps.workStore(task.runId);
  const error = `dead-lettered${attempts ? ` after ${attempts} delivery attempts` : ""}`;
  const key = [task.type, task.shardId ?? task.partition].filter((k) => k !== undefined).join("-");
  await work.writeText(`deadletter/${key}.json`, JSON.stringify({ task, error }) + "\n");
  deps.log(`deadletter: ${JSON.stringify(task)}: ${error}`);
  const manifest = await loadManifest(work, task.runId);
  const pipeline = runPipeline(served, manifest);
  const phase = phaseOf(pipeline, task.type, task.runId);
  if (phase.unit === "once") return;
  const unit = findUnit(phase, manifest, task);
  if (!unit) return;
  await failUnit(phase, manifest, work, unit, error);
  await phaseFanIn(phase, manifest, work, `deadletter:${key}`, deps, pipeline);
}

/** Errors a retry cannot fix: the handler acknowledges instead of retrying forever. */
export class PermanentError extends Error {
  override readonly name = "PermanentError";
}

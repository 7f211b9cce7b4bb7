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
import { resolveConfig, type ParacapConfig } from "../core/config.ts";
import { TRANSFORMER_SCORERS } from "../semantic/transformer-config.ts";
import { stableId } from "../core/hash.ts";
import { BUILTIN_SOURCES } from "../sources/registry.ts";
import { DumpError } from "../dump/errors.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { GcsStore } from "../io/gcs-store.ts";
import { OUTPUT_FILES, runAggregateTask, tierFile } from "../tasks/aggregate-task.ts";
import { runDedupTask, writeSetSizeBound } from "../tasks/dedup-task.ts";
import { runExtractTask } from "../tasks/extract-task.ts";
import { runGroupTask } from "../tasks/group-task.ts";
import { layout } from "../tasks/layout.ts";
import { RunManifest } from "../tasks/manifest.ts";
import { marker, readMarker, writeMarker } from "../tasks/markers.ts";
import type { CloudEnv } from "./env.ts";
import { fanIn } from "./fan-in.ts";
import { GzipDatasets } from "./gzip-output.ts";
import { PART_OF_MANIFEST, type AggregateTask, type DedupTask, type ExtractTask, type GroupTask, type StorageObjectEvent, type TaskMessage } from "./messages.ts";
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
}

/** The stores of a deployment: GCS prefixes of the work and output buckets. */
export function gcsRunStores(work: Bucket, output: Bucket): Pick<CloudDeps, "workStore" | "outputStore"> {
  return {
    workStore: (runId) => new GcsStore(work, `runs/${runId}/`),
    outputStore: (runId) => new GcsStore(output, `${runId}/`),
  };
}

export function baseConfig(env: CloudEnv): ParacapConfig {
  const scoring = env.PARACAP_MODEL ? { scorers: ["syntactic", ...TRANSFORMER_SCORERS], transformer: { model: env.PARACAP_MODEL } } : {};
  return resolveConfig({ partitions: env.PARACAP_PARTITIONS, tiers: env.PARACAP_TIERS.split(",").map((t) => t.trim()), dump: { decoder: "auto" }, scoring });
}

async function loadManifest(work: BlobStore, runId: string): Promise<RunManifest> {
  return (await loadPlannedRun(work, runId)).manifest;
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
export async function planStage(event: StorageObjectEvent, deps: CloudDeps): Promise<string | null> {
  const id = runId(event.name, event.generation);
  const record = (outcome: PlanOutcome) => deps.workStore(id).writeText(PLAN_OUTCOME, JSON.stringify(outcome) + "\n");
  let result;
  try {
    result = await planRun(event, baseConfig(deps.env), deps.inputBucket, deps.env.PARACAP_SHARD_BYTES);
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
    if (!event.metadata?.[PART_OF_MANIFEST] && uploadKind(event.name) !== "multistream-index") await record({ status: "ignored", reason: result.ignored });
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
  await Promise.all(m.shards.map((s) => deps.publish(deps.env.PARACAP_TOPIC_EXTRACT, { type: "extract", runId: m.runId, shardId: s.id })));
  deps.log(`plan: run ${m.runId}: ${m.shards.length} shard(s) published`);
  return m.runId;
}

export async function extractStageTask(task: ExtractTask, messageId: string, deps: CloudDeps): Promise<void> {
  const work = deps.workStore(task.runId);
  const { manifest, inputs } = await loadPlannedRun(work, task.runId);
  const shard = manifest.shards.find((s) => s.id === task.shardId);
  if (!shard) throw new PermanentError(`run ${task.runId} has no shard ${task.shardId}`);
  await runExtractTask(manifest, shard, work, {
    bytes: (s) => bucketBytes(deps.input, s.uri, inputs[s.uri]),
    // A replaced input is as final as a damaged one: retrying cannot bring the planned bytes back.
    isCorruptInput: (err) => err instanceof DumpError || err instanceof InputChangedError,
  });
  await extractFanIn(manifest, work, messageId, deps);
}

async function extractFanIn(manifest: RunManifest, work: BlobStore, messageId: string, deps: CloudDeps): Promise<void> {
  await fanIn(work, {
    markerPrefix: "extract/",
    markerSuffix: "/_DONE.json",
    expected: manifest.shards.length,
    trigger: "extract/_TRIGGERED",
    messageId,
    publishNext: async () => {
      if (await nothingRead(manifest, work)) return;
      await Promise.all(partitions(manifest).map((p) => deps.publish(deps.env.PARACAP_TOPIC_GROUP, { type: "group", runId: manifest.runId, partition: p })));
    },
  });
}

/**
 * No page read from any shard (not a MediaWiki export, garbage, every shard lost): the run fails
 * with the reason, as the local runner refuses, instead of publishing empty datasets.
 */
async function nothingRead(manifest: RunManifest, work: BlobStore): Promise<boolean> {
  const markers = await Promise.all(manifest.shards.map((s) => readMarker(work, layout.extractDone(s.id))));
  if (markers.some((m, i) => (m?.counters[BUILTIN_SOURCES.get(manifest.shards[i]!.source).documentsCounter] ?? 0) > 0)) return false;
  const why = [...new Set(markers.map((m) => m?.error).filter((e): e is string => !!e))].slice(0, 3).join("; ");
  const n = new Set(manifest.shards.map((s) => s.uri)).size;
  await work.writeText(RUN_FAILED, JSON.stringify({ error: `no pages read from the input${n > 1 ? "s" : ""}${why ? `: ${why}` : ""}` }) + "\n");
  return true;
}

export async function groupStageTask(task: GroupTask, messageId: string, deps: CloudDeps): Promise<void> {
  const work = deps.workStore(task.runId);
  const manifest = await loadManifest(work, task.runId);
  await runGroupTask(manifest, task.partition, work);
  await groupFanIn(manifest, work, messageId, deps);
}

async function groupFanIn(manifest: RunManifest, work: BlobStore, messageId: string, deps: CloudDeps): Promise<void> {
  await fanIn(work, {
    markerPrefix: "group/",
    markerSuffix: "/_DONE.json",
    expected: manifest.config.partitions,
    trigger: "group/_TRIGGERED",
    messageId,
    publishNext: async () => {
      await writeSetSizeBound(manifest, work);
      await Promise.all(partitions(manifest).map((p) => deps.publish(deps.env.PARACAP_TOPIC_DEDUP, { type: "dedup", runId: manifest.runId, partition: p })));
    },
  });
}

export async function dedupStageTask(task: DedupTask, messageId: string, deps: CloudDeps): Promise<void> {
  const work = deps.workStore(task.runId);
  const manifest = await loadManifest(work, task.runId);
  await runDedupTask(manifest, task.partition, work);
  await dedupFanIn(manifest, work, messageId, deps);
}

async function dedupFanIn(manifest: RunManifest, work: BlobStore, messageId: string, deps: CloudDeps): Promise<void> {
  await fanIn(work, {
    markerPrefix: "dedup/",
    markerSuffix: "/_DONE.json",
    expected: manifest.config.partitions,
    trigger: DEDUP_TRIGGER,
    messageId,
    publishNext: () => deps.publish(deps.env.PARACAP_TOPIC_AGGREGATE, { type: "aggregate", runId: manifest.runId }),
  });
}

/**
 * aggregate: datasets (gzip), stats.json, report.md, config.json, then `_SUCCESS`. A redelivery after
 * `_SUCCESS` does nothing; a retry before it rewrites the same bytes: the report's time and
 * duration come from the run's own objects (manifest → last dedup), not from the clock.
 */
export async function aggregateStageTask(task: AggregateTask, deps: CloudDeps): Promise<void> {
  const work = deps.workStore(task.runId);
  const manifest = await loadManifest(work, task.runId);
  const output = deps.outputStore(task.runId);
  const success = await output.readText(OUTPUT_FILES.success);
  if (success !== null && success.includes(manifest.fingerprint)) {
    deps.log(`aggregate: run ${task.runId} already aggregated`);
    return;
  }
  const planned = await work.timeCreated(layout.manifest());
  const finished = (await work.timeCreated(DEDUP_TRIGGER)) ?? planned;
  const stats = await runAggregateTask(manifest, work, new GzipDatasets(output, new Set(manifest.config.tiers.map(tierFile))), {
    allowMissingShards: true,
    now: () => finished ?? new Date(0),
    elapsedSeconds: planned && finished ? (finished.getTime() - planned.getTime()) / 1000 : null,
  });
  deps.log(`aggregate: run ${task.runId}: ${Object.entries(stats.tiers).map(([t, s]) => `${t} ${s.pairs}`).join(", ")} pairs${stats.complete ? "" : ` (INCOMPLETE: ${stats.shards.missing.length} shard(s) missing, ${stats.shards.corrupt.length} damaged, ${stats.failedTasks.length} task(s) failed)`}`);
}

/**
 * A message that exhausted its delivery attempts. An extract shard, group partition or dedup
 * partition is marked failed and its partial outputs are removed, so the run finishes without it
 * and says it is incomplete; a dead aggregate is recorded for `cloud status` (rerun it by hand).
 */
export async function deadLetterTask(task: TaskMessage, attempts: number | null, deps: CloudDeps): Promise<void> {
  const work = deps.workStore(task.runId);
  const error = `dead-lettered${attempts ? ` after ${attempts} delivery attempts` : ""}`;
  const key = task.type === "extract" ? task.shardId : task.type === "aggregate" ? "aggregate" : `${task.type}-${task.partition}`;
  await work.writeText(`deadletter/${key}.json`, JSON.stringify({ task, error }) + "\n");
  deps.log(`deadletter: ${JSON.stringify(task)}: ${error}`);
  if (task.type === "group" || task.type === "dedup") return deadPartition(task, error, work, deps);
  if (task.type !== "extract") return;
  const manifest = await loadManifest(work, task.runId);
  if (!manifest.shards.some((s) => s.id === task.shardId)) return;
  const done = await readMarker(work, layout.extractDone(task.shardId));
  if (!done || done.fingerprint !== manifest.extractFingerprint) {
    // Parts an attempt wrote before it failed must not reach the group phase.
    for (let p = 0; p < manifest.config.partitions; p++) await work.delete(layout.extractPart(task.shardId, p));
    await writeMarker(work, layout.extractDone(task.shardId), marker(`extract:${task.shardId}`, manifest.extractFingerprint, {}, "failed", error));
  }
  await extractFanIn(manifest, work, `deadletter:${task.shardId}`, deps);
}

async function deadPartition(task: GroupTask | DedupTask, error: string, work: CloudStore, deps: CloudDeps): Promise<void> {
  const manifest = await loadManifest(work, task.runId);
  const p = task.partition;
  if (p >= manifest.config.partitions) return;
  const doneName = task.type === "group" ? layout.groupDone(p) : layout.dedupDone(p);
  const done = await readMarker(work, doneName);
  if (!done || done.fingerprint !== manifest.fingerprint) {
    // Parts an attempt wrote before it failed must not reach the next phase.
    const parts = task.type === "group" ? partitions(manifest).map((q) => layout.groupPart(p, q)) : manifest.config.tiers.map((t) => layout.dedupPart(p, t));
    for (const name of parts) await work.delete(name);
    await writeMarker(work, doneName, marker(`${task.type}:${p}`, manifest.fingerprint, {}, "failed", error));
  }
  const messageId = `deadletter:${task.type}-${p}`;
  await (task.type === "group" ? groupFanIn(manifest, work, messageId, deps) : dedupFanIn(manifest, work, messageId, deps));
}

const DEDUP_TRIGGER = "dedup/_TRIGGERED";

function partitions(m: RunManifest): number[] {
  return Array.from({ length: m.config.partitions }, (_, i) => i);
}

/** Errors a retry cannot fix: the handler acknowledges instead of retrying forever. */
export class PermanentError extends Error {
  override readonly name = "PermanentError";
}

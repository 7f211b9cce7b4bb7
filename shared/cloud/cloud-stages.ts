/**
 * The cloud runner's stage logic, behind thin function handlers (functions/): each call does one
 * task of the shared pipeline against Cloud Storage and fans out or in through Pub/Sub.
 */
import type { Bucket } from "@google-cloud/storage";
import { resolveConfig, type ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { PageRevision } from "../core/records.ts";
import { DumpError } from "../dump/errors.ts";
import { GcsStore } from "../io/gcs-store.ts";
import { runAggregateTask } from "../tasks/aggregate-task.ts";
import { runDedupTask } from "../tasks/dedup-task.ts";
import { runExtractTask } from "../tasks/extract-task.ts";
import { runGroupTask } from "../tasks/group-task.ts";
import { layout } from "../tasks/layout.ts";
import { RunManifest, type ShardSpec } from "../tasks/manifest.ts";
import { marker, readMarker, writeMarker } from "../tasks/markers.ts";
import type { CloudEnv } from "./env.ts";
import { fanIn } from "./fan-in.ts";
import type { AggregateTask, DedupTask, ExtractTask, GroupTask, StorageObjectEvent, TaskMessage } from "./messages.ts";
import { planRun, type InputBucket } from "./plan-run.ts";
import { readShardFromBucket } from "./shard-reader.ts";

export interface CloudDeps {
  env: CloudEnv;
  input: Bucket;
  work: Bucket;
  output: Bucket;
  publish(topic: string, message: TaskMessage): Promise<void>;
  /** reads the input bucket for planning (index offsets need decompression) */
  inputBucket: InputBucket;
  log(message: string): void;
}

export const workStore = (deps: CloudDeps, runId: string) => new GcsStore(deps.work, `runs/${runId}/`);
export const outputStore = (deps: CloudDeps, runId: string) => new GcsStore(deps.output, `${runId}/`);

export function baseConfig(env: CloudEnv): ParacapConfig {
  return resolveConfig({ partitions: env.PARACAP_PARTITIONS, tiers: env.PARACAP_TIERS.split(",").map((t) => t.trim()), dump: { decoder: "auto" } });
}

async function loadManifest(deps: CloudDeps, runId: string): Promise<RunManifest> {
  const text = await workStore(deps, runId).readText(layout.manifest());
  if (text === null) throw new PermanentError(`run ${runId} has no manifest`);
  return RunManifest.parse(JSON.parse(text));
}

/** plan: an upload to the input bucket → run manifest → one extract task per shard. */
export async function planStage(event: StorageObjectEvent, deps: CloudDeps): Promise<string | null> {
  const result = await planRun(event, baseConfig(deps.env), deps.inputBucket, deps.env.PARACAP_SHARD_BYTES);
  if ("ignored" in result) {
    deps.log(`plan: ignored: ${result.ignored}`);
    return null;
  }
  const m = result.manifest;
  const work = workStore(deps, m.runId);
  // A redelivered event plans the same run id; the first manifest stays authoritative.
  await work.createIfAbsent(layout.manifest(), JSON.stringify(m, null, 2));
  await Promise.all(m.shards.map((s) => deps.publish(deps.env.PARACAP_TOPIC_EXTRACT, { type: "extract", runId: m.runId, shardId: s.id })));
  deps.log(`plan: run ${m.runId}: ${m.shards.length} shard(s) published`);
  return m.runId;
}

export async function extractStageTask(task: ExtractTask, messageId: string, deps: CloudDeps): Promise<void> {
  const manifest = await loadManifest(deps, task.runId);
  const shard = manifest.shards.find((s) => s.id === task.shardId);
  if (!shard) throw new PermanentError(`run ${task.runId} has no shard ${task.shardId}`);
  const work = workStore(deps, task.runId);
  await runExtractTask(manifest, shard, work, {
    readPages: (s: ShardSpec, counters: Counters): AsyncIterable<PageRevision> => readShardFromBucket(deps.input, s, manifest.config, counters),
    isCorruptInput: (err) => err instanceof DumpError,
  });
  await extractFanIn(manifest, work, messageId, deps);
}

async function extractFanIn(manifest: RunManifest, work: GcsStore, messageId: string, deps: CloudDeps): Promise<void> {
  await fanIn(work, {
    markerPrefix: "extract/",
    markerSuffix: "/_DONE.json",
    expected: manifest.shards.length,
    trigger: "extract/_TRIGGERED",
    messageId,
    publishNext: async () => {
      await Promise.all(partitions(manifest).map((p) => deps.publish(deps.env.PARACAP_TOPIC_GROUP, { type: "group", runId: manifest.runId, partition: p })));
    },
  });
}

export async function groupStageTask(task: GroupTask, messageId: string, deps: CloudDeps): Promise<void> {
  const manifest = await loadManifest(deps, task.runId);
  const work = workStore(deps, task.runId);
  await runGroupTask(manifest, task.partition, work);
  await fanIn(work, {
    markerPrefix: "group/",
    markerSuffix: "/_DONE.json",
    expected: manifest.config.partitions,
    trigger: "group/_TRIGGERED",
    messageId,
    publishNext: async () => {
      await Promise.all(partitions(manifest).map((p) => deps.publish(deps.env.PARACAP_TOPIC_DEDUP, { type: "dedup", runId: manifest.runId, partition: p })));
    },
  });
}

export async function dedupStageTask(task: DedupTask, messageId: string, deps: CloudDeps): Promise<void> {
  const manifest = await loadManifest(deps, task.runId);
  const work = workStore(deps, task.runId);
  await runDedupTask(manifest, task.partition, work);
  await fanIn(work, {
    markerPrefix: "dedup/",
    markerSuffix: "/_DONE.json",
    expected: manifest.config.partitions,
    trigger: "dedup/_TRIGGERED",
    messageId,
    publishNext: () => deps.publish(deps.env.PARACAP_TOPIC_AGGREGATE, { type: "aggregate", runId: manifest.runId }),
  });
}

export async function aggregateStageTask(task: AggregateTask, deps: CloudDeps): Promise<void> {
  const manifest = await loadManifest(deps, task.runId);
  await runAggregateTask(manifest, workStore(deps, task.runId), outputStore(deps, task.runId), { allowMissingShards: true });
}

/**
 * A message that exhausted its delivery attempts. An extract shard is marked failed (so the run can
 * finish without it and say it is incomplete); any other task is recorded for `cloud status`.
 */
export async function deadLetterTask(task: TaskMessage, attempts: number | null, deps: CloudDeps): Promise<void> {
  const work = workStore(deps, task.runId);
  const error = `dead-lettered${attempts ? ` after ${attempts} delivery attempts` : ""}`;
  const key = task.type === "extract" ? task.shardId : task.type === "aggregate" ? "aggregate" : `${task.type}-${task.partition}`;
  await work.writeText(`deadletter/${key}.json`, JSON.stringify({ task, error }) + "\n");
  if (task.type !== "extract") return;
  const manifest = await loadManifest(deps, task.runId);
  const done = await readMarker(work, layout.extractDone(task.shardId));
  if (!done) await writeMarker(work, layout.extractDone(task.shardId), marker(`extract:${task.shardId}`, manifest.fingerprint, {}, "failed", error));
  await extractFanIn(manifest, work, `deadletter:${task.shardId}`, deps);
}

function partitions(m: RunManifest): number[] {
  return Array.from({ length: m.config.partitions }, (_, i) => i);
}

/** Errors a retry cannot fix: the handler acknowledges instead of retrying forever. */
export class PermanentError extends Error {
  override readonly name = "PermanentError";
}

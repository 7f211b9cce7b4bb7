/** What `paracap cloud status` reports: per-phase progress, damaged and dead-lettered tasks, completion. */
import type { BlobStore } from "../io/blob-store.ts";
import { layout } from "../tasks/layout.ts";
import { RunManifest } from "../tasks/manifest.ts";
import { readMarker } from "../tasks/markers.ts";
import { doneObject, unitsOf } from "../tasks/phase-task.ts";
import { pipelineFor, type Pipeline } from "../tasks/phases.ts";
import { PLAN_OUTCOME, PlanOutcome, RUN_FAILED } from "./run-records.ts";

export interface RunStatus {
  runId: string;
  /** the phase that reads the input shards */
  shardPhase: string;
  shards: { total: number; done: number; corrupt: string[]; failed: string[]; pending: string[] };
  /** dead-lettered partition tasks, e.g. `group-3` */
  failedPartitions: string[];
  /** progress of each partition phase, in run order */
  partitions: Record<string, { total: number; done: number }>;
  deadLettered: { task: unknown; error: string }[];
  finished: boolean;
  complete: boolean | null;
  /** why the run stopped without outputs (no page read from any input), or null */
  failed: string | null;
  /** objects in the run's output area */
  outputs: string[];
}

export async function runStatus(runId: string, work: BlobStore, output: BlobStore, given?: Pipeline): Promise<RunStatus> {
  const text = await work.readText(layout.manifest());
  if (text === null) throw new Error(`no run ${runId} in ${work.description}`);
  const manifest = RunManifest.parse(JSON.parse(text));
  // the run's own phases: those its config chose at planning
  const pipeline = given ?? pipelineFor(manifest.config);
  const shards: RunStatus["shards"] = { total: manifest.shards.length, done: 0, corrupt: [], failed: [], pending: [] };
  for (const s of manifest.shards) {
    const m = await readMarker(work, doneObject(pipeline.shardPhase.name, { unit: "shard", key: s.id, shard: s }));
    if (!m) shards.pending.push(s.id);
    else if (m.status === "failed") shards.failed.push(s.id);
    else {
      shards.done++;
      if (m.status === "corrupt") shards.corrupt.push(`${s.id}: ${m.error}`);
    }
  }
  const failedPartitions: string[] = [];
  const partitions: RunStatus["partitions"] = {};
  for (const phase of pipeline.unitPhases) {
    if (phase.unit !== "partition") continue;
    const units = unitsOf(phase, manifest);
    const listed = new Set(await work.list(`${phase.name}/`));
    const done = (u: (typeof units)[number]) => doneObject(phase.name, u);
    partitions[phase.name] = { total: units.length, done: units.filter((u) => listed.has(done(u))).length };
    for (const u of units) if (listed.has(done(u)) && (await readMarker(work, done(u)))?.status === "failed") failedPartitions.push(`${phase.name}-${u.key}`);
  }
  const deadLettered = [];
  for (const name of await work.list("deadletter/")) {
    const t = await work.readText(name);
    if (t) deadLettered.push(JSON.parse(t) as { task: unknown; error: string });
  }
  const success = await output.readText("_SUCCESS");
  const failedText = await work.readText(RUN_FAILED);
  return {
    runId,
    shardPhase: pipeline.shardPhase.name,
    shards,
    failedPartitions,
    partitions,
    deadLettered,
    finished: success !== null,
    complete: failedText !== null ? false : success === null ? null : (JSON.parse(success) as { complete: boolean }).complete,
    failed: failedText === null ? null : (JSON.parse(failedText) as { error: string }).error,
    outputs: await output.list(""),
  };
}

/** Anything that keeps the run from being whole: `cloud status` exits 3 on it. */
export function isIncomplete(s: RunStatus): boolean {
  return s.failed !== null || s.complete === false || s.shards.corrupt.length > 0 || s.shards.failed.length > 0 || s.failedPartitions.length > 0 || s.deadLettered.length > 0;
}

export function formatStatus(s: RunStatus): string {
  const state = s.failed !== null ? `FAILED: ${s.failed}` : s.finished ? (s.complete ? "finished, complete" : "finished, INCOMPLETE (some shards or partitions failed)") : "running";
  const lines = [
    `run ${s.runId}: ${state}`,
    `  ${s.shardPhase} shards: ${s.shards.done}/${s.shards.total} done, ${s.shards.failed.length} failed, ${s.shards.pending.length} pending`,
    ...Object.entries(s.partitions).map(([phase, p]) => `  ${phase} partitions: ${p.done}/${p.total}`),
  ];
  for (const c of s.shards.corrupt) lines.push(`  damaged shard ${c}`);
  for (const f of s.shards.failed) lines.push(`  failed shard ${f} (its pages are not in the datasets)`);
  for (const f of s.failedPartitions) lines.push(`  failed partition ${f} (the images or pairs hashed to it are not in the datasets)`);
  for (const d of s.deadLettered) lines.push(`  dead-lettered: ${JSON.stringify(d.task)} (${d.error})`);
  if (s.finished) lines.push(`  outputs: ${s.outputs.join(", ")}`);
  return lines.join("\n");
}

/** What the plan function recorded for an upload that started no run, or null. */
export async function planOutcome(work: BlobStore): Promise<PlanOutcome | null> {
  const text = await work.readText(PLAN_OUTCOME);
  return text === null ? null : PlanOutcome.parse(JSON.parse(text));
}

/**
 * The local runner: one command, local files, all cores. Phases run in order (extract → group →
 * dedup → aggregate), each task is skipped when its completion marker exists (resume), and the
 * same task functions run here as in the cloud handlers.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { TierName, type ParacapConfig } from "../core/config.ts";
import { Counters } from "../core/counters.ts";
import { DumpError } from "../dump/errors.ts";
import { fileBytes } from "../io/file-bytes.ts";
import { LocalStore } from "../io/local-store.ts";
import { Stats } from "../output/stats.ts";
import { OUTPUT_FILES, tierFile } from "../tasks/aggregate-task.ts";
import { tierParquet } from "../output/parquet-tier.ts";
import { PUBLISHED_FILES } from "../output/publish.ts";
import { layout } from "../tasks/layout.ts";
import { createManifest, RunManifest } from "../tasks/manifest.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import type { TaskMarker } from "../tasks/markers.ts";
import { doneObject, finishedMarker, phaseEndContext, runUnitTask, taskData, unitOutputs, unitsOf, type RunnerDeps, type Services, type UnitRef } from "../tasks/phase-task.ts";
import { phaseDataRoot } from "../tasks/datasets.ts";
import { BUILTIN_PIPELINE, pipelineFor, pivotMismatch, type Pipeline } from "../tasks/phases.ts";
import type { PartitionPayload } from "./worker.ts";
import { parallelExtract } from "./parallel-extract.ts";
import { createProgress, type InputProgress } from "./progress.ts";
import { dumpCounter } from "../core/counter-names.ts";
import { InputError, planLocalShards, type LocalInput } from "./local-shards.ts";
import { DecoderShares } from "./decoder-shares.ts";
import { WorkerPool } from "./worker-pool.ts";
import { lockOutDir, removeStaleTempFiles } from "./out-dir-lock.ts";
import type { InputKind } from "../core/records.ts";
import { extractInline } from "../pipeline/extract-stage.ts";
import type { AnySource } from "../sources/source.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import { WORD_VECTORS_RESOURCE, wordVectorsProvider } from "../semantic/vector-scorer.ts";
import { endOfRunPreloader, PRELOAD_AFTER_DECODED_BYTES } from "./end-of-run-preload.ts";
import { startChartThread, stopChartThread } from "../output/chart-thread.ts";
import { chartsStoredFor, rememberChartsStored } from "../output/charts.ts";
import { changedInputs, inputStamps, plannedStamps } from "./input-stamps.ts";
import { spelledAsBefore } from "./input-spelling.ts";

export interface LocalRunOptions {
  inputs: LocalInput[];
  outDir: string;
  config: ParacapConfig;
  /** worker threads; 1 runs everything in this thread */
  workers?: number;
  /**
   * How worker threads (workers > 1) are used. "auto": a shard's documents fan out to them only on machines with
   * more than two cores (on two, the decoder takes one core and this thread the other: fanning out there only adds
   * copies and the workers' start-up; shards are then read one at a time), and a partition phase runs on them only
   * when the run's work files exceed POOL_MIN_WORK_BYTES (starting the pool costs ~0.3–0.5 s, more than small
   * phases take in this thread).
   * "always": both whenever workers > 1 (tests use it to exercise the threads on any machine).
   */
  threads?: "auto" | "always";
  /** discard an earlier run's work in outDir instead of resuming it */
  fresh?: boolean;
  /** progress lines (null: silent) */
  progress?: NodeJS.WriteStream | null;
  /** bytes per shard of a multistream dump */
  shardBytes?: number;
  /** input sources (default: the built-in ones); extra sources run without worker threads */
  sources?: SourceRegistry;
  /** the phases to run (default: the built-in pipeline for the config's pivot, tasks/phases.ts pipelineFor); phases of another pipeline run without worker threads */
  pipeline?: Pipeline;
  /** services every task may ask for by name (UnitContext.service) */
  services?: Services;
}

export interface LocalRunResult {
  stats: Stats;
  /** tasks found done at the start, per phase */
  resumed: Record<string, number>;
  elapsedSeconds: number;
  /** the same run had already finished completely in outDir: nothing was redone or written */
  alreadyComplete?: boolean;
}

export class ResumeConflictError extends Error {
  override readonly name = "ResumeConflictError";
}

export async function runLocal(opts: LocalRunOptions): Promise<LocalRunResult> {
  const sources = opts.sources ?? BUILTIN_SOURCES;
  const pipeline = opts.pipeline ?? pipelineFor(opts.config);
  const mismatch = pivotMismatch(pipeline, opts.config);
  if (mismatch) throw new Error(mismatch);
  const inputs = opts.fresh ? opts.inputs : spelledAsBefore(opts.inputs, await earlierInputs(opts.outDir));
  const shards = await planLocalShards(inputs, opts.shardBytes, sources, opts.config);
  const stamps = inputStamps(inputs.map((i) => i.path));
  const manifest = createManifest("local", opts.config, shards, pipeline.phases, stamps, plannedStamps(stamps));
  // A finished run is told without a single write (its folder may be read-only by now).
  if (!opts.fresh) {
    const done = await completedRun(opts.outDir, manifest);
    if (done) {
      const resumed = Object.fromEntries(pipeline.unitPhases.map((p) => [p.name, unitsOf(p, manifest).length]));
      return { stats: done, resumed, elapsedSeconds: 0, alreadyComplete: true };
    }
  }
  // (an --out that cannot be written fails here, in one line: EROFS, EACCES, ENOSPC)
  const release = await lockOutDir(opts.outDir);
  try {
    await removeStaleTempFiles(opts.outDir);
    return await runLocked(opts, shards, manifest);
  } finally {
    await release();
  }
}

/** The inputs (as named) of the run whose work is in outDir, if any. */
async function earlierInputs(outDir: string): Promise<string[]> {
  const previous = await new LocalStore(join(outDir, ".work")).readText(layout.manifest()).catch(() => null);
  const old = previous === null ? null : RunManifest.safeParse(parseJsonOrNull(previous));
  return old?.success ? [...new Set(old.data.shards.map((s) => s.uri))] : [];
}

/**
 * Shards an earlier run gave up fetching (a crawl's WARC over HTTP; their markers say so) are read
 * again: their markers and outputs go, and so does every later unit phase's work, which read them.
 * The number of such shards.
 */
async function retryUnreachableShards(pipeline: Pipeline, manifest: RunManifest, work: LocalStore, workDir: string): Promise<number> {
  const phase = pipeline.shardPhase;
  let n = 0;
  for (const unit of unitsOf(phase, manifest)) {
    const m = await finishedMarker(phase, manifest, work, unit);
    if (m?.status !== "corrupt" || m.damage?.transient !== true) continue;
    for (const name of unitOutputs(phase, manifest, unit)) await work.delete(name);
    await work.delete(doneObject(phase.name, unit));
    n++;
  }
  if (n > 0) {
    for (const p of pipeline.unitPhases) {
      if (p === phase) continue;
      for (const dir of [p.name, phaseDataRoot(p.name), ...(p.workDirs ?? [])]) await rm(join(workDir, dir), { recursive: true, force: true });
    }
  }
  return n;
}

/**
 * The stats of the run in outDir if it finished completely with this fingerprint (same inputs and
 * configuration) and its outputs are all there; null otherwise (then the run resumes or starts).
 */
async function completedRun(outDir: string, manifest: RunManifest): Promise<Stats | null> {
  const fingerprint = manifest.fingerprint;
  const output = new LocalStore(outDir);
  const success = parseJsonOrNull((await output.readText(OUTPUT_FILES.success)) ?? "") as { fingerprint?: unknown; complete?: unknown; retry?: unknown } | null;
  // finished: complete, or incomplete only through damage in the input itself (nothing a rerun could read)
  if (success?.fingerprint !== fingerprint || (success.complete !== true && success.retry !== false)) return null;
  // the fingerprint has each input's size and time; bytes sampled since (a same-size rewrite with the old time) are in the manifest
  const previous = await new LocalStore(join(outDir, ".work")).readText(layout.manifest()).catch(() => null);
  const old = previous === null ? null : RunManifest.safeParse(parseJsonOrNull(previous));
  if (old?.success && changedInputs(old.data.inputStamps, manifest.inputStamps ?? {}).length > 0) return null;
  const stats = Stats.safeParse(parseJsonOrNull((await output.readText(OUTPUT_FILES.stats)) ?? ""));
  if (!stats.success) return null;
  // every output there (one deleted is written again), the report made with this run's report settings (not in the fingerprint)
  for (const name of [OUTPUT_FILES.report, OUTPUT_FILES.config, PUBLISHED_FILES.html, ...Object.keys(stats.data.tiers).flatMap((t) => [tierFile(t as TierName), tierParquet(t)])]) {
    if (!(await output.exists(name))) return null;
  }
  const written = parseJsonOrNull((await output.readText(OUTPUT_FILES.config)) ?? "") as { report?: unknown } | null;
  if (JSON.stringify(written?.report) !== JSON.stringify(manifest.config.report)) return null;
  return stats.data;
}

async function runLocked(opts: LocalRunOptions, shards: ShardSpec[], manifest: RunManifest): Promise<LocalRunResult> {
  const started = Date.now();
  const workDir = join(opts.outDir, ".work");
  const work = new LocalStore(workDir);
  const output = new LocalStore(opts.outDir);
  const sources = opts.sources ?? BUILTIN_SOURCES;
  const pipeline = opts.pipeline ?? pipelineFor(opts.config);

  if (opts.fresh) {
    // Discard the earlier run entirely, even one with the same plan, and its published outputs.
    await rm(workDir, { recursive: true, force: true });
    for (const name of [...Object.values(OUTPUT_FILES), PUBLISHED_FILES.html, ...TierName.options.flatMap((t) => [tierFile(t), tierParquet(t)])]) await output.delete(name);
  } else {
    const previous = await work.readText(layout.manifest());
    if (previous !== null) {
      const old = RunManifest.safeParse(parseJsonOrNull(previous));
      const shardPhase = pipeline.shardPhase.name;
      const changed = old.success ? changedInputs(old.data.inputStamps, manifest.inputStamps!) : [];
      if (changed.length > 0) {
        throw new ResumeConflictError(
          `the input ${changed.join(", ")} changed (size, modification time or content) since the run in ${opts.outDir} read it; ` +
            `rerun with --fresh to start over on it, or choose another --out directory`,
        );
      }
      if (!old.success || old.data.phaseFingerprints[shardPhase] !== manifest.phaseFingerprints[shardPhase]) {
        // say which: the inputs as each run named them (a path spelled otherwise is another input), or the settings
        const inputsOf = (m: RunManifest) => [...new Set(m.shards.map((s) => s.uri))];
        const before = old.success ? inputsOf(old.data) : [];
        const now = inputsOf(manifest);
        const otherInputs = old.success && (before.length !== now.length || before.some((u, i) => u !== now[i]));
        throw new ResumeConflictError(
          (otherInputs
            ? `${opts.outDir} holds a run over other inputs (it read ${before.join(", ")}; this run names ${now.join(", ")}); `
            : `${opts.outDir} holds a run with a different input or configuration; `) +
            `rerun with --fresh to discard it, or choose another --out directory`,
        );
      }
      // Only later-phase settings changed: keep every phase whose fingerprint still matches (the extracted shards at
      // least), redo the others from them (their old markers and data go, so none is taken for done and no stale file is read).
      for (const p of pipeline.unitPhases) {
        if (old.data.phaseFingerprints[p.name] === manifest.phaseFingerprints[p.name]) continue;
        for (const dir of [p.name, phaseDataRoot(p.name), ...(p.workDirs ?? [])]) await rm(join(workDir, dir), { recursive: true, force: true });
      }
    }
  }
  await work.writeText(layout.manifest(), JSON.stringify(manifest, null, 2));
  const refetch = await retryUnreachableShards(pipeline, manifest, work, workDir);

  const workers = Math.max(1, opts.workers ?? availableParallelism());
  // Started on first use, so a phase that does not use it never waits for its start-up. The workers share one copy
  // of the word vectors, loaded here when the first of them needs it.
  let pool: WorkerPool | null = null;
  const workerPool = () => (pool ??= new WorkerPool(workers, { [WORD_VECTORS_RESOURCE]: wordVectorsProvider }));
  const always = opts.threads === "always";
  const extractInWorkers = workers > 1 && (always || availableParallelism() > 2);
  // Shards whose pages this thread reads itself go one at a time: a second would only add a decoder competing
  // for the cores (lbzip2 already decodes one shard on all of them).
  const shardConcurrency = extractInWorkers ? workers : 1;
  // the cores of the decoders of the shard phase running now (decoder-shares.ts)
  let shares: DecoderShares | null = null;
  const live: Counters[] = [];
  const input: InputProgress = { done: 0, total: shards.reduce((n, s) => n + shardBytes(s), 0), resumed: 0, decoded: 0 };
  // the documents of the run's sources other than a dump's, for the extract line (a dump's counts revisions)
  const documents = [...new Set(shards.map((s) => s.source))].map((name) => sources.get(name)).filter((s) => s.documentsCounter !== dumpCounter("pages"))
    .map((s) => ({ counter: s.documentsCounter, ...s.document }))
    .filter((d, i, all) => all.findIndex((e) => e.counter === d.counter) === i); // (a crawl and a crawl's paths list count alike)
  const progress = createProgress(() => live, opts.progress === undefined ? process.stderr : opts.progress, input, undefined, documents);
  const resumed: Record<string, number> = Object.fromEntries(pipeline.unitPhases.map((p) => [p.name, 0]));
  // the last phases' inputs (word vectors, the shipped reference maps) load while a long input still decodes
  const preload = pipeline === BUILTIN_PIPELINE ? endOfRunPreloader(opts.config) : () => undefined;
  const runner: RunnerDeps = {
    sources,
    services: opts.services ?? {},
    bytes: (shard) => {
      const { threads, onRead } = shares?.start(shard.id, shardBytes(shard)) ?? { threads: undefined, onRead: undefined };
      const read = (n: number) => {
        input.done += n;
        onRead?.(n);
      };
      return { ...fileBytes(shard.uri, read, (n) => preload((input.decoded! += n))), decoderThreads: threads };
    },
    extractDocuments: (source, docs, shard, counters) => {
      live.push(counters);
      return extractInWorkers && sources === BUILTIN_SOURCES ? parallelExtract(source, docs, shard.kind, opts.config, counters, workerPool()) : extractInline(source, docs, shard.kind, opts.config, counters);
    },
    isCorruptInput: (err) => err instanceof DumpError,
  };
  // Say at the start, not only at the end, that this run continues an earlier one.
  const first = pipeline.unitPhases[0];
  if (first?.unit === "shard") {
    let alreadyDone = 0;
    for (const unit of unitsOf(first, manifest)) if (await finishedMarker(first, manifest, work, unit)) alreadyDone++;
    if (alreadyDone > 0) progress.note(`resuming the run in ${opts.outDir}: ${alreadyDone} of ${shards.length} shard${shards.length === 1 ? "" : "s"} already extracted`);
    if (refetch > 0) progress.note(`fetching again ${refetch} input part${refetch === 1 ? "" : "s"} the earlier run could not fetch`);
  }
  try {
    for (const phase of pipeline.unitPhases) {
      let units = unitsOf(phase, manifest);
      const inPool = workers > 1 && phase.unit === "partition" && pipeline === BUILTIN_PIPELINE && !opts.services && (always || treeBytes(workDir) >= POOL_MIN_WORK_BYTES);
      progress.phase(phase.name, units.length, phase.unit);
      const concurrency = phase.unit === "shard" ? shardConcurrency : workers;
      shares = null;
      if (phase.unit === "shard" && concurrency > 1) {
        // side by side, the largest shards first: the last to run, alone on their share of the cores, are small
        units = largestFirst(units);
        shares = new DecoderShares(availableParallelism(), concurrency, units.flatMap((u) => (u.unit === "shard" ? [{ id: u.shard.id, size: shardBytes(u.shard) }] : [])));
      }
      await forEachLimit(units, concurrency, async (unit) => {
        if (await finishedMarker(phase, manifest, work, unit)) {
          resumed[phase.name]!++;
          if (unit.unit === "shard") {
            input.done += shardBytes(unit.shard);
            input.resumed! += shardBytes(unit.shard);
          }
          // done: runUnitTask would only read the same marker again
        }
        // Shard tasks stay in this thread (their documents fan out to the pool); the pool runs
        // whole partition tasks of the built-in phases (worker threads know only those).
        else if (inPool && unit.unit === "partition") {
          await workerPool().run<TaskMarker>("partition", { phase: phase.name, manifest, partition: unit.partition, workDir } satisfies PartitionPayload);
        } else await runUnitTask(phase, manifest, work, unit, runner, pipeline.wiring);
        if (unit.unit === "shard") shares?.end(unit.shard.id);
        progress.step();
      });
      const stop = await phase.afterPhase?.(phaseEndContext(phase, manifest, work, sources, pipeline));
      if (stop) {
        await rm(workDir, { recursive: true, force: true }); // nothing worth resuming: a corrected rerun starts clean
        throw new InputError(stop);
      }
      // A long run's decoders are done and a core is free: the report's charts load and draw there (output/chart-thread.ts),
      // unless this same run drew them before (then they are all in the chart store). A short run draws its few charts
      // here: the thread's start and warm-up would cost more than they save.
      // (PARACAP_THREADS=always: on any run, as the worker threads)
      const longRun = always || (input.decoded ?? 0) >= PRELOAD_AFTER_DECODED_BYTES;
      if (phase.unit === "shard" && pipeline === BUILTIN_PIPELINE && longRun && !chartsStoredFor(manifest.fingerprint)) {
        startChartThread((err) => process.stderr.write(`paracap: the chart thread failed (${err.message}); the report's charts are drawn on the main thread\n`));
      }
    }
    progress.phase(pipeline.final.name, 1);
    const wasResumed = Object.values(resumed).some((n) => n > 0);
    const stats = await pipeline.final.run({ manifest, work, output, phases: pipeline.phases, sources, options: { startedAt: started, resumed: wasResumed }, ...taskData(pipeline.final, manifest, work, pipeline.wiring, null) });
    if (pipeline === BUILTIN_PIPELINE) rememberChartsStored(manifest.fingerprint);
    progress.step();
    return { stats, resumed, elapsedSeconds: (Date.now() - started) / 1000 };
  } finally {
    progress.close();
    stopChartThread().catch(() => undefined); // not waited for: an unref'd thread keeps nothing alive
    await (pool as WorkerPool | null)?.close();
  }
}

/** Work files (bytes) from which partition phases run in the worker pool: below it, in this thread. */
export const POOL_MIN_WORK_BYTES = 16 << 20;

/**
 * Bytes of the files under `dir` (0 when it does not exist). Synchronous: the work folder holds a few
 * hundred small entries, and a thread-pool trip per stat cost more than the walk.
 */
function treeBytes(dir: string): number {
  let total = 0;
  try {
    for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (e.isFile()) total += statSync(join(e.parentPath ?? (e as unknown as { path: string }).path, e.name), { throwIfNoEntry: false })?.size ?? 0; // parentPath: Node ≥ 20.12
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  return total;
}

/** A shard's size on disk: its byte range, or the whole file. */
function shardBytes(shard: ShardSpec): number {
  if (shard.end !== null) return shard.end - (shard.start ?? 0);
  try {
    return statSync(shard.uri).size - (shard.start ?? 0);
  } catch {
    return 0; // reported when the shard is read
  }
}

function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

/** Shard units by their bytes, largest first (ties in plan order). */
function largestFirst(units: UnitRef[]): UnitRef[] {
  const size = (u: UnitRef) => (u.unit === "shard" ? shardBytes(u.shard) : 0);
  return units.map((u, i) => ({ u, i, s: size(u) })).sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.u);
}

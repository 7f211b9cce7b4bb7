/**
 * The local runner: one command, local files, all cores. Phases run in order (extract → group →
 * dedup → aggregate), each task is skipped when its completion marker exists (resume), and the
 * same task functions run here as in the cloud handlers.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { TierName, type ParacapConfig } from "../core/config.ts";
import { Counters } from "../core/counters.ts";
import { DumpError } from "../dump/errors.ts";
import { fileBytes } from "../io/file-bytes.ts";
import { LocalStore } from "../io/local-store.ts";
import { Stats } from "../output/stats.ts";
import { OUTPUT_FILES, runAggregateTask, tierFile } from "../tasks/aggregate-task.ts";
import { runDedupTask, writeSetSizeBound } from "../tasks/dedup-task.ts";
import { runExtractTask, type ExtractTaskDeps } from "../tasks/extract-task.ts";
import { runGroupTask } from "../tasks/group-task.ts";
import { layout } from "../tasks/layout.ts";
import { createManifest, RunManifest, type ShardSpec } from "../tasks/manifest.ts";
import type { TaskMarker } from "../tasks/markers.ts";
import { parallelExtract } from "./parallel-extract.ts";
import { createProgress, type InputProgress } from "./progress.ts";
import { InputError, planLocalShards, type LocalInput } from "./local-shards.ts";
import { WorkerPool } from "./worker-pool.ts";
import { lockOutDir, removeStaleTempFiles } from "./out-dir-lock.ts";
import type { InputKind } from "../core/records.ts";
import type { RevisionRefs } from "../pipeline/extract-stage.ts";
import type { Source } from "../sources/source.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";

export interface LocalRunOptions {
  inputs: LocalInput[];
  outDir: string;
  config: ParacapConfig;
  /** worker threads; 1 runs everything in this thread */
  workers?: number;
  /** discard an earlier run's work in outDir instead of resuming it */
  fresh?: boolean;
  /** progress lines (null: silent) */
  progress?: NodeJS.WriteStream | null;
  /** bytes per shard of a multistream dump */
  shardBytes?: number;
  /** input sources (default: the built-in ones); extra sources run without worker threads */
  sources?: SourceRegistry;
}

export interface LocalRunResult {
  stats: Stats;
  resumed: { extract: number; group: number; dedup: number };
  elapsedSeconds: number;
  /** the same run had already finished completely in outDir: nothing was redone or written */
  alreadyComplete?: boolean;
}

export class ResumeConflictError extends Error {
  override readonly name = "ResumeConflictError";
}

export async function runLocal(opts: LocalRunOptions): Promise<LocalRunResult> {
  const sources = opts.sources ?? BUILTIN_SOURCES;
  const shards = await planLocalShards(opts.inputs, opts.shardBytes, sources);
  const manifest = createManifest("local", opts.config, shards);
  // A finished run is told without a single write (its folder may be read-only by now).
  if (!opts.fresh) {
    const done = await completedRun(opts.outDir, manifest.fingerprint);
    if (done) return { stats: done, resumed: { extract: shards.length, group: opts.config.partitions, dedup: opts.config.partitions }, elapsedSeconds: 0, alreadyComplete: true };
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

/**
 * The stats of the run in outDir if it finished completely with this fingerprint (same inputs and
 * configuration) and its outputs are all there; null otherwise (then the run resumes or starts).
 */
async function completedRun(outDir: string, fingerprint: string): Promise<Stats | null> {
  const output = new LocalStore(outDir);
  const success = parseJsonOrNull((await output.readText(OUTPUT_FILES.success)) ?? "") as { fingerprint?: unknown; complete?: unknown } | null;
  if (success?.fingerprint !== fingerprint || success.complete !== true) return null;
  const stats = Stats.safeParse(parseJsonOrNull((await output.readText(OUTPUT_FILES.stats)) ?? ""));
  if (!stats.success) return null;
  for (const name of [OUTPUT_FILES.report, OUTPUT_FILES.config, ...Object.keys(stats.data.tiers).map((t) => tierFile(t as TierName))]) {
    if (!(await output.exists(name))) return null;
  }
  return stats.data;
}

async function runLocked(opts: LocalRunOptions, shards: ShardSpec[], manifest: RunManifest): Promise<LocalRunResult> {
  const started = Date.now();
  const workDir = join(opts.outDir, ".work");
  const work = new LocalStore(workDir);
  const output = new LocalStore(opts.outDir);
  const sources = opts.sources ?? BUILTIN_SOURCES;

  if (opts.fresh) {
    // Discard the earlier run entirely, even one with the same plan, and its published outputs.
    await rm(workDir, { recursive: true, force: true });
    for (const name of [...Object.values(OUTPUT_FILES), ...TierName.options.map(tierFile)]) await output.delete(name);
  } else {
    const previous = await work.readText(layout.manifest());
    if (previous !== null) {
      const old = RunManifest.safeParse(parseJsonOrNull(previous));
      if (!old.success || old.data.extractFingerprint !== manifest.extractFingerprint) {
        throw new ResumeConflictError(
          `${opts.outDir} holds a run with a different input or configuration; ` +
            `rerun with --fresh to discard it, or choose another --out directory`,
        );
      }
      // Only later-phase settings changed: keep the extracted shards, redo group and dedup from them
      // (their old outputs go, so no stale partition file is read).
      if (old.data.fingerprint !== manifest.fingerprint) {
        for (const dir of ["group", "dedup"]) await rm(join(workDir, dir), { recursive: true, force: true });
      }
    }
  }
  await work.writeText(layout.manifest(), JSON.stringify(manifest, null, 2));

  const workers = Math.max(1, opts.workers ?? availableParallelism());
  const pool = workers > 1 ? new WorkerPool(workers) : null;
  const live: Counters[] = [];
  const input: InputProgress = { done: 0, total: shards.reduce((n, s) => n + shardBytes(s), 0), resumed: 0, decoded: 0 };
  const progress = createProgress(() => live, opts.progress === undefined ? process.stderr : opts.progress, input);
  const resumed = { extract: 0, group: 0, dedup: 0 };
  // Say at the start, not only at the end, that this run continues an earlier one.
  let alreadyDone = 0;
  for (const s of shards) if (await isDone(work, layout.extractDone(s.id), manifest.extractFingerprint)) alreadyDone++;
  if (alreadyDone > 0) progress.note(`resuming the run in ${opts.outDir}: ${alreadyDone} of ${shards.length} shard${shards.length === 1 ? "" : "s"} already extracted`);
  try {
    // extract: shards concurrently (each fans its pages out to the pool)
    progress.phase("extract", shards.length);
    const deps: ExtractTaskDeps = {
      bytes: (shard) => fileBytes(shard.uri, (n) => (input.done += n), (n) => (input.decoded! += n)),
      sources,
      extractDocuments: (source, docs, shard, counters) => {
        live.push(counters);
        return pool && sources === BUILTIN_SOURCES ? parallelExtract(source, docs, shard.kind, opts.config, counters, pool) : inlineDocuments(source, docs, shard.kind, opts.config, counters);
      },
      isCorruptInput: (err) => err instanceof DumpError,
    };
    const extracted: { shard: ShardSpec; marker: TaskMarker }[] = [];
    await forEachLimit(shards, Math.min(workers, shards.length), async (shard) => {
      if (await isDone(work, layout.extractDone(shard.id), manifest.extractFingerprint)) {
        resumed.extract++;
        input.done += shardBytes(shard);
        input.resumed! += shardBytes(shard);
      }
      extracted.push({ shard, marker: await runExtractTask(manifest, shard, work, deps) });
      progress.step();
    });
    // Nothing readable at all (e.g. not a MediaWiki export, or an empty file): say so instead of
    // publishing empty datasets.
    if (extracted.every(({ shard, marker }) => (marker.counters[sources.get(shard.source).documentsCounter] ?? 0) === 0)) {
      const why = extracted.filter(({ marker }) => marker.error).map(({ marker }) => marker.error).slice(0, 3).join("; ");
      await rm(workDir, { recursive: true, force: true }); // nothing worth resuming: a corrected rerun starts clean
      throw new InputError(`no pages read from the input${shards.length > 1 ? "s" : ""}${why ? `: ${why}` : ""}`);
    }

    const partitions = Array.from({ length: opts.config.partitions }, (_, i) => i);
    for (const phase of ["group", "dedup"] as const) {
      progress.phase(phase, partitions.length);
      await forEachLimit(partitions, workers, async (p) => {
        const doneName = phase === "group" ? layout.groupDone(p) : layout.dedupDone(p);
        if (await isDone(work, doneName, manifest.fingerprint)) resumed[phase]++;
        if (pool) await pool.run<TaskMarker>(phase, { manifest, partition: p, workDir });
        else if (phase === "group") await runGroupTask(manifest, p, work);
        else await runDedupTask(manifest, p, work);
        progress.step();
      });
      if (phase === "group") await writeSetSizeBound(manifest, work);
    }
    progress.phase("aggregate", 1);
    const elapsedSeconds = (Date.now() - started) / 1000;
    const stats = await runAggregateTask(manifest, work, output, { elapsedSeconds });
    progress.step();
    return { stats, resumed, elapsedSeconds };
  } finally {
    progress.close();
    await pool?.close();
  }
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

async function* inlineDocuments(source: Source, docs: AsyncIterable<unknown>, kind: InputKind, config: ParacapConfig, counters: Counters): AsyncGenerator<RevisionRefs> {
  const extract = source.createExtractor(config, counters);
  for await (const d of docs) yield extract(d, kind);
}

function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function isDone(work: LocalStore, name: string, fingerprint: string): Promise<boolean> {
  const text = await work.readText(name);
  return text !== null && text.includes(fingerprint);
}

async function forEachLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(lanes);
}

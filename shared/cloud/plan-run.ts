/**
 * Plan a cloud run from an uploaded object: the source that names it by its name plans its shards
 * (a multistream dump with its index beside it: byte ranges of whole streams; a caption list: byte
 * ranges of lines; other files: one shard), exactly as the local runner plans the same file; an
 * uploaded `*.manifest.json` lists the inputs of one run (each split the same way). A companion (an
 * index) plans its input if that is already there. Objects uploaded as parts of a manifest, and
 * anything else, are ignored (and the result says why). The run's pipeline is the one of the served
 * pipelines its config needs (a pixel pivot: the pixel pipeline); the manifest's phase fingerprints are its.
 */
import { resolveConfig, type ParacapConfig, type ParacapConfigInput } from "../core/config.ts";
import { checkSemanticConfig } from "../semantic/semantic-score.ts";
import { stableId } from "../core/hash.ts";
import { DumpError } from "../dump/errors.ts";
import { UserError } from "../core/errors.ts";
import { looksLikeHistory, shardsOf } from "../runner/local-shards.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import type { AnySource, PlanningView } from "../sources/source.ts";
import { asPipelineSet, BUILTIN_PIPELINES, type ServedPipelines } from "../tasks/pipeline-set.ts";
import { createManifest, type RunManifest } from "../tasks/manifest.ts";
import type { ShardSpec } from "../sources/shard-spec.ts";
import { z } from "zod";
import { PART_OF_MANIFEST, UploadManifest, type StorageObjectEvent } from "./messages.ts";
import { fedTiers } from "../pipeline/tiers.ts";
import { notAnInput, uploadKind } from "./upload-kind.ts";

export interface InputBucket {
  /** size, generation and checksums of an object, or null if absent */
  stat(name: string): Promise<ObjectVersion | null>;
  readText(name: string): Promise<string>;
  /** runs `use` on a downloaded copy of a small object (a multistream index) */
  withLocalCopy<T>(name: string, use: (path: string) => Promise<T>): Promise<T>;
  /** bytes [start, end) of an object (a caption list's head, a parquet footer), where the bucket can read ranges */
  readRange?(name: string, start: number, end: number): Promise<Buffer>;
}

/** One generation of an input object: what a run's shards are pinned to. */
export const ObjectVersion = z.object({
  generation: z.string(),
  size: z.number().int().nonnegative(),
  md5Hash: z.string().optional(),
  crc32c: z.string().optional(),
});
export type ObjectVersion = z.infer<typeof ObjectVersion>;

/** The first bytes of an object no source names by its name, to tell its source (as local-shards.ts reads a file's). */
const HEAD_BYTES = 4096;

/** A planned run, and the object generations its shards read (object name → version). */
export type PlanResult = { manifest: RunManifest; inputs: Record<string, ObjectVersion> } | { ignored: string };

/**
 * `deployment` is the deployment's config layer, not resolved: an upload's config is resolved on top
 * of it, so an upload's preset fills what the deployment did not set (as a config file's preset does
 * for `paracap run`) instead of losing to the default preset's values already filled in.
 */
export async function planRun(event: StorageObjectEvent, deployment: ParacapConfigInput, input: InputBucket, shardBytes: number, served: ServedPipelines = BUILTIN_PIPELINES, sources: SourceRegistry = BUILTIN_SOURCES): Promise<PlanResult> {
  const baseConfig = resolveConfig(deployment);
  const name = event.name;
  const owner = event.metadata?.[PART_OF_MANIFEST];
  if (owner) return { ignored: `${name} is part of ${owner}; that manifest's upload starts the run` };
  const kind = uploadKind(name, sources);
  const inputs: Record<string, ObjectVersion> = {};
  const pin = async (object: string, generation?: string): Promise<ObjectVersion> => {
    const v = await input.stat(object);
    if (!v) throw new PlanError(`${object}: the object is gone`);
    // The event's generation is the upload that started the run; a newer one is another run's.
    if (generation !== undefined && v.generation !== generation) throw new PlanError(`${object}: replaced by a newer upload (generation ${v.generation}) before this run (${generation}) was planned; that upload plans its own run`);
    inputs[object] = v;
    return v;
  };
  const planned = (id: string, config: ParacapConfig, shards: ShardSpec[]): PlanResult => {
    // the run's pipeline follows from its config (a pixel pivot runs the pixel pipeline), as pipelineFor does locally
    const pipeline = asPipelineSet(served).choose(config);
    if ("refused" in pipeline) throw new PlanError(pipeline.refused);
    return { manifest: createManifest(id, withFedTiers(config, shards, name), shards, pipeline.phases), inputs };
  };
  // the deployment's settings (a paths list's server is one, never an upload's)
  const view: PlanningView = {
    exists: async (n) => (await input.stat(n)) !== null,
    withLocalCopy: (n, use) => input.withLocalCopy(n, use),
    // a source may read an upload's first bytes to plan it (a caption list's columns), as it does locally
    ...(input.readRange ? { readRange: (n: string, start: number, end: number) => input.readRange!(n, start, end) } : {}),
    config: baseConfig,
  };
  /** the ranges of an input object as its source plans them: null = whole, or why it cannot be planned yet */
  const rangesOf = async (source: AnySource, object: string, size: number) => {
    try {
      return (await source.planRanges?.({ name: object, size }, shardBytes, view)) ?? null;
    } catch (e) {
      if (e instanceof DumpError) throw new PlanError(`${object}: ${e.message}`);
      // what `paracap run` refuses before any work (columns that cannot be told) is refused here too, with its words
      if (e instanceof UserError) throw new PlanError(e.message);
      throw e;
    }
  };

  if (kind?.kind === "manifest") {
    let json: unknown;
    try {
      json = JSON.parse(await input.readText(name));
    } catch (e) {
      if (e instanceof SyntaxError) throw new PlanError(`${name}: not valid JSON: ${e.message}`);
      throw e;
    }
    const parsed = UploadManifest.safeParse(json);
    if (!parsed.success) throw new PlanError(`${name}: not a valid paracap manifest: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
    let config: ParacapConfig;
    try {
      config = resolveConfig(deployment, parsed.data.config ?? {});
      checkSemanticConfig(config);
    } catch (e) {
      throw new PlanError(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const shards: ShardSpec[] = [];
    for (const s of parsed.data.shards) {
      if (!(await input.stat(s.object))) throw new PlanError(`${name}: shard object ${s.object} is not in the input bucket`);
      const stat = await pin(s.object);
      const role = sources.uploadRole(s.object);
      // an object no source names by its name is told by its first bytes, as `paracap run` tells a file
      // (`cloud upload` sends such files through a manifest); else the most general source, whose reader says what it expected
      const head = role?.role === "input" || !input.readRange ? null : await input.readRange(s.object, 0, Math.min(HEAD_BYTES, stat.size));
      const source = role?.role === "input" ? role.source : ((head && sources.detect(s.object, head)) ?? sources.all().at(-1)!);
      const ranges = await rangesOf(source, s.object, stat.size);
      shards.push(...shardsOf(s.object, source.name, s.kind ?? kindOf(s.object), ranges === null || "wait" in ranges ? null : ranges, shards.length));
    }
    return planned(runId(name, event.generation), config, shards);
  }
  if (kind?.kind === "companion") {
    // A companion (a multistream index) may arrive after its input: plan the input now if it is there.
    const stat = await input.stat(kind.of);
    if (!stat) return { ignored: `${name} uploaded before ${kind.of}, which it belongs to; that upload will start the run` };
    const ranges = await rangesOf(kind.source, kind.of, stat.size);
    if (ranges !== null && "wait" in ranges) return { ignored: ranges.wait };
    inputs[kind.of] = stat;
    return planned(runId(kind.of, stat.generation), baseConfig, shardsOf(kind.of, kind.source.name, kindOf(kind.of), ranges, 0));
  }
  if (kind?.kind === "input") {
    const current = await input.stat(name);
    if (!current) throw new PlanError(`${name}: the object is gone`);
    const ranges = await rangesOf(kind.source, name, current.size);
    if (ranges !== null && "wait" in ranges) return { ignored: ranges.wait };
    await pin(name, event.generation);
    return planned(runId(name, event.generation), baseConfig, shardsOf(name, kind.source.name, kindOf(name), ranges, 0));
  }
  return { ignored: `${name} ${notAnInput(sources)}` };
}

/**
 * The tiers the run's inputs can feed, as the local runner decides them: gold/silver need current
 * input (a current-revision dump, a crawl), bronze a history (a full-history dump, re-crawls). None → the plan fails.
 */
function withFedTiers(config: ParacapConfig, shards: ShardSpec[], name: string): ParacapConfig {
  const kinds = new Set(shards.map((s) => s.kind));
  const { fed: tiers } = fedTiers(config.tiers, kinds);
  if (tiers.length === 0) throw new PlanError(`${name}: no input feeds the requested tiers (${config.tiers.join(", ")}): gold/silver need a current-revision dump, bronze a full-history dump`);
  return tiers.length === config.tiers.length ? config : { ...config, tiers };
}

function kindOf(name: string): ShardSpec["kind"] {
  return looksLikeHistory(name) ? "history" : "current";
}

/** Deterministic run id: the same upload (object generation) always plans the same run. */
export function runId(object: string, generation: string): string {
  const base = object.split("/").pop()!.replace(/\.(xml(\.bz2|\.gz)?|manifest\.json|tsv)$/, "").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
  return `${base}-${stableId(object, generation).slice(0, 8)}`;
}

export class PlanError extends Error {
  override readonly name = "PlanError";
}

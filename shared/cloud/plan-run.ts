/**
 * Plan a cloud run from an uploaded object: a multistream dump (with its index beside it) becomes
 * byte-range shards; a single-stream dump or plain XML is one shard; an uploaded
 * `*.manifest.json` lists the dumps of one run (each split the same way). Objects uploaded as
 * parts of a manifest, and anything else, are ignored (and the result says why).
 */
import { resolveConfig, type ParacapConfig } from "../core/config.ts";
import { stableId } from "../core/hash.ts";
import { DumpError } from "../dump/errors.ts";
import { planByteRangeShards, type MultistreamIndex } from "../dump/multistream.ts";
import { looksLikeHistory } from "../runner/local-shards.ts";
import { createManifest, type RunManifest } from "../tasks/manifest.ts";
import { shardId, type ShardSpec } from "../sources/shard-spec.ts";
import { z } from "zod";
import { captionTsvSource } from "../sources/caption-tsv/caption-tsv-source.ts";
import { PART_OF_MANIFEST, UploadManifest, type StorageObjectEvent } from "./messages.ts";
import { MULTISTREAM, MULTISTREAM_INDEX, NOT_A_DUMP, uploadKind } from "./upload-kind.ts";

export interface InputBucket {
  /** size, generation and checksums of an object, or null if absent */
  stat(name: string): Promise<ObjectVersion | null>;
  readText(name: string): Promise<string>;
  /** stream offsets of a multistream index object */
  readIndex(name: string): Promise<MultistreamIndex>;
}

/** One generation of an input object: what a run's shards are pinned to. */
export const ObjectVersion = z.object({
  generation: z.string(),
  size: z.number().int().nonnegative(),
  md5Hash: z.string().optional(),
  crc32c: z.string().optional(),
});
export type ObjectVersion = z.infer<typeof ObjectVersion>;

/** A planned run, and the object generations its shards read (object name → version). */
export type PlanResult = { manifest: RunManifest; inputs: Record<string, ObjectVersion> } | { ignored: string };

export async function planRun(event: StorageObjectEvent, baseConfig: ParacapConfig, input: InputBucket, shardBytes: number): Promise<PlanResult> {
  const name = event.name;
  const owner = event.metadata?.[PART_OF_MANIFEST];
  if (owner) return { ignored: `${name} is part of ${owner}; that manifest's upload starts the run` };
  const kind = uploadKind(name);
  const inputs: Record<string, ObjectVersion> = {};
  const pin = async (object: string, generation?: string): Promise<ObjectVersion> => {
    const v = await input.stat(object);
    if (!v) throw new PlanError(`${object}: the object is gone`);
    // The event's generation is the upload that started the run; a newer one is another run's.
    if (generation !== undefined && v.generation !== generation) throw new PlanError(`${object}: replaced by a newer upload (generation ${v.generation}) before this run (${generation}) was planned; that upload plans its own run`);
    inputs[object] = v;
    return v;
  };
  const planned = (id: string, config: ParacapConfig, shards: ShardSpec[]): PlanResult => ({ manifest: createManifest(id, withFedTiers(config, shards, name), shards), inputs });

  if (kind === "manifest") {
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
      config = resolveConfig(baseConfig, parsed.data.config ?? {});
    } catch (e) {
      throw new PlanError(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const shards: ShardSpec[] = [];
    for (const s of parsed.data.shards) {
      if (!(await input.stat(s.object))) throw new PlanError(`${name}: shard object ${s.object} is not in the input bucket`);
      const stat = await pin(s.object);
      const index = await findIndex(s.object, input);
      const kind = s.kind ?? kindOf(s.object);
      if (index) shards.push(...(await rangeShards(s.object, stat.size, index, kind, shards.length, input, shardBytes)));
      else if (uploadKind(s.object) === "caption-list") shards.push(...tsvShards(s.object, stat.size, shards.length, shardBytes));
      else shards.push(wholeObject(shards.length, s.object, kind));
    }
    return planned(runId(name, event.generation), config, shards);
  }
  if (kind === "multistream-index") {
    // The index may arrive after the dump: plan now if the dump is already there.
    const dump = `${MULTISTREAM_INDEX.exec(name)![1]}.xml.bz2`;
    const stat = await input.stat(dump);
    if (!stat) return { ignored: `index ${name} uploaded before its dump ${dump}; the dump's upload will start the run` };
    inputs[dump] = stat;
    const shards = await rangeShards(dump, stat.size, name, kindOf(dump), 0, input, shardBytes);
    return planned(runId(dump, stat.generation), baseConfig, shards);
  }
  if (kind === "multistream") {
    const index = await findIndex(name, input);
    if (!index) return { ignored: `multistream dump ${name} has no index yet; upload ${MULTISTREAM.exec(name)![1]}-index.txt.bz2 to start the run` };
    const stat = await pin(name, event.generation);
    const shards = await rangeShards(name, stat.size, index, kindOf(name), 0, input, shardBytes);
    return planned(runId(name, event.generation), baseConfig, shards);
  }
  if (kind === "caption-list") {
    const stat = await pin(name, event.generation);
    return planned(runId(name, event.generation), baseConfig, tsvShards(name, stat.size, 0, shardBytes));
  }
  if (kind === "dump") {
    await pin(name, event.generation);
    return planned(runId(name, event.generation), baseConfig, [wholeObject(0, name, kindOf(name))]);
  }
  return { ignored: `${name} ${NOT_A_DUMP}` };
}

/**
 * The tiers the run's inputs can feed, as the local runner decides them: gold/silver need a
 * current-revision dump, bronze a full-history one. None → the plan fails.
 */
function withFedTiers(config: ParacapConfig, shards: ShardSpec[], name: string): ParacapConfig {
  const kinds = new Set(shards.map((s) => s.kind));
  const tiers = config.tiers.filter((t) => kinds.has(t === "bronze" ? "history" : "current"));
  if (tiers.length === 0) throw new PlanError(`${name}: no input feeds the requested tiers (${config.tiers.join(", ")}): gold/silver need a current-revision dump, bronze a full-history dump`);
  return tiers.length === config.tiers.length ? config : { ...config, tiers };
}

/** The index object of a multistream dump, if it is in the bucket. */
async function findIndex(dump: string, input: InputBucket): Promise<string | null> {
  const ms = MULTISTREAM.exec(dump);
  if (!ms) return null;
  for (const index of [`${ms[1]}-index.txt.bz2`, `${ms[1]}-index.txt`]) if (await input.stat(index)) return index;
  return null;
}

/**
 * Byte-range shards of a multistream dump, numbered from `first` (ids match the local runner's
 * plan of the same files in the same order).
 */
async function rangeShards(dump: string, size: number, index: string, kind: ShardSpec["kind"], first: number, input: InputBucket, shardBytes: number): Promise<ShardSpec[]> {
  const { offsets, pagesAt } = await input.readIndex(index);
  let ranges;
  try {
    ranges = planByteRangeShards(dump, size, offsets, shardBytes, pagesAt);
  } catch (e) {
    if (e instanceof DumpError) throw new PlanError(`${index}: ${e.message}`);
    throw e;
  }
  return ranges.map((r, i): ShardSpec => ({
    id: shardId(first + i, dump, r.start),
    uri: dump,
    source: "mediawiki",
    kind,
    start: r.start,
    end: r.end,
    fragment: r.start > 0,
    pages: r.pages,
  }));
}

function wholeObject(i: number, object: string, kind: ShardSpec["kind"]): ShardSpec {
  return { id: shardId(i, object, null), uri: object, source: "mediawiki", kind, start: null, end: null, fragment: false };
}

/** Byte-range shards of a caption list (ids match the local runner's plan of the same file). */
function tsvShards(object: string, size: number, first: number, shardBytes: number): ShardSpec[] {
  return captionTsvSource.planRanges!(size, shardBytes)!.map((r, i) => ({
    id: shardId(first + i, object, r.start > 0 || r.end !== null ? r.start : null),
    uri: object,
    source: "caption-tsv",
    kind: "current",
    start: r.start,
    end: r.end,
    fragment: r.fragment,
  }));
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

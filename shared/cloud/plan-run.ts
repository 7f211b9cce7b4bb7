/**
 * Plan a cloud run from an uploaded object: a multistream dump (with its index beside it) becomes
 * byte-range shards; a single-stream dump or plain XML is one shard; an uploaded
 * `*.manifest.json` lists the dumps of one run (each split the same way). Objects uploaded as
 * parts of a manifest, and anything else, are ignored (and the result says why).
 */
import { resolveConfig, type ParacapConfig } from "../core/config.ts";
import { stableId } from "../core/hash.ts";
import { DumpError } from "../dump/errors.ts";
import { planByteRangeShards } from "../dump/multistream.ts";
import { looksLikeHistory } from "../runner/local-shards.ts";
import { createManifest, shardId, type RunManifest, type ShardSpec } from "../tasks/manifest.ts";
import { captionTsvSource } from "../sources/caption-tsv/caption-tsv-source.ts";
import { PART_OF_MANIFEST, UploadManifest, type StorageObjectEvent } from "./messages.ts";

export interface InputBucket {
  /** size and generation of an object, or null if absent */
  stat(name: string): Promise<{ size: number; generation: string } | null>;
  readText(name: string): Promise<string>;
  /** stream offsets of a multistream index object */
  readIndexOffsets(name: string): Promise<number[]>;
}

export type PlanResult = { manifest: RunManifest } | { ignored: string };

const MULTISTREAM = /^(.*-multistream)\.xml\.bz2$/;
const MULTISTREAM_INDEX = /^(.*-multistream)-index\.txt(\.bz2)?$/;
const DUMP = /\.xml(\.bz2|\.gz)?$/;
const CAPTION_TSV = /\.tsv$/i;

export async function planRun(event: StorageObjectEvent, baseConfig: ParacapConfig, input: InputBucket, shardBytes: number): Promise<PlanResult> {
  const name = event.name;
  const owner = event.metadata?.[PART_OF_MANIFEST];
  if (owner) return { ignored: `${name} is part of ${owner}; that manifest's upload starts the run` };
  if (name.endsWith(".manifest.json")) {
    let json: unknown;
    try {
      json = JSON.parse(await input.readText(name));
    } catch (e) {
      if (e instanceof SyntaxError) throw new PlanError(`${name}: not valid JSON: ${e.message}`);
      throw e;
    }
    const parsed = UploadManifest.safeParse(json);
    if (!parsed.success) throw new PlanError(`${name}: not a valid paracap manifest: ${parsed.error.message}`);
    let config: ParacapConfig;
    try {
      config = resolveConfig(baseConfig, parsed.data.config ?? {});
    } catch (e) {
      throw new PlanError(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const shards: ShardSpec[] = [];
    for (const s of parsed.data.shards) {
      const stat = await input.stat(s.object);
      if (!stat) throw new PlanError(`${name}: shard object ${s.object} is not in the input bucket`);
      const index = await findIndex(s.object, input);
      const kind = s.kind ?? kindOf(s.object);
      if (index) shards.push(...(await rangeShards(s.object, stat.size, index, kind, shards.length, input, shardBytes)));
      else if (CAPTION_TSV.test(s.object)) shards.push(...tsvShards(s.object, stat.size, shards.length, shardBytes));
      else shards.push(wholeObject(shards.length, s.object, kind));
    }
    return { manifest: createManifest(runId(name, event.generation), config, shards) };
  }
  const idx = MULTISTREAM_INDEX.exec(name);
  if (idx) {
    // The index may arrive after the dump: plan now if the dump is already there.
    const dump = `${idx[1]}.xml.bz2`;
    const stat = await input.stat(dump);
    if (!stat) return { ignored: `index ${name} uploaded before its dump ${dump}; the dump's upload will start the run` };
    const shards = await rangeShards(dump, stat.size, name, kindOf(dump), 0, input, shardBytes);
    return { manifest: createManifest(runId(dump, stat.generation), baseConfig, shards) };
  }
  const ms = MULTISTREAM.exec(name);
  if (ms) {
    const index = await findIndex(name, input);
    if (!index) return { ignored: `multistream dump ${name} has no index yet; upload ${ms[1]}-index.txt.bz2 to start the run` };
    const size = event.size ?? (await input.stat(name))?.size;
    if (size === undefined) throw new PlanError(`${name}: the object is gone`);
    const shards = await rangeShards(name, size, index, kindOf(name), 0, input, shardBytes);
    return { manifest: createManifest(runId(name, event.generation), baseConfig, shards) };
  }
  if (CAPTION_TSV.test(name)) {
    const size = event.size ?? (await input.stat(name))?.size;
    if (size === undefined) throw new PlanError(`${name}: the object is gone`);
    return { manifest: createManifest(runId(name, event.generation), baseConfig, tsvShards(name, size, 0, shardBytes)) };
  }
  if (DUMP.test(name)) {
    return { manifest: createManifest(runId(name, event.generation), baseConfig, [wholeObject(0, name, kindOf(name))]) };
  }
  return { ignored: `${name} is not a dump (.xml, .xml.bz2, .xml.gz), a multistream index, a caption list (.tsv) or a *.manifest.json` };
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
  const offsets = await input.readIndexOffsets(index);
  let ranges;
  try {
    ranges = planByteRangeShards(dump, size, offsets, shardBytes);
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
  }));
}

function wholeObject(i: number, object: string, kind: ShardSpec["kind"]): ShardSpec {
  return { id: shardId(i, object, null), uri: object, source: "mediawiki", kind, start: null, end: null, fragment: false };
}

/** Byte-range shards of a caption TSV (ids match the local runner's plan of the same file). */
function tsvShards(object: string, size: number, first: number, shardBytes: number): ShardSpec[] {
  const ranges = captionTsvSource.planRanges!(size, shardBytes)!;
  return ranges.map((r, i) => ({
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

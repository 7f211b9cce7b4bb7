/**
 * Plan a cloud run from an uploaded object: a multistream dump (with its index beside it) becomes
 * byte-range shards; a single-stream dump or plain XML is one shard; an uploaded
 * `*.manifest.json` lists shard objects explicitly. Anything else is ignored (and says why).
 */
import { resolveConfig, type ParacapConfig } from "../core/config.ts";
import { stableId } from "../core/hash.ts";
import { planByteRangeShards } from "../dump/multistream.ts";
import { looksLikeHistory } from "../runner/local-shards.ts";
import { createManifest, shardId, type RunManifest, type ShardSpec } from "../tasks/manifest.ts";
import { UploadManifest, type StorageObjectEvent } from "./messages.ts";

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

export async function planRun(event: StorageObjectEvent, baseConfig: ParacapConfig, input: InputBucket, shardBytes: number): Promise<PlanResult> {
  const name = event.name;
  if (name.endsWith(".manifest.json")) {
    const parsed = UploadManifest.safeParse(JSON.parse(await input.readText(name)));
    if (!parsed.success) throw new PlanError(`${name}: not a valid paracap manifest: ${parsed.error.message}`);
    const config = resolveConfig(baseConfig, parsed.data.config ?? {});
    const shards: ShardSpec[] = [];
    for (const s of parsed.data.shards) {
      if (!(await input.stat(s.object))) throw new PlanError(`${name}: shard object ${s.object} is not in the input bucket`);
      shards.push(wholeObject(shards.length, s.object, s.kind ?? kindOf(s.object)));
    }
    return { manifest: createManifest(runId(name, event.generation), config, shards) };
  }
  const idx = MULTISTREAM_INDEX.exec(name);
  if (idx) {
    // The index may arrive after the dump: plan now if the dump is already there.
    const dump = `${idx[1]}.xml.bz2`;
    const stat = await input.stat(dump);
    if (!stat) return { ignored: `index ${name} uploaded before its dump ${dump}; the dump's upload will start the run` };
    return planMultistream(dump, stat, name, baseConfig, input, shardBytes);
  }
  const ms = MULTISTREAM.exec(name);
  if (ms) {
    for (const index of [`${ms[1]}-index.txt.bz2`, `${ms[1]}-index.txt`]) {
      if (await input.stat(index)) {
        return planMultistream(name, { size: event.size ?? (await input.stat(name))!.size, generation: event.generation }, index, baseConfig, input, shardBytes);
      }
    }
    return { ignored: `multistream dump ${name} has no index yet; upload ${ms[1]}-index.txt.bz2 to start the run` };
  }
  if (DUMP.test(name)) {
    return { manifest: createManifest(runId(name, event.generation), baseConfig, [wholeObject(0, name, kindOf(name))]) };
  }
  return { ignored: `${name} is not a dump (.xml, .xml.bz2, .xml.gz), a multistream index or a *.manifest.json` };
}

async function planMultistream(dump: string, stat: { size: number; generation: string }, index: string, config: ParacapConfig, input: InputBucket, shardBytes: number): Promise<PlanResult> {
  const offsets = await input.readIndexOffsets(index);
  const kind = kindOf(dump);
  const shards = planByteRangeShards(dump, stat.size, offsets, shardBytes).map((r, i): ShardSpec => ({
    id: shardId(i, dump, r.start),
    uri: dump,
    kind,
    start: r.start,
    end: r.end,
    fragment: r.start > 0,
  }));
  return { manifest: createManifest(runId(dump, stat.generation), config, shards) };
}

function wholeObject(i: number, object: string, kind: ShardSpec["kind"]): ShardSpec {
  return { id: shardId(i, object, null), uri: object, kind, start: null, end: null, fragment: false };
}

function kindOf(name: string): ShardSpec["kind"] {
  return looksLikeHistory(name) ? "history" : "current";
}

/** Deterministic run id: the same upload (object generation) always plans the same run. */
export function runId(object: string, generation: string): string {
  const base = object.split("/").pop()!.replace(/\.(xml(\.bz2|\.gz)?|manifest\.json)$/, "").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
  return `${base}-${stableId(object, generation).slice(0, 8)}`;
}

export class PlanError extends Error {
  override readonly name = "PlanError";
}

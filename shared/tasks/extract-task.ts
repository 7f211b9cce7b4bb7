/**
 * Extract task: one shard → references partitioned by hash(image key) → completion marker.
 * A corrupt shard (truncated bz2, malformed XML) keeps what was read before the damage and is marked
 * "corrupt" with the error; the run goes on and the report lists it.
 */
import { Counters } from "../core/counters.ts";
import { partitionOf } from "../core/hash.ts";
import type { BlobStore } from "../io/blob-store.ts";
import { collapseUses, type RevisionRefs } from "../pipeline/extract-stage.ts";
import { BUILTIN_SOURCES, type SourceRegistry } from "../sources/registry.ts";
import type { ByteSource, Source } from "../sources/source.ts";
import { layout } from "./layout.ts";
import { PartitionedWriter } from "./partitioned-writer.ts";
import type { RunManifest, ShardSpec } from "./manifest.ts";
import { marker, readMarker, writeMarker, type TaskMarker } from "./markers.ts";

export interface ExtractTaskDeps {
  /** the bytes of the shard's file (runner-specific: a local file or a Cloud Storage object) */
  bytes(shard: ShardSpec): ByteSource;
  /** per-document extraction; a runner may fan it out over worker threads (order must be kept) */
  extractDocuments?(source: Source, docs: AsyncIterable<unknown>, shard: ShardSpec, counters: Counters): AsyncIterable<RevisionRefs>;
  /** the sources shards may name (default: the built-in ones) */
  sources?: SourceRegistry;
  /** errors that mean "the input is damaged" rather than "retry me" */
  isCorruptInput(err: unknown): boolean;
}

export async function runExtractTask(manifest: RunManifest, shard: ShardSpec, work: BlobStore, deps: ExtractTaskDeps): Promise<TaskMarker> {
  const doneName = layout.extractDone(shard.id);
  const existing = await readMarker(work, doneName);
  if (existing && existing.fingerprint === manifest.extractFingerprint) return existing;

  const counters = new Counters();
  const partitions = manifest.config.partitions;
  const source = (deps.sources ?? BUILTIN_SOURCES).get(shard.source);
  const docs = source.documents(shard, deps.bytes(shard), manifest.config, counters);
  const revisions = deps.extractDocuments
    ? deps.extractDocuments(source, docs, shard, counters)
    : inlineExtract(source, docs, shard, manifest, counters);
  const out = new PartitionedWriter(work, (p) => layout.extractPart(shard.id, p));
  let status: TaskMarker["status"] = "ok";
  let error: string | null = null;
  let damage: TaskMarker["damage"];
  try {
    for await (const ref of collapseUses(revisions, counters)) {
      await out.write(partitionOf(ref.image, partitions), ref);
      counters.inc(`extract.${ref.kind}.shuffle_records`);
    }
  } catch (err) {
    if (!deps.isCorruptInput(err)) {
      await out.abort();
      throw err;
    }
    status = "corrupt";
    error = err instanceof Error ? err.message : String(err);
    damage = damageOf(err, shard);
    counters.inc("extract.shards.corrupt");
  }
  await out.close();
  counters.inc("extract.shards");
  const m = marker(`extract:${shard.id}`, manifest.extractFingerprint, counters, status, error, damage);
  await writeMarker(work, doneName, m);
  return m;
}

async function* inlineExtract(source: Source, docs: AsyncIterable<unknown>, shard: ShardSpec, manifest: RunManifest, counters: Counters): AsyncGenerator<RevisionRefs> {
  const extract = source.createExtractor(manifest.config, counters);
  for await (const d of docs) yield extract(d, shard.kind);
}

/** File and offset of a damaged-input error (DumpError carries both); the shard's file otherwise. */
function damageOf(err: unknown, shard: ShardSpec): NonNullable<TaskMarker["damage"]> {
  const e = err as { file?: unknown; offset?: unknown };
  const file = typeof e?.file === "string" ? e.file : shard.uri;
  const offset = typeof e?.offset === "number" ? e.offset : null;
  return { file, offset };
}

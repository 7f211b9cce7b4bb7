/**
 * Reads one shard of a dump stored in Cloud Storage: a ranged object read (a multistream byte
 * range decodes on its own), then the same decompression and page reader as the local runner.
 *
 * Reads are pinned to the object generation the run planned: an object replaced by another upload
 * under the same name is never read in its place (the shard fails with InputChangedError). A new
 * generation with the same bytes (same size and checksums: a re-upload of the same file) is read.
 */
import type { Bucket } from "@google-cloud/storage";
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { PageRevision } from "../core/records.ts";
import { decompressStream } from "../dump/open-dump.ts";
import { readPages } from "../dump/page-reader.ts";
import type { ShardSpec } from "../tasks/manifest.ts";
import type { ObjectVersion } from "./plan-run.ts";

/** The object a run planned was replaced (or deleted) by a different upload under the same name. */
export class InputChangedError extends Error {
  override readonly name = "InputChangedError";
}

export async function* readShardFromBucket(bucket: Bucket, shard: ShardSpec, config: ParacapConfig, counters: Counters, pinned?: ObjectVersion): AsyncGenerator<PageRevision> {
  const ranged = shard.start !== null || shard.end !== null;
  const label = ranged ? `gs://${bucket.name}/${shard.uri}[${shard.start ?? 0}..${shard.end ?? "end"}]` : `gs://${bucket.name}/${shard.uri}`;
  const generation = pinned ? await readableGeneration(bucket, shard.uri, pinned) : undefined;
  const file = generation ? bucket.file(shard.uri, { generation }) : bucket.file(shard.uri);
  // createReadStream's `end` is inclusive; the shard's is exclusive.
  const open = () =>
    mapGone(
      file.createReadStream({
        ...(shard.start !== null ? { start: shard.start } : {}),
        ...(shard.end !== null ? { end: shard.end - 1 } : {}),
        // Ranged reads cannot be validated against the whole object's checksum.
        validation: ranged ? false : "crc32c",
      }),
      `gs://${bucket.name}/${shard.uri}`,
      generation,
    );
  yield* readPages(decompressStream(open(), { decoder: config.dump.decoder, file: label, reopen: open }), {
    fragment: shard.fragment,
    partial: shard.end !== null,
    namespaces: config.dump.namespaces,
    skipRedirects: config.dump.skipRedirects,
    counters,
    file: label,
  });
}

/** The generation to read: the planned one, or a newer one holding the very same bytes. */
async function readableGeneration(bucket: Bucket, object: string, pinned: ObjectVersion): Promise<string> {
  let meta;
  try {
    [meta] = await bucket.file(object).getMetadata();
  } catch (e) {
    if ((e as { code?: number }).code === 404) throw changed(`gs://${bucket.name}/${object}`, pinned.generation, "it was deleted");
    throw e;
  }
  const now = String(meta.generation);
  if (now === pinned.generation) return now;
  const same = Number(meta.size) === pinned.size && (pinned.md5Hash ?? pinned.crc32c) !== undefined && (!pinned.md5Hash || meta.md5Hash === pinned.md5Hash) && (!pinned.crc32c || meta.crc32c === pinned.crc32c);
  if (same) return now;
  throw changed(`gs://${bucket.name}/${object}`, pinned.generation, `another upload replaced it (generation ${now}, ${meta.size} bytes, planned ${pinned.size})`);
}

function changed(uri: string, generation: string, how: string): InputChangedError {
  return new InputChangedError(`${uri} changed after the run was planned (planned generation ${generation}): ${how}; this shard was not read from it. The new upload starts its own run.`);
}

/** A pinned read that finds its generation gone (404/412) means the object was replaced mid-read. */
async function* mapGone(stream: AsyncIterable<Buffer>, uri: string, generation: string | undefined): AsyncGenerator<Buffer> {
  try {
    yield* stream;
  } catch (e) {
    const code = (e as { code?: number }).code;
    if (generation !== undefined && (code === 404 || code === 412)) throw changed(uri, generation, "its generation disappeared during the read");
    throw e;
  }
}

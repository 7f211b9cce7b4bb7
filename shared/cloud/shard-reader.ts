/**
 * An input object in Cloud Storage as a byte source for the input sources: ranged object reads (a
 * multistream byte range or a caption-list slice reads on its own), the same readers as locally.
 *
 * Reads are pinned to the object generation the run planned: an object replaced by another upload
 * under the same name is never read in its place (the shard fails with InputChangedError). A new
 * generation with the same bytes (same size and checksums: a re-upload of the same file) is read.
 */
import type { Bucket } from "@google-cloud/storage";
import type { ByteSource } from "../io/byte-source.ts";
import type { ObjectVersion } from "./plan-run.ts";

/** The object a run planned was replaced (or deleted) by a different upload under the same name. */
export class InputChangedError extends Error {
  override readonly name = "InputChangedError";
}

export function bucketBytes(bucket: Bucket, name: string, pinned?: ObjectVersion): ByteSource {
  const uri = `gs://${bucket.name}/${name}`;
  let generation: Promise<string | undefined> | null = null;
  const resolve = () => (generation ??= pinned ? readableGeneration(bucket, name, pinned) : Promise.resolve(undefined));
  return {
    label: uri,
    async *read(start = 0, end) {
      if (end !== undefined && end <= start) return;
      const gen = await resolve();
      const file = gen ? bucket.file(name, { generation: gen }) : bucket.file(name);
      const ranged = start > 0 || end !== undefined;
      // createReadStream's `end` is inclusive; ours is exclusive.
      const stream = file.createReadStream({
        ...(start > 0 ? { start } : {}),
        ...(end !== undefined ? { end: end - 1 } : {}),
        // Ranged reads cannot be validated against the whole object's checksum.
        validation: ranged ? false : "crc32c",
      });
      try {
        yield* stream as AsyncIterable<Buffer>;
      } catch (e) {
        const code = (e as { code?: number }).code;
        if (gen !== undefined && (code === 404 || code === 412)) throw changed(uri, gen, "its generation disappeared during the read");
        throw e;
      }
    },
  };
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

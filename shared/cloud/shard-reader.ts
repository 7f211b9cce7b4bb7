/**
 * An input object in Cloud Storage as a byte source for the input sources: ranged object reads (a
 * multistream byte range or a caption-list slice reads on its own), the same readers as locally.
 *
 * Reads are pinned to the object generation the run planned: an object replaced by another upload
 * under the same name is never read in its place (the shard fails with InputChangedError). A new
 * generation with the same bytes (same size and checksums: a re-upload of the same file) is read,
 * also when it replaces the generation a shard is reading: a shard reads its object more than once
 * (the decoder and the layout scan beside it, the block decoder again after damage, a window at a
 * time), and a read of the generation found first then finds it gone (404). The generation is looked
 * up again and the read goes on from the byte it had reached; only other bytes, or no object, under
 * the name are a changed input.
 *
 * A ranged read carries no checksum, so its length is checked instead: a body that ends before the
 * bytes asked for (a connection cut, a server's hiccup) is an I/O error the task is retried for,
 * never bytes handed on as if they were the input's (a decoder would take them for a truncated dump).
 */
import type { Bucket } from "@google-cloud/storage";
import type { ByteSource } from "../io/byte-source.ts";
import type { ObjectVersion } from "./plan-run.ts";
import { withoutSharedAgent } from "../io/gcs-client.ts";

/** The object a run planned was replaced (or deleted) by a different upload under the same name. */
export class InputChangedError extends Error {
  override readonly name = "InputChangedError";
}

/** A read ended before the bytes it asked for: an I/O failure (retried), not damaged input. */
export class ShortReadError extends Error {
  override readonly name = "ShortReadError";
}

/** Times a read looks up its generation again after finding it gone before it gives up (retried). */
const MAX_REPLACED = 5;

export function bucketBytes(bucket: Bucket, name: string, pinned?: ObjectVersion): ByteSource {
  const uri = `gs://${bucket.name}/${name}`;
  // the generation reads go to: the planned one, or the newest one holding its bytes (looked up
  // again, for every read after, when a read finds it gone)
  let generation: Promise<string | undefined> | null = null;
  const resolve = () => (generation ??= pinned ? readableGeneration(bucket, name, pinned) : Promise.resolve(undefined));
  return {
    label: uri,
    ...(pinned ? { size: pinned.size } : {}),
    async *read(start = 0, end) {
      if (end !== undefined && end <= start) return;
      // where a pinned read must end: the object's size is the planned one (same bytes)
      const expectedEnd = pinned ? Math.min(end ?? pinned.size, pinned.size) : undefined;
      let pos = start;
      for (let replaced = 0; ; ) {
        const current = resolve();
        const gen = await current;
        // Reads are stopped early (a consumer's return(), a layout scan cancelled, a sniff, damage)
        // and fail: neither may tear down connections other reads share (shared/io/gcs-client.ts).
        const file = withoutSharedAgent(gen ? bucket.file(name, { generation: gen }) : bucket.file(name));
        const ranged = pos > 0 || end !== undefined;
        // createReadStream's `end` is inclusive; ours is exclusive.
        const stream = file.createReadStream({
          ...(pos > 0 ? { start: pos } : {}),
          ...(end !== undefined ? { end: end - 1 } : {}),
          // Ranged reads cannot be validated against the whole object's checksum.
          validation: ranged ? false : "crc32c",
        });
        try {
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            pos += chunk.length;
            yield chunk;
          }
        } catch (e) {
          const code = (e as { code?: number }).code;
          if (gen === undefined || (code !== 404 && code !== 412)) throw e;
          // The generation is gone: look again (InputChangedError unless the same bytes are there now).
          if (generation === current) generation = null;
          const now = await resolve();
          // (still the object's generation: a failure of the read, not of the input; the task is retried)
          if (now === gen) throw new Error(`${uri}: a read of generation ${gen} failed (${code}) though it is the object's current one`, { cause: e });
          if (++replaced > MAX_REPLACED) throw new Error(`${uri}: replaced ${replaced} times during one read by uploads of the same bytes`, { cause: e });
          continue;
        }
        if (expectedEnd !== undefined && pos < expectedEnd) {
          throw new ShortReadError(`${uri}: the read of bytes ${start}..${expectedEnd} ended at byte ${pos} (${expectedEnd - pos} bytes short)`);
        }
        return;
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

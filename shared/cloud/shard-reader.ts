/**
 * Reads one shard of a dump stored in Cloud Storage: a ranged object read (a multistream byte
 * range decodes on its own), then the same decompression and page reader as the local runner.
 */
import type { Bucket } from "@google-cloud/storage";
import type { ParacapConfig } from "../core/config.ts";
import type { Counters } from "../core/counters.ts";
import type { PageRevision } from "../core/records.ts";
import { decompressStream } from "../dump/open-dump.ts";
import { readPages } from "../dump/page-reader.ts";
import type { ShardSpec } from "../tasks/manifest.ts";

export function readShardFromBucket(bucket: Bucket, shard: ShardSpec, config: ParacapConfig, counters: Counters): AsyncGenerator<PageRevision> {
  const ranged = shard.start !== null || shard.end !== null;
  const label = ranged ? `gs://${bucket.name}/${shard.uri}[${shard.start ?? 0}..${shard.end ?? "end"}]` : `gs://${bucket.name}/${shard.uri}`;
  // createReadStream's `end` is inclusive; the shard's is exclusive.
  const open = () =>
    bucket.file(shard.uri).createReadStream({
      ...(shard.start !== null ? { start: shard.start } : {}),
      ...(shard.end !== null ? { end: shard.end - 1 } : {}),
      // Ranged reads cannot be validated against the whole object's checksum.
      validation: ranged ? false : "crc32c",
    });
  return readPages(decompressStream(open(), { decoder: config.dump.decoder, file: label, reopen: open }), {
    fragment: shard.fragment,
    partial: shard.end !== null,
    namespaces: config.dump.namespaces,
    skipRedirects: config.dump.skipRedirects,
    counters,
    file: label,
  });
}

/**
 * An input object in Cloud Storage as a byte source: ranged object reads (a multistream byte range
 * or a TSV slice decodes on its own), read by the same input sources as the local runner.
 */
import type { Bucket } from "@google-cloud/storage";
import type { ByteSource } from "../sources/source.ts";

export function bucketBytes(bucket: Bucket, name: string): ByteSource {
  return {
    label: `gs://${bucket.name}/${name}`,
    read(start = 0, end) {
      if (end !== undefined && end <= start) return (async function* () {})();
      const ranged = start > 0 || end !== undefined;
      // createReadStream's `end` is inclusive; ours is exclusive.
      return bucket.file(name).createReadStream({
        ...(start > 0 ? { start } : {}),
        ...(end !== undefined ? { end: end - 1 } : {}),
        // Ranged reads cannot be validated against the whole object's checksum.
        validation: ranged ? false : "crc32c",
      });
    },
  };
}

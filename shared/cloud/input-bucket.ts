/** The input bucket as the planner sees it. */
import type { Bucket } from "@google-cloud/storage";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withoutSharedAgent } from "../io/gcs-client.ts";
import type { InputBucket } from "./plan-run.ts";

export function gcsInputBucket(bucket: Bucket): InputBucket {
  // a download that fails must not cut other requests' connections (shared/io/gcs-client.ts)
  const file = (name: string) => withoutSharedAgent(bucket.file(name));
  return {
    async stat(name) {
      let meta;
      try {
        [meta] = await file(name).getMetadata();
      } catch (e) {
        if ((e as { code?: number }).code === 404) return null;
        throw e;
      }
      return {
        size: Number(meta.size),
        generation: String(meta.generation),
        ...(meta.md5Hash ? { md5Hash: meta.md5Hash } : {}),
        ...(meta.crc32c ? { crc32c: meta.crc32c } : {}),
      };
    },
    async readRange(name, start, end) {
      if (end <= start) return Buffer.alloc(0);
      // GCS ranges are inclusive of their last byte
      const [buf] = await file(name).download({ start, end: end - 1 });
      return buf;
    },
    async readText(name) {
      const [buf] = await file(name).download();
      return buf.toString("utf8");
    },
    async withLocalCopy(name, use) {
      // Companions are small (a multistream index is ≈ 1 % of the dump): download, then read as a local file.
      const dir = await mkdtemp(join(tmpdir(), "paracap-companion-"));
      const path = join(dir, name.split("/").pop()!);
      try {
        await file(name).download({ destination: path });
        return await use(path);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

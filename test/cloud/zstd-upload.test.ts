/**
 * zstd inputs in the cloud runner, whose functions have no zstd program: a `.xml.zst` dump and a
 * `.warc.zst` crawl uploaded to the input bucket are planned as inputs and their shards read from the
 * bucket, decoded in-process (fzstd), to what the same inputs give locally. The storage emulator is
 * the project's own (scripts/emulators/gcs-server.ts); the PATH holds no program while shards are read.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Storage, type Bucket } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { ParacapConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { gcsInputBucket } from "../../shared/cloud/input-bucket.ts";
import { StorageObjectEvent } from "../../shared/cloud/messages.ts";
import { planRun } from "../../shared/cloud/plan-run.ts";
import { bucketBytes } from "../../shared/cloud/shard-reader.ts";
import { sniffDump } from "../../shared/cloud/upload-kind.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import type { ByteSource } from "../../shared/io/byte-source.ts";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { SAMPLE_CURRENT } from "./helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

const PYWB = new URL("../../../shared/data/warc/pywb-iana.warc.gz", import.meta.url).pathname;
const config = ParacapConfig.parse({});
let gcs: GcsServer;
let bucket: Bucket;

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["input"] });
  bucket = new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input");
});

afterAll(async () => {
  await gcs?.close();
  removeTempDirs();
});

/** What a shard's source reads: one line per document (its page and revision ids). */
async function documents(shard: ShardSpec, bytes: ByteSource): Promise<string[]> {
  const source = BUILTIN_SOURCES.get(shard.source)!;
  const out: string[] = [];
  const extract = source.createExtractor(config, new Counters(), source.prepare ? await source.prepare(config) : undefined);
  for await (const doc of source.documents(shard, bytes, config, new Counters())) {
    const d = extract(doc);
    out.push(`${d.page} ${d.revisionId} ${d.refs?.length ?? d.skipped}`);
  }
  return out;
}

describe("zstd uploads in the cloud runner", () => {
  it("a .xml.zst dump and a .warc.zst crawl are planned, and their shards read from the bucket without a zstd program", async () => {
    const xml = execFileSync("bzip2", ["-dc", SAMPLE_CURRENT], { maxBuffer: 1 << 28 });
    const warc = execFileSync("gzip", ["-dc", PYWB], { maxBuffer: 1 << 28 });
    for (const [name, plain] of [["dumps/enwiki-sample.xml.zst", xml], ["crawls/iana.warc.zst", warc]] as const) {
      const packed = execFileSync("zstd", ["-q", "-c"], { input: plain, maxBuffer: 1 << 28 });
      await bucket.file(name).save(packed, { resumable: false });
      const [meta] = await bucket.file(name).getMetadata();
      const planned = await planRun(StorageObjectEvent.parse(meta), { partitions: 4 }, gcsInputBucket(bucket), 300_000);
      if ("ignored" in planned) throw new Error(`${name} ignored: ${planned.ignored}`);
      expect(planned.manifest.shards, name).toHaveLength(1);
      const shard = planned.manifest.shards[0]!;
      // the same bytes as a local file, read by the program
      const local = join(tempDir(), name.replace(/\//g, "_"));
      writeFileSync(local, packed);
      const expected = await documents({ ...shard, uri: local }, fileBytes(local));
      expect(expected.length, name).toBeGreaterThan(5);
      const saved = process.env.PATH;
      process.env.PATH = "";
      try {
        expect(await documents(shard, bucketBytes(bucket, name)), name).toEqual(expected);
      } finally {
        process.env.PATH = saved;
      }
    }
  });

  it("`paracap cloud upload` checks a .zst dump's first bytes as it does a .bz2's", async () => {
    const dir = tempDir();
    const good = join(dir, "good.xml.zst");
    const bad = join(dir, "bad.xml.zst");
    writeFileSync(good, execFileSync("zstd", ["-q", "-c"], { input: readFileSync(SAMPLE_CURRENT).subarray(0, 1000) }));
    writeFileSync(bad, readFileSync(SAMPLE_CURRENT).subarray(0, 1000));
    expect(await sniffDump(good)).toBeNull();
    expect(await sniffDump(bad)).toBe("is not zstd data (no 28 b5 2f fd header)");
  });
});

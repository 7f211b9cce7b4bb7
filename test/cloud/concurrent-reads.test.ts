/**
 * Reads of the storage emulator stopped early or failing leave every concurrent read of the process
 * whole. @google-cloud/storage destroys the agent of a read that ends in an error (a stop is one:
 * premature close); its default agent is one keep-alive agent for the whole process, so without
 * shared/io/gcs-client.ts the reads in flight beside it were cut or hung for good.
 *
 * The concurrent reads hold after their first chunk until the stops and failures are over, so they
 * are mid-body then however fast the machine is. The test has its own bound: without the fix the
 * reads hang.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, openSync, readdirSync, readFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Storage, type Bucket } from "@google-cloud/storage";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { gcsInputBucket } from "../../shared/cloud/input-bucket.ts";
import type { ObjectVersion } from "../../shared/cloud/plan-run.ts";
import { bucketBytes } from "../../shared/cloud/shard-reader.ts";
import { decompressStream } from "../../shared/dump/open-dump.ts";
import { writeMultistream } from "../../shared/dump/multistream.ts";
import { SAMPLE_CURRENT, SAMPLE_HISTORY } from "./helpers.ts";

const DUMP = "enwiki-sample.xml.bz2";
const MS = "enwiki-sample-multistream.xml.bz2";
const CORRUPT = "enwiki-history-corrupt.xml.bz2";
const CONCURRENT = 8;

let gcs: GcsServer;
let bucket: Bucket;
const bytes = new Map<string, Buffer>();
const pinned = new Map<string, ObjectVersion>();

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["input"] });
  // a plain client, as the tests' own: the reads themselves must not use the shared agent
  bucket = new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input");
  const dir = mkdtempSync(join(tmpdir(), "paracap-concurrent-"));
  await writeMultistream(SAMPLE_CURRENT, join(dir, MS), { pagesPerStream: 20 });
  bytes.set(DUMP, readFileSync(SAMPLE_CURRENT));
  bytes.set(MS, readFileSync(join(dir, MS)));
  bytes.set(CORRUPT, readFileSync(SAMPLE_HISTORY));
  const input = gcsInputBucket(bucket);
  for (const [name, data] of bytes) {
    await bucket.file(name).save(data, { resumable: false });
    pinned.set(name, (await input.stat(name))!);
  }
  // Damage the stored bytes of CORRUPT (same length): the emulator serves them with the checksums of
  // the upload, so a whole-object read fails its crc32c check at the end of the body.
  const gen = pinned.get(CORRUPT)!.generation;
  const blob = readdirSync(join(gcs.dir, "blobs")).find((f) => f.startsWith(`${gen}-`) && !f.endsWith(".json"));
  const fd = openSync(join(gcs.dir, "blobs", blob!), "r+");
  writeSync(fd, Buffer.from("XXXX"), 0, 4, Math.floor(bytes.get(CORRUPT)!.length / 2));
  closeSync(fd);
});

afterAll(async () => {
  await gcs?.close();
});

async function hashOf(chunks: AsyncIterable<Buffer>): Promise<string> {
  const h = createHash("sha256");
  for await (const c of chunks) h.update(c);
  return h.digest("hex");
}

it(
  "a read stopped early or failing cuts no concurrent read of the process",
  async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const started: Promise<void>[] = [];
    const names = Array.from({ length: CONCURRENT }, (_, i) => (i % 2 ? MS : DUMP));
    const reads = names.map((name) => {
      let first!: () => void;
      started.push(new Promise<void>((r) => (first = r)));
      return (async () => {
        const h = createHash("sha256");
        let n = 0;
        for await (const c of bucketBytes(bucket, name, pinned.get(name)).read()) {
          h.update(c);
          if (n++ === 0) {
            first();
            await gate;
          }
        }
        return h.digest("hex");
      })().catch((e: unknown) => `failed: ${String(e)}`);
    });
    await Promise.all(started);

    // Stopped early by their consumers: a whole-object read, a ranged one, and a decode after its
    // first bytes (format sniff, bz2 decoders and layout scan; their reads may be whole by then on
    // objects this small: each of the others, alone, cuts the concurrent reads without the fix).
    for await (const _ of bucketBytes(bucket, DUMP, pinned.get(DUMP)).read()) break;
    for await (const _ of bucketBytes(bucket, MS, pinned.get(MS)).read(1000, 900_000)) break;
    const ms = bucketBytes(bucket, MS, pinned.get(MS));
    for await (const _ of decompressStream(ms.read(), { file: ms.label, reopen: () => ms.read() })) break;
    // Failing: a whole-object read and a download whose bytes do not match the object's checksum.
    await expect(hashOf(bucketBytes(bucket, CORRUPT, pinned.get(CORRUPT)).read())).rejects.toMatchObject({ code: "CONTENT_DOWNLOAD_MISMATCH" });
    await expect(gcsInputBucket(bucket).readText(CORRUPT)).rejects.toMatchObject({ code: "CONTENT_DOWNLOAD_MISMATCH" });

    release();
    expect(await Promise.all(reads)).toEqual(names.map((name) => sha(bytes.get(name)!)));
    // and the reads after them
    expect(await hashOf(bucketBytes(bucket, DUMP, pinned.get(DUMP)).read())).toBe(sha(bytes.get(DUMP)!));
  },
  // only catches the hang the fix removes (no test here depends on speed)
  120_000,
);

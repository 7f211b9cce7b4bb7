/**
 * "Last one triggers the next phase" against the Cloud Storage emulator: exactly one finisher
 * publishes, whatever the interleaving, and a redelivery of the winner publishes again (it may have
 * crashed before publishing) while a loser's redelivery does not. Plus the GcsStore operations it
 * rests on.
 */
import { randomBytes } from "node:crypto";
import { Storage, type Bucket } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { fanIn } from "../../shared/cloud/fan-in.ts";
import { GzipDatasets } from "../../shared/cloud/gzip-output.ts";
import { GcsStore } from "../../shared/io/gcs-store.ts";
import { gunzipSync } from "node:zlib";

let gcs: GcsServer;
let bucket: Bucket;
let run = 0;

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["work"] });
  bucket = new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("work");
});

afterAll(async () => {
  await gcs?.close();
});

/** A fresh run prefix, N tasks, and a finisher that writes its marker then fans in. */
function phase(tasks: number) {
  const store = new GcsStore(bucket, `runs/r${++run}/`);
  const published: string[] = [];
  const finish = async (task: number, messageId: string) => {
    await store.writeText(`extract/t${task}/_DONE.json`, `{"task":${task}}`);
    return fanIn(store, {
      markerPrefix: "extract/",
      markerSuffix: "/_DONE.json",
      expected: tasks,
      trigger: "extract/_TRIGGERED",
      messageId,
      publishNext: async () => {
        published.push(messageId);
      },
    });
  };
  return { store, published, finish };
}

describe("fanIn", () => {
  it("nothing happens until every marker exists", async () => {
    const { store, published, finish } = phase(3);
    expect(await finish(0, "m0")).toBe(false);
    expect(await finish(1, "m1")).toBe(false);
    expect(published).toEqual([]);
    expect(await store.exists("extract/_TRIGGERED")).toBe(false);
    expect(await finish(2, "m2")).toBe(true);
    expect(published).toEqual(["m2"]);
    expect(await store.readText("extract/_TRIGGERED")).toBe("m2");
  });

  it("12 tasks finishing at once: exactly one publishes", async () => {
    const { store, published, finish } = phase(12);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => finish(i, `m${i}`)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(published).toHaveLength(1);
    expect(await store.readText("extract/_TRIGGERED")).toBe(published[0]);
  });

  it("redeliveries: the winner's publishes again, a loser's does not, a duplicate publish never wins", async () => {
    const { published, finish } = phase(2);
    await finish(0, "m0");
    await finish(1, "m1");
    expect(published).toEqual(["m1"]);
    expect(await finish(0, "m0")).toBe(false);
    expect(await finish(1, "m1")).toBe(true);
    expect(await finish(1, "another publish of task 1")).toBe(false);
    expect(published).toEqual(["m1", "m1"]);
  });

  it("every message delivered twice at once: only the winning message id publishes", async () => {
    const { published, finish } = phase(8);
    await Promise.all(Array.from({ length: 16 }, (_, i) => finish(i % 8, `m${i % 8}`)));
    expect(published.length).toBeGreaterThanOrEqual(1);
    expect(published.length).toBeLessThanOrEqual(2);
    expect(new Set(published).size).toBe(1);
  });
});

describe("GcsStore", () => {
  it("createIfAbsent: one winner among 20 concurrent callers", async () => {
    const store = new GcsStore(bucket, "once/");
    const wins = await Promise.all(Array.from({ length: 20 }, (_, i) => store.createIfAbsent("x", `caller ${i}`)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await store.readText("x")).toBe(`caller ${wins.indexOf(true)}`);
  });

  it("writer: small objects in one request, large ones resumable; invisible until closed", async () => {
    const store = new GcsStore(bucket, "w/");
    const big = randomBytes(9 * 1024 * 1024);
    const w = store.writer("big.bin");
    for (let i = 0; i < big.length; i += 1 << 20) await w.write(big.subarray(i, i + (1 << 20)));
    expect(await store.exists("big.bin")).toBe(false);
    await w.close();
    const [got] = await bucket.file("w/big.bin").download();
    expect(got.equals(big)).toBe(true);
    const small = store.writer("small.txt");
    await small.write("a\n");
    await small.write(Buffer.from("b\n"));
    await small.close();
    expect(await store.readText("small.txt")).toBe("a\nb\n");
    const aborted = store.writer("aborted.txt");
    await aborted.write("x");
    await aborted.abort();
    expect(await store.exists("aborted.txt")).toBe(false);
    expect(await store.list("")).toEqual(["big.bin", "small.txt"]);
    expect(await store.readText("missing")).toBeNull();
    expect(await store.readStream("missing")).toBeNull();
    expect(await store.timeCreated("missing")).toBeNull();
    expect((await store.timeCreated("small.txt"))!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    await store.delete("small.txt");
    await store.delete("small.txt");
    expect(await store.list("")).toEqual(["big.bin"]);
  });

  it("GzipDatasets: the named datasets are stored as deterministic gzip, the rest as is", async () => {
    const out = new GzipDatasets(new GcsStore(bucket, "gz/"), new Set(["gold.jsonl"]));
    const lines = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ id: i, text: `caption number ${i}` }) + "\n").join("");
    const write = async (prefix: string, chunk: number) => {
      const store = new GzipDatasets(new GcsStore(bucket, prefix), new Set(["gold.jsonl"]));
      const w = store.writer("gold.jsonl");
      for (let i = 0; i < lines.length; i += chunk) await w.write(lines.slice(i, i + chunk));
      await w.close();
      return (await bucket.file(`${prefix}gold.jsonl.gz`).download())[0];
    };
    const a = await write("gz/", 1000);
    const b = await write("gz2/", 77_777);
    expect(gunzipSync(a).toString()).toBe(lines);
    expect(a.equals(b)).toBe(true);
    const w = out.writer("stats.json");
    await w.write("{}");
    await w.close();
    expect(await out.list("")).toEqual(["gold.jsonl.gz", "stats.json"]);
  });
});

/**
 * planRun against the Cloud Storage emulator with real dumps: the finalize event of each upload is
 * the object resource the emulator (and Cloud Storage) sends, read back with getMetadata.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Storage, type Bucket } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { resolveConfig, type ParacapConfig } from "../../shared/core/config.ts";
import { gcsRunStores, planStage, type CloudDeps } from "../../shared/cloud/cloud-stages.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import { RunManifest } from "../../shared/tasks/manifest.ts";
import { Counters } from "../../shared/core/counters.ts";
import { gcsInputBucket } from "../../shared/cloud/input-bucket.ts";
import { PART_OF_MANIFEST, StorageObjectEvent } from "../../shared/cloud/messages.ts";
import { PlanError, planRun, runId, type PlanResult } from "../../shared/cloud/plan-run.ts";
import { bucketBytes, InputChangedError, ShortReadError } from "../../shared/cloud/shard-reader.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { windowedRead } from "../../shared/io/byte-source.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { mediawikiSource } from "../../shared/sources/mediawiki/mediawiki-source.ts";
import { captionTsvSource } from "../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { csvScanBytes } from "../../shared/sources/caption-tsv/csv-records.ts";
import { parquetWriteBuffer } from "hyparquet-writer";
import { writeMultistream } from "../../shared/dump/multistream.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { planLocalShards } from "../../shared/runner/local-shards.ts";
import { SAMPLE_CURRENT, SAMPLE_HISTORY } from "./helpers.ts";

const SHARD_BYTES = 300_000;
/** the deployment's config layer (planRun resolves an upload's config on it) and its resolved config */
const deployment = { partitions: 4 };
const base = resolveConfig(deployment);
let gcs: GcsServer;
let bucket: Bucket;
let dir: string;
const MS = "enwiki-20160113-pages-articles-multistream.xml.bz2";
const MS_INDEX = "enwiki-20160113-pages-articles-multistream-index.txt.bz2";

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["input", "work"] });
  bucket = new Storage({ apiEndpoint: gcs.url, projectId: "test" }).bucket("input");
  dir = mkdtempSync(join(tmpdir(), "paracap-plan-"));
  await writeMultistream(SAMPLE_CURRENT, join(dir, MS), { pagesPerStream: 20 });
});

afterAll(async () => {
  await gcs?.close();
});

async function put(name: string, data: string | Buffer, metadata?: Record<string, string>): Promise<StorageObjectEvent> {
  const file = bucket.file(name);
  await file.save(data, { resumable: false, ...(metadata ? { metadata: { metadata } } : {}) });
  return event(name);
}

async function event(name: string): Promise<StorageObjectEvent> {
  const [meta] = await bucket.file(name).getMetadata();
  return StorageObjectEvent.parse(meta);
}

const plan = (ev: StorageObjectEvent) => planRun(ev, deployment, gcsInputBucket(bucket), SHARD_BYTES);

function manifestOf(r: PlanResult): RunManifest {
  if ("ignored" in r) throw new Error(`ignored: ${r.ignored}`);
  return r.manifest;
}

const shape = (m: RunManifest) => m.shards.map(({ id, kind, start, end, fragment }) => ({ id, kind, start, end, fragment }));

describe("planRun", () => {
  it("a single-stream dump is one whole-object shard; the run id follows the upload's generation", async () => {
    const ev = await put("enwiki-sample.xml.bz2", readFileSync(SAMPLE_CURRENT));
    const m = manifestOf(await plan(ev));
    expect(shape(m)).toEqual([{ id: "s00000-enwiki-sample.xml.bz2", kind: "current", start: null, end: null, fragment: false }]);
    expect(m.runId).toBe(runId("enwiki-sample.xml.bz2", ev.generation));
    expect(m.runId).toMatch(/^enwiki-sample-[0-9a-f]{8}$/);
    // Current revisions only: bronze (history) is dropped from the plan, as the local runner skips it.
    expect(m.config).toEqual({ ...base, tiers: ["gold", "silver"] });
    // A redelivered event plans the same run; a new upload of the same name is a new run.
    expect(manifestOf(await plan(ev))).toEqual(m);
    const again = await put("enwiki-sample.xml.bz2", readFileSync(SAMPLE_CURRENT));
    const m2 = manifestOf(await plan(again));
    expect(m2.runId).not.toBe(m.runId);
    expect(m2.fingerprint).toBe(m.fingerprint);
  });

  it("a history dump is read as history", async () => {
    const ev = await put("enwiki-Anarchism-history-sample.xml.bz2", readFileSync(SAMPLE_HISTORY));
    expect(shape(manifestOf(await plan(ev)))).toEqual([{ id: "s00000-enwiki-Anarchism-history-sample.xml.bz2", kind: "history", start: null, end: null, fragment: false }]);
  });

  it("plain XML and gzip XML are one shard each", async () => {
    const xml = execFileSync("bzip2", ["-dc", SAMPLE_CURRENT], { maxBuffer: 1 << 28 });
    expect(shape(manifestOf(await plan(await put("dumps/plain.xml", xml))))).toEqual([{ id: "s00000-plain.xml", kind: "current", start: null, end: null, fragment: false }]);
    expect(manifestOf(await plan(await put("dumps/zipped.xml.gz", gzipSync(xml)))).shards).toHaveLength(1);
  });

  it("a multistream dump with its index → the local runner's byte-range shards (≥ 4), which read every page once", async () => {
    // The index first, as `paracap cloud upload` does: its event waits for the dump.
    const indexEvent = await put(MS_INDEX, readFileSync(join(dir, MS_INDEX)));
    expect(await plan(indexEvent)).toEqual({ ignored: expect.stringContaining("uploaded before enwiki-20160113-pages-articles-multistream.xml.bz2, which it belongs to") });
    const dumpEvent = await put(MS, readFileSync(join(dir, MS)));
    const m = manifestOf(await plan(dumpEvent));
    expect(m.shards.length).toBeGreaterThanOrEqual(4);
    expect(m.runId).toBe(runId(MS, dumpEvent.generation));
    const local = await planLocalShards([{ path: join(dir, MS), kind: "current" }], SHARD_BYTES);
    expect(shape(m)).toEqual(local.map(({ id, kind, start, end, fragment }) => ({ id, kind, start, end, fragment })));
    expect(m.shards[0]).toMatchObject({ start: 0, fragment: false });
    expect(m.shards.at(-1)).toMatchObject({ end: null, fragment: true });

    // The index's event, once the dump is there, plans the very same run (either event may come last).
    expect(manifestOf(await plan(await event(MS_INDEX)))).toEqual(m);

    // Ranged reads of the shards from the bucket together yield exactly the dump's pages.
    const cloudPages: number[] = [];
    for (const s of m.shards) for await (const p of mediawikiSource.documents(s, bucketBytes(bucket, s.uri), m.config, new Counters())) cloudPages.push(p.pageId);
    const localPages: number[] = [];
    for await (const p of readDumpPages(join(dir, MS), { namespaces: m.config.dump.namespaces, skipRedirects: m.config.dump.skipRedirects })) localPages.push(p.pageId);
    expect(cloudPages.length).toBeGreaterThan(50);
    expect(cloudPages).toEqual(localPages);
  });

  it("a multistream dump without its index waits for the index (plain-text index too)", async () => {
    const name = "other-multistream.xml.bz2";
    const ev = await put(name, readFileSync(join(dir, MS)));
    expect(await plan(ev)).toEqual({ ignored: expect.stringContaining("has no index yet") });
    const indexText = execFileSync("bzip2", ["-dc", join(dir, MS_INDEX)]);
    const m = manifestOf(await plan(await put("other-multistream-index.txt", indexText)));
    expect(m.runId).toBe(runId(name, ev.generation));
    expect(m.shards.length).toBeGreaterThanOrEqual(4);
  });

  it("a manifest makes one run of several dumps, splitting multistream ones; its parts' own events are ignored", async () => {
    const hold = { [PART_OF_MANIFEST]: "both.manifest.json" };
    expect(await plan(await put("parts/hist.xml.bz2", readFileSync(SAMPLE_HISTORY), hold))).toEqual({
      ignored: "parts/hist.xml.bz2 is part of both.manifest.json; that manifest's upload starts the run",
    });
    const manifest = {
      shards: [{ object: MS }, { object: "parts/hist.xml.bz2", kind: "history" }],
      config: { captions: { minWords: 3 }, partitions: 2 },
    };
    const ev = await put("both.manifest.json", JSON.stringify(manifest));
    const m = manifestOf(await plan(ev));
    expect(m.runId).toBe(runId("both.manifest.json", ev.generation));
    expect(m.runId).toMatch(/^both-[0-9a-f]{8}$/);
    expect(m.config.captions.minWords).toBe(3);
    expect(m.config.partitions).toBe(2);
    expect(m.config.tiers).toEqual(base.tiers);
    const ms = m.shards.filter((s) => s.uri === MS);
    expect(ms.length).toBeGreaterThanOrEqual(4);
    expect(m.shards.at(-1)).toEqual({ id: `s${String(ms.length).padStart(5, "0")}-hist.xml.bz2`, uri: "parts/hist.xml.bz2", source: "mediawiki", kind: "history", start: null, end: null, fragment: false });
    // Same numbering as the local runner given the same files in the same order.
    const local = await planLocalShards([{ path: join(dir, MS), kind: "current" }, { path: SAMPLE_HISTORY, kind: "history" }], SHARD_BYTES);
    expect(ms.map((s) => s.id)).toEqual(local.slice(0, ms.length).map((s) => s.id));
  });

  it("a manifest's object that no source names by its name is told by its first bytes, as `paracap run` tells a file", async () => {
    const list = readFileSync(join(import.meta.dirname, "../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv"));
    await put("lists/cc-captions.txt", list, { [PART_OF_MANIFEST]: "told.manifest.json" });
    await put("dumps/sample-pages.bz2", readFileSync(SAMPLE_CURRENT), { [PART_OF_MANIFEST]: "told.manifest.json" });
    const m = manifestOf(await plan(await put("told.manifest.json", JSON.stringify({ shards: [{ object: "lists/cc-captions.txt" }, { object: "dumps/sample-pages.bz2" }] }))));
    expect(m.shards.map((s) => [s.uri, s.source])).toEqual([
      ["lists/cc-captions.txt", "caption-tsv"],
      ["dumps/sample-pages.bz2", "mediawiki"],
    ]);
    // the same files as `paracap run` plans them locally
    const local = mkdtempSync(join(tmpdir(), "paracap-told-"));
    writeFileSync(join(local, "cc-captions.txt"), list);
    copyFileSync(SAMPLE_CURRENT, join(local, "sample-pages.bz2"));
    const { sourceOfInput } = await import("../../shared/runner/local-shards.ts");
    const { BUILTIN_SOURCES } = await import("../../shared/sources/registry.ts");
    expect(["cc-captions.txt", "sample-pages.bz2"].map((f) => sourceOfInput(join(local, f), BUILTIN_SOURCES).name)).toEqual(["caption-tsv", "mediawiki"]);
  });

  it("an upload's preset sets what the deployment left to the default preset, as a config file's preset does for `paracap run`", async () => {
    const manifest = JSON.stringify({ shards: [{ object: "preset/enwiki-sample.xml.bz2" }], config: { preset: "paper" } });
    await put("preset/enwiki-sample.xml.bz2", readFileSync(SAMPLE_CURRENT), { [PART_OF_MANIFEST]: "paper.manifest.json" });
    // the plan function as deployed: its config from the environment (cloud-stages.ts)
    const planned = async (name: string, vars: Record<string, string>): Promise<ParacapConfig> => {
      const env = readCloudEnv({ PARACAP_INPUT_BUCKET: "input", PARACAP_WORK_BUCKET: "work", PARACAP_OUTPUT_BUCKET: "work", ...vars });
      const work = bucket.storage.bucket("work");
      const deps: CloudDeps = { env, input: bucket, inputBucket: gcsInputBucket(bucket), ...gcsRunStores(work, work), publish: async () => {}, log: () => {} };
      const id = await planStage(await put(name, manifest), deps);
      return RunManifest.parse(JSON.parse((await work.file(`runs/${id}/manifest.json`).download())[0].toString())).config;
    };
    // what `paracap run --config` resolves from the same layers (its tiers cut to what a current dump feeds)
    const paper = await planned("paper.manifest.json", { PARACAP_PARTITIONS: "4" });
    expect(paper).toEqual({ ...resolveConfig({ preset: "paper" }, { partitions: 4, dump: { decoder: "auto" } }), tiers: ["gold", "silver"] });
    expect([paper.captions.classifier, paper.images.skipAudio, paper.extraction.unknownTemplates]).toEqual(["paper", false, "delete"]);
    // a setting the deployment makes itself stays, as the environment's does over a config file's preset
    const classifier = await planned("paper-improved.manifest.json", { PARACAP_CLASSIFIER: "improved" });
    expect([classifier.captions.classifier, classifier.images.skipAudio]).toEqual(["improved", false]);
  });

  it("a broken manifest is a PlanError (not retried forever)", async () => {
    await expect(plan(await put("bad.manifest.json", "{ not json"))).rejects.toThrow(PlanError);
    await expect(plan(await put("bad2.manifest.json", JSON.stringify({ shards: [] })))).rejects.toThrow(/not a valid paracap manifest/);
    await expect(plan(await put("bad3.manifest.json", JSON.stringify({ shards: [{ object: "nope.xml.bz2" }] })))).rejects.toThrow(/nope\.xml\.bz2 is not in the input bucket/);
    await expect(plan(await put("bad4.manifest.json", JSON.stringify({ shards: [{ object: MS }], config: { partitions: 0 } })))).rejects.toThrow(PlanError);
  });

  it("pins every input to the generation planned, with its size and checksums", async () => {
    const r = await plan(await put("pinned.xml.bz2", readFileSync(SAMPLE_CURRENT)));
    if ("ignored" in r) throw new Error(r.ignored);
    const [meta] = await bucket.file("pinned.xml.bz2").getMetadata();
    expect(r.inputs).toEqual({ "pinned.xml.bz2": { generation: String(meta.generation), size: Number(meta.size), md5Hash: meta.md5Hash, crc32c: meta.crc32c } });
    // An event whose object was replaced before planning cannot plan a run of bytes it never saw.
    const stale = await event("pinned.xml.bz2");
    await put("pinned.xml.bz2", readFileSync(SAMPLE_HISTORY));
    await expect(plan(stale)).rejects.toThrow(/replaced by a newer upload/);
  });

  it("a shard reads the generation planned: replaced by other bytes → InputChangedError; the same bytes re-uploaded → read", async () => {
    const name = "pin-multistream.xml.bz2";
    await put("pin-multistream-index.txt.bz2", readFileSync(join(dir, MS_INDEX)));
    const r = await plan(await put(name, readFileSync(join(dir, MS))));
    if ("ignored" in r) throw new Error(r.ignored);
    const shard = r.manifest.shards[1]!;
    const read = async () => {
      const ids: number[] = [];
      for await (const p of mediawikiSource.documents(shard, bucketBytes(bucket, shard.uri, r.inputs[name]), r.manifest.config, new Counters())) ids.push(p.pageId);
      return ids;
    };
    const planned = await read();
    expect(planned.length).toBeGreaterThan(0);
    await put(name, readFileSync(join(dir, MS)));
    expect(await read()).toEqual(planned);
    // Another dump under the same name: the old code read its bytes at the planned offsets.
    await put(name, readFileSync(SAMPLE_HISTORY));
    await expect(read()).rejects.toThrow(InputChangedError);
    await expect(read()).rejects.toThrow(/pin-multistream\.xml\.bz2 changed after the run was planned/);
    await bucket.file(name).delete();
    await expect(read()).rejects.toThrow(/it was deleted/);
  });

  it("a shard's reads after the same bytes were re-uploaded under its name read on from the new generation (the one read first is gone)", async () => {
    // A shard reads its object more than once (lbzip2's input and the layout scan beside it, the block
    // decoder again after damage, a window at a time), and another upload of the same file (another run
    // of it, as the cloud fault tests start two at once; a retried upload) may finalize between two of
    // those reads: the generation the first read found is then gone. A CI run saw that shard marked
    // corrupt ("changed after the run was planned ... its generation disappeared during the read").
    const name = "reread-multistream.xml.bz2";
    const dump = readFileSync(join(dir, MS));
    await put("reread-multistream-index.txt.bz2", readFileSync(join(dir, MS_INDEX)));
    const r = await plan(await put(name, dump));
    if ("ignored" in r) throw new Error(r.ignored);
    const shard = r.manifest.shards[1]!;
    const [start, end] = [shard.start!, shard.end!];
    // one byte source, as one extract task has: every read below follows a re-upload of the same bytes
    const bytes = bucketBytes(bucket, shard.uri, r.inputs[name]);
    const pages = async () => {
      const ids: number[] = [];
      for await (const p of mediawikiSource.documents(shard, bytes, r.manifest.config, new Counters())) ids.push(p.pageId);
      return ids;
    };
    const chunks = async (it: AsyncIterator<Buffer>, first: Buffer[] = []) => {
      for (let n = await it.next(); !n.done; n = await it.next()) first.push(n.value);
      return Buffer.concat(first);
    };
    const same = (got: Buffer, from: number, to?: number) => expect(got.equals(dump.subarray(from, to)), `bytes ${from}..${to ?? "end"}`).toBe(true);

    const planned = await pages();
    expect(planned.length).toBeGreaterThan(0);
    await put(name, dump);
    expect(await pages()).toEqual(planned);
    await put(name, dump);
    same(await chunks(bytes.read(start, end)[Symbol.asyncIterator]()), start, end);
    await put(name, dump);
    same(await chunks(bytes.read(start)[Symbol.asyncIterator]()), start);
    // a read under way when the re-upload lands (the emulator serves the generation it opened to its end)
    const reading = bytes.read(start, end)[Symbol.asyncIterator]();
    const first = await reading.next();
    await put(name, dump);
    same(await chunks(reading, [first.value as Buffer]), start, end);

    // Other bytes under the name are a changed input, whichever generation was read before.
    await put(name, readFileSync(SAMPLE_HISTORY));
    await expect(pages()).rejects.toThrow(InputChangedError);
    await expect(chunks(bytes.read(start, end)[Symbol.asyncIterator]())).rejects.toThrow(/reread-multistream\.xml\.bz2 changed after the run was planned .*another upload replaced it/);
  });

  it("a read that ends before the bytes the plan says are there is a ShortReadError (retried), never a shorter input", async () => {
    // Ranged reads carry no checksum. A body cut short but ended cleanly would otherwise be the input's
    // bytes: a truncated bz2 stream (a corrupt shard), or the end of a WARC or caption list read a
    // window at a time (its last pages silently lost). Here the plan says the object is longer than it is.
    const name = "short-read.xml.bz2";
    const r = await plan(await put(name, readFileSync(SAMPLE_CURRENT)));
    if ("ignored" in r) throw new Error(r.ignored);
    const pinned = r.inputs[name]!;
    const bytes = bucketBytes(bucket, name, { ...pinned, size: pinned.size + 100 });
    const drain = async (it: AsyncIterable<Buffer>) => {
      for await (const _ of it);
    };
    await expect(drain(bytes.read(1000))).rejects.toThrow(ShortReadError);
    await expect(drain(bytes.read(1000, pinned.size + 50))).rejects.toThrow(`short-read.xml.bz2: the read of bytes 1000..${pinned.size + 50} ended at byte ${pinned.size} (50 bytes short)`);
    await expect(drain(windowedRead((a, b) => bytes.read(a, b), 0, 256 << 10))).rejects.toThrow(ShortReadError);
    // through the reader: an I/O failure, which the cloud runner retries, not damaged input
    const shard = { ...r.manifest.shards[0]!, end: pinned.size + 100 };
    const err = await (async () => {
      for await (const _ of mediawikiSource.documents(shard, bytes, r.manifest.config, new Counters()));
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShortReadError);
    expect(err).not.toBeInstanceOf(DumpError);
    // the planned size itself reads whole, as does a read past the end (the window reads ask one byte more)
    const exact = bucketBytes(bucket, name, pinned);
    await drain(exact.read(1000));
    await drain(windowedRead((a, b) => exact.read(a, b), 0, 256 << 10));
  });

  it("tiers follow the inputs as in the local runner: history only → bronze only; a manifest of both keeps all", async () => {
    const hist = manifestOf(await plan(await put("only-history.xml.bz2", readFileSync(SAMPLE_HISTORY))));
    expect(hist.config.tiers).toEqual(["bronze"]);
    await expect(plan(await put("silver-of-history.manifest.json", JSON.stringify({ shards: [{ object: "only-history.xml.bz2" }], config: { tiers: ["silver"] } })))).rejects.toThrow(/no input feeds the requested tiers/);
  });

  it("an uploaded manifest may override only bounded method settings (allow-list, unknown keys named)", async () => {
    const reject = async (config: unknown, message: RegExp) => {
      const ev = await put("bounded.manifest.json", JSON.stringify({ shards: [{ object: MS }], config }));
      await expect(plan(ev)).rejects.toThrow(message);
    };
    await reject({ partitions: 4096 }, /partitions/);
    await reject({ dump: { decoder: "system" } }, /decoder/);
    await reject({ report: { samplesPerTier: 100000 } }, /samplesPerTier/);
    await reject({ captions: { minWord: 10 } }, /minWord/);
    await reject({ somethingElse: true }, /somethingElse/);
    const ok = manifestOf(await plan(await put("bounded.manifest.json", JSON.stringify({ shards: [{ object: MS }], config: { partitions: 8, captions: { minWords: 4 }, report: { samplesPerTier: 3 } } }))));
    expect(ok.config).toMatchObject({ partitions: 8, captions: { minWords: 4 }, report: { samplesPerTier: 3 } });
  });

  it("caption lists as uploaded: URL-first TSV and JSONL in byte ranges, parquet between row groups, CSV at record starts; each shard reads them from the bucket as locally", async () => {
    const cc = readFileSync(join(import.meta.dirname, "../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv"), "utf8").split("\n").filter(Boolean).map((l) => l.split("\t") as [string, string]);
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const lists: Record<string, string | Buffer> = {
      "cc12m.tsv": cc.map(([c, u]) => `${u}\t${c}\n`).join(""),
      "redcaps.jsonl": cc.map(([c, u]) => JSON.stringify({ url: u, caption: c }) + "\n").join(""),
      "hub.csv": "image_url,caption\n" + cc.map(([c, u]) => `${q(u)},${q(c)}\n`).join(""),
      "laion.parquet": Buffer.from(parquetWriteBuffer({ columnData: [{ name: "URL", data: cc.map(([, u]) => u), type: "STRING" }, { name: "TEXT", data: cc.map(([c]) => c), type: "STRING" }], rowGroupSize: 100 })),
    };
    const expected = cc.map(([c, u]) => `${u} ${c}`);
    for (const [name, data] of Object.entries(lists)) {
      const r = await planRun(await put(name, data), deployment, gcsInputBucket(bucket), 20_000);
      if ("ignored" in r) throw new Error(`${name} ignored: ${r.ignored}`);
      const m = r.manifest;
      expect(new Set(m.shards.map((s) => s.source)), name).toEqual(new Set(["caption-tsv"]));
      expect(m.shards.length, name).toBeGreaterThan(1);
      const got: string[] = [];
      for (const shard of m.shards) for await (const line of captionTsvSource.documents(shard, bucketBytes(bucket, shard.uri, r.inputs[name]), m.config, new Counters())) got.push(`${line.url} ${line.caption}`);
      expect(got, name).toEqual(expected);
    }
    // put in the bucket without `cloud upload`: the planner reads the head and refuses what a run would, in its words
    const paws = readFileSync(join(import.meta.dirname, "../../../shared/data/paraphrase/paws-wiki-labeled-final-dev.tsv"), "utf8").split("\n").slice(0, 50).join("\n");
    const refused = await planRun(await put("paws.tsv", paws), deployment, gcsInputBucket(bucket), 20_000).then(() => null, (e: Error) => e);
    expect(refused?.name).toBe("PlanError");
    expect(refused!.message).toMatch(/paws\.tsv: not a caption list paracap can read: its first line has 4 fields/);
    // a gzipped list is one shard, its columns told from its decompressed head
    const gz = await planRun(await put("cc12m.tsv.gz", gzipSync(lists["cc12m.tsv"]!)), deployment, gcsInputBucket(bucket), 20_000);
    if ("ignored" in gz) throw new Error(gz.ignored);
    expect(shape(gz.manifest).map(({ start, end }) => [start, end])).toEqual([[null, null]]);
    const lines: string[] = [];
    for (const shard of gz.manifest.shards) for await (const line of captionTsvSource.documents(shard, bucketBytes(bucket, shard.uri, gz.inputs["cc12m.tsv.gz"]), gz.manifest.config, new Counters())) lines.push(`${line.url} ${line.caption}`);
    expect(lines).toEqual(expected);
  });

  it("a parquet upload of several row groups (zstd, real captions) is planned from its footer, read by ranged reads, as the local runner plans it; each row read once", async () => {
    const local = join(import.meta.dirname, "../fixtures/data/conceptual-captions/gcc-validation-lines00001-00200.zstd.parquet");
    const name = "cc-zstd.parquet";
    const r = await planRun(await put(name, readFileSync(local)), base, gcsInputBucket(bucket), 8_000);
    if ("ignored" in r) throw new Error(r.ignored);
    const ranges = (await planLocalShards([{ path: local, kind: "current" }], 8_000)).map(({ start, end }) => [start, end]);
    expect(ranges).toHaveLength(2);
    expect(shape(r.manifest).map(({ start, end }) => [start, end])).toEqual(ranges);
    const read = async (shards: RunManifest["shards"], bytes: (uri: string) => Parameters<typeof captionTsvSource.documents>[1]) => {
      const counters = new Counters();
      const rows: string[] = [];
      for (const shard of shards) for await (const line of captionTsvSource.documents(shard, bytes(shard.uri), r.manifest.config, counters)) rows.push(`${line.offset} ${line.url} ${line.caption}`);
      return { rows, counters: counters.toJSON() };
    };
    // the planned size tells a shard where the footer is, without reading the object whole
    expect(bucketBytes(bucket, name, r.inputs[name]).size).toBe(readFileSync(local).length);
    const cloud = await read(r.manifest.shards, (uri) => bucketBytes(bucket, uri, r.inputs[name]));
    const whole = await read([{ ...r.manifest.shards[0]!, uri: local, start: null, end: null }], () => fileBytes(local));
    expect(cloud).toEqual(whole);
    expect(whole.counters).toEqual({ "tsv.lines": 200, "tsv.lines.emitted": 200 });
    // a footer the planner cannot read: refused in one line, as `paracap run` refuses it
    const cut = await planRun(await put("cut.parquet", readFileSync(local).subarray(0, 20_000)), base, gcsInputBucket(bucket), 8_000).then(() => null, (e: Error) => e);
    expect(cut?.name).toBe("PlanError");
    expect(cut!.message).toMatch(/^cut\.parquet: not a caption list paracap can read: not a parquet file, or cut short[^\n]*$/);
  });

  it("a CSV upload (real captions with quoted line breaks, doubled quotes, commas, quoted lines that look like records, a quote never closed) is cut where the local runner cuts it, read in bounded ranges; its shards read the file's records", async () => {
    const rows = readFileSync(join(import.meta.dirname, "../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv"), "utf8").split("\n").filter(Boolean).slice(0, 1200).map((l) => l.split("\t") as [string, string]);
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const body = rows.map(([caption, url], i) => {
      if (i % 9 === 1) return `${url},${q(`${caption}\n"http://x/y.jpg","a caption"`)}\n`;
      if (i % 9 === 4) return `${q(url)},${q(`${caption}, then\nhttp://x/y.jpg,a caption`)}\r\n`;
      if (i % 9 === 7) return `${url},the 5" ${caption.replace(/,/g, " ")}\n`;
      return `${url},${caption.includes(",") ? q(caption) : caption}\n`;
    });
    body.push(`${rows[0]![1]},"${rows[0]![0]} never closed\n${rows[1]![1]},${rows[1]![0].replace(/[",]/g, " ")}\n`);
    const data = "url,caption\n" + body.join("");
    const local = join(dir, "captions.csv");
    writeFileSync(local, data);
    const shardBytes = 40_000;
    const reads: Array<[number, number]> = [];
    const input = gcsInputBucket(bucket);
    const counted = { ...input, readRange: (n: string, start: number, end: number) => (reads.push([start, end]), input.readRange!(n, start, end)) };
    const r = await planRun(await put("captions.csv", data), base, counted, shardBytes);
    if ("ignored" in r) throw new Error(r.ignored);
    const ranges = (await planLocalShards([{ path: local, kind: "current" }], shardBytes)).map(({ start, end }) => [start, end]);
    expect(ranges.length).toBeGreaterThanOrEqual(3);
    expect(shape(r.manifest).map(({ start, end }) => [start, end])).toEqual(ranges);
    // the scan (after the head the layout is told from): the object once, in ranges of csvScanBytes past the record
    // the last one left unfinished (read again from its start)
    const [head, ...scan] = reads;
    const size = Buffer.byteLength(data);
    expect(head).toEqual([0, 64 * 1024]);
    expect(scan.length).toBeGreaterThan(2);
    expect(scan[0]![0]).toBe(0);
    expect(scan.at(-1)![1]).toBe(size);
    for (const [i, [start, end]] of scan.entries()) {
      expect(end - start).toBeLessThanOrEqual(csvScanBytes(shardBytes) + 1024);
      if (i > 0) expect([start <= scan[i - 1]![1], end > scan[i - 1]![1]]).toEqual([true, true]);
    }
    expect(scan.reduce((n, [start, end]) => n + end - start, 0)).toBeLessThan(size * 1.05);
    const read = async (shards: RunManifest["shards"], bytes: (uri: string) => Parameters<typeof captionTsvSource.documents>[1]) => {
      const counters = new Counters();
      const lines: string[] = [];
      for (const shard of shards) for await (const line of captionTsvSource.documents(shard, bytes(shard.uri), r.manifest.config, counters)) lines.push(`${line.offset} ${line.url} ${line.caption}`);
      return { lines, counters: counters.toJSON() };
    };
    const cloud = await read(r.manifest.shards, (uri) => bucketBytes(bucket, uri, r.inputs["captions.csv"]));
    const whole = await read([{ ...r.manifest.shards[0]!, uri: local, start: null, end: null }], () => fileBytes(local));
    expect(cloud).toEqual(whole);
    expect(whole.counters).toMatchObject({ "tsv.header": 1, "tsv.lines": 1202, "tsv.skipped.unterminated_quote": 1 });
  });

  it("a .json upload (a Karpathy split, COCO captions, JSON lines) is a caption list: one object one shard, read from the bucket; JSON that is none of them is refused in one line", async () => {
    const cc = readFileSync(join(import.meta.dirname, "../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv"), "utf8").split("\n").slice(0, 20).map((l) => l.split("\t")[0]!);
    const images = [0, 1, 2, 3].map((i) => ({ filename: `${1000092795 + i}.jpg`, imgid: i, split: "test", sentences: cc.slice(i * 5, i * 5 + 5).map((raw, j) => ({ tokens: raw.split(" "), raw, imgid: i, sentid: i * 5 + j })) }));
    const uploads: Record<string, string> = {
      "dataset_flickr8k.json": JSON.stringify({ images, dataset: "flickr8k" }),
      "captions_val2014.json": JSON.stringify({ images: images.map((im, i) => ({ id: i, file_name: im.filename })), annotations: cc.map((caption, n) => ({ image_id: Math.floor(n / 5), id: n, caption })) }, null, 1),
    };
    const expected = cc.map((c, n) => `${1000092795 + Math.floor(n / 5)}.jpg ${c}`);
    const input = gcsInputBucket(bucket);
    // (as planned by a bucket that reads ranges, and by one that cannot: the head unknown, still one shard)
    for (const view of [input, { ...input, readRange: undefined }]) {
      for (const [name, data] of Object.entries(uploads)) {
        const r = await planRun(await put(name, data), deployment, view, 500);
        if ("ignored" in r) throw new Error(`${name} ignored: ${r.ignored}`);
        expect(shape(r.manifest).map(({ start, end }) => [start, end]), name).toEqual([[null, null]]);
        expect(r.manifest.shards[0]!.source).toBe("caption-tsv");
        const got: string[] = [];
        for await (const line of captionTsvSource.documents(r.manifest.shards[0]!, bucketBytes(bucket, name, r.inputs[name]), r.manifest.config, new Counters())) got.push(`${line.url} ${line.caption}`);
        expect(got, name).toEqual(expected);
      }
    }
    // JSON lines named .json: byte ranges, as .jsonl
    const jsonl = cc.map((caption, n) => JSON.stringify({ image: `${1000092795 + Math.floor(n / 5)}.jpg`, caption }) + "\n").join("");
    const lines = await planRun(await put("lines.json", jsonl), deployment, input, 500);
    if ("ignored" in lines) throw new Error(lines.ignored);
    expect(lines.manifest.shards.length).toBeGreaterThan(1);
    const refused = await planRun(await put("settings.json", JSON.stringify({ partitions: 4, captions: { minWords: 3 } }, null, 2)), deployment, input, 500).then(() => null, (e: Error) => e);
    expect(refused?.name).toBe("PlanError");
    expect(refused!.message).toMatch(/^settings\.json: not a caption list paracap can read: it is neither JSON lines[^\n]*Karpathy split[^\n]*$/);
  });

  it("anything else is ignored, saying why", async () => {
    expect(await plan(await put("readme.txt", "hello"))).toEqual({ ignored: expect.stringContaining("readme.txt is none of the inputs the planner reads (web crawl paths lists (warc.paths.gz") });
  });
});

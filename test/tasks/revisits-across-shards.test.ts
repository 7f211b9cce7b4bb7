/**
 * WARC image revisits in a pixel run resolved across shards: a crawl cut into many shards gives the
 * datasets and pixel counts of the same crawl read as one shard. The small WARC is built here, record
 * by record as warcio writes them, around the real test photo (test/fixtures/data/images; captions
 * invented here); the large one is the real pywb capture of iana.org. The cloud runner, cutting the
 * crawls as small, publishes the local runner's outputs.
 */
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig, type ParacapConfigInput } from "../../shared/core/config.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { readMarker } from "../../shared/tasks/markers.ts";
import { startCloudFixture, type CloudFixture } from "../cloud/cloud-fixture.ts";
import { cloudCli } from "../cloud/in-process-cloud.ts";
import { comparable, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, skipMessage, waitForRun } from "../cloud/helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { DATA } from "../web/warc/warc-helpers.ts";
import { revisitCrawlRecords } from "../web/warc/revisit-crawl.ts";

afterAll(removeTempDirs);

/** The photo's capture, then revisits of it by record id, by payload digest, by URI and date, one without Content-Type, and one of a capture the crawl never stored. */
const crawl = (): Buffer => Buffer.concat(revisitCrawlRecords({ untyped: true }));

const TIERS = ["gold", "silver"] as const;
const IANA = { extraction: { templateImages: false } };
const IANA_SHARD_BYTES = 64 * 1024;

async function run(file: string, out: string, shardBytes: number | undefined, extra: ParacapConfigInput = {}) {
  const r = await runLocal({ inputs: [{ path: file, kind: "current" }], outDir: out, config: resolveConfig({ partitions: PARTITIONS, tiers: [...TIERS], pivot: "phash", ...extra }), workers: 1, progress: null, ...(shardBytes ? { shardBytes } : {}) });
  // the revisits the hash-index tasks resolved: those whose shard did not hold their original
  const work = new LocalStore(join(out, ".work"));
  let joined = 0;
  for (let q = 0; q < PARTITIONS; q++) joined += (await readMarker(work, `hash-index/p-${String(q).padStart(5, "0")}/_DONE.json`))?.counters["warc.image_revisits.resolved"] ?? 0;
  return { stats: r.stats, files: readDir(out), joined };
}

/** Bookkeeping of the cut, left out of the comparison: shards, and the bytes a shard starting inside a record scans past. */
const perShard = (k: string) => k === "extract.shards" || k === "warc.bytes.skipped" || k === "warc.image_revisits.across_shards";

function expectSameOutputs(one: Awaited<ReturnType<typeof run>>, many: Awaited<ReturnType<typeof run>>) {
  expect(many.stats.shards.total).toBeGreaterThan(3);
  expect(one.stats.shards.total).toBe(1);
  const counters = (s: typeof one.stats) => Object.fromEntries(Object.entries(s.counters).filter(([k]) => !perShard(k)));
  expect(counters(many.stats)).toEqual(counters(one.stats));
  expect(many.stats.tiers).toEqual(one.stats.tiers);
  for (const tier of ["gold.jsonl", "silver.jsonl"]) expect(many.files.get(tier)?.toString()).toBe(one.files.get(tier)?.toString());
}

describe("WARC image revisits across shards", () => {
  it("revisits of a capture read in another shard get its pixels: a crawl cut into many shards gives the one-shard run's pairs and counts", async () => {
    const dir = tempDir("paracap-revisit-shards-");
    writeFileSync(join(dir, "crawl.warc"), crawl());
    const one = await run(join(dir, "crawl.warc"), join(dir, "one"), undefined);
    const many = await run(join(dir, "crawl.warc"), join(dir, "many"), 2048);
    const c = many.stats.counters;
    expect(c["warc.image_revisits"]).toBe(5);
    expect(c["warc.image_revisits.resolved"]).toBe(4);
    expect(c["warc.image_revisits.unresolved"]).toBe(1);
    expect(c["pixel_identity.images"]).toBe(5);
    expect(c["pixel_identity.decoded"]).toBe(5);
    // one shard resolves all four itself; cut, the four revisits were each in another shard than the photo
    expect(one.joined).toBe(0);
    expect(many.joined).toBe(4);
    expectSameOutputs(one, many);
    // every revisit of the photo joined its pixels; the lost capture's use has none
    const row = many.stats.tiers.silver!.funnel.find((r) => r.id === "image_pixels_thesis_v1")!;
    expect(row.filter).toMatchObject({ in: 6, kept: 5, dropped: 1, reasons: { no_image: 1 } });
    const silver = many.files.get("silver.jsonl")!.toString();
    for (const i of [1, 2, 5]) expect(silver).toContain(`page-${i}.html`);
  });

  it("iana.org (pywb, 29 image revisits) cut into 64 KiB shards: the one-shard run's counts and datasets", async () => {
    const dir = tempDir("paracap-revisit-iana-");
    const one = await run(join(DATA, "pywb-iana.warc.gz"), join(dir, "one"), undefined, IANA);
    const many = await run(join(DATA, "pywb-iana.warc.gz"), join(dir, "many"), IANA_SHARD_BYTES, IANA);
    expect(many.stats.counters["warc.image_revisits.resolved"]).toBe(29);
    expect(one.joined).toBe(0);
    // 13 shards: the four image captures are in the first, every revisit in a later one
    expect(many.stats.shards.total).toBe(13);
    expect(many.joined).toBe(29);
    expectSameOutputs(one, many);
    // stats.json and report.md say how many came from another shard (none in one shard)
    expect(many.stats.counters["warc.image_revisits.across_shards"]).toBe(29);
    expect(one.stats.counters["warc.image_revisits.across_shards"]).toBeUndefined();
    expect(many.files.get("report.md")!.toString()).toContain("29 image revisits (a capture standing for an earlier one's bytes): 29 given their original's pixels (29 from another shard), 0 whose original the run did not read.");
    expect(one.files.get("report.md")!.toString()).toContain("29 given their original's pixels, 0 whose original");
  });
});

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("WARC image revisits across shards on the cloud runner", missing);

describe.skipIf(missing !== null)("WARC image revisits across shards, cloud runner on the emulators", () => {
  let fx: CloudFixture;
  beforeAll(async () => {
    fx = await startCloudFixture({ shardBytes: IANA_SHARD_BYTES });
  });
  afterAll(async () => {
    await fx?.stop();
  });

  it("the iana.org crawl uploaded and cut into 64 KiB shards: the local runner's outputs byte for byte, the one-shard run's pairs", async () => {
    const dir = tempDir("paracap-revisit-cloud-");
    copyFileSync(join(DATA, "pywb-iana.warc.gz"), join(dir, "pywb-iana.warc.gz"));
    const cwd = process.cwd();
    process.chdir(dir);
    let one, many;
    try {
      one = await run("pywb-iana.warc.gz", join(dir, "one"), undefined);
      many = await run("pywb-iana.warc.gz", join(dir, "many"), IANA_SHARD_BYTES);
    } finally {
      process.chdir(cwd);
    }
    // (an upload's config keeps the template images' rule: the logos are dropped, their revisits still resolved)
    writeFileSync(join(dir, "config.json"), JSON.stringify({ tiers: TIERS, pivot: "phash" }));
    const up = await cloudCli(["cloud", "upload", join(dir, "pywb-iana.warc.gz"), "--name", "iana", "--config", join(dir, "config.json")]);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(fx.storage, fx.cloud.buckets.output, runId);
    const cloud = comparable(await readObjects(fx.storage, fx.cloud.buckets.output, `${runId}/`), true, TIERS);
    expect(cloud).toEqual(comparable(many.files, false, TIERS));
    const stats = JSON.parse(cloud["stats.json"]!);
    expect(stats.shards.total).toBe(13);
    expect(stats.counters["warc.image_revisits.resolved"]).toBe(29);
    for (const t of TIERS) expect(cloud[`${t}.jsonl`]).toBe(one.files.get(`${t}.jsonl`)!.toString());
  });
});

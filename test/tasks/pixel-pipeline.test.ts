/**
 * Image identity from pixels in `paracap run`: img2dataset outputs built here from the real test
 * images (test/pixels/img2dataset-fixture.ts: the road photo as original, low-quality JPEG, watermark
 * and darkened copy under four different URLs, a different photo, a near-blank image, a failed
 * download; captions invented there) run through the pixel pipeline (extract with image facts →
 * hash-index → rekey → group → dedup → aggregate). The variants of the photo become one group, the
 * other images stay apart, pairs form only inside the group; a folder and a webdataset tar give the
 * same pairs; a rerun reads the pixel facts from the item cache; the cloud runner on the emulators
 * publishes the local runner's outputs byte for byte.
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startLocalCloud, type LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { createCloudDeps } from "../../functions/deps.ts";
import { registerFunctions } from "../../functions/handlers.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import type { CloudDeps } from "../../shared/cloud/cloud-stages.ts";
import { resolveConfig, type ParacapConfigInput } from "../../shared/core/config.ts";
import { ScoredPair, ShuffleRef } from "../../shared/core/records.ts";
import { readJsonl } from "../../shared/io/jsonl.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { BUILTIN_PIPELINE, PIXEL_PIPELINE, pipelineFor, pivotMismatch } from "../../shared/tasks/phases.ts";
import { ImageHashRecord } from "../../shared/tasks/pixel-extract-task.ts";
import { comparable, PARTITIONS, SAMPLE_CURRENT, pubsubEmulatorMissing, readDir, readObjects, skipMessage, waitForRun } from "../cloud/helpers.ts";
import { buildFilesLayout, buildTar, SAMPLES } from "../pixels/img2dataset-fixture.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { cloudCli } from "../cloud/in-process-cloud.ts";

afterAll(removeTempDirs);

const TIERS = ["gold", "silver"] as const;
const config = (extra: ParacapConfigInput = {}) => resolveConfig({ partitions: PARTITIONS, tiers: [...TIERS], ...extra });

/**
 * Runs from the input's folder, so its name (the pages' prefix) equals the uploaded object's. A run
 * into the default folder (named by input and config) is made once per file: several tests assert on
 * the same phash run of the tar (only the rerun test writes into its folder, a dhash run no other test reads).
 */
function localRun(dir: string, input: string, extra: ParacapConfigInput, out?: string): Promise<string> {
  if (out !== undefined) return runInto(dir, input, extra, out);
  const into = join(dir, `out-${input}-${JSON.stringify(extra).replace(/\W+/g, "")}`);
  let made = defaultRuns.get(into);
  if (made === undefined) defaultRuns.set(into, (made = runInto(dir, input, extra, into)));
  return made;
}
const defaultRuns = new Map<string, Promise<string>>();

/** The local runs of the built tar and folder (made once, in the first test that needs them). */
let fixture: Promise<string> | undefined;
function fixtureDir(): Promise<string> {
  return (fixture ??= (async () => {
    const dir = tempDir("paracap-pixel-run-");
    buildFilesLayout(join(dir, "folder"));
    await buildTar(join(dir, "shard.tar"));
    return dir;
  })());
}

async function runInto(dir: string, input: string, extra: ParacapConfigInput, out: string): Promise<string> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    await runLocal({ inputs: [{ path: input, kind: "current" }], outDir: out, config: config(extra), workers: 1, progress: null });
  } finally {
    process.chdir(cwd);
  }
  return out;
}

const pairsOf = (out: string, tier: string) =>
  (readDir(out).get(`${tier}.jsonl`)?.toString() ?? "").split("\n").filter(Boolean).map((l) => ScoredPair.parse(JSON.parse(l)));

/** The keys the rekey phase gave each sample (by its key: the page is `<input>:<key>`). */
async function identityKeys(out: string): Promise<Map<string, string>> {
  const work = new LocalStore(join(out, ".work"));
  const keys = new Map<string, string>();
  for (const name of await work.list("data/rekey/refs/")) for await (const r of readJsonl(work, name, ShuffleRef)) keys.set(String(r.pageId), r.image);
  return keys;
}

const PHOTO_KEYS = ["000000000", "000000001", "000000002", "000000003"];
const BALLOON = "000000004";
const WHITE = "000000006";

describe("pixel identity, local runner", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fixtureDir();
  });

  it("phash groups the photo's variants under one key, keeps the other images apart and pairs captions only inside the group", async () => {
    const out = await localRun(dir, "shard.tar", { pivot: "phash" });
    const keys = await identityKeys(out);
    // the failed download has no image: dropped before grouping, counted
    expect([...keys.keys()].sort()).toEqual([...PHOTO_KEYS, BALLOON, WHITE].sort());
    const photo = keys.get(PHOTO_KEYS[0]!)!;
    expect(photo).toMatch(/^phash:[0-9a-f]{16}$/);
    for (const k of PHOTO_KEYS) expect(keys.get(k), k).toBe(photo);
    expect(keys.get(BALLOON)).not.toBe(photo);
    expect(keys.get(WHITE)).not.toBe(photo);
    expect(keys.get(WHITE)).not.toBe(keys.get(BALLOON));

    const caption = new Map(SAMPLES.map((s) => [`shard.tar:${s.key}`, s.caption]));
    const silver = pairsOf(out, "silver");
    expect(silver.length).toBeGreaterThan(0);
    for (const p of silver) {
      expect(p.image).toBe(photo);
      expect(PHOTO_KEYS.map((k) => `shard.tar:${k}`)).toContain(p.a.page);
      expect(PHOTO_KEYS.map((k) => `shard.tar:${k}`)).toContain(p.b.page);
      expect([caption.get(p.a.page), caption.get(p.b.page)]).toEqual([p.a.text, p.b.text]);
    }
    // four captions of the one photo; "Trees line both sides of a country road." has no verb the heuristic finds
    expect(silver).toHaveLength(3);

    const stats = JSON.parse(readDir(out).get("stats.json")!.toString());
    expect(stats.counters["pixel_identity.images"]).toBe(6);
    expect(stats.counters["pixel_identity.decoded"]).toBe(6);
    expect(stats.counters["pixel_identity.index.groups"]).toBe(1);
    expect(stats.counters["pixel_identity.index.grouped_images"]).toBe(4);
    expect(stats.counters["pixel_identity.index.split_components"] ?? 0).toBe(0);
    const row = stats.tiers.silver.funnel.find((r: { id: string }) => r.id === "image_pixels_thesis_v1");
    expect(row.filter).toMatchObject({ in: 6, kept: 6, dropped: 0 });
    const report = readDir(out).get("report.md")!.toString();
    expect(report).toContain("- Identity: phash within 8 of 64 bits, no two members of a group more than 16 apart.");
    expect(report).toContain("groups: 1 (holding 4 images); 0 components split by the chaining guard");
  });

  it("a folder and a webdataset tar of the same samples give the same pairs; md5 and url identity find none (every URL and every pixel differ)", async () => {
    const strip = (out: string, prefix: string) => pairsOf(out, "silver").map((p) => ({ image: p.image, a: p.a.text, b: p.b.text, pages: [p.a.page.replace(prefix, ""), p.b.page.replace(prefix, "")] })).sort((x, y) => (x.pages.join() < y.pages.join() ? -1 : 1));
    const tar = strip(await localRun(dir, "shard.tar", { pivot: "phash" }), "shard.tar:");
    const folder = strip(await localRun(dir, "folder", { pivot: "phash" }), "folder:");
    expect(folder).toEqual(tar);
    expect(pairsOf(await localRun(dir, "shard.tar", { pivot: "md5" }), "silver")).toEqual([]);
    expect(pairsOf(await localRun(dir, "shard.tar", { pivot: "url" }), "silver")).toEqual([]);
  });

  it("the index's partitioned tasks find the groups one task finds: 1 and 4 partitions give the same pairs", async () => {
    const one = await runLocal({ inputs: [{ path: join(dir, "shard.tar"), kind: "current" }], outDir: join(dir, "p1"), config: config({ pivot: "ahash", partitions: 1 }), workers: 1, progress: null });
    expect(one.stats.counters["pixel_identity.index.groups"]).toBe(1);
    const four = await localRun(dir, "shard.tar", { pivot: "ahash" });
    for (const tier of TIERS) expect(readDir(join(dir, "p1")).get(`${tier}.jsonl`)!.toString(), tier).toBe(readDir(four).get(`${tier}.jsonl`)!.toString());
    expect(pairsOf(four, "gold").length).toBeGreaterThan(0);
  });

  it("each index task reads only the hashes written to its partition; 16 partitions give the one-partition outputs", async () => {
    const one = await localRun(dir, "shard.tar", { pivot: "phash", partitions: 1 });
    const sixteen = await localRun(dir, "shard.tar", { pivot: "phash", partitions: 16 });
    const oneOut = comparable(readDir(one), false, TIERS);
    for (const [name, text] of Object.entries(oneOut)) if (name.endsWith(".jsonl")) expect(comparable(readDir(sixteen), false, TIERS)[name], name).toBe(text);
    // the 5 images that take part have 5 distinct phash values; a task gets those its slices store or probe from
    const work = new LocalStore(join(sixteen, ".work"));
    const perTask: number[] = [];
    for (let q = 0; q < 16; q++) {
      let n = 0;
      for (const name of await work.list(`data/extract/image-hashes/q-${String(q).padStart(5, "0")}/`)) for await (const _ of readJsonl(work, name, ImageHashRecord)) n++;
      perTask.push(n);
    }
    expect(Math.max(...perTask)).toBe(5);
    expect(perTask.reduce((a, b) => a + b, 0)).toBeLessThan(16 * 5);
  });

  it("a rerun of the extract phase reads every image's facts from the item cache and writes the same bytes", async () => {
    const out = await localRun(dir, "shard.tar", { pivot: "dhash" });
    const before = comparable(readDir(out), false, TIERS);
    const marker = () => JSON.parse(readDir(join(out, ".work/extract/s00000-shard.tar")).get("_DONE.json")!.toString()).counters;
    expect(marker()["cache.pixel_facts_v2.computed"]).toBe(6);
    rmSync(join(out, ".work/extract"), { recursive: true });
    for (const f of ["_SUCCESS", "stats.json"]) rmSync(join(out, f));
    await localRun(dir, "shard.tar", { pivot: "dhash" }, out);
    expect(marker()["cache.pixel_facts_v2.hits"]).toBe(6);
    expect(marker()["cache.pixel_facts_v2.computed"]).toBeUndefined();
    expect(comparable(readDir(out), false, TIERS)).toEqual(before);
  });

  it("a tar cut inside its last sample: the samples before the cut keep their images and pairs (none lost with the decoding still under way)", async () => {
    const bytes = readFileSync(join(dir, "shard.tar"));
    writeFileSync(join(dir, "cut.tar"), bytes.subarray(0, bytes.indexOf(Buffer.from(`${WHITE}.`)) + 512 + 100));
    const whole = await localRun(dir, "shard.tar", { pivot: "phash" });
    const cut = await localRun(dir, "cut.tar", { pivot: "phash" });
    const keys = await identityKeys(cut);
    expect([...keys.keys()].sort()).toEqual([...PHOTO_KEYS, BALLOON]);
    const stats = JSON.parse(readDir(cut).get("stats.json")!.toString());
    expect(stats.shards.corrupt).toHaveLength(1);
    expect(stats.counters["pixel_identity.images"]).toBe(5);
    expect(stats.counters["pixel_identity.decoded"]).toBe(5);
    // the white page made no pair: the cut loses none of the photo's
    const pages = (out: string, prefix: string) => pairsOf(out, "silver").map((p) => [p.a.page.replace(prefix, ""), p.b.page.replace(prefix, ""), p.a.text, p.b.text].join(" | ")).sort();
    expect(pages(cut, "cut.tar:")).toEqual(pages(whole, "shard.tar:"));
    expect(pages(cut, "cut.tar:")).toHaveLength(3);
  });
});

describe("pixel identity on a crawl: WARC image responses join the pages that name them", () => {
  it("iana.org: 32 <img src> uses on 16 pages, 30 naming one of the 4 image responses by normalised URL, 2 on the https page naming revisits of them (all SVG: counted unsupported)", async () => {
    // Counted by hand from the WARC (gunzip, then each 200 text/html response's <img src> resolved
    // against its target URI, against the target URIs of the image/* responses): icann-logo.svg,
    // iana-logo-header.svg and rir-map.svg are used 15 + 14 + 1 times on http pages; the https
    // dnssec page's two uses resolve to https URLs the crawl stored only as revisit records;
    // iana-logo-homepage.png is fetched but named by no <img>. Image revisits (Content-Type image/*;
    // the .ico revisit says application/octet-stream): icann-logo.svg 14 + 1 (https),
    // iana-logo-header.svg 13 + 1 (https) = 29, each repeating the payload digest of the http
    // capture read before it, so all 29 resolve and the https page's two uses join their pixels.
    const dir = tempDir("paracap-pixel-warc-");
    // (every use, the page template's logos included: the hand count is of <img src>)
    const out = await localRun(new URL("../../../shared/data/warc/", import.meta.url).pathname, "pywb-iana.warc.gz", { pivot: "phash", extraction: { templateImages: false } }, join(dir, "out"));
    const stats = JSON.parse(readDir(out).get("stats.json")!.toString());
    const c = stats.counters as Record<string, number>;
    expect(c["warc.image_records"]).toBe(4);
    expect(c["warc.documents"]).toBe(16);
    expect(c["warc.image_revisits"]).toBe(29);
    expect(c["warc.image_revisits.resolved"]).toBe(29);
    expect(c["warc.image_revisits.unresolved"]).toBeUndefined();
    expect(c["pixel_identity.images"]).toBe(4 + 29);
    expect(c["pixel_identity.decoded"]).toBe(1);
    // the one decoded (iana-logo-homepage.png) has transparent pixels: outside the bounds, no hash indexed
    expect(c["pixel_identity.decoded_outside_bounds.has_transparency"]).toBe(1);
    expect(c["pixel_identity.index.hashes"] ?? 0).toBe(0);
    expect(c["pixel_identity.failed.unsupported"]).toBe(3 + 29);
    expect(c["extract.current.revisions.skipped.image_record"]).toBe(4 + 29);
    const row = stats.tiers.gold.funnel.find((r: { id: string }) => r.id === "image_pixels_thesis_v1");
    expect(row.filter.in).toBe(32);
    // every use joined an image (before revisits: 2 on the https page had none, no_image)
    expect(row.filter.reasons).toEqual({ unsupported: 32 });
  });
});

describe("which pipeline a pivot runs", () => {
  it("pixel pivots run the pixel pipeline, every other pivot the built-in one; a runner given the wrong one refuses", async () => {
    expect(pipelineFor({ pivot: "resource" })).toBe(BUILTIN_PIPELINE);
    expect(pipelineFor({ pivot: "url" })).toBe(BUILTIN_PIPELINE);
    for (const pivot of ["md5", "ahash", "dhash", "phash", "rahash", "rphash"] as const) expect(pipelineFor({ pivot })).toBe(PIXEL_PIPELINE);
    expect(PIXEL_PIPELINE.phases.map((p) => p.name)).toEqual(["extract", "hash-index", "rekey", "group", "dedup", "aggregate"]);
    expect(pivotMismatch(BUILTIN_PIPELINE, { pivot: "phash" })).toMatch(/needs the pixel pipeline/);
    expect(pivotMismatch(PIXEL_PIPELINE, { pivot: "resource" })).toMatch(/needs a pixel pivot/);
    const dir = tempDir("paracap-pixel-guard-");
    await buildTar(join(dir, "shard.tar"));
    await expect(runLocal({ inputs: [{ path: join(dir, "shard.tar"), kind: "current" }], outDir: join(dir, "out"), config: config({ pivot: "phash" }), pipeline: BUILTIN_PIPELINE, workers: 1, progress: null })).rejects.toThrow(/needs the pixel pipeline/);
  });
});

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("pixel identity on the cloud runner", missing);

/**
 * One deployment, as infra deploys it (every phase of the built-in and the pixel pipeline): each
 * upload runs the pipeline its config chooses, a Wikipedia dump and a pixel-pivot tar at once.
 */
describe.skipIf(missing !== null)("pixel identity, cloud runner on the emulators (the deployment that also serves Wikipedia)", () => {
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let deps: (CloudDeps & { close(): Promise<void> }) | null = null;

  beforeAll(async () => {
    emu = await startEmulators();
    registerFunctions(() => (deps ??= createCloudDeps(readCloudEnv(process.env))));
    cloud = await startLocalCloud({ emulators: emu, source: null, partitions: PARTITIONS });
    expect(Object.keys(cloud.topics)).toEqual(["extract", "hash-index", "rekey", "group", "dedup", "aggregate"]);
    storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
  });

  afterAll(async () => {
    await cloud?.stop();
    await deps?.close();
    await emu?.stop();
  });

  it("a Wikipedia dump and a pixel-pivot webdataset tar uploaded together each give the local runner's outputs byte for byte", async () => {
    // the local runner's phash run of the tar is the one the local tests asserted on
    const dir = await fixtureDir();
    copyFileSync(SAMPLE_CURRENT, join(dir, basename(SAMPLE_CURRENT)));
    // one after the other: each changes the process's cwd for its whole run (two at once raced: the
    // first to finish took the cwd back from under the second)
    const pixelOut = await localRun(dir, "shard.tar", { pivot: "phash" });
    const wikiOut = await localRun(dir, basename(SAMPLE_CURRENT), {});
    const [pixelExpected, wikiExpected] = [pixelOut, wikiOut].map((o) => comparable(readDir(o), false, TIERS));
    const upload = async (file: string, name: string, extra: ParacapConfigInput) => {
      const manifestConfig = join(dir, `${name}.config.json`);
      writeFileSync(manifestConfig, JSON.stringify({ tiers: TIERS, ...extra }));
      const up = await cloudCli(["cloud", "upload", join(dir, file), "--name", name, "--config", manifestConfig]);
      expect(up.code, up.stderr).toBe(0);
      return up.stdout.trim();
    };
    const [pixelRun, wikiRun] = await Promise.all([upload("shard.tar", "pixels", { pivot: "phash" }), upload(basename(SAMPLE_CURRENT), "wiki", {})]);
    await Promise.all([waitForRun(storage, cloud.buckets.output, pixelRun), waitForRun(storage, cloud.buckets.output, wikiRun)]);

    const pixels = comparable(await readObjects(storage, cloud.buckets.output, `${pixelRun}/`), true, TIERS);
    expect(pixels["stats.json"]).toBe(pixelExpected!["stats.json"]);
    expect(pixels).toEqual(pixelExpected);
    expect(JSON.parse(pixels["stats.json"]!).counters["pixel_identity.index.groups"]).toBe(1);

    const wiki = comparable(await readObjects(storage, cloud.buckets.output, `${wikiRun}/`), true, TIERS);
    expect(wiki["stats.json"]).toBe(wikiExpected!["stats.json"]);
    expect(wiki).toEqual(wikiExpected);
    expect(JSON.parse(wiki["stats.json"]!).tiers.gold.pairs).toBeGreaterThan(0);
    // each run went through its own pipeline's phases: the pixel run's index and rekey markers, none for Wikipedia
    const work = storage.bucket(cloud.buckets.work);
    const phasesOf = async (runId: string) => new Set((await work.getFiles({ prefix: `runs/${runId}/` }))[0].map((f) => f.name.split("/")[2] ?? "").filter((n) => n && !n.includes(".")));
    expect([...(await phasesOf(pixelRun))].filter((n) => ["hash-index", "rekey"].includes(n)).sort()).toEqual(["hash-index", "rekey"]);
    expect([...(await phasesOf(wikiRun))].filter((n) => ["hash-index", "rekey"].includes(n))).toEqual([]);
  });
});

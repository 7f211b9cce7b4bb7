/**
 * The source seam as a contributor meets it: a source defined here, in the test only (documents
 * named by URL, string ids, counters of its own), runs through the local runner's stages, filters
 * and funnel, and through the cloud runner on the emulators (planned from its upload by the same
 * registry), without any other file knowing it; its counters reach stats.json and report.md.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startLocalCloud, type LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { createCloudDeps } from "../../functions/deps.ts";
import { registerFunctions } from "../../functions/handlers.ts";
import { readCloudEnv } from "../../shared/cloud/env.ts";
import type { CloudDeps } from "../../shared/cloud/cloud-stages.ts";
import { runId as planRunId } from "../../shared/cloud/plan-run.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { cloudConfig, comparable, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, SHARD_BYTES, skipMessage, waitForRun } from "../cloud/helpers.ts";
import { sourceRegistry } from "../../shared/sources/registry.ts";
import type { DocumentRefs, Source } from "../../shared/sources/source.ts";
import { reconcile } from "../pipeline/reconcile.ts";
import { DATA, readPairs, readStats, removeTempDirs, run, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

interface ToyDoc { n: number; url: string; image: string; caption: string }

/** JSON lines `{"url": …, "image": …, "caption": …}`, read whole; documents are named by their URL (string ids). */
const jsonCaptions: Source<ToyDoc> = {
  name: "json-captions",
  description: "JSON lines with page URL, image and caption",
  counterPrefix: "toy",
  documentsCounter: "toy.lines",
  documentsNoun: "lines",
  document: { one: "caption record", other: "caption records" },
  claims: (name) => name.endsWith(".captions.jsonl"),
  uploadRole: (name) => (name.endsWith(".captions.jsonl") ? { role: "input" } : null),
  async *documents(shard, bytes, _config, counters) {
    const chunks: Buffer[] = [];
    for await (const c of bytes.read()) chunks.push(c);
    let n = 0;
    for (const line of Buffer.concat(chunks).toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      counters.inc("toy.lines");
      const { url, image, caption } = JSON.parse(line) as { url: string; image: string; caption: string };
      yield { n: n++, url, image, caption };
    }
    void shard;
  },
  // finds references only; features, the pivot and the extract counters are the extract stage's
  createExtractor: (_config, counters) => (doc: ToyDoc): DocumentRefs => {
    counters.inc("toy.references");
    return { page: doc.url, pageId: doc.url, revisionId: `rev-${String(doc.n).padStart(3, "0")}`, refs: [{ image: doc.image, source: "row", caption: doc.caption, alt: null }] };
  },
  pack: (docs) => docs,
  unpack: (packed) => packed as ToyDoc[],
  size: (d) => d.caption.length,
  reportLines: (x) => (x["toy.lines"] === undefined ? [] : [`- ${x["toy.lines"]} toy lines read, ${x["toy.references"] ?? 0} references.`]),
};

describe("a source registered by the caller", () => {
  it("runs through every stage, with its own documents counted", async () => {
    const dir = tempDir();
    // real captions (Conceptual Captions), three per image
    const captions = readFileSync(join(DATA, "conceptual-captions/gcc-validation-lines00001-00500.tsv"), "utf8").split("\n").slice(0, 12).map((l) => l.split("\t")[0]!);
    const file = join(dir, "toy.captions.jsonl");
    writeFileSync(file, captions.map((caption, i) => JSON.stringify({ url: `https://example.org/page-${i}`, image: `img-${i % 4}`, caption })).join("\n") + "\n");
    const out = join(dir, "out");
    // two workers asked for: a caller's source runs inline, the built-ins on the workers
    await run(out, [{ path: file, kind: "current" }], { tiers: ["silver"], captions: { minWords: 3 } }, { sources: sourceRegistry([jsonCaptions]), workers: 2 });
    const stats = readStats(out);
    expect(stats.counters["toy.lines"]).toBe(12);
    expect(stats.extraction["toy.lines"]).toBe(12);
    expect(stats.extraction["toy.references"]).toBe(12);
    expect(stats.counters["extract.current.references.row"]).toBe(12);
    // its documents are counted and named in its own words (Source.document), the report given its registry
    expect(stats.counters["extract.current.caption_records"]).toBe(12);
    expect(stats.counters["extract.current.revisions"]).toBeUndefined();
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("- 12 toy lines read, 12 references.");
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("- current input: 12 caption records → 12 image references");
    // the document rule of reconcile() knows the built-in sources only
    expect(reconcile(stats).filter((v) => !v.startsWith("documents used"))).toEqual([]);
    const pairs = readPairs(out, "silver");
    expect(pairs.length).toBeGreaterThan(0);
    for (const p of pairs) {
      expect(captions).toContain(p.a.text);
      expect(p.a.pageId).toMatch(/^https:\/\/example\.org\/page-\d+$/);
      expect(p.a.revisionId).toMatch(/^rev-\d{3}$/);
    }
  });

  it("a name the registry does not know is an error naming the known ones", () => {
    expect(() => sourceRegistry().get("parquet")).toThrow(/unknown input source "parquet" \(known: warc-paths, warc, img2dataset, caption-tsv, mediawiki\)/);
    expect(() => sourceRegistry([{ ...jsonCaptions, name: "mediawiki" }])).toThrow(/duplicate source name/);
  });
});

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("toy source on the cloud runner", missing);

describe.skipIf(missing !== null)("a source registered by the caller, cloud runner on the emulators", () => {
  const registry = sourceRegistry([jsonCaptions]);
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;
  let deps: (CloudDeps & { close(): Promise<void> }) | null = null;

  beforeAll(async () => {
    emu = await startEmulators();
    registerFunctions(() => (deps ??= { ...createCloudDeps(readCloudEnv(process.env)), sources: registry }));
    cloud = await startLocalCloud({ emulators: emu, source: null, partitions: PARTITIONS, shardBytes: SHARD_BYTES });
    storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
  });

  afterAll(async () => {
    await cloud?.stop();
    await deps?.close();
    await emu?.stop();
  });

  it("an uploaded file of the source is planned, read and published as the local runner does it, byte for byte", async () => {
    const dir = tempDir();
    const captions = readFileSync(join(DATA, "conceptual-captions/gcc-validation-lines00001-00500.tsv"), "utf8").split("\n").slice(0, 40).map((l) => l.split("\t")[0]!);
    const name = "toy.captions.jsonl";
    writeFileSync(join(dir, name), captions.map((caption, i) => JSON.stringify({ url: `https://example.org/page-${i}`, image: `img-${i % 8}`, caption })).join("\n") + "\n");
    // the local reference: the same file by the same name, the deployment's config, the tiers a current input feeds
    const local = join(dir, "local");
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await runLocal({ inputs: [{ path: name, kind: "current" }], outDir: local, config: { ...cloudConfig(), tiers: ["gold", "silver"] }, workers: 1, progress: null, shardBytes: SHARD_BYTES, sources: registry });
    } finally {
      process.chdir(cwd);
    }
    const [, meta] = await storage.bucket(cloud.buckets.input).upload(join(dir, name), { destination: name });
    const runId = planRunId(name, String((meta as { generation?: string | number }).generation));
    await waitForRun(storage, cloud.buckets.output, runId);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, ["gold", "silver"]);
    const expected = comparable(readDir(local), false, ["gold", "silver"]);
    expect(got["stats.json"]).toBe(expected["stats.json"]);
    expect(got).toEqual(expected);
    const stats = JSON.parse(got["stats.json"]!) as { extraction: Record<string, number>; tiers: Record<string, { pairs: number }> };
    expect(stats.extraction["toy.lines"]).toBe(40);
    expect(got["report.md"]).toContain("- 40 toy lines read, 40 references.");
    expect(stats.tiers.silver!.pairs).toBeGreaterThan(0);
    for (const line of got["silver.jsonl"]!.trim().split("\n")) expect(JSON.parse(line).a.pageId).toMatch(/^https:\/\/example\.org\//);
  });
});

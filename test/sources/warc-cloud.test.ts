/**
 * Crawl shards in both runners: the real crawls (iana.org split into byte-range shards at verified
 * gzip members, the wget capture, the Common Crawl page) and a small Wikipedia dump built here from
 * the real markup of the Aragonese page the Common Crawl WARC captured. Locally, the crawl and the
 * dump meet on one image key; uploaded to the emulators' input bucket (`paracap cloud upload`, one
 * manifest), the cloud runner plans, reads and publishes the same outputs byte for byte. A crawl's
 * paths list (`warc.paths.gz`) uploaded alone starts a run over its lines, each WARC read over HTTP
 * from a loopback server (the deployment's PARACAP_WARC_BASE_URL): the local runner's outputs on the
 * same list, byte for byte. An ARC crawl (the wget capture's responses and their recapture, written
 * with a gzip member per record, arc-helpers.ts) is cut into shards at verified members and read into
 * the local runner's outputs; damaged ARCs (a length that is no number, a file cut inside its last
 * member, a lying length in a file gzipped whole) give the local runner's counted skips.
 */
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulators, type Emulators } from "../../scripts/emulators/emulate.ts";
import { startLocalCloud, type LocalCloud } from "../../scripts/emulators/local-cloud.ts";
import { ShuffleRef } from "../../shared/core/records.ts";
import { readJsonl } from "../../shared/io/jsonl.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { cloudConfig, comparable, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, SHARD_BYTES, skipMessage, waitForRun } from "../cloud/helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { cloudCli } from "../cloud/in-process-cloud.ts";
import { resolveConfig, type ParacapConfig } from "../../shared/core/config.ts";
import { serveCrawl, type CrawlServer } from "./warc-http-server.ts";
import { arcRecord, versionBlock, warcResponses, writeArc } from "../web/warc/arc-helpers.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const CRAWLS = ["pywb-iana.warc.gz", "dolma-sample-0000.warc.gz", "commoncrawl-whirlwind.warc.gz"];
const COAT_OF_ARMS = "File:Escudo de Escopete (Guadalajara).svg";

/** A one-page dump whose wikitext is the real markup of the Aragonese page's images (an: Imachen = File). */
function dumpXml(): string {
  const text = "{| class=\"infobox\"\n|[[Imachen:Escudo de Escopete (Guadalajara).svg|70px|Escudo d'armas]]\n|}\n'''Escopete''' ye un municipio d'a provincia de Guadalajara.\n[[Imachen:Escudo_de_Escopete_(Guadalajara).svg|thumb|Escudo d'armas d'Escopete, en a provincia de Guadalajara]]";
  const escaped = text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" xml:lang="an">
  <page><title>Escopete</title><ns>0</ns><id>4242</id>
    <revision><id>1958761</id><timestamp>2024-01-01T00:00:00Z</timestamp><text xml:space="preserve">${escaped}</text></revision>
  </page>
</mediawiki>
`;
}

/** The inputs in one folder, named as their objects will be. */
function inputs(): { dir: string; names: string[] } {
  const dir = tempDir("paracap-warc-cloud-");
  for (const name of CRAWLS) copyFileSync(join(WARC, name), join(dir, name));
  writeFileSync(join(dir, "anwiki-escopete-pages-articles.xml"), dumpXml());
  return { dir, names: [...CRAWLS, "anwiki-escopete-pages-articles.xml"] };
}

const config = () => ({ ...cloudConfig(), tiers: ["gold" as const, "silver" as const], extraction: { ...cloudConfig().extraction, fileAliases: ["Imachen"], ...baseUrl() } });
/** the loopback server's URL, the deployment's (every run of this file has it, the local ones too) */
const baseUrl = () => (process.env.PARACAP_WARC_BASE_URL ? { warcBaseUrl: process.env.PARACAP_WARC_BASE_URL } : {});

/** the loopback crawl server, set as the deployment's setting before any run of the file (read by the in-process functions from the environment) */
let server: CrawlServer;
beforeAll(async () => {
  server = await serveCrawl(WARC, "range");
  process.env.PARACAP_WARC_BASE_URL = server.base;
});
afterAll(async () => {
  await server?.close();
  delete process.env.PARACAP_WARC_BASE_URL;
});

/**
 * The crawls and the dump, and the local runner's outputs on them: one run, asserted on by the local
 * runner's test and compared with the cloud run's outputs (it was made twice before).
 */
let crawlRun: Promise<{ dir: string; names: string[]; out: string }> | undefined;
const crawlLocal = () =>
  (crawlRun ??= (async () => {
    const { dir, names } = inputs();
    return { dir, names, out: await localRun(dir, names) };
  })());

/**
 * The wget capture's responses and a recapture a year later, as one `.arc.gz` (a member per
 * record, 0.4 MB: more than one shard at SHARD_BYTES); `damage` replaces the bytes of the file.
 */
function arcCrawl(dir: string, name: string, damage?: (arc: Buffer) => Buffer): void {
  const entries = warcResponses(join(WARC, "dolma-sample-0000.warc.gz"));
  const recaptured = entries.map((e) => ({ ...e, date: `${Number(e.date.slice(0, 4)) + 1}${e.date.slice(4)}` }));
  const arc = writeArc([...entries, ...recaptured], { gzip: true, name });
  writeFileSync(join(dir, name), damage ? damage(arc) : arc);
}

/** An ARC run's config: the paper's preset keeps the pages' template images (more references read). */
const ARC_UPLOAD = { preset: "paper", tiers: ["gold", "silver"] } as const;
const arcConfig = () => resolveConfig({ ...ARC_UPLOAD, tiers: [...ARC_UPLOAD.tiers], partitions: PARTITIONS, extraction: baseUrl() });

async function localRun(dir: string, names: string[], runConfig: ParacapConfig = config()): Promise<string> {
  const out = join(dir, "local");
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    await runLocal({ inputs: names.map((path) => ({ path, kind: "current" as const })), outDir: out, config: runConfig, workers: 1, progress: null, shardBytes: SHARD_BYTES });
  } finally {
    process.chdir(cwd);
  }
  return out;
}

describe("crawl shards, local runner", () => {
  it("a crawl and a dump meet on one image key; the iana crawl splits into shards; every source's counters reach stats.json", async () => {
    const { names, out } = await crawlLocal();
    const work = new LocalStore(join(out, ".work"));
    const refs: ShuffleRef[] = [];
    for (const name of await work.list("data/extract/refs/")) for await (const r of readJsonl(work, name, ShuffleRef)) if (r.image === COAT_OF_ARMS) refs.push(r);
    const pages = new Set(refs.map((r) => r.page));
    expect(pages).toContain("Escopete");
    expect(pages).toContain("https://an.wikipedia.org/wiki/Escopete");
    const stats = JSON.parse(readDir(out).get("stats.json")!.toString()) as { shards: { total: number }; extraction: Record<string, number> };
    expect(stats.shards.total).toBeGreaterThan(names.length); // pywb-iana (787 KB) is read as 3 byte-range shards
    expect(stats.extraction["warc.documents"]).toBeGreaterThan(30);
    expect(stats.extraction["dump.pages"]).toBe(1);
  });
});

const missing = pubsubEmulatorMissing();
if (missing) skipMessage("crawl shards on the cloud runner", missing);

describe.skipIf(missing !== null)("crawl shards, cloud runner on the emulators", () => {
  let emu: Emulators;
  let cloud: LocalCloud;
  let storage: Storage;

  beforeAll(async () => {
    emu = await startEmulators();
    cloud = await startLocalCloud({ emulators: emu, partitions: PARTITIONS, shardBytes: SHARD_BYTES });
    storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
  });

  afterAll(async () => {
    await cloud?.stop();
    await emu?.stop();
  });

  it("uploaded WARCs and a dump give the local runner's outputs byte for byte", async () => {
    const { dir, names, out } = await crawlLocal();
    const expected = comparable(readDir(out), false, ["gold", "silver"]);
    const manifestConfig = join(dir, "config.json");
    writeFileSync(manifestConfig, JSON.stringify({ tiers: ["gold", "silver"], extraction: { fileAliases: ["Imachen"] } }));
    const up = await cloudCli(["cloud", "upload", ...names.map((n) => join(dir, n)), "--name", "crawl", "--config", manifestConfig]);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, ["gold", "silver"]);
    expect(got["stats.json"]).toBe(expected["stats.json"]);
    expect(got).toEqual(expected);
  });

  it("an uploaded paths list starts a run over its lines (each WARC over HTTP): the local runner's outputs on the list, byte for byte", async () => {
    const dir = tempDir("paracap-warc-paths-cloud-");
    const name = "crawl.warc.paths.gz";
    writeFileSync(join(dir, name), gzipSync(CRAWLS.join("\n") + "\n"));
    // what a lone upload gets: the deployment's config (gold and silver: a crawl is current input)
    const runConfig = resolveConfig({ partitions: PARTITIONS, tiers: ["gold", "silver"], extraction: { warcBaseUrl: server.base } });
    const expected = comparable(readDir(await localRun(dir, [name], runConfig)), false, ["gold", "silver"]);
    // (the crawls' pairs are all of template images, dropped by default: the references read are what is compared)
    expect(JSON.parse(expected["stats.json"]!).extraction["extract.current.references"]).toBeGreaterThan(0);
    const up = await cloudCli(["cloud", "upload", join(dir, name)]);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, ["gold", "silver"]);
    // a short list's large WARC (iana, 787 KB) is split at SHARD_BYTES in both runners, the same way
    expect(JSON.parse(got["stats.json"]!).shards.total).toBe(CRAWLS.length + 2);
    expect(got).toEqual(expected);
    expect(server.ranges.get("pywb-iana.warc.gz")!.length).toBeGreaterThanOrEqual(4); // read twice (local, cloud): head + body each
  });

  /** Uploads `names` of `dir` as one run with the ARC config; its outputs and the local runner's on the same files. */
  async function arcRun(dir: string, names: string[]): Promise<{ got: Record<string, string>; expected: Record<string, string> }> {
    const expected = comparable(readDir(await localRun(dir, names, arcConfig())), false, ["gold", "silver"]);
    const manifestConfig = join(dir, "config.json");
    writeFileSync(manifestConfig, JSON.stringify(ARC_UPLOAD));
    const up = await cloudCli(["cloud", "upload", ...names.map((n) => join(dir, n)), "--name", "arc", "--config", manifestConfig]);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    return { got: comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, ["gold", "silver"]), expected };
  }

  it("an uploaded .arc.gz is cut into shards at verified members: the local runner's outputs byte for byte", async () => {
    const dir = tempDir("paracap-arc-cloud-");
    arcCrawl(dir, "dolma-2023.arc.gz");
    const { got, expected } = await arcRun(dir, ["dolma-2023.arc.gz"]);
    const stats = JSON.parse(got["stats.json"]!) as { shards: { total: number }; complete: boolean; extraction: Record<string, number> };
    expect(stats.shards.total).toBeGreaterThanOrEqual(2);
    expect(stats.complete).toBe(true);
    expect(stats.extraction["warc.documents"]).toBe(44);
    // (each image is on one page, captured twice: no pairs, but every caption read is in the funnel compared)
    expect(stats.extraction["extract.current.references"]).toBeGreaterThan(0);
    expect(got["stats.json"]).toBe(expected["stats.json"]);
    expect(got).toEqual(expected);
  });

  it("damaged ARCs (a length that is no number, a file cut inside its last member, a lying length in a file gzipped whole): the local runner's counted skips and damaged shards, no task failed", async () => {
    const dir = tempDir("paracap-arc-cloud-damaged-");
    const [page] = warcResponses(join(WARC, "dolma-sample-0000.warc.gz"));
    const badLength = arcRecord(page!, 1, { length: "12ab" });
    // the bad record after the first shard's end, in a plain .arc and as a member of a .arc.gz
    arcCrawl(dir, "bad-length.arc.gz", (arc) => Buffer.concat([arc, gzipSync(badLength), gzipSync(arcRecord(page!))]));
    writeFileSync(join(dir, "bad-length.arc"), Buffer.concat([versionBlock("bad-length.arc", 1), arcRecord(page!), badLength, arcRecord(page!)]));
    arcCrawl(dir, "cut.arc.gz", (arc) => arc.subarray(0, arc.length - 500));
    // a length of 2 TB that lies, in an ARC gzipped whole (one member, read by one task)
    const entries = warcResponses(join(WARC, "dolma-sample-0000.warc.gz"));
    writeFileSync(join(dir, "liar.arc.gz"), gzipSync(Buffer.concat([versionBlock("liar.arc", 1), ...entries.map((e, i) => arcRecord(e, 1, i === 5 ? { length: "2000000000000" } : {}))])));
    const names = ["bad-length.arc.gz", "bad-length.arc", "cut.arc.gz", "liar.arc.gz"];
    const { got, expected } = await arcRun(dir, names);
    const stats = JSON.parse(got["stats.json"]!) as { complete: boolean; failedTasks: string[]; extraction: Record<string, number> };
    expect(stats.failedTasks).toEqual([]);
    expect(stats.extraction["warc.skipped.damaged.bad_length"]).toBe(2);
    expect(stats.extraction["warc.skipped.damaged.gzip"]).toBe(1);
    expect(stats.extraction["warc.skipped.damaged.length_too_large"]).toBe(1);
    // the cloud names a damaged input by its object's URL (docs/open-defects.md), so its damage
    // examples (kept by the hash of their text) come in another order: the same once named alike
    const unnamed = (o: Record<string, string>) => {
      const named = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v.replaceAll(`gs://${cloud.buckets.input}/`, "")]));
      const stats = JSON.parse(named["stats.json"]!) as { extraction_examples: Record<string, string[]> };
      stats.extraction_examples["warc.damaged_records"]!.sort();
      const report = named["report.md"]!.replace(/(`warc\.damaged_records`: )(.*)/, (_, key: string, list: string) => key + list.split("; ").sort().join("; "));
      return { ...named, "stats.json": stats, "report.md": report };
    };
    expect(unnamed(got)["stats.json"]).toEqual(unnamed(expected)["stats.json"]);
    expect(unnamed(got)).toEqual(unnamed(expected));
  });
});

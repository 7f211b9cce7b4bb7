/**
 * Crawl shards in both runners: the real crawls (iana.org split into byte-range shards at verified
 * gzip members, the wget capture, the Common Crawl page) and a small Wikipedia dump built here from
 * the real markup of the Aragonese page the Common Crawl WARC captured. Locally, the crawl and the
 * dump meet on one image key; uploaded to the emulators' input bucket (`paracap cloud upload`, one
 * manifest), the cloud runner plans, reads and publishes the same outputs byte for byte. A crawl's
 * paths list (`warc.paths.gz`) uploaded alone starts a run over its lines, each WARC read over HTTP
 * from a loopback server (the deployment's PARACAP_WARC_BASE_URL): the local runner's outputs on the
 * same list, byte for byte.
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
import { cloudConfig, comparable, paracap, PARTITIONS, pubsubEmulatorMissing, readDir, readObjects, SHARD_BYTES, skipMessage, waitForRun } from "../cloud/helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { resolveConfig, type ParacapConfig } from "../../shared/core/config.ts";
import { serveCrawl, type CrawlServer } from "./warc-http-server.ts";

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
/** the loopback server's URL, once the cloud suite set it as the deployment's (every run of this file then has it) */
const baseUrl = () => (process.env.PARACAP_WARC_BASE_URL ? { warcBaseUrl: process.env.PARACAP_WARC_BASE_URL } : {});

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
    const { dir, names } = inputs();
    const out = await localRun(dir, names);
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

  let server: CrawlServer;

  beforeAll(async () => {
    // the deployment's setting, read by the in-process functions from the environment
    server = await serveCrawl(WARC, "range");
    process.env.PARACAP_WARC_BASE_URL = server.base;
    emu = await startEmulators();
    cloud = await startLocalCloud({ emulators: emu, partitions: PARTITIONS, shardBytes: SHARD_BYTES });
    storage = new Storage({ apiEndpoint: emu.gcsUrl, projectId: emu.projectId });
  });

  afterAll(async () => {
    await cloud?.stop();
    await emu?.stop();
    await server?.close();
    delete process.env.PARACAP_WARC_BASE_URL;
  });

  it("uploaded WARCs and a dump give the local runner's outputs byte for byte", async () => {
    const { dir, names } = inputs();
    const expected = comparable(readDir(await localRun(dir, names)), false, ["gold", "silver"]);
    const manifestConfig = join(dir, "config.json");
    writeFileSync(manifestConfig, JSON.stringify({ tiers: ["gold", "silver"], extraction: { fileAliases: ["Imachen"] } }));
    const up = await paracap(["cloud", "upload", ...names.map((n) => join(dir, n)), "--name", "crawl", "--config", manifestConfig], cloud.env);
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
    const up = await paracap(["cloud", "upload", join(dir, name)], cloud.env);
    expect(up.code, up.stderr).toBe(0);
    const runId = up.stdout.trim();
    await waitForRun(storage, cloud.buckets.output, runId);
    const got = comparable(await readObjects(storage, cloud.buckets.output, `${runId}/`), true, ["gold", "silver"]);
    // a short list's large WARC (iana, 787 KB) is split at SHARD_BYTES in both runners, the same way
    expect(JSON.parse(got["stats.json"]!).shards.total).toBe(CRAWLS.length + 2);
    expect(got).toEqual(expected);
    expect(server.ranges.get("pywb-iana.warc.gz")!.length).toBeGreaterThanOrEqual(4); // read twice (local, cloud): head + body each
  });
});

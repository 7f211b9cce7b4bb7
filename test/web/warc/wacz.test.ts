/**
 * WACZ crawls (Webrecorder's zipped collections: Browsertrix Crawler, ArchiveWeb.page): the WARCs a zip
 * holds under archive/ are read as the same WARCs on their own: the same documents and counts, and the
 * same datasets from a run; split into shards inside a stored WARC; a deflated WARC read whole; a
 * damaged zip, an encrypted member or a zip without a crawl told, never a crash. Built from the real
 * WARCs in shared/data (zip-writer.ts).
 */
import { createReadStream, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Counters } from "../../../shared/core/counters.ts";
import { ParacapConfig, resolveConfig } from "../../../shared/core/config.ts";
import { DumpError } from "../../../shared/dump/errors.ts";
import type { ByteSource } from "../../../shared/io/byte-source.ts";
import { runLocal } from "../../../shared/runner/local-runner.ts";
import { LOCAL_VIEW } from "../../../shared/runner/local-shards.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import { warcSource } from "../../../shared/sources/warc/warc-source.ts";
import type { ByteRange } from "../../../shared/sources/source.ts";
import { PARTITIONS } from "../../cloud/helpers.ts";
import { readStats, removeTempDirs, tempDir } from "../../runner/helpers.ts";
import { writeZip, type ZipMember } from "./zip-writer.ts";
import { inputFacts } from "../../../shared/output/dataset-card.ts";
import type { Stats } from "../../../shared/output/stats.ts";
import { inProcessCli } from "../../support/in-process-cli.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../../shared/data/warc/", import.meta.url).pathname;
const DOLMA = `${WARC}dolma-sample-0000.warc.gz`;
const PYWB = `${WARC}pywb-iana.warc.gz`;
const config = ParacapConfig.parse({});

/** A local file as the runner gives it (its size known, as a planned object's is). */
const fileBytes = (path: string): ByteSource => ({
  label: path,
  size: statSync(path).size,
  read: (start = 0, end?: number) => createReadStream(path, { start, end: end === undefined ? undefined : end - 1 }) as AsyncIterable<Buffer>,
});

/** A shard's documents (URI, record id, body size) and its counters; a DumpError at its end is returned, not thrown. */
async function read(path: string, start: number | null = null, end: number | null = null, counters = new Counters()) {
  const docs: string[] = [];
  let error: Error | null = null;
  try {
    const shard = { id: "s", uri: path, source: "warc", kind: "current" as const, start, end, fragment: (start ?? 0) > 0 };
    for await (const d of warcSource.documents(shard, fileBytes(path), config, counters)) docs.push(`${d.uri} ${d.id} ${d.body.length}`);
  } catch (e) {
    error = e as Error;
  }
  return { docs, counters: counters.toJSON(), error };
}

/** What Browsertrix writes beside the WARCs: the package description, the page list, the index. */
const companions = (): ZipMember[] => [
  { name: "datapackage.json", data: Buffer.from(JSON.stringify({ profile: "data-package", wacz_version: "1.1.1", resources: [] })), deflate: true },
  { name: "pages/pages.jsonl", data: Buffer.from('{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}\n{"url": "https://soldaini.net/", "ts": "2024-05-18T00:00:00Z"}\n'), deflate: true },
];

let dir: string;
const wacz = (name: string, members: ZipMember[], opts: { zip64?: boolean } = {}) => {
  const path = join(dir, name);
  writeFileSync(path, writeZip(members, opts));
  return path;
};

beforeAll(() => {
  dir = tempDir("paracap-wacz-");
});

describe("a WACZ", () => {
  it("is a crawl input by name, locally and as an upload", () => {
    const head = writeZip(companions()).subarray(0, 64);
    expect(BUILTIN_SOURCES.detect("crawl-20240518.wacz", head)?.name).toBe("warc");
    expect(warcSource.uploadRole("collections/crawl-20240518.WACZ")).toEqual({ role: "input" });
    // a run that read nothing still has a web crawl's card (its licence line)
    expect(inputFacts({ inputs: [{ uri: "/crawls/crawl-20240518.wacz" }, { uri: "/crawls/at.warc.zst" }], extraction: {} } as unknown as Stats).web).toBe(true);
  });

  it("gives its WARCs' documents and counts, each WARC as read on its own (stored, deflated, ZIP64 records)", async () => {
    const dolma = await read(DOLMA);
    const pywb = await read(PYWB);
    expect(dolma.docs.length).toBe(22);
    expect(pywb.docs.length).toBeGreaterThan(10);
    const sum = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries([...new Set([...Object.keys(a), ...Object.keys(b)])].map((k) => [k, (a[k] ?? 0) + (b[k] ?? 0)]));
    for (const [name, deflate, zip64] of [["stored.wacz", false, false], ["deflated.wacz", true, false], ["zip64.wacz", false, true]] as const) {
      const path = wacz(name, [...companions(), { name: "archive/dolma.warc.gz", data: readFileSync(DOLMA), deflate }, { name: "archive/iana.warc.gz", data: readFileSync(PYWB), deflate }, { name: "indexes/index.cdx", data: Buffer.from("net,soldaini)/ 20240518000000 {}\n") }], { zip64 });
      const got = await read(path);
      expect(got.error, name).toBeNull();
      expect(got.docs, name).toEqual([...dolma.docs, ...pywb.docs]);
      expect(got.counters, name).toEqual(sum(dolma.counters, pywb.counters));
      expect(got.counters["warc.files"], name).toBe(2);
    }
  });

  it("splits inside a stored WARC: every record read once, by the shard its first byte is in", async () => {
    const path = wacz("split.wacz", [...companions(), { name: "archive/iana.warc.gz", data: readFileSync(PYWB) }, { name: "archive/dolma.warc.gz", data: readFileSync(DOLMA) }]);
    const whole = await read(path);
    const ranges = (await warcSource.planRanges!({ name: path, size: statSync(path).size }, 50_000, LOCAL_VIEW)) as ByteRange[];
    expect(ranges.length).toBeGreaterThan(5);
    const counters = new Counters();
    const parts: string[] = [];
    for (const r of ranges) {
      const got = await read(path, r.start, r.end, counters);
      expect(got.error).toBeNull();
      parts.push(...got.docs);
    }
    expect(parts).toEqual(whole.docs);
    // a shard entering a WARC mid-way passes over the bytes before its first record (as in a .warc.gz on its own)
    const { "warc.bytes.skipped": skipped, ...split } = counters.toJSON();
    expect(skipped).toBeGreaterThan(0);
    expect(split).toEqual(whole.counters);
  });

  it("a plain (uncompressed) WARC stored in the zip splits as a plain WARC does", async () => {
    const path = wacz("plain.wacz", [...companions(), { name: "archive/iana.warc", data: gunzipSync(readFileSync(PYWB)) }]);
    const whole = await read(path);
    expect(whole.docs).toEqual((await read(PYWB)).docs);
    const ranges = (await warcSource.planRanges!({ name: path, size: statSync(path).size }, 100_000, LOCAL_VIEW)) as ByteRange[];
    expect(ranges.length).toBeGreaterThan(3);
    const parts: string[] = [];
    for (const r of ranges) parts.push(...(await read(path, r.start, r.end)).docs);
    expect(parts).toEqual(whole.docs);
  });

  it("a damaged zip, a zip with no crawl and an encrypted member are told, the other members read", async () => {
    const good = writeZip([...companions(), { name: "archive/dolma.warc.gz", data: readFileSync(DOLMA) }]);
    const cut = join(dir, "cut.wacz");
    writeFileSync(cut, good.subarray(0, good.length - 30));
    const r1 = await read(cut);
    expect(r1.error).toBeInstanceOf(DumpError);
    expect(r1.error!.message).toMatch(/cut\.wacz: not a readable WACZ \(zip\) file/);
    const empty = await read(wacz("empty.wacz", companions()));
    expect(empty.error!.message).toMatch(/no WARC or ARC file in it/);
    const locked = await read(wacz("locked.wacz", [{ name: "archive/a.warc.gz", data: readFileSync(PYWB), encryptedFlag: true }, { name: "archive/dolma.warc.gz", data: readFileSync(DOLMA) }]));
    expect(locked.docs).toEqual((await read(DOLMA)).docs);
    expect(locked.error).toBeInstanceOf(DumpError);
    expect(locked.error!.message).toMatch(/locked\.wacz!\/archive\/a\.warc\.gz: not read: encrypted/);
  });

  it("a damaged record inside a stored WARC is the WARC's damage, named in the zip; the records after it are read", async () => {
    const bytes = Buffer.from(readFileSync(PYWB));
    // a byte flipped inside the third gzip member's deflate data
    const members = [...bytes.entries()].filter(([i, b]) => b === 0x1f && bytes[i + 1] === 0x8b && bytes[i + 2] === 8).map(([i]) => i);
    bytes[members[2]! + 40]! ^= 0xff;
    const alone = join(dir, "damaged.warc.gz");
    writeFileSync(alone, bytes);
    const expected = await read(alone);
    expect(expected.error).toBeInstanceOf(DumpError);
    const got = await read(wacz("damaged.wacz", [...companions(), { name: "archive/damaged.warc.gz", data: bytes }]));
    expect(got.docs).toEqual(expected.docs);
    expect(got.counters).toEqual(expected.counters);
    expect(got.error!.message).toBe(expected.error!.message.replace(alone, `${join(dir, "damaged.wacz")}!/archive/damaged.warc.gz`));
  });

  it("a run over a WACZ, whole or in shards, writes the datasets and counts of a run over its WARC", async () => {
    const path = wacz("dolma.wacz", [...companions(), { name: "archive/dolma-sample-0000.warc.gz", data: readFileSync(DOLMA) }]);
    const run = async (input: string, name: string, shardBytes?: number) => {
      const out = join(dir, name);
      await runLocal({ inputs: [{ path: input, kind: "current" }], outDir: out, config: resolveConfig({ partitions: PARTITIONS, tiers: ["silver"], extraction: { templateImages: false } }), workers: 1, progress: null, ...(shardBytes ? { shardBytes } : {}) });
      return { counters: readStats(out).counters, silver: readFileSync(join(out, "silver.jsonl"), "utf8") };
    };
    const fromWarc = await run(DOLMA, "warc");
    const fromWacz = await run(path, "wacz");
    // the CLI takes it too (a zip that is no WACZ nor images is refused before planning: zipped-inputs.ts)
    const cli = await inProcessCli(["run", "--quiet", "--input", path, "--tiers", "silver", "--out", join(dir, "wacz-cli")]);
    expect(cli.stderr).toMatch(/^paracap: wrote /);
    expect(cli.code).toBe(0);
    expect(readStats(join(dir, "wacz-cli")).counters["warc.documents"]).toBe(22);
    expect(fromWacz.counters["warc.documents"]).toBe(22);
    expect(fromWacz.silver).toEqual(fromWarc.silver);
    expect(fromWacz.counters).toEqual(fromWarc.counters);
    const split = await run(path, "wacz-split", 40_000);
    expect(split.silver).toEqual(fromWarc.silver);
    const { "warc.bytes.skipped": _, "extract.shards": shards, ...splitCounts } = split.counters;
    expect(shards).toBeGreaterThan(3);
    const { "extract.shards": one, ...wholeCounts } = fromWarc.counters;
    expect(one).toBe(1);
    expect(splitCounts).toEqual(wholeCounts);
  });

  it("`paracap extract` prints its WARCs' captions, and says why a damaged zip gave none", async () => {
    const path = wacz("extract.wacz", [...companions(), { name: "archive/iana.warc.gz", data: readFileSync(PYWB) }, { name: "archive/dolma.warc.gz", data: readFileSync(DOLMA) }]);
    const [iana, dolma, both] = [await inProcessCli(["extract", PYWB]), await inProcessCli(["extract", DOLMA]), await inProcessCli(["extract", path])];
    expect(both.code).toBe(0);
    expect(dolma.stdout.length).toBeGreaterThan(1000);
    expect(both.stdout).toBe(iana.stdout + dolma.stdout);
    expect(both.stderr).toMatch(/^paracap extract: 38 HTML page\(s\) of \d+ WARC record\(s\) read\n$/);
    const good = readFileSync(path);
    const cut = join(dir, "cut-extract.wacz");
    writeFileSync(cut, good.subarray(0, good.length - 10));
    const r = await inProcessCli(["extract", cut]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/cut-extract\.wacz: not a readable WACZ \(zip\) file/);
  });
});

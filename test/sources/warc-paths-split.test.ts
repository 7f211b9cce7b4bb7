/**
 * A large WARC named by a short paths list splits into byte-range shards as a local file does: the
 * planner asks its size over HTTP, each part's task starts with a range read mid-file and finds its
 * first gzip member by scanning and decoding. Served by the loopback server (well-behaved, dropping
 * connections, ignoring Range), the parts give datasets byte-identical to the same files read locally
 * in one shard each, with every record read exactly once.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { warcCounter } from "../../shared/core/counter-names.ts";
import { remoteSize } from "../../shared/io/http-bytes.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { BUILTIN_SOURCE_LIST, sourceRegistry } from "../../shared/sources/registry.ts";
import { PART_STRIDE, partOf, partPosition, pathsSource } from "../../shared/sources/warc/warc-paths-source.ts";
import { PARTITIONS } from "../cloud/helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { crawlOutcome, silverCaptionsRead } from "./crawl-outcome.ts";
import { serveCrawl, type CrawlServer, type ServerMode } from "./warc-http-server.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
/** iana (787 KB, 301 members) and dolma (214 KB) split at 100 KB; the Common Crawl file (19 KB) stays whole */
const CRAWLS = ["pywb-iana.warc.gz", "dolma-sample-0000.warc.gz", "commoncrawl-whirlwind.warc.gz"];
const SHARD_BYTES = 100_000;
const PARTS = 8 + 3 + 1;

const sources = sourceRegistry([], BUILTIN_SOURCE_LIST.map((s) => (s.name === "warc-paths" ? pathsSource({ http: { backoffMs: 5 } }) : s)));
// the crawls' only pairs are of template images (an avatar's bylines): kept here, where pairs show the reading is the same
const config = (base?: string) => resolveConfig({ partitions: PARTITIONS, tiers: ["gold", "silver"], extraction: { ...(base ? { warcBaseUrl: base } : {}), templateImages: false } });
const datasets = crawlOutcome;

const servers = new Map<ServerMode, CrawlServer>();
beforeAll(async () => {
  for (const mode of ["range", "drop", "norange"] as const) servers.set(mode, await serveCrawl(WARC, mode));
});
afterAll(async () => {
  for (const s of servers.values()) await s.close();
});

describe("planning a short paths list", () => {
  const listOf = (names: string[]) => {
    const dir = tempDir("paracap-split-plan-");
    const list = join(dir, "warc.paths.gz");
    writeFileSync(list, gzipSync(names.join("\n") + "\n"));
    return list;
  };
  const plan = (list: string, base: string | null, splitFilesUpTo?: number) =>
    pathsSource({ http: { backoffMs: 5 }, ...(splitFilesUpTo !== undefined ? { splitFilesUpTo } : {}) }).planRanges!({ name: list, size: 1 }, SHARD_BYTES, {
      exists: async () => true,
      withLocalCopy: (n, use) => use(n),
      ...(base ? { config: config(base) } : {}),
    });

  it("asks each file's size and cuts the large ones into parts that cover them exactly", async () => {
    const server = servers.get("range")!;
    expect(await remoteSize(`${server.base}pywb-iana.warc.gz`)).toBe(readFileSync(join(WARC, "pywb-iana.warc.gz")).length);
    expect(await remoteSize(`${server.base}missing.warc.gz`, { backoffMs: 5 })).toBeNull();
    // a server that ignores Range says the size in Content-Length (the body is not read); one that is down says nothing
    expect(await remoteSize(`${servers.get("norange")!.base}dolma-sample-0000.warc.gz`)).toBe(readFileSync(join(WARC, "dolma-sample-0000.warc.gz")).length);
    expect(await remoteSize("http://127.0.0.1:1/crawl/x.warc.gz", { backoffMs: 5, retries: 1 })).toBeNull();
    const ranges = (await plan(listOf([...CRAWLS, "missing.warc.gz", "commoncrawl-whirlwind.warc.wet.gz"]), server.base)) as { start: number; end: number }[];
    const parts = ranges.map((r) => partOf(r.start, r.end));
    for (const [line, name] of CRAWLS.entries()) {
      const size = readFileSync(join(WARC, name)).length;
      const mine = parts.filter((p) => p?.line === line);
      if (size <= SHARD_BYTES) {
        expect(mine).toEqual([]);
        expect(ranges).toContainEqual({ start: line, end: line + 1, fragment: false });
        continue;
      }
      // consecutive, from 0 to the file's size, none longer than the shard size
      expect(mine[0]!.from).toBe(0);
      expect(mine.at(-1)!.to).toBe(size);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.from).toBe(mine[i - 1]!.to);
      expect(mine.every((p) => p!.to - p!.from <= SHARD_BYTES)).toBe(true);
    }
    expect(ranges.length).toBe(PARTS + 2); // the missing file and the WET file stay whole lines
    expect(ranges.slice(-2)).toEqual([
      { start: 3, end: 4, fragment: false },
      { start: 4, end: 5, fragment: false },
    ]);
    expect(partPosition(999_999, PART_STRIDE - 1)).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
  });

  it("a longer list, or a plan without the run's server, keeps one shard per line and asks nothing", async () => {
    const server = servers.get("range")!;
    const asked = () => [...server.ranges.values()].flat().length;
    const before = asked();
    const whole = CRAWLS.map((_, i) => ({ start: i, end: i + 1, fragment: false }));
    expect(await plan(listOf(CRAWLS), server.base, 2)).toEqual(whole);
    expect(await plan(listOf(CRAWLS), null)).toEqual(whole);
    expect(asked()).toBe(before);
  });
});

describe("a split crawl read through its paths list", () => {
  let reference: Record<string, unknown>;
  let referenceRecords: number;

  beforeAll(async () => {
    const dir = tempDir("paracap-split-ref-");
    for (const name of CRAWLS) copyFileSync(join(WARC, name), join(dir, name));
    const out = join(dir, "out");
    // each local file in one shard
    const { stats } = await runLocal({ inputs: CRAWLS.map((n) => ({ path: join(dir, n), kind: "current" as const })), outDir: out, config: config(), workers: 1, progress: null, shardBytes: 1 << 30 });
    expect(stats.shards.total).toBe(CRAWLS.length);
    reference = datasets(out);
    referenceRecords = stats.extraction[warcCounter("records")]!;
    expect(silverCaptionsRead(reference)).toBeGreaterThan(100);
  });

  for (const mode of ["range", "drop", "norange"] as const) {
    it(`${mode}: ${PARTS} shards, every record read once, the datasets of the local files`, async () => {
      const server = servers.get(mode)!;
      const dir = tempDir("paracap-split-run-");
      const list = join(dir, "warc.paths.gz");
      writeFileSync(list, gzipSync(CRAWLS.join("\n") + "\n"));
      const out = join(dir, "out");
      const { stats } = await runLocal({ inputs: [{ path: list, kind: "current" }], outDir: out, config: config(server.base), workers: 1, progress: null, sources, shardBytes: SHARD_BYTES });
      expect(stats.shards.total).toBe(PARTS);
      expect(datasets(out)).toEqual(reference);
      const x = stats.extraction;
      expect(x[warcCounter("records")]).toBe(referenceRecords); // no member read by two parts, none lost
      expect(x[warcCounter("http.files")]).toBe(CRAWLS.length);
      expect(x[warcCounter("bytes.skipped")]).toBeGreaterThan(0); // parts began mid-member and scanned to the next
    });
  }
});

/**
 * Crawl paths lists: a `warc.paths.gz` whose lines name the real WARCs of ../shared/data/warc, served
 * by a loopback HTTP server (test/sources/warc-http-server.ts). Read over HTTP (a well-behaved server,
 * one that drops the connection mid-file, one that ignores Range), the run's datasets and references
 * are byte-identical to reading the same files locally; a missing file and a line outside the base URL
 * are counted, never fatal.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { warcCounter, warcSkippedCounter } from "../../shared/core/counter-names.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { fileBytes } from "../../shared/io/file-bytes.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { BUILTIN_SOURCE_LIST, sourceRegistry } from "../../shared/sources/registry.ts";
import { pathLines, pathsSource, pathUrl } from "../../shared/sources/warc/warc-paths-source.ts";
import { PARTITIONS } from "../cloud/helpers.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { crawlOutcome, silverCaptionsRead } from "./crawl-outcome.ts";
import { serveCrawl, type CrawlServer, type ServerMode } from "./warc-http-server.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const CRAWLS = ["pywb-iana.warc.gz", "dolma-sample-0000.warc.gz", "commoncrawl-whirlwind.warc.gz"];

/** The paths source with a short backoff (the dropping server forces a dozen resumes). */
const sources = sourceRegistry([], BUILTIN_SOURCE_LIST.map((s) => (s.name === "warc-paths" ? pathsSource({ http: { backoffMs: 5 } }) : s)));

const servers = new Map<ServerMode, CrawlServer>();
beforeAll(async () => {
  for (const mode of ["range", "drop", "norange"] as const) servers.set(mode, await serveCrawl(WARC, mode));
});
afterAll(async () => {
  for (const s of servers.values()) await s.close();
});

describe("paths lists", () => {
  it("reads Common Crawl's gzip lists and plain ones line by line; blank lines keep their number", async () => {
    const dir = tempDir("paracap-paths-");
    const text = "crawl-data/a.warc.gz\r\n\n  crawl-data/b.warc.gz  \ncrawl-data/c.warc.gz";
    writeFileSync(join(dir, "warc.paths.gz"), gzipSync(text));
    writeFileSync(join(dir, "warc.paths"), text);
    for (const name of ["warc.paths.gz", "warc.paths"]) {
      const lines = [];
      for await (const l of pathLines(fileBytes(join(dir, name)))) lines.push(l);
      expect(lines).toEqual([
        { index: 0, line: "crawl-data/a.warc.gz" },
        { index: 2, line: "crawl-data/b.warc.gz" },
        { index: 3, line: "crawl-data/c.warc.gz" },
      ]);
    }
  });

  it("a damaged gzip list is a DumpError naming the file, never a hang", async () => {
    const dir = tempDir("paracap-paths-bad-");
    const gz = gzipSync(Array.from({ length: 2000 }, (_, i) => `crawl-data/segment-${i}/file-${i * 7919}.warc.gz`).join("\n"));
    writeFileSync(join(dir, "warc.paths.gz"), gz.subarray(0, gz.length >> 1));
    const read = async () => {
      for await (const _ of pathLines(fileBytes(join(dir, "warc.paths.gz"))));
    };
    await expect(read()).rejects.toThrow(DumpError);
    await expect(read()).rejects.toThrow(/warc\.paths\.gz: damaged gzip data after line \d+/);
  });

  it("resolves a path under the base URL and refuses one that leaves it", () => {
    const base = "https://data.commoncrawl.org/";
    expect(pathUrl("crawl-data/CC-MAIN-2024-10/x.warc.gz", base)).toBe("https://data.commoncrawl.org/crawl-data/CC-MAIN-2024-10/x.warc.gz");
    expect(pathUrl("http://169.254.169.254/computeMetadata/v1/", base)).toBeNull();
    expect(pathUrl("//evil.example/x.warc.gz", base)).toBeNull();
    expect(pathUrl("../../etc/x.warc.gz", "http://127.0.0.1:9/crawl")).toBeNull();
    expect(pathUrl("x.warc.gz", "http://127.0.0.1:9/crawl")).toBe("http://127.0.0.1:9/crawl/x.warc.gz");
  });
});

describe("a crawl read through its paths list, in the local runner", () => {
  // the template images are kept here: more captions to compare between reading paths
const config = (base?: string) => resolveConfig({ partitions: PARTITIONS, tiers: ["gold", "silver"], extraction: { ...(base ? { warcBaseUrl: base } : {}), templateImages: false } });
  const datasets = crawlOutcome;
  let reference: Record<string, unknown>;

  beforeAll(async () => {
    const dir = tempDir("paracap-paths-ref-");
    for (const name of CRAWLS) copyFileSync(join(WARC, name), join(dir, name));
    const out = join(dir, "out");
    const { stats } = await runLocal({ inputs: CRAWLS.map((n) => ({ path: join(dir, n), kind: "current" as const })), outDir: out, config: config(), workers: 1, progress: null });
    reference = datasets(out);
    expect(silverCaptionsRead(reference)).toBeGreaterThan(100);
    // the web caption filters are the first rows of every tier's funnel: captions in, kept, dropped by reason, examples
    for (const tier of ["gold", "silver"]) {
      const funnel = stats.tiers[tier]!.funnel;
      expect(funnel.slice(0, 5).map((r) => r.id)).toEqual(["web_length_v1", "web_boilerplate_v1", "web_profanity_v1", "web_language_v1", "all"]);
      expect(funnel.map((r) => r.step)).toEqual(funnel.map((_, i) => i));
      for (const [i, row] of funnel.slice(0, 4).entries()) {
        const f = row.filter!;
        expect(f.kept + f.dropped).toBe(f.in);
        expect(Object.values(f.reasons).reduce((a, b) => a + b, 0)).toBe(f.dropped);
        if (i > 0) expect(f.in).toBe(funnel[i - 1]!.filter!.kept); // each filter sees what the one above kept
        expect(row.captions).toBe(f.kept);
        expect(row.candidates).toBeNull();
      }
      expect(funnel[0]!.filter!.dropped).toBeGreaterThan(0);
      expect(Object.keys(funnel[1]!.filter!.examples ?? {}).length).toBeGreaterThan(0); // boilerplate drops come with samples
    }
    const report = readFileSync(join(out, "report.md"), "utf8");
    // the row says what passes, as every funnel row does
    expect(report).toContain("before extraction (web captions): web caption is not boilerplate");
    expect(report).toMatch(/`web_boilerplate_v1` dropped/);
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain("before extraction (web captions)");
  });

  for (const mode of ["range", "drop", "norange"] as const) {
    it(`${mode}: the datasets equal those of the local files${mode === "range" ? "; a missing file, a WET file and a line outside the base are counted" : ""}`, async () => {
      const server = servers.get(mode)!;
      const dir = tempDir("paracap-paths-run-");
      const extra = mode === "range" ? ["missing.warc.gz", "commoncrawl-whirlwind.warc.wet.gz", "http://elsewhere.example/x.warc.gz"] : [];
      const list = join(dir, "warc.paths.gz");
      writeFileSync(list, gzipSync([...CRAWLS, ...extra].join("\n") + "\n"));
      const out = join(dir, "out");
      const result = await runLocal({ inputs: [{ path: list, kind: "current" }], outDir: out, config: config(server.base), workers: 1, progress: null, sources });
      expect(datasets(out)).toEqual(reference);
      const x = result.stats.extraction;
      expect(result.stats.shards.total).toBe(CRAWLS.length + extra.length);
      if (mode === "range") {
        expect(x[warcSkippedCounter("http_failed")]).toBe(1);
        expect(x[warcSkippedCounter("wet_file")]).toBe(1);
        expect(x[warcSkippedCounter("path_outside_base")]).toBe(1);
        expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/WARC files read over HTTP\(S\) from paths lists: 0 resumed reads, 0 answers that ignored Range, 1 file given up/);
      }
      if (mode === "drop") expect(x[warcCounter("http.retries")]).toBeGreaterThan(10);
      if (mode === "norange") expect(x[warcCounter("http.range_ignored")]).toBeGreaterThan(0);
    });
  }

  it("the CLI: paracap run --input warc.paths.gz --warc-base-url <url>", async () => {
    const dir = tempDir("paracap-paths-cli-");
    writeFileSync(join(dir, "warc.paths.gz"), gzipSync(CRAWLS.join("\n") + "\n"));
    const out = join(dir, "out");
    writeFileSync(join(dir, "config.json"), JSON.stringify({ extraction: { templateImages: false } }));
    const r = await runCli(["run", "--input", join(dir, "warc.paths.gz"), "--warc-base-url", servers.get("range")!.base, "--config", join(dir, "config.json"), "--tiers", "gold,silver", "--partitions", String(PARTITIONS), "--out", out, "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(datasets(out)).toEqual(reference);
    expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8")).extraction.warcBaseUrl).toBe(servers.get("range")!.base);
  });
});

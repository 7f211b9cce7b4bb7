/**
 * A WARC read with damage is reported as a dump with damaged bz2 blocks is: every sound record is
 * read and used, and the shard is listed as damaged (stats.json shards.corrupt, complete: false,
 * report.md "incomplete"), instead of passing for a whole read. The same for a file of a paths list
 * that could not be fetched (404): its shard is damaged, the rest of the run goes on.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ParacapConfigInput } from "../../shared/core/config.ts";
import { BUILTIN_SOURCE_LIST, sourceRegistry } from "../../shared/sources/registry.ts";
import { pathsSource } from "../../shared/sources/warc/warc-paths-source.ts";
import { readOutputs, readStats, removeTempDirs, run, tempDir } from "../runner/helpers.ts";
import { serveCrawl, type CrawlServer } from "./warc-http-server.ts";

afterAll(removeTempDirs);

const WARC = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const FAST: ParacapConfigInput = { tiers: ["gold", "silver"], scoring: { scorers: ["syntactic"] } };

let server: CrawlServer;
beforeAll(async () => {
  server = await serveCrawl(WARC, "range");
});
afterAll(async () => {
  await server.close();
});

describe("damaged WARC shards", () => {
  it("a .warc.gz cut inside its last record: the records before it are used, the shard is damaged, the run incomplete", async () => {
    const dir = tempDir();
    const cut = join(dir, "dolma-cut.warc.gz");
    writeFileSync(cut, readFileSync(`${WARC}dolma-sample-0000.warc.gz`).subarray(0, 100_000));
    const out = join(dir, "out");
    await run(out, [{ path: cut, kind: "current" }], FAST, { workers: 1 });
    const stats = readStats(out);
    expect(stats.extraction["warc.documents"]).toBe(13);
    // (173 with the page template's images: avatars, icons, logos shown twice on a page; one nearby text
    // shared; one image's only text was a screen reader's, hidden-text.ts)
    expect(stats.extraction["extract.current.references"]).toBe(48);
    expect(stats.shards.ok).toBe(0);
    expect(stats.shards.corrupt).toHaveLength(1);
    expect(stats.shards.corrupt[0]).toMatchObject({ file: cut, offset: null });
    expect(stats.shards.corrupt[0]!.error).toMatch(/: 1 damaged WARC record skipped \(the first at file byte \d+: gzip\): its pages are lost, the rest was read$/);
    expect(stats.complete).toBe(false);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("**The run is incomplete**");
  });

  it("an intact WARC stays a whole read", async () => {
    const out = join(tempDir(), "out");
    await run(out, [{ path: `${WARC}commoncrawl-whirlwind.warc.gz`, kind: "current" }], FAST, { workers: 1 });
    const stats = readStats(out);
    expect(stats.shards).toEqual({ total: 1, ok: 1, corrupt: [], missing: [] });
    expect(stats.complete).toBe(true);
  });

  it("a paths list with a file the server does not have: that shard is damaged, the other file's pages are used", async () => {
    const dir = tempDir();
    const list = join(dir, "warc.paths");
    writeFileSync(list, "crawl/commoncrawl-whirlwind.warc.gz\ncrawl/gone.warc.gz\n");
    const sources = sourceRegistry([], BUILTIN_SOURCE_LIST.map((s) => (s.name === "warc-paths" ? pathsSource({ http: { backoffMs: 5 } }) : s)));
    const out = join(dir, "out");
    await run(out, [{ path: list, kind: "current" }], { ...FAST, extraction: { warcBaseUrl: server.base.replace(/crawl\/$/, "") } }, { workers: 1, sources });
    const stats = readStats(out);
    expect(stats.extraction["warc.documents"]).toBe(1);
    expect(stats.extraction["warc.skipped.http_failed"]).toBe(1);
    expect(stats.shards.ok).toBe(1);
    expect(stats.shards.corrupt).toHaveLength(1);
    const gone = `${server.base}gone.warc.gz`;
    expect(stats.shards.corrupt[0]).toMatchObject({ file: gone, offset: null });
    expect(stats.shards.corrupt[0]!.error).toBe(`${gone}: given up at byte 0: HTTP 404 Not Found`);
    expect(stats.complete).toBe(false);
  });

  it("a file the server did not have is fetched again by a rerun once it is there, to the outputs of a run that had it; damage in an input is final", async () => {
    const served = tempDir();
    copyFileSync(join(WARC, "commoncrawl-whirlwind.warc.gz"), join(served, "commoncrawl-whirlwind.warc.gz"));
    const late = await serveCrawl(served, "range");
    try {
      const dir = tempDir();
      const list = join(dir, "warc.paths");
      writeFileSync(list, "crawl/commoncrawl-whirlwind.warc.gz\ncrawl/late.warc.gz\n");
      const sources = sourceRegistry([], BUILTIN_SOURCE_LIST.map((s) => (s.name === "warc-paths" ? pathsSource({ http: { backoffMs: 5 } }) : s)));
      const config = { ...FAST, extraction: { warcBaseUrl: late.base.replace(/crawl\/$/, "") } };
      const out = join(dir, "out");
      await run(out, [{ path: list, kind: "current" }], config, { workers: 1, sources });
      expect(readStats(out).complete).toBe(false);
      copyFileSync(join(WARC, "dolma-sample-0000.warc.gz"), join(served, "late.warc.gz"));
      const again = await run(out, [{ path: list, kind: "current" }], config, { workers: 1, sources });
      expect(again.alreadyComplete).toBeFalsy();
      const stats = readStats(out);
      expect(stats.complete).toBe(true);
      const fresh = join(tempDir(), "out");
      await run(fresh, [{ path: list, kind: "current" }], config, { workers: 1, sources });
      const sameAs = (o: Record<string, string>) => ({ ...o, "stats.json": undefined, "report.md": undefined, "report.html": undefined });
      expect(sameAs(readOutputs(out))).toEqual(sameAs(readOutputs(fresh)));
      expect(stats.tiers).toEqual(readStats(fresh).tiers);
      expect(stats.extraction).toEqual(readStats(fresh).extraction);
      expect(stats.extraction["warc.documents"]).toBeGreaterThan(1);
      // the finished run is not redone; nor is one whose damage is the input's own (a cut file)
      expect((await run(out, [{ path: list, kind: "current" }], config, { workers: 1, sources })).alreadyComplete).toBe(true);
      const cut = join(dir, "dolma-cut.warc.gz");
      writeFileSync(cut, readFileSync(`${WARC}dolma-sample-0000.warc.gz`).subarray(0, 100_000));
      const cutOut = join(dir, "cut-out");
      await run(cutOut, [{ path: cut, kind: "current" }], FAST, { workers: 1 });
      expect(readStats(cutOut).complete).toBe(false);
      expect((await run(cutOut, [{ path: cut, kind: "current" }], FAST, { workers: 1 })).alreadyComplete).toBe(true);
    } finally {
      await late.close();
    }
  });
});

/**
 * Image revisit records in a pixel run: a revisit (a capture that repeats an earlier payload) of an
 * image response gets that response's bytes under its own URL, found by WARC-Refers-To, by
 * Refers-To-Target-URI + Date, or by an equal WARC-Payload-Digest; a revisit whose original the shard
 * never read is counted unresolved. The WARC is built here, record by record as warcio writes them,
 * around the real test photo (test/fixtures/data/images); captions invented here.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { ScoredPair } from "../../shared/core/records.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { PARTITIONS } from "../cloud/helpers.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { REVISIT_USES, revisitCrawlRecords } from "../web/warc/revisit-crawl.ts";

afterAll(removeTempDirs);

describe("WARC image revisits in a pixel run", () => {
  it("three revisits of the photo (by record id, by URI and date, by payload digest) join its pixels; one of an unread capture is counted unresolved", async () => {
    const dir = tempDir("paracap-warc-revisit-");
    const records = revisitCrawlRecords({ untyped: false });
    writeFileSync(join(dir, "crawl.warc"), Buffer.concat(records));
    const run = await runLocal({ inputs: [{ path: join(dir, "crawl.warc"), kind: "current" }], outDir: join(dir, "out"), config: resolveConfig({ partitions: PARTITIONS, tiers: ["silver"], pivot: "md5" }), workers: 1, progress: null });
    const c = run.stats.counters;
    expect(c["warc.records.revisit"]).toBe(4);
    expect(c["warc.image_revisits"]).toBe(4);
    expect(c["warc.image_revisits.resolved"]).toBe(3);
    expect(c["warc.image_revisits.unresolved"]).toBe(1);
    // the original and the three resolved revisits carry the photo's bytes
    expect(c["pixel_identity.images"]).toBe(4);
    expect(c["pixel_identity.decoded"]).toBe(4);
    const row = run.stats.tiers.silver!.funnel.find((r) => r.id === "image_pixels_thesis_v1")!;
    expect(row.filter).toMatchObject({ in: 5, kept: 4, dropped: 1, reasons: { no_image: 1 } });
    const pairs = readFileSync(join(dir, "out", "silver.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => ScoredPair.parse(JSON.parse(l)));
    expect(pairs.length).toBeGreaterThan(0);
    const photoCaptions = new Set(REVISIT_USES.slice(0, 4).map((u) => u.caption));
    for (const p of pairs) {
      expect(p.image).toMatch(/^md5:/);
      expect(photoCaptions.has(p.a.text) && photoCaptions.has(p.b.text)).toBe(true);
    }
    // a revisit joined a page's caption: some pair has a side that names a revisited URL's page
    expect(pairs.some((p) => [p.a.page, p.b.page].some((pg) => /page-[123]\.html$/.test(pg)))).toBe(true);
  });
});

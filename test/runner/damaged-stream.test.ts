/**
 * A multistream dump with one damaged bz2 stream header: lbzip2 reads it as trailing garbage and exits 0, so only the
 * index's page counts reveal the loss. The run must say it is incomplete and count the lost pages, not call it whole.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readMultistreamIndex, writeMultistream } from "../../shared/dump/multistream.ts";
import { readStats, removeTempDirs, run, SAMPLE_CURRENT, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

describe("a damaged stream inside a multistream shard", () => {
  it("is a damaged shard with its lost pages counted; read + missing = the pages the index lists", async () => {
    const dir = tempDir("paracap-damaged-stream-");
    const dump = join(dir, "enwiki-test-pages-articles-multistream.xml.bz2");
    const { indexPath } = await writeMultistream(SAMPLE_CURRENT, dump, { pagesPerStream: 10 });
    const { offsets, pagesAt } = await readMultistreamIndex(indexPath);
    const total = [...pagesAt.values()].reduce((a, b) => a + b, 0);
    const hit = offsets[Math.floor(offsets.length / 2)]!;
    const bytes = readFileSync(dump);
    bytes[hit + 1] = "X".charCodeAt(0); // "BZh" → "BXh"
    writeFileSync(dump, bytes);

    const out = join(dir, "out");
    await run(out, [{ path: dump, kind: "current" }], { tiers: ["gold", "silver"], dump: { decoder: "system" } }, { shardBytes: Math.ceil(bytes.length / 4) });
    const stats = readStats(out);
    expect(stats.complete).toBe(false);
    expect(stats.counters["extract.shards.corrupt"]).toBe(1);
    // lbzip2 stops at the damaged header: that stream's pages and those of the shard's later streams are lost
    expect(stats.counters["dump.damage.pages_missing"]).toBeGreaterThanOrEqual(pagesAt.get(hit)!);
    expect(stats.counters["dump.pages"]! + stats.counters["dump.damage.pages_missing"]!).toBe(total);
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/the multistream index lists \d+ pages here, \d+ were read whole/);
  });
});

/**
 * A multistream dump with one damaged bz2 stream header: lbzip2 reads it as trailing garbage and exits 0 without a
 * word, dropping every stream after it. The streams' layout, checked after the binary (shared/dump/bz2-tail.ts),
 * finds it: the block decoder skips the 4 damaged bytes and reads on, so no page is lost, and the run still says
 * the shard was damaged and the run incomplete, not whole.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readMultistreamIndex, writeMultistream } from "../../shared/dump/multistream.ts";
import { readStats, removeTempDirs, run, SAMPLE_CURRENT, tempDir } from "./helpers.ts";

afterAll(removeTempDirs);

describe("a damaged stream inside a multistream shard", () => {
  it("is a damaged shard whose damaged bytes are counted and whose pages are all read", async () => {
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
    expect(stats.counters["dump.damaged_bytes"]).toBe(4);
    expect(stats.counters["dump.damage.pages_missing"] ?? 0).toBe(0);
    expect(stats.counters["dump.pages"]).toBe(total);
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/4 damaged compressed bytes skipped/);
  });
});

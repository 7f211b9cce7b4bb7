/**
 * Pairs per image are quadratic in its uses: the group stage streams them and keeps at most
 * MAX_PAIRS_PER_IMAGE of an image and caption type (a deterministic sample by a hash of the two
 * sides), counting the rest as a drop reason of the funnel's first pair row. A raised
 * images.maxRefs then costs time, not memory; images under the cap pair exactly as before.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import type { CandidatePair, ShuffleRef } from "../../shared/core/records.ts";
import { silentContext } from "../../shared/core/stage.ts";
import { groupStage, MAX_PAIRS_PER_IMAGE } from "../../shared/pipeline/group-stage.ts";
import { readPairs, removeTempDirs, run, tempDir } from "../runner/helpers.ts";
import { reconcile } from "./reconcile.ts";
import { collect, features, from } from "./stage-helpers.ts";

afterAll(removeTempDirs);

const ROOT = new URL("../../", import.meta.url).pathname;
const base = features("The old bridge at Mostar was rebuilt in 2004 after the war");

function uses(n: number): ShuffleRef[] {
  return Array.from({ length: n }, (_, i) => ({
    image: "File:Stari Most.jpg", kind: "current" as const, page: `Page ${i}`, pageId: i + 1, revisionId: 1000 + i, ordinal: 0, source: "link" as const, uses: 1,
    caption: { ...base, text: `${base.text} number ${i}` }, alt: null,
  }));
}

async function pairs(refs: ShuffleRef[], cap?: number): Promise<{ pairs: CandidatePair[]; counters: Counters }> {
  const counters = new Counters();
  const config = resolveConfig({ tiers: ["silver"], images: { maxRefs: 100_000 } });
  return { pairs: await collect(groupStage(config, { maxPairsPerImage: cap }).run(from(refs), silentContext(counters))), counters };
}

describe("pairs per image", () => {
  it("one image on 5,000 pages with maxRefs raised: 20,000 pairs kept, 12,477,500 counted, under a 512 MB heap (it used to need 4.5 GB)", () => {
    const out = execFileSync(process.execPath, ["--max-old-space-size=512", "--import", "tsx", "test/pipeline/fixtures/many-uses.ts", "5000"], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 20 });
    const got = JSON.parse(out) as { pairs: number; capped: number; peakRssMb: number };
    expect(got.pairs).toBe(MAX_PAIRS_PER_IMAGE);
    expect(got.capped).toBe((5000 * 4999) / 2 - MAX_PAIRS_PER_IMAGE);
    expect(got.peakRssMb).toBeLessThan(1024);
  });

  it("under the cap every pair, in (i, j) order; over it a sample that does not depend on the order of the uses", async () => {
    const refs = uses(60); // 1,770 pairs
    const all = await pairs(refs);
    expect(all.pairs).toHaveLength(1770);
    expect(all.counters.get("group.silver.pairs_capped")).toBe(0);
    const capped = await pairs(refs, 500);
    expect(capped.pairs).toHaveLength(500);
    expect(capped.counters.get("group.silver.pairs_capped")).toBe(1270);
    expect(capped.counters.samples.get("group.silver.pairs_capped")).toEqual(["File:Stari Most.jpg (caption): 60 uses, 1770 pairs, 500 kept"]);
    // a subset of the full list, in its order
    const ids = all.pairs.map((p) => p.id);
    const positions = capped.pairs.map((p) => ids.indexOf(p.id));
    expect(positions.every((x) => x >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // the same sample from the uses in another order
    const reversed = await pairs([...refs].reverse(), 500);
    expect(new Set(reversed.pairs.map((p) => p.id))).toEqual(new Set(capped.pairs.map((p) => p.id)));
  });

  it("a whole run: the capped pairs are a drop reason of the first pair row, and the funnel reconciles", async () => {
    const n = 205; // 20,910 pairs: 910 over the cap
    const pages = Array.from({ length: n }, (_, i) =>
      `<page><title>Page ${i}</title><ns>0</ns><id>${i + 1}</id><revision><id>${1000 + i}</id><text xml:space="preserve">[[File:Stari Most.jpg|thumb|The old bridge at Mostar was rebuilt in ${1000 + i} after war number ${i}.]]</text></revision></page>`);
    const dir = tempDir("paracap-pair-cap-");
    const file = join(dir, "cap-pages-articles.xml");
    writeFileSync(file, `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">${pages.join("\n")}</mediawiki>\n`);
    const out = join(dir, "out");
    const { stats } = await run(out, [{ path: file, kind: "current" }], { tiers: ["silver"], images: { maxRefs: 1000 }, pairs: { dropSpellingFixes: false } });
    const funnel = stats.tiers.silver!.funnel;
    const first = funnel.find((r) => r.unit === "pairs")!;
    expect(first.filter!.reasons.pairs_per_image_cap).toBe((n * (n - 1)) / 2 - MAX_PAIRS_PER_IMAGE);
    expect(first.filter!.in).toBe((n * (n - 1)) / 2);
    expect(reconcile(stats, { silver: readPairs(out, "silver").length })).toEqual([]);
  });
});

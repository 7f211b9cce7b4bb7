/**
 * Conceptual Captions through the whole local pipeline: the same stages, filters and funnel as
 * Wikipedia, with lines as documents and normalised image URLs as the pivot.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_SOURCES } from "../../shared/sources/registry.ts";
import { planLocalShards } from "../../shared/runner/local-shards.ts";
import { recordsOf } from "../../shared/sources/caption-tsv/csv-records.ts";
import { reconcile } from "../pipeline/reconcile.ts";
import { DATA, readOutputs, readPairs, readStats, removeTempDirs, run, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const CC = join(DATA, "conceptual-captions/gcc-validation-lines00001-00500.tsv");
/** Real CC lines whose URLs were regrouped by the captions' first three words (see that folder's PROVENANCE.md). */
const CC_SHARED = join(DATA, "conceptual-captions/gcc-validation-lines00001-02000-shared-urls.tsv");
/** The same 2,000 lines as zstd parquet in eight row groups (make-parquet.py in that folder). */
const CC_SHARED_PARQUET = join(DATA, "conceptual-captions/gcc-validation-lines00001-02000-shared-urls.zstd.parquet");
/** The 7,900 real validation lines of shared/data (PROVENANCE.md there). */
const CC_PART1 = join(DATA, "../../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv");
const realLines = readFileSync(CC, "utf8").split("\n").filter((l) => l.length > 0);
const captions = realLines.map((l) => l.split("\t")[0]!);

/**
 * Real CC captions, regrouped under shared URLs (the validation split has one caption per URL): four
 * images with 2 captions each and one "placeholder" with 8 (within the ≤ 10 references rule), plus singletons, plus damaged lines.
 */
function regrouped(): string {
  const out: string[] = [];
  let i = 0;
  const take = (url: string, n: number) => {
    for (let k = 0; k < n; k++) out.push(`${captions[i++]}\t${url}`);
  };
  for (let img = 0; img < 4; img++) take(`https://images.example.org/photo-${img}.jpg`, 2);
  take("http://images.example.org/not-available.png", 8);
  // two spellings of one address are one image
  out.push(`${captions[i++]}\tHTTPS://Images.Example.org:443/a/../photo-0.jpg`);
  for (let k = 0; k < 20; k++) take(`https://images.example.org/single-${k}.jpg`, 1);
  out.push("a line without a tab");
  out.push(`${captions[i++]}\tnot a url`);
  out.push(`\thttps://images.example.org/no-caption.jpg`);
  return out.join("\n") + "\n";
}

describe("caption TSV source (Conceptual Captions)", () => {
  it("is detected by name or by content; XML dumps are not", () => {
    expect(BUILTIN_SOURCES.detect("gcc.tsv", Buffer.from(realLines[0]!))?.name).toBe("caption-tsv");
    expect(BUILTIN_SOURCES.detect("captions.txt", Buffer.from(realLines[0]! + "\n"))?.name).toBe("caption-tsv");
    expect(BUILTIN_SOURCES.detect("x.xml", Buffer.from("<mediawiki xmlns="))?.name).toBe("mediawiki");
    expect(BUILTIN_SOURCES.detect("x.xml.bz2", Buffer.from("BZh91AY&SY"))?.name).toBe("mediawiki");
  });

  it("the real validation lines run through every stage; no URL is shared, so no pairs, and the funnel reconciles", async () => {
    const out = tempDir();
    await run(out, [{ path: CC, kind: "current" }], { tiers: ["gold", "silver"] });
    const stats = readStats(out);
    expect(stats.counters["tsv.lines"]).toBe(500);
    expect(stats.counters["extract.current.references.row"]).toBe(500);
    expect(stats.tiers.silver!.funnel[0]!.images).toBe(500);
    expect(stats.tiers.silver!.funnel[0]!.images_ge2).toBe(0);
    expect(stats.tiers.silver!.pairs).toBe(0);
    expect(reconcile(stats)).toEqual([]);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("500 caption lines read = 500 used.");
  });

  it("pairs captions of one image URL, drops oversized sets by ⌊μ + z·σ⌋, counts damaged lines; shards do not change the result", async () => {
    const dir = tempDir();
    const file = join(dir, "regrouped.tsv");
    writeFileSync(file, regrouped());
    const whole = join(dir, "whole");
    const sharded = join(dir, "sharded");
    await run(whole, [{ path: file, kind: "current" }], { tiers: ["silver"], captions: { minWords: 3 } });
    await run(sharded, [{ path: file, kind: "current" }], { tiers: ["silver"], captions: { minWords: 3 } }, { shardBytes: 700 });
    const stats = readStats(whole);
    expect(stats.shards.total).toBe(1);
    expect(readStats(sharded).shards.total).toBeGreaterThan(3);
    expect(reconcile(stats)).toEqual([]);
    expect(reconcile(readStats(sharded))).toEqual([]);
    // the reports and the dataset card describe the run (its shard count); the datasets must not differ
    const { ["report.md"]: _a, ["report.html"]: _h1, ["README.md"]: _c1, ["stats.json"]: statsWhole, _SUCCESS: _s1, ...datasetsWhole } = readOutputs(whole);
    const { ["report.md"]: _b, ["report.html"]: _h2, ["README.md"]: _c2, ["stats.json"]: statsSharded, _SUCCESS: _s2, ...datasetsSharded } = readOutputs(sharded);
    expect(datasetsSharded).toEqual(datasetsWhole);
    expect(JSON.parse(statsSharded!).tiers).toEqual(JSON.parse(statsWhole!).tiers);

    // damaged lines: counted, never silently lost
    expect(stats.counters["tsv.skipped.malformed_line"]).toBe(1);
    expect(stats.counters["tsv.skipped.empty_caption"]).toBe(1);
    expect(stats.counters["extract.current.revisions.skipped.invalid_url"]).toBe(1);
    // sets ≥ 2: sizes 3 (photo-0 with its second spelling), 2, 2, 2, 8 → μ = 3.4, σ ≈ 2.33 → bound ⌊3.52⌋ = 3
    const row = stats.tiers.silver!.funnel.find((r) => r.id === "set_size_bound_v1")!;
    expect(row.label).toContain("≤ 3");
    const pairs = readPairs(whole, "silver");
    expect(pairs.length).toBeGreaterThan(0);
    expect(pairs.every((p) => p.image.includes("/photo-"))).toBe(true);
    expect(row.filter!.reasons.set_too_large).toBeGreaterThan(0);
    // the second spelling of photo-0 joined its set: 3 + 2 + 2 + 2 + 8
    expect(stats.counters["group.web.sets"]).toBe(5);
    expect(stats.counters["group.web.sets.sum"]).toBe(17);
  });

  it("real captions sharing URLs (derived fixture): sets of 2–20 captions, the ⌊μ + 0.05·σ⌋ = 3 bound, pair filters at work; the funnel reconciles", async () => {
    const out = tempDir();
    await run(out, [{ path: CC_SHARED, kind: "current" }], { tiers: ["gold", "silver"] });
    const stats = readStats(out);
    expect(reconcile(stats, { gold: readPairs(out, "gold").length, silver: readPairs(out, "silver").length })).toEqual([]);
    // 2,000 lines, 1,855 URLs, 68 of them shared by 213 lines (μ = 3.13, σ = 2.74)
    expect(stats.counters["tsv.lines"]).toBe(2000);
    expect(stats.counters["group.web.images"]).toBe(1855);
    expect(stats.counters["group.web.sets"]).toBe(68);
    expect(stats.counters["group.web.sets.sum"]).toBe(213);
    const silver = stats.tiers.silver!.funnel;
    const row = (id: string) => silver.find((r) => r.id === id)!;
    expect(silver[0]).toMatchObject({ images: 1855, images_ge2: 68, references: 2000 });
    // the 20-caption set is over the ≤ 10 references rule
    expect(row("max_refs_v1").filter!.reasons).toEqual({ too_many_references: 20 });
    expect(row("set_size_bound_v1").label).toContain("≤ 3");
    expect(row("set_size_bound_v1").filter).toMatchObject({ in: 68, kept: 26, reasons: { set_too_large: 42 } });
    expect(row("divergent_v1").filter!.reasons).toEqual({ equal_ignoring_case: 1 });
    expect(stats.tiers.silver!.pairs).toBe(25);
    expect(stats.tiers.gold!.pairs).toBe(12);
    // every pair is of one shared URL whose set is within the bound
    for (const p of readPairs(out, "silver")) expect(p.image).toMatch(/^https?:\/\//);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("2,000 caption lines read = 2,000 used.");
  });

  it("the same lines as parquet of eight row groups, cut into shards between them: every dataset byte and counter of the file read as one shard", async () => {
    const whole = tempDir();
    const split = tempDir();
    await run(whole, [{ path: CC_SHARED_PARQUET, kind: "current" }], { tiers: ["gold", "silver"] });
    await run(split, [{ path: CC_SHARED_PARQUET, kind: "current" }], { tiers: ["gold", "silver"] }, { shardBytes: 30_000 });
    const [a, b] = [readStats(whole), readStats(split)];
    expect([a.shards.total, b.shards.total]).toEqual([1, 4]);
    expectSameAsWhole(whole, split, 4);
    expect(b.tiers).toEqual(a.tiers);
    expect(b.extraction_examples).toEqual(a.extraction_examples);
    // the rows are the TSV's lines: the same sets and pairs as the TSV run above
    expect(a.counters["tsv.lines"]).toBe(2000);
    expect(a.counters["group.web.sets.sum"]).toBe(213);
    expect([a.tiers.silver!.pairs, a.tiers.gold!.pairs]).toEqual([25, 12]);
    expect(reconcile(b, { gold: readPairs(split, "gold").length, silver: readPairs(split, "silver").length })).toEqual([]);
  });

  it("a CSV (quoted line breaks, doubled quotes, commas, quoted lines that look like records, a quote never closed) cut into shards at record starts: every dataset byte and counter of the file read as one shard", async () => {
    // 2,000 real lines, URLs shared by captions opening with the same three words (as the derived fixture above)
    const firstUrl = new Map<string, string>();
    const rows = readFileSync(CC_PART1, "utf8").split("\n").filter(Boolean).slice(0, 2000).map((l) => {
      const [caption, url] = l.split("\t") as [string, string];
      const key = caption.split(" ").slice(0, 3).join(" ");
      if (!firstUrl.has(key)) firstUrl.set(key, url);
      return [caption, firstUrl.get(key)!] as const;
    });
    const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
    const body = rows.map(([caption, url], i) => {
      if (i % 13 === 1) return `${url},${q(`${caption}\n"http://x/y.jpg","a caption"`)}\n`;
      if (i % 13 === 4) return `${q(url)},${q(`${caption}, then\nhttp://x/y.jpg,a caption`)}\n`;
      if (i % 13 === 7) return `${url},${q(`"${caption}", she said`)}\r\n`;
      if (i % 13 === 9) return `${url},the 5" ${caption.replace(/,/g, " ")}\n`; // a quote inside an unquoted field is a character
      return `${url},${caption.includes(",") ? q(caption) : caption}\n`;
    });
    // a quote never closed, two lines (without quotes) from the end: that record is dropped, the lines after it read
    body.push(`${rows[0]![1]},"${rows[0]![0]} never closed\n`, ...rows.slice(1, 3).map(([caption, url]) => `${url},${caption.replace(/[",]/g, " ")}\n`));
    const file = join(tempDir(), "captions.csv");
    writeFileSync(file, "image_url,caption\n" + body.join(""));
    // shards of the bytes up to a line break inside a quoted field, the next line a record of its own to the eye
    const bytes = readFileSync(file);
    const trap = bytes.indexOf(", then\nhttp://x/y.jpg,a caption", 80_000) + ", then".length;
    const whole = tempDir();
    const split = tempDir();
    await run(whole, [{ path: file, kind: "current" }], { tiers: ["gold", "silver"] });
    await run(split, [{ path: file, kind: "current" }], { tiers: ["gold", "silver"] }, { shardBytes: trap });
    const [a, b] = [readStats(whole), readStats(split)];
    expect(a.shards.total).toBe(1);
    expect(b.shards.total).toBeGreaterThanOrEqual(3);
    // every cut is a record start of the file read whole; the first is past the record holding the trap, not in it
    const starts = new Set(recordsOf(bytes, true).map((r) => r.offset));
    const cuts = (await planLocalShards([{ path: file, kind: "current" }], trap)).slice(1).map((s) => s.start!);
    for (const cut of cuts) expect(starts.has(cut), `cut at ${cut}`).toBe(true);
    expect(starts.has(trap + 1)).toBe(false);
    expect(cuts[0]).toBe(bytes.indexOf("\n", trap + 1) + 1);
    expectSameAsWhole(whole, split, b.shards.total);
    expect(b.tiers).toEqual(a.tiers);
    expect(b.extraction_examples).toEqual(a.extraction_examples);
    expect(a.counters["tsv.lines"]).toBe(2003);
    expect(a.counters["tsv.header"]).toBe(1);
    expect(a.counters["tsv.skipped.unterminated_quote"]).toBe(1);
    expect(a.tiers.silver!.pairs).toBeGreaterThan(0);
    expect(reconcile(b, { gold: readPairs(split, "gold").length, silver: readPairs(split, "silver").length })).toEqual([]);
  });
});

/**
 * A run read in `shards` shards (`split`) against the same input read whole: the report, the dataset
 * card and _SUCCESS's plan fingerprint say how many shards; every dataset is the same bytes, every
 * counter but the shard count the same.
 */
function expectSameAsWhole(whole: string, split: string, shards: number): void {
  const { ["report.md"]: _r1, ["report.html"]: _h1, ["README.md"]: _c1, ["stats.json"]: _s1, _SUCCESS: _u1, ...wholeOutputs } = readOutputs(whole);
  const { ["report.md"]: _r2, ["report.html"]: _h2, ["README.md"]: _c2, ["stats.json"]: _s2, _SUCCESS: _u2, ...splitOutputs } = readOutputs(split);
  expect(Object.keys(wholeOutputs).sort()).toEqual(["config.json", "gold.jsonl", "gold.parquet", "silver.jsonl", "silver.parquet"]);
  expect(splitOutputs).toEqual(wholeOutputs);
  const { ["extract.shards"]: shardsA, ...countersA } = readStats(whole).counters;
  const { ["extract.shards"]: shardsB, ...countersB } = readStats(split).counters;
  expect([shardsA, shardsB]).toEqual([1, shards]);
  expect(countersB).toEqual(countersA);
}

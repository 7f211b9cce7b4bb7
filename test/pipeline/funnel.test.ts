/**
 * Funnel reconciliation (docs/method.md Table 3): on real dumps, every filter row's in = kept + dropped, its
 * drop reasons sum to dropped, its input is what the row above left, row 0 equals the extraction
 * counters, and every revision and shard read is accounted for.
 */
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { defineFilter } from "../../shared/core/filter.ts";
import { tierFilters } from "../../shared/pipeline/filters.ts";
import { funnelRows, funnelRowsOf } from "../../shared/pipeline/funnel.ts";
import { tierSpecs } from "../../shared/pipeline/tiers.ts";
import type { Stats } from "../../shared/output/stats.ts";
import { DATA, readPairs, readStats, run, tempDir, removeTempDirs } from "../runner/helpers.ts";
import { reconcile } from "./reconcile.ts";
import { sampleRun } from "../support/sample-run.ts";

afterAll(removeTempDirs);

const lines = (dir: string, stats: Stats) => Object.fromEntries(Object.keys(stats.tiers).map((t) => [t, readPairs(dir, t).length]));

describe("funnel rows", () => {
  it("follow Table 3 in order, one row per filter, caption filters grouped under steps 3–5", () => {
    const config = resolveConfig({ captions: { englishOnly: true } });
    const [gold, , bronze] = tierSpecs(config);
    const rows = funnelRows(config, gold!);
    expect(rows.map((r) => [r.paperStep, r.id, r.unit])).toEqual([
      [0, "all", null],
      [0, "not_audio_v1", "references"],
      [1, "min_refs_v1", "references"],
      [2, "max_refs_v1", "references"],
      [3, "has_caption_v1", "references"],
      [3, "non_empty_v1", "captions"],
      [3, "readable_v1", "captions"],
      [3, "rendered_v1", "captions"],
      [4, "min_words_v1", "captions"],
      [4, "max_words_v1", "captions"],
      [4, "not_profane_v1", "captions"],
      [4, "english_v1", "captions"],
      [5, "is_sentence_improved_v2", "captions"],
      [6, "image_captioned_refs_v1", "references"],
      [7, "unique_v1", "pairs"],
      [8, "divergent_v1", "pairs"],
      [9, "significant_difference_v1", "pairs"],
      [9, "not_spelling_fix_v1", "pairs"],
    ]);
    expect(rows[3]!.label).toBe("image referenced ≤ 10 times");
    // bronze's bound counts distinct uses by default, every revision's reference under the paper preset
    expect(funnelRows(config, bronze!)[3]!.id).toBe("max_uses_v1");
    expect(funnelRows(config, bronze!)[3]!.label).toMatch(/^image has ≤ 180 distinct uses/);
    const paper = resolveConfig({ preset: "paper" });
    expect(funnelRows(paper, tierSpecs(paper)[2]!).map((r) => r.id)).toEqual([
      "all", "min_refs_v1", "max_refs_v1", "has_caption_v1", "non_empty_v1", "readable_v1", "min_words_v1", "max_words_v1", "not_profane_v1",
      "has_verb_v1", "image_captioned_refs_v1", "unique_v1", "divergent_v1", "significant_difference_v1",
    ]);
    expect(funnelRows(paper, tierSpecs(paper)[2]!)[2]!.label).toBe("image referenced ≤ 180 times");
    expect(funnelRows(resolveConfig({ captions: { minWords: 10 } }), gold!)[8]!.label).toBe("caption has ≥ 10 words");
    expect(funnelRows(resolveConfig({ images: { skipAudio: false } }), gold!).map((r) => r.id)).not.toContain("not_audio_v1");
  });
});

describe("funnel rows from filter metadata", () => {
  it("a row's step and unit are its filter's own; a filter not in the paper sits in the step above it", () => {
    const config = resolveConfig();
    const silver = tierSpecs(config)[1]!;
    const rows = funnelRows(config, silver, { setSizeMax: 4 });
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    // ours: not_audio (row 0's step), readable and rendered (step 3), max_words (4), the thesis's set bound (6), spelling fix (9)
    expect(rows.filter((r) => r.inPaper === false).map((r) => [r.id, r.paperStep])).toEqual([
      ["not_audio_v1", 0], ["readable_v1", 3], ["rendered_v1", 3], ["max_words_v1", 4], ["set_size_bound_v1", 6], ["not_spelling_fix_v1", 9],
    ]);
    expect(byId["all"]!.inPaper).toBeNull();
    expect(byId["set_size_bound_v1"]!.unit).toBe("pairs");
    expect(byId["has_caption_v1"]!.unit).toBe("references");

    // a new filter placed by its metadata alone, no funnel edit: a caption filter of our own after step 5
    const filters = tierFilters(config, silver);
    const extra = defineFilter<unknown>({ name: "toy_rule", version: 3, paperStep: null, unit: "caption", description: "a toy rule", keep: () => true });
    const withExtra = funnelRowsOf({ ...filters, caption: [...filters.caption, extra] });
    const row = withExtra.find((r) => r.id === "toy_rule_v3")!;
    expect(row).toEqual({ id: "toy_rule_v3", label: "a toy rule", paperStep: 5, inPaper: false, unit: "captions" });
    expect(withExtra[withExtra.indexOf(row) + 1]!.id).toBe("image_captioned_refs_v1");
  });
});

describe("reconciliation on real dumps", () => {
  it("holds on the embedded sample", async () => {
    const out = await sampleRun();
    const stats = readStats(out);
    expect(reconcile(stats, lines(out, stats))).toEqual([]);
  });

  it("holds on five other real dumps: two Anarchism history excerpts (700 revisions), table-heavy articles, export-0.9 and the dumpster-dive fixture", async () => {
    const out = tempDir("paracap-rec-");
    await run(out, [
      { path: `${DATA}wikipedia-history/enwiki-Anarchism-history-rev02900-03299.xml.bz2`, kind: "history" },
      { path: `${DATA}wikipedia-history/enwiki-Anarchism-history-rev00000-00299.xml.bz2`, kind: "history" },
      { path: `${DATA}wikipedia/enwiki-table-markup.xml.bz2`, kind: "current" },
      { path: `${DATA}wikipedia/wikipedia2vec-enwiki-pages-articles-sample.xml.bz2`, kind: "current" },
      { path: `${DATA}wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml`, kind: "current" },
    ]);
    const stats = readStats(out);
    expect(reconcile(stats, lines(out, stats))).toEqual([]);
    // 400 + 300 + 5 + 3 + 8 revisions, every one read
    expect(stats.counters["dump.revisions"]).toBe(716);
    expect(stats.shards.ok).toBe(5);
    // the history funnel is not trivial: the caption filters bite; the ≤ 180 distinct-uses bound keeps
    // every image here, where the paper's rule (every revision a reference) drops some
    const bronze = stats.tiers.bronze!.funnel;
    expect(bronze[0]!.references).toBe(2814);
    expect(bronze[3]!.id).toBe("max_uses_v1");
    expect(stats.counters["filter.bronze.max_uses_v1.paper_rule_dropped"]).toBeGreaterThan(0);
    expect(bronze[8]!.id).toBe("min_words_v1");
    expect(bronze[8]!.filter!.dropped).toBeGreaterThan(0);
    // the one pair that differs in more than punctuation is the "suject" → "subject" typo fix
    expect(bronze.at(-1)!.id).toBe("not_spelling_fix_v1");
    expect(bronze.at(-1)!.filter!.reasons).toEqual({ spelling_fix: 1 });
  });

  it("catches a broken stats.json (the checker can fail)", async () => {
    const out = tempDir("paracap-rec-");
    await run(out, [{ path: `${DATA}wikipedia-history/enwiki-Anarchism-history-rev00000-00299.xml.bz2`, kind: "history" }], { tiers: ["bronze"] });
    const stats = readStats(out);
    expect(reconcile(stats)).toEqual([]);
    const broken: Stats = structuredClone(stats);
    const row = broken.tiers.bronze!.funnel[8]!;
    row.filter!.kept += 1;
    broken.counters["dump.skipped.redirect"] = (broken.counters["dump.skipped.redirect"] ?? 0) + 1;
    expect(reconcile(broken)).toEqual([
      expect.stringMatching(/^dump\.revisions \d+ ≠ emitted/),
      expect.stringMatching(/row 8 \(min_words_v1\): kept \d+ \+ dropped \d+ ≠ in/),
      expect.stringMatching(/row 8 \(min_words_v1\): kept \d+ ≠ row captions/),
    ]);
  });
});

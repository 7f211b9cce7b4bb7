/**
 * The text pivots in a whole run over real captions: Conceptual Captions lines (one caption per image
 * URL, so image identity pairs none of them) with a few lines whose pairs were checked by hand. The
 * canonical and min-hash pivots pair captions of different images, which the resource pivot cannot.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import type { ScoredPair } from "../../shared/core/records.ts";
import { Stats } from "../../shared/output/stats.ts";
import { runLocal } from "../../shared/runner/local-runner.ts";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";

const CC = join(REPO, "../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv");
/** Pairs checked by hand: each caption is one line of the file, of its own image. */
const CANONICAL_PAIR = ["he reminds me of an anime character i created", "she reminds me of an anime character i created"];
const MINHASH_PAIR = ["cricket player plays a shot during the cricket match .", "cricket player plays a shot during their match against cricket team ."];
const MINHASH_PAIR_2 = ["a model walks the runway at the fashion show during fashion week .", "a model walks the runway at the fashion show during paris menswear fashion week"];
const LEADING = 300;

interface Run { pairs: ScoredPair[]; stats: Stats; report: string; html: string }

let dir: string;
const runs = new Map<string, Run>();

async function run(pivot: string, input: string): Promise<Run> {
  const out = join(dir, pivot);
  const config = resolveConfig({ pivot, partitions: 2, tiers: ["silver"], scoring: { scorers: ["syntactic"] } });
  await runLocal({ inputs: [{ path: input, kind: "current" }], outDir: out, config, workers: 1, progress: null });
  const pairs = readFileSync(join(out, "silver.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as ScoredPair);
  return { pairs, stats: Stats.parse(JSON.parse(readFileSync(join(out, "stats.json"), "utf8"))), report: readFileSync(join(out, "report.md"), "utf8"), html: readFileSync(join(out, "report.html"), "utf8") };
}

const texts = (p: ScoredPair) => [p.a.text, p.b.text].sort().join(" | ");
const find = (r: Run, pair: string[]) => r.pairs.find((p) => texts(p) === [...pair].sort().join(" | "));

beforeAll(async () => {
  dir = tempDir("paracap-text-pivots-");
  const lines = readFileSync(CC, "utf8").split("\n").filter(Boolean);
  const wanted = new Set([...CANONICAL_PAIR, ...MINHASH_PAIR, ...MINHASH_PAIR_2]);
  // the first line of each wanted caption (some captions recur in the file, of other images)
  const picked = lines.filter((l, i) => i < LEADING || wanted.delete(l.split("\t")[0]!));
  expect(wanted.size).toBe(0);
  expect(picked.length).toBe(LEADING + 6);
  const input = join(dir, "cc-excerpt.tsv");
  writeFileSync(input, picked.join("\n") + "\n");
  for (const pivot of ["resource", "canonical", "minhash"]) runs.set(pivot, await run(pivot, input));
});

afterAll(removeTempDirs);

describe("text pivots over real captions", () => {
  it("the resource pivot pairs none of the hand-checked captions (each is its own image)", () => {
    const r = runs.get("resource")!;
    for (const pair of [CANONICAL_PAIR, MINHASH_PAIR, MINHASH_PAIR_2]) expect(find(r, pair)).toBeUndefined();
    expect(r.stats.pivot).toBeUndefined();
  });

  it("canonical: two captions of one Déjà form, of two images, are a pair carrying the pivot and each side's image", () => {
    const r = runs.get("canonical")!;
    const p = find(r, CANONICAL_PAIR);
    expect(p).toMatchObject({ image: "canonical:remind IN anime character create", type: "caption", pivot: { name: "canonical" } });
    expect(p!.a.image).toMatch(/^https:\/\/i\.pinimg\.com\//);
    expect(p!.a.image).not.toBe(p!.b.image);
    expect(r.stats.pivot?.name).toBe("canonical");
    expect(r.report).toContain("Pivot: canonical");
  });

  it("minhash: near-duplicate captions of different images, each pair's exact Jaccard ≥ t and found once", () => {
    const r = runs.get("minhash")!;
    // hand-computed: 6 shared words of 9 ("their", "against", "team" added); 8 of 10 ("paris", "menswear" added)
    expect(find(r, MINHASH_PAIR)?.pivot).toMatchObject({ name: "minhash", jaccard: 2 / 3 });
    expect(find(r, MINHASH_PAIR_2)?.pivot).toMatchObject({ name: "minhash", jaccard: 0.8 });
    expect(r.pairs.length).toBeGreaterThanOrEqual(2);
    for (const p of r.pairs) {
      expect(p.image).toMatch(/^minhash:\d+:[0-9a-f]{16}$/);
      expect(p.a.image).toBeDefined();
      expect(p.a.image).not.toBe(p.b.image);
      expect(p.pivot!.jaccard).toBeGreaterThanOrEqual(0.5);
      expect(p.pivot!.estimate).toBeGreaterThanOrEqual(0.4);
    }
    expect(new Set(r.pairs.map(texts)).size).toBe(r.pairs.length);
    // the other bands' meetings of the same pairs were counted, not paired
    expect(r.stats.counters["pivot.minhash.silver.pair.met_under_earlier_key"]).toBeGreaterThan(0);
    expect(r.stats.counters["pivot.minhash.captions_keyed"]).toBe(LEADING + 6);
    expect(r.stats.pivot).toMatchObject({ name: "minhash", settings: { minhash: { perms: 64, bands: 16, verify: "exact" } } });
    expect(r.report).toContain("Pivot: minhash");
    // report.html draws the pairs' estimate against their exact Jaccard
    expect(r.html).toContain('<section id="minhash">');
    expect(r.html).toContain('data-chart="minhash-run"');
    expect(runs.get("canonical")!.html).not.toContain('<section id="minhash">');
  });

  it("the funnel accounts for every candidate: the meetings the pivot did not pair are drops of the first pair row", () => {
    for (const pivot of ["canonical", "minhash"]) {
      const r = runs.get(pivot)!;
      const funnel = r.stats.tiers.silver!.funnel;
      const first = funnel.findIndex((row) => row.unit === "pairs");
      const before = funnel[first - 1]!;
      const row = funnel[first]!;
      const notMade = Object.entries(r.stats.counters).filter(([k]) => k.startsWith(`pivot.${pivot}.silver.pair.`) || k === `pivot.${pivot}.silver.pairs_capped`).reduce((n, [, v]) => n + v, 0);
      if (pivot === "minhash") expect(notMade, pivot).toBeGreaterThan(0);
      // the group rows' candidates are every meeting; the first pair row takes them all in
      expect(row.filter!.in, pivot).toBe(before.candidates);
      expect(row.filter!.in, pivot).toBe(row.filter!.kept + row.filter!.dropped);
      expect(row.candidates, pivot).toBe(row.filter!.kept);
      expect(Object.values(row.filter!.reasons).reduce((a, b) => a + b, 0), pivot).toBe(row.filter!.dropped);
    }
    const mh = runs.get("minhash")!.stats.tiers.silver!.funnel.find((row) => row.unit === "pairs")!;
    expect(mh.filter!.reasons["pivot_met_under_earlier_key"]).toBe(runs.get("minhash")!.stats.counters["pivot.minhash.silver.pair.met_under_earlier_key"]);
    expect(runs.get("minhash")!.report).toMatch(/pivot met under earlier key [\d,]+/);
  });
});

describe("captions a text pivot cannot key", () => {
  it("are counted by reason and shown by example: every caption read is keyed, without a key or unreadable", async () => {
    const lines = readFileSync(CC, "utf8").split("\n").filter(Boolean).slice(0, 20);
    const [text, url] = lines[0]!.split("\t") as [string, string];
    const hostile = [
      `${text.replace(" ", " \uFFFD ")}\t${url}#fffd`,
      `${Array.from({ length: 600 }, () => text).join(" ")}\t${url}#long`,
      `${text} ${"x".repeat(400)}\t${url}#token`,
    ];
    const input = join(dir, "cc-unreadable.tsv");
    writeFileSync(input, [...lines, ...hostile].join("\n") + "\n");
    for (const pivot of ["canonical", "minhash"]) {
      const out = join(dir, `unreadable-${pivot}`);
      const r = await runLocal({ inputs: [{ path: input, kind: "current" }], outDir: out, config: resolveConfig({ pivot, partitions: 2, tiers: ["silver"], scoring: { scorers: ["syntactic"] } }), workers: 1, progress: null });
      const c = r.stats.counters;
      const at = (what: string) => c[`pivot.${pivot}.${what}`] ?? 0;
      expect(at("captions_unreadable.replacement_character"), pivot).toBe(1);
      expect(at("captions_unreadable.caption_too_long"), pivot).toBe(1);
      expect(at("captions_unreadable.token_too_long"), pivot).toBe(1);
      expect(at("captions_keyed") + at("captions_without_key") + 3, pivot).toBe(c["tsv.lines.emitted"]);
      expect(r.stats.extraction_examples?.[`pivot.${pivot}.captions_unreadable`], pivot).toHaveLength(3);
      expect(readFileSync(join(out, "report.md"), "utf8")).toContain("Not keyed, unreadable: 1 caption_too_long, 1 replacement_character, 1 token_too_long.");
    }
  });
});

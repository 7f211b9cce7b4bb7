/** Dedup stage: corpus-wide exact unique filter, divergent and significant-difference filters, metrics. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { ScoredPair, type CandidatePair } from "../../shared/core/records.ts";
import { defineFilter, type Filter } from "../../shared/core/filter.ts";
import { silentContext, type StageContext } from "../../shared/core/stage.ts";
import { LocalStore } from "../../shared/io/local-store.ts";
import { dedupStage, uniqueKey } from "../../shared/pipeline/dedup-stage.ts";
import { pairFilters, tierFilters } from "../../shared/pipeline/filters.ts";
import { funnelRowsOf } from "../../shared/pipeline/funnel.ts";
import { tierSpecs } from "../../shared/pipeline/tiers.ts";
import { taskStageContext } from "../../shared/tasks/item-cache.ts";
import { shippedThresholds } from "../../shared/semantic/semantic-score.ts";
import { CAPTIONS as C, collect, from, makePair } from "./stage-helpers.ts";

async function dedup(pairs: CandidatePair[], config: object = {}) {
  const counters = new Counters();
  const out = await collect(dedupStage(resolveConfig(config)).run(from(pairs), silentContext(counters)));
  return { out, counters, c: (k: string) => counters.get(k) };
}

describe("dedup stage", () => {
  it("keeps one of several identical text pairs corpus-wide (other images, pages, partitions): the smallest id", async () => {
    // the Apollo captions on three images/pages
    const p1 = makePair("silver", "File:Apollo 11 first step.jpg", "Apollo 11", "Apollo 11", C.apolloLink, C.apolloInfobox);
    const p2 = makePair("silver", "File:Apollo 11 first step.jpg", "Neil Armstrong", "Apollo 11", C.apolloLink, C.apolloInfobox);
    const p3 = makePair("silver", "File:Aldrin Apollo 11.jpg", "Apollo program", "Moon landing", C.apolloInfobox, C.apolloLink);
    const smallest = [p1, p2, p3].map((p) => p.id).sort()[0];
    for (const order of [[p1, p2, p3], [p3, p2, p1], [p2, p3, p1]]) {
      const { out, c } = await dedup(order);
      expect(out.map((p) => p.id)).toEqual([smallest]);
      expect([c("filter.silver.unique_v1.in"), c("filter.silver.unique_v1.kept"), c("filter.silver.unique_v1.dropped.duplicate")]).toEqual([3, 1, 2]);
    }
  });

  it("compares exact texts: a pair differing in case is another pair (then dropped by neither unique nor divergent)", async () => {
    const a = makePair("silver", "File:A.jpg", "P", "Q", C.apolloLink, C.apolloInfobox);
    const b = makePair("silver", "File:B.jpg", "P", "Q", C.apolloLink.toUpperCase(), C.apolloInfobox);
    const { out, c } = await dedup([a, b]);
    expect(out).toHaveLength(2);
    expect(c("filter.silver.unique_v1.dropped")).toBe(0);
  });

  it("dedups per tier: the same pair in gold and silver is kept in both", async () => {
    const g = makePair("gold", "File:Apollo 11 first step.jpg", "Apollo 11", "Apollo 11", C.apolloLink, C.apolloInfobox);
    const s = { ...g, tier: "silver" };
    const { out } = await dedup([s, g]);
    expect(out.map((p) => p.tier)).toEqual(["gold", "silver"]);
  });

  it("applies each tier's dedup-side steps of its funnel lists (set-size bound, unique, pair filters), in order", async () => {
    const config = resolveConfig({});
    const counters = new Counters();
    const pairs = tierSpecs(config).map((t) => makePair(t.name, "File:A.jpg", "P", "Q", C.apolloLink, C.apolloInfobox));
    await collect(dedupStage(config, { setSizeMax: 4 }).run(from(pairs), silentContext(counters)));
    for (const t of tierSpecs(config)) {
      const f = tierFilters(config, t, { setSizeMax: 4 });
      const want = [f.setSize!, f.unique, ...f.pair].map((x) => x.id);
      const counted = Object.keys(counters.toJSON())
        .filter((k) => k.startsWith(`filter.${t.name}.`) && k.endsWith(".in"))
        .map((k) => k.slice(`filter.${t.name}.`.length, -".in".length));
      expect(counted.sort(), t.name).toEqual([...want].sort());
      for (const id of want) expect(counters.get(`funnel.${t.name}.${id}.candidates`), `${t.name} ${id}`).toBe(1);
    }
  });

  it("a pair of a tier the configuration does not run is a clear error, not a pair filtered by another tier's lists", async () => {
    const p = makePair("silver", "File:A.jpg", "P", "Q", C.apolloLink, C.apolloInfobox);
    await expect(dedup([p], { tiers: ["gold"] })).rejects.toThrow(/tier "silver", which this configuration does not run \(tiers: gold\)/);
  });

  it("drops captions equal ignoring case (divergent)", async () => {
    const p = makePair("bronze", "File:Goldman-4.jpg", "Anarchism", "Anarchism", "Emma Goldman was an anarchist.", "emma goldman was an anarchist.");
    const { out, c } = await dedup([p]);
    expect(out).toEqual([]);
    expect(c("filter.bronze.divergent_v1.dropped.equal_ignoring_case")).toBe(1);
    expect(c("filter.bronze.significant_difference_v1.in")).toBe(0);
  });

  it("drops near-equal captions: only punctuation, case, whitespace or parenthesised asides differ (docs/method.md step 9)", async () => {
    const escaped = makePair("bronze", "File:Food Not Bombs logo.png", "Anarchism", "Anarchism", C.foodNotBombs, C.foodNotBombsEscaped);
    const aside = makePair("silver", "File:Angola Ethnic map 1970.svg", "Angola", "Demographics of Angola", C.angolaLong, C.angolaShort);
    const spacing = makePair("silver", "File:X.jpg", "P", "Q", "Lincoln and George McClellan after the Battle of Antietam in 1862.", "Lincoln and George McClellan after the Battle of Antietam, in 1862");
    const typo = makePair("bronze", "File:Ideomap-v21.gif", "Anarchism", "Anarchism", C.ideomapOld, C.ideomapNew);
    const word = makePair("silver", "File:Young Lincoln By Charles Keck.JPG", "P", "Q", C.lincolnCaption, "The young Lincoln in bronze at Senn Park, Chicago.");
    const { out, c } = await dedup([escaped, aside, spacing, typo, word]);
    // the typo fix ("suject" → "subject") is not near-equal; the spelling-fix filter after it drops it
    expect(out.map((p) => [p.tier, p.image])).toEqual([["silver", "File:Young Lincoln By Charles Keck.JPG"]]);
    expect(c("filter.bronze.significant_difference_v1.dropped.near_equal")).toBe(1);
    expect(c("filter.bronze.not_spelling_fix_v1.dropped.spelling_fix")).toBe(1);
    expect(c("filter.silver.significant_difference_v1.dropped.near_equal")).toBe(2);
    // the funnel's pair rows: candidates kept after each filter
    expect([c("funnel.silver.unique_v1.candidates"), c("funnel.silver.divergent_v1.candidates"), c("funnel.silver.significant_difference_v1.candidates"), c("funnel.silver.not_spelling_fix_v1.candidates")]).toEqual([3, 3, 1, 1]);
    // preset paper (the published filters) keeps the typo fix
    const paper = await dedup([escaped, aside, spacing, typo, word], { preset: "paper" });
    expect(paper.out.map((p) => p.image)).toEqual(["File:Ideomap-v21.gif", "File:Young Lincoln By Charles Keck.JPG"]);
    expect(paper.c("filter.bronze.not_spelling_fix_v1.in")).toBe(0);
  });

  it("scores every surviving pair and yields them sorted by tier, then id", async () => {
    const pairs = [
      makePair("silver", "File:X.jpg", "P", "Q", C.lincolnAlt, C.mcclellanAlt),
      makePair("bronze", "File:Ideomap-v21.gif", "Anarchism", "Anarchism", C.ideomapOld, C.ideomapNew),
      makePair("silver", "File:Y.jpg", "P", "Q", C.ideomapOld, C.lincolnAlt),
    ];
    const { out } = await dedup(pairs, { pairs: { dropSpellingFixes: false }, scoring: { scorers: ["syntactic"] } });
    expect(out.map((p) => [p.tier, p.id])).toEqual(pairs.map((p) => [p.tier, p.id]).sort((x, y) => (x.join() < y.join() ? -1 : 1)));
    for (const p of out) {
      expect(Object.keys(p.metrics).sort()).toEqual(["bleu4", "bleuCordeiro", "lcpNgramOverlap", "levenshtein", "rouge1F", "rougeLF", "sumo", "syntactic", "wordNgramOverlap"]);
    }
    // "suject" → "subject": one of 62 words changed
    expect(out.find((p) => p.tier === "bronze")!.metrics.levenshtein).toBeCloseTo(1 / 62, 12);
  });

  it("with a semantic scorer, each pair carries the semantic score, Δsem,syn and the calibrated paraphrase verdict", async () => {
    const pair = makePair("gold", "File:Apollo 11 first step.jpg", "Apollo 11", "Apollo 11", C.apolloLink, C.apolloInfobox);
    const scorers = ["syntactic", "wordVectors"];
    const [p] = (await dedup([pair], { scoring: { scorers } })).out;
    const m = p!.metrics;
    expect(m.semantic).toBeCloseTo((m.vectorCosine! + m.wordMoverSimilarity!) / 2, 12);
    expect(m.deltaSemSyn).toBeCloseTo(m.semantic! - m.syntactic!, 12);
    const rule = { score: "mean(vectorCosine,wordMoverSimilarity)", threshold: shippedThresholds().thresholds["mean(vectorCosine,wordMoverSimilarity)"]!.threshold };
    expect(p!.paraphraseBy).toEqual(rule);
    expect(p!.paraphrase).toBe(m.semantic! > rule.threshold);
    // an explicit threshold wins; a single semantic metric is used as is
    const [low] = (await dedup([pair], { scoring: { scorers, paraphraseThreshold: 0.1 } })).out;
    expect([low!.paraphrase, low!.paraphraseBy]).toEqual([true, { score: "mean(vectorCosine,wordMoverSimilarity)", threshold: 0.1 }]);
    const [wms] = (await dedup([pair], { scoring: { scorers, semantic: ["wordMoverSimilarity"], paraphraseThreshold: 0.99 } })).out;
    expect(wms!.metrics.semantic).toBe(m.wordMoverSimilarity);
    expect(wms!.paraphrase).toBe(false);
  });

  it("with syntactic scoring only, pairs carry no semantic fields (earlier outputs stay the same)", async () => {
    const pair = makePair("gold", "File:Apollo 11 first step.jpg", "Apollo 11", "Apollo 11", C.apolloLink, C.apolloInfobox);
    const [p] = (await dedup([pair], { scoring: { scorers: ["syntactic"] } })).out;
    expect(Object.keys(p!)).not.toContain("paraphrase");
    expect(p!.metrics.semantic).toBeUndefined();
    expect(ScoredPair.parse(p)).toEqual(p);
  });
});

describe("an async pair filter with a per-item cache", () => {
  // A stand-in for a model that judges a pair (in the test only): non-deterministic on purpose, each
  // call returns the next count, and a pair is kept when its count is even.
  const Judged = z.object({ n: z.number().int() });
  let calls = 0;
  const oracle = (ctx: StageContext): Filter<CandidatePair> =>
    defineFilter({
      name: "toy_oracle",
      version: 1,
      paperStep: null,
      unit: "pair",
      description: "a model says the pair is worth keeping (test only)",
      keep: async (p: CandidatePair) => {
        const judge = async () => ({ n: calls++ });
        const { n } = ctx.itemCache ? await ctx.itemCache("toy_oracle_v1", Judged).getOrCompute(uniqueKey(p), judge) : await judge();
        return n % 2 === 0 ? true : { drop: "oracle_says_no" };
      },
    });
  const config = resolveConfig({ scoring: { scorers: ["syntactic"] } });
  const pairs = [
    makePair("silver", "File:Young Lincoln By Charles Keck.JPG", "Abraham Lincoln", "Chicago", C.lincolnCaption, C.lincolnAlt),
    makePair("silver", "File:Lincoln and McClellan 1862-10-03.jpg", "Abraham Lincoln", "George B. McClellan", C.mcclellanCaption, C.mcclellanAlt),
    makePair("silver", "File:Apollo 11 first step.jpg", "Apollo 11", "Neil Armstrong", C.apolloLink, C.apolloInfobox),
    makePair("silver", "File:Angola Ethnic map 1970.svg", "Angola", "Chicago", C.angolaShort, C.lincolnCaption),
    makePair("gold", "File:Blkred flag.png", "Anarchism", "Anarchism", C.blkred, C.newt),
  ];
  async function run(ctx: StageContext) {
    const out = await collect(dedupStage(config, { pairFilters: (c) => [...pairFilters(config), oracle(c)] }).run(from(pairs), ctx));
    // counters as a task's marker stores them (sorted): with async filters they are first touched in settling order
    const { samples, ...counts } = { ...ctx.counters.toJSON(), samples: ctx.counters.samples };
    return JSON.stringify({ out, counters: Object.fromEntries(Object.entries(counts).filter(([k]) => !k.startsWith("cache."))), samples });
  }

  it("is awaited, counted and sampled like a synchronous filter, and its funnel row comes from its metadata", async () => {
    const counters = new Counters();
    calls = 0;
    const out = await collect(dedupStage(config, { pairFilters: (c) => [...pairFilters(config), oracle(c)] }).run(from(pairs), silentContext(counters)));
    // the four silver pairs get counts 0–3 in some order → two kept, two dropped
    const silverIn = counters.get("filter.silver.toy_oracle_v1.in");
    expect(silverIn).toBe(4);
    expect(counters.get("filter.silver.toy_oracle_v1.kept") + counters.get("filter.silver.toy_oracle_v1.dropped.oracle_says_no")).toBe(4);
    expect(counters.get("filter.silver.toy_oracle_v1.dropped")).toBe(2);
    expect(counters.samples.get("filter.silver.toy_oracle_v1.dropped.oracle_says_no")).toHaveLength(2);
    expect(out.filter((p) => p.tier === "silver")).toHaveLength(2);
    expect(counters.get("funnel.silver.toy_oracle_v1.candidates")).toBe(2);
    const tier = tierSpecs(config).find((t) => t.name === "silver")!;
    const rows = funnelRowsOf({ ...tierFilters(config, tier), pair: [...pairFilters(config), oracle(silentContext(counters))] });
    expect(rows[rows.length - 1]).toEqual({ id: "toy_oracle_v1", label: "a model says the pair is worth keeping (test only)", paperStep: 9, inPaper: false, unit: "pairs" });
  });

  it("pairs whose filter awaits are judged together (a model sees many at once), with the same outcome as one at a time", async () => {
    let inFlight = 0;
    let most = 0;
    const slow = defineFilter({
      name: "slow_model",
      version: 1,
      paperStep: null,
      unit: "pair",
      description: "a slow model keeps pairs without a flag (test only)",
      keep: async (p: CandidatePair) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight--;
        return /flag/.test(p.a.text + p.b.text) ? { drop: "flag" } : true;
      },
    });
    const atOnce = defineFilter({ ...slow, name: "slow_model", keep: (p: CandidatePair) => (/flag/.test(p.a.text + p.b.text) ? { drop: "flag" } : true) });
    const awaited = new Counters();
    const outAwaited = await collect(dedupStage(config, { pairFilters: () => [...pairFilters(config), slow] }).run(from(pairs), silentContext(awaited)));
    const given = new Counters();
    const outGiven = await collect(dedupStage(config, { pairFilters: () => [...pairFilters(config), atOnce] }).run(from(pairs), silentContext(given)));
    expect(most).toBe(pairs.length);
    expect(outAwaited).toEqual(outGiven);
    expect(JSON.stringify(awaited)).toBe(JSON.stringify(given));
    expect(awaited.get("filter.gold.slow_model_v1.dropped.flag")).toBe(1);
  });

  it("a rerun reads the cache: byte-identical outputs and counters although the judge is not deterministic", async () => {
    const work = new LocalStore(mkdtempSync(join(tmpdir(), "pc-dedup-cache-")));
    calls = 1; // the first run starts on an odd count, the rerun would start elsewhere
    const first = await run(taskStageContext(work, new Counters()));
    const rerunCounters = new Counters();
    expect(await run(taskStageContext(work, rerunCounters))).toBe(first);
    expect([rerunCounters.get("cache.toy_oracle_v1.hits"), rerunCounters.get("cache.toy_oracle_v1.computed")]).toEqual([5, 0]);
    // without a cache the same two runs differ (what the cache is for)
    expect(await run(silentContext(new Counters()))).not.toBe(await run(silentContext(new Counters())));
  });

  it("a corrupt cache entry is recomputed and counted, the others are read", async () => {
    const work = new LocalStore(mkdtempSync(join(tmpdir(), "pc-dedup-cache-")));
    await run(taskStageContext(work, new Counters()));
    const names = await work.list("cache/toy_oracle_v1/");
    expect(names).toHaveLength(5);
    await work.writeText(names[0]!, '{"key": "truncated');
    const counters = new Counters();
    await run(taskStageContext(work, counters));
    expect([counters.get("cache.toy_oracle_v1.invalid"), counters.get("cache.toy_oracle_v1.computed"), counters.get("cache.toy_oracle_v1.hits")]).toEqual([1, 1, 4]);
    expect(() => JSON.parse(readFileSync(join(work.root, names[0]!), "utf8"))).not.toThrow();
  });
});

/** Group stage: references grouped by (input kind, image), per-tier filters, pairs, funnel counters. */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { cmpId, type CandidatePair, type ShuffleRef } from "../../shared/core/records.ts";
import { silentContext } from "../../shared/core/stage.ts";
import { defineFilter } from "../../shared/core/filter.ts";
import { tierFilters } from "../../shared/pipeline/filters.ts";
import { groupStage, imagePairs, mergeIdenticalUses } from "../../shared/pipeline/group-stage.ts";
import { funnelRowsOf } from "../../shared/pipeline/funnel.ts";
import { tierSpecs, type TierSpec } from "../../shared/pipeline/tiers.ts";
import { CAPTIONS as C, collect, features, from, ref } from "./stage-helpers.ts";

async function group(refs: ShuffleRef[], tiers: ("gold" | "silver" | "bronze")[] = ["gold", "silver", "bronze"], config: object = {}) {
  const counters = new Counters();
  const pairs = await collect(groupStage(resolveConfig(config, { tiers })).run(from(refs), silentContext(counters)));
  return { pairs, counters };
}

const summary = (p: CandidatePair) => [p.tier, p.image, p.type, p.a.text, p.b.text];

const APOLLO = "File:Apollo 11 first step.jpg";
const IDEOMAP = "File:Ideomap-v21.gif";

describe("the captions used here, as the analyzer sees them", () => {
  it("has the features the tier rules depend on", () => {
    expect([C.apolloInfobox, C.apolloLink].map((t) => features(t).isSentence)).toEqual([true, true]);
    expect([C.ideomapOld, C.ideomapNew, C.lincolnAlt, C.mcclellanAlt].map((t) => [features(t).hasVerb, features(t).isSentence])).toEqual([
      [true, false], [true, false], [true, false], [true, false],
    ]);
    expect(features(C.newt).hasVerb).toBe(false);
    expect(features(C.newt).words).toBe(8);
  });
});

describe("group stage", () => {
  it("groups by input kind and image: current references feed gold and silver, history references bronze", async () => {
    const refs = [
      ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, source: "template", caption: C.apolloInfobox }),
      ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, caption: C.apolloLink }),
      // the same image in a history dump, with other captions: a separate group
      ref({ image: APOLLO, kind: "history", page: "Apollo 11", pageId: 662, revisionId: 5, ordinal: 0, caption: C.ideomapOld, uses: 2 }),
      ref({ image: APOLLO, kind: "history", page: "Apollo 11", pageId: 662, revisionId: 9, ordinal: 0, caption: C.ideomapNew, uses: 3 }),
    ];
    const { pairs, counters } = await group(refs);
    expect(pairs.map(summary)).toEqual([
      ["gold", APOLLO, "caption", C.apolloLink, C.apolloInfobox],
      ["silver", APOLLO, "caption", C.apolloLink, C.apolloInfobox],
      ["bronze", APOLLO, "caption", C.ideomapNew, C.ideomapOld],
    ]);
    // each tier counted only its own input's references
    expect(counters.get("funnel.gold.all.references")).toBe(2);
    expect(counters.get("funnel.bronze.all.references")).toBe(5);
    expect(counters.get("filter.bronze.min_refs_v1.in")).toBe(5);
  });

  it("applies each tier's caption rule: gold needs a sentence, silver and bronze a verb", async () => {
    const refs = [
      ref({ image: IDEOMAP, page: "Anarchism", pageId: 12, revisionId: 1, caption: C.ideomapOld }),
      ref({ image: IDEOMAP, page: "Anarchist symbolism", pageId: 40, revisionId: 2, caption: C.ideomapNew }),
    ];
    const { pairs, counters } = await group(refs, ["gold", "silver"]);
    expect(pairs.map((p) => p.tier)).toEqual(["silver"]);
    expect(counters.get("filter.gold.is_sentence_improved_v2.dropped.not_a_sentence")).toBe(2);
    expect(counters.get("filter.gold.image_captioned_refs_v1.in")).toBe(0); // the image left the gold funnel at the sentence row
    expect(counters.get("filter.silver.has_verb_v1.kept")).toBe(2);
  });

  it("pairs captions with captions and alt texts with alt texts, never across types or within a reference", async () => {
    const refs = [
      ref({ image: "File:X.jpg", page: "P", pageId: 1, ordinal: 0, caption: C.ideomapOld, alt: C.lincolnAlt }),
      ref({ image: "File:X.jpg", page: "Q", pageId: 2, ordinal: 0, caption: C.ideomapNew, alt: C.mcclellanAlt }),
      ref({ image: "File:X.jpg", page: "R", pageId: 3, ordinal: 0, caption: null, alt: null }),
    ];
    const { pairs, counters } = await group(refs, ["silver"]);
    expect(pairs.map((p) => [p.type, p.a.text, p.b.text])).toEqual([
      ["caption", C.ideomapNew, C.ideomapOld],
      ["alt", C.lincolnAlt, C.mcclellanAlt],
    ]);
    expect(counters.get("funnel.silver.all.captions")).toBe(4);
    expect(counters.get("funnel.silver.image_captioned_refs_v1.candidates")).toBe(2);
    expect(counters.get("filter.silver.has_caption_v1.dropped.no_caption")).toBe(1);
  });

  it("builds all unordered pairs within an image: C(n, 2) per type", async () => {
    const texts = [C.ideomapOld, C.ideomapNew, C.lincolnAlt, C.mcclellanAlt];
    const refs = texts.map((t, i) => ref({ image: "File:X.jpg", page: `Page ${i}`, pageId: i + 1, caption: t }));
    const { pairs, counters } = await group(refs, ["silver"]);
    expect(pairs).toHaveLength(6);
    expect(new Set(pairs.map((p) => `${p.a.text}|${p.b.text}`)).size).toBe(6);
    expect(counters.get("funnel.silver.image_captioned_refs_v1.candidates")).toBe(6);
  });

  it("orders sides canonically (code point order of texts) and gives deterministic ids, whatever the arrival order", async () => {
    const a = ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, source: "template", caption: C.apolloInfobox });
    const b = ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, caption: C.apolloLink });
    const one = (await group([a, b], ["gold"])).pairs;
    const two = (await group([b, a], ["gold"])).pairs;
    expect(one).toEqual(two);
    expect(one).toHaveLength(1);
    // the id the golden run pins: a hash of image, type, both texts and both sides' page and revision
    expect(one[0]!.id).toBe("187b02163fb002de");
    expect(one[0]!.a).toEqual({ text: C.apolloLink, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, uses: 1 });
    expect(one[0]!.b.text).toBe(C.apolloInfobox);
    // the same captions used on another page are another pair
    const moved = (await group([a, { ...b, page: "Neil Armstrong", pageId: 21247 }], ["gold"])).pairs;
    expect(moved[0]!.id).not.toBe(one[0]!.id);
    expect(moved[0]!.id).toMatch(/^[0-9a-f]{16}$/);
  });

  it("pairs identical history uses once but counts every revision, also when split over shards", async () => {
    // Ideomap-v21.gif in the Anarchism history: "suject" in 7 revisions, "subject" in 4; the 7 arrive
    // as two records (two shards, or an early flush), which must merge into one use.
    const old1 = ref({ image: IDEOMAP, kind: "history", page: "Anarchism", pageId: 12, revisionId: 18581569, ordinal: 2, caption: C.ideomapOld, uses: 2 });
    const old2 = ref({ image: IDEOMAP, kind: "history", page: "Anarchism", pageId: 12, revisionId: 18838915, ordinal: 1, caption: C.ideomapOld, uses: 5 });
    const neu = ref({ image: IDEOMAP, kind: "history", page: "Anarchism", pageId: 12, revisionId: 18864795, ordinal: 0, caption: C.ideomapNew, uses: 4 });
    const { pairs, counters } = await group([neu, old2, old1], ["bronze"]);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.b).toEqual({ text: C.ideomapOld, page: "Anarchism", pageId: 12, revisionId: 18581569, ordinal: 2, uses: 7 });
    expect(pairs[0]!.a.uses).toBe(4);
    expect(counters.get("funnel.bronze.all.references")).toBe(11);
    expect(counters.get("funnel.bronze.image_captioned_refs_v1.references")).toBe(11);
    expect(counters.get("funnel.bronze.image_captioned_refs_v1.candidates")).toBe(1);
    // merging is order-independent
    expect(mergeIdenticalUses([old1, old2, neu])).toEqual(mergeIdenticalUses([neu, old2, old1]).sort((x, y) => cmpId(x.revisionId, y.revisionId)));
  });

  it("keeps an image whose only captioned use repeats 120 times through the reference filters, then drops it: no pair", async () => {
    const blk = ref({ image: "File:Blkred flag.png", kind: "history", page: "Anarchism", pageId: 12, revisionId: 18576354, caption: C.blkred, uses: 120 });
    const { pairs, counters } = await group([blk], ["bronze"]);
    expect(pairs).toEqual([]);
    expect(counters.get("filter.bronze.min_refs_v1.kept")).toBe(120);
    expect(counters.get("filter.bronze.max_uses_v1.kept")).toBe(120);
    expect(counters.get("filter.bronze.image_captioned_refs_v1.dropped.too_few_captioned_references")).toBe(120);
  });

  it("bounds bronze by distinct uses by default, by every revision's reference under the paper preset, and counts both", async () => {
    // Issue 10: on a much-edited page an image kept for 200 revisions with two caption versions was
    // dropped by the paper's rule (200 references > 180) although it gives one pair.
    const v1 = ref({ image: IDEOMAP, kind: "history", page: "Anarchism", pageId: 12, revisionId: 1, caption: C.apolloLink, uses: 150 });
    const v2 = ref({ image: IDEOMAP, kind: "history", page: "Anarchism", pageId: 12, revisionId: 2, caption: C.ideomapNew, uses: 50 });
    const improved = await group([v1, v2], ["bronze"]);
    expect(improved.pairs).toHaveLength(1);
    expect(improved.counters.get("filter.bronze.max_uses_v1.kept")).toBe(200);
    // what the paper's rule would have dropped at this row, beside the row
    expect(improved.counters.get("filter.bronze.max_uses_v1.paper_rule_dropped")).toBe(200);
    expect(improved.counters.get("filter.bronze.max_uses_v1.paper_rule_dropped_images")).toBe(1);
    const paper = await group([v1, v2], ["bronze"], { preset: "paper" });
    expect(paper.pairs).toEqual([]);
    expect(paper.counters.get("filter.bronze.max_refs_v1.dropped.too_many_references")).toBe(200);
    // an explicit key wins over the preset
    const explicit = await group([v1, v2], ["bronze"], { preset: "paper", images: { maxRefsHistoryUnit: "uses" } });
    expect(explicit.pairs).toHaveLength(1);
    // 181 distinct uses are over the bound in both rules
    const many = Array.from({ length: 181 }, (_, i) => ref({ image: IDEOMAP, kind: "history", page: "Anarchism", pageId: 12, revisionId: i, caption: `${C.ideomapNew} ${i}` }));
    const over = await group(many, ["bronze"]);
    expect(over.counters.get("filter.bronze.max_uses_v1.dropped.too_many_uses")).toBe(181);
  });

  it("counts references corpus-wide before the caption filters: ≥ 2 and ≤ 10 (bronze ≤ 180) include uncaptioned uses", async () => {
    // one captioned use plus one bare use: the image passes min_refs (2 references), then has one captioned use
    const two = [
      ref({ image: "File:Salmo salar GLERL 1.jpg", page: "Actinopterygii", pageId: 569, ordinal: 3, source: "gallery", caption: "Salmon generate enough thrust with their powerful tail fin to jump obstacles during river migrations" }),
      ref({ image: "File:Salmo salar GLERL 1.jpg", page: "Actinopterygii", pageId: 569, ordinal: 9 }),
    ];
    const r1 = await group(two, ["silver"]);
    expect(r1.counters.get("filter.silver.min_refs_v1.kept")).toBe(2);
    expect(r1.counters.get("filter.silver.has_caption_v1.dropped")).toBe(1);
    expect(r1.counters.get("filter.silver.image_captioned_refs_v1.dropped")).toBe(1);
    // 11 current references: over the limit of 10, dropped with weight 11; as history (≤ 180) it stays
    const eleven = Array.from({ length: 11 }, (_, i) => ref({ image: "File:X.jpg", page: `Page ${i}`, pageId: i + 1, caption: i % 2 ? C.ideomapOld : C.ideomapNew }));
    const r2 = await group(eleven, ["silver"]);
    expect(r2.pairs).toEqual([]);
    expect(r2.counters.get("filter.silver.max_refs_v1.dropped.too_many_references")).toBe(11);
    const r3 = await group(eleven.map((r) => ({ ...r, kind: "history" as const })), ["bronze"]);
    expect(r3.counters.get("filter.bronze.max_uses_v1.kept")).toBe(11);
    expect(r3.pairs).toHaveLength(55);
  });
});

describe("imagePairs runs the filter lists it is given", () => {
  it("a caption filter added to the tier's list is applied, counted and drives the funnel row", async () => {
    const config = resolveConfig({}, { tiers: ["gold"] });
    const base = tierFilters(config, tierSpecs(config)[0]!);
    const noLadder = defineFilter<{ text: string }>({ name: "no_ladder", version: 1, paperStep: null, unit: "caption", description: "no ladder", keep: (f) => (/ladder/.test(f.text) ? { drop: "ladder" } : true) });
    const refs = [
      ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, source: "template", caption: C.apolloInfobox }),
      ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, caption: C.apolloLink }),
    ];
    const counters = new Counters();
    expect(await imagePairs(base, refs, silentContext(counters))).toHaveLength(1);
    const filtered = new Counters();
    expect(await imagePairs({ ...base, caption: [...base.caption, noLadder] }, refs, silentContext(filtered))).toHaveLength(0);
    expect(filtered.get("filter.gold.no_ladder_v1.in")).toBe(2);
    expect(filtered.get("filter.gold.no_ladder_v1.dropped.ladder")).toBe(2);
    expect(filtered.get("funnel.gold.no_ladder_v1.images")).toBe(0);
    expect(filtered.get("filter.gold.image_captioned_refs_v1.dropped.too_few_captioned_references")).toBe(0);
  });
});

describe("filters that await, through the group stage", () => {
  const refs = () => [
    ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, source: "template", caption: C.apolloInfobox, alt: C.apolloLink }),
    ref({ image: APOLLO, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, caption: C.apolloLink }),
    ref({ image: APOLLO, page: "Neil Armstrong", pageId: 31, revisionId: 5, caption: C.apolloInfobox, alt: C.blkred }),
    ref({ image: IDEOMAP, page: "Anarchism", pageId: 12, revisionId: 1, caption: C.ideomapOld }),
    ref({ image: IDEOMAP, page: "Anarchist symbolism", pageId: 40, revisionId: 2, caption: C.ideomapNew }),
    ref({ image: IDEOMAP, page: "Anarchism", pageId: 12, revisionId: 3, caption: C.blkred, uses: 4 }),
  ];
  // a caption rule that would need a model (in the test only): no ladders; and an image rule that would read pixels
  const noLadder = { name: "no_ladder", version: 1, paperStep: null, unit: "caption", description: "caption mentions no ladder (test only)" } as const;
  const ladderVerdict = (f: { text: string }) => (/ladder/.test(f.text) ? { drop: "ladder" } : true) as true | { drop: string };
  const notGif = { name: "not_gif", version: 1, paperStep: 1, unit: "image", description: "image is not a GIF (test only)" } as const;
  const gifVerdict = (g: { image: string }) => (g.image.endsWith(".gif") ? { drop: "gif" } : true) as true | { drop: string };
  const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));
  let inFlight = 0;
  let most = 0;

  async function run(async: boolean) {
    const config = resolveConfig({}, { tiers: ["gold", "silver"] });
    const caption = async ? defineFilter({ ...noLadder, keep: async (f: { text: string }) => (await tick(), ladderVerdict(f)) }) : defineFilter({ ...noLadder, keep: ladderVerdict });
    const image = async ? defineFilter({ ...notGif, keep: async (g: { image: string }) => {
      most = Math.max(most, ++inFlight);
      await tick();
      inFlight--;
      return gifVerdict(g);
    } }) : defineFilter({ ...notGif, keep: gifVerdict });
    const extend = (t: TierSpec) => {
      const base = tierFilters(config, t);
      return { ...base, image: [...base.image, image], caption: [...base.caption, caption] };
    };
    const counters = new Counters();
    const pairs = await collect(groupStage(config, { tierFilters: extend }).run(from(refs()), silentContext(counters)));
    return { pairs, counters, rows: funnelRowsOf(extend(tierSpecs(config)[1]!)) };
  }

  it("count, sample and feed the funnel exactly as the same filters given at once", async () => {
    const sync = await run(false);
    const awaited = await run(true);
    // both images of both tiers were being judged at once (one window of (image, tier)s)
    expect(most).toBe(4);
    expect(JSON.stringify(awaited.counters)).toBe(JSON.stringify(sync.counters));
    expect(JSON.stringify(awaited.counters.samples)).toBe(JSON.stringify(sync.counters.samples));
    expect(awaited.pairs).toEqual(sync.pairs);
    // and the filters did something: the ladder captions and the GIF went
    expect(awaited.counters.get("filter.silver.no_ladder_v1.dropped.ladder")).toBeGreaterThan(0);
    expect(awaited.counters.samples.get("filter.silver.no_ladder_v1.dropped.ladder")).toContain(C.apolloLink);
    expect(awaited.counters.get("filter.silver.not_gif_v1.dropped.gif")).toBe(6);
    expect(awaited.counters.get("funnel.silver.no_ladder_v1.images")).toBe(1);
    const ids = awaited.rows.map((r) => r.id);
    expect(ids.indexOf("not_gif_v1")).toBeGreaterThan(ids.indexOf("min_refs_v1"));
    expect(awaited.rows.find((r) => r.id === "no_ladder_v1")).toMatchObject({ label: "caption mentions no ladder (test only)", inPaper: false, unit: "captions" });
  });
});

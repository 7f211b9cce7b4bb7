/**
 * Golden test of the whole local pipeline on the embedded real sample (shared/sample/): every funnel
 * row of every tier and every output pair are pinned. The values were checked against the sample by
 * hand (bzcat + grep, see the comments) and by the method (docs/method.md), and the independent checks at
 * the end re-derive the key numbers from the raw XML with the bzip2 binary and plain regexes.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScoredPair } from "../../shared/core/records.ts";
import type { FunnelRow, Stats } from "../../shared/output/stats.ts";
import { readPairs, readStats, run, SAMPLE_CURRENT, SAMPLE_HISTORY, tempDir, removeTempDirs } from "../runner/helpers.ts";
import { sampleRun } from "../support/sample-run.ts";

afterAll(removeTempDirs);

/** [id, images, ≥2, ≥5, references, captions, candidates, filter in, kept, dropped, reasons] */
type Row = [string, number | null, number | null, number | null, number | null, number | null, number | null, ...([] | [number, number, number, Record<string, number>])];

const compact = (r: FunnelRow): Row => {
  const base: Row = [r.id, r.images, r.images_ge2, r.images_ge5, r.references, r.captions, r.candidates];
  return r.filter ? [...base, r.filter.in, r.filter.kept, r.filter.dropped, r.filter.reasons] as Row : base;
};

/*
 * Current sample (206 pages, 106 articles after 99 redirects and 1 non-article page): 1,279 image
 * references of 1,268 images (1,257 of 1,246 before {{double image}}, {{wide image}}, a comment before an
 * infobox parameter's name and CoatOfArms were read: 22 more template references, each of an image used
 * once, so nothing below the first rows changes); 10 images are referenced twice or more (21 references):
 *   Flag of Alabama.svg ×2, Seal of Alabama.svg ×2 (infobox, no caption), Flag of Angola.svg ×2 (one
 *   captioned "Flag of Angola"), Salmo salar GLERL 1.jpg ×2 and Sturgeon2.jpg ×3 (a gallery caption each,
 *   the other uses bare links), Triturus dobrogicus dunai tarajosgőte.jpg ×2 (caption + alt, bare link),
 *   Ceratophrys cornuta skeleton front.jpg ×2 (Amphibian and Anatomy, same caption + alt),
 *   Frog anatomy tags.PNG ×2, Angola Ethnic map 1970.svg ×2 (Angola, Demographics of Angola) and
 *   Apollo 11 first step.jpg ×2 (infobox image_caption and a body link, both on "Apollo 11").
 * Nine of the 21 have neither caption nor alt → 12 references with 16 caption entries; 8 of those have
 * < 6 words; of the 8 left only the two Apollo captions are sentences (gold); five contain a verb (silver:
 * "Dissected frog:1 …", "Ethnic groups of Angola 1970 (with … marked green)", the Salmon gallery caption
 * and the two Apollo captions) but only Apollo's image keeps two captioned references → one pair each.
 */
const CURRENT_HEAD: Row[] = [
  // 1,231 caption entries (1,212 before the templates above): 7 more than when unknown templates were deleted (a caption made only of an
  // unrenderable template is now kept, marked, and dropped by rendered_v1 if it survives that far); a navbox written as the
  // Alphabet page's caption is no caption (it was one unrendered caption entry until the caption-templates round of 2026-11-28)
  ["all", 1268, 10, 0, 1279, 1231, 5],
  // ten single-use sound files (pronunciations, music samples): .ogg
  ["not_audio_v1", 1258, 10, 0, 1269, 1224, 5, 1279, 1269, 10, { audio_file: 10 }],
  ["min_refs_v1", 10, 10, 0, 21, 16, 5, 1269, 21, 1248, { too_few_references: 1248 }],
  ["max_refs_v1", 10, 10, 0, 21, 16, 5, 21, 21, 0, {}],
  ["has_caption_v1", 8, 4, 0, 12, 16, 5, 21, 12, 9, { no_caption: 9 }],
  ["non_empty_v1", 8, 4, 0, 12, 16, 5, 16, 16, 0, {}],
  ["readable_v1", 8, 4, 0, 12, 16, 5, 16, 16, 0, {}],
  ["rendered_v1", 8, 4, 0, 12, 16, 5, 16, 16, 0, {}],
  ["min_words_v1", 6, 2, 0, 8, 8, 2, 16, 8, 8, { too_few_words: 8 }],
  ["max_words_v1", 6, 2, 0, 8, 8, 2, 8, 8, 0, {}],
  ["not_profane_v1", 6, 2, 0, 8, 8, 2, 8, 8, 0, {}],
];
const CURRENT_TAIL: Row[] = [
  ["unique_v1", null, null, null, null, null, 1, 1, 1, 0, {}],
  ["divergent_v1", null, null, null, null, null, 1, 1, 1, 0, {}],
  ["significant_difference_v1", null, null, null, null, null, 1, 1, 1, 0, {}],
  // the final dataset: one image, its two uses on "Apollo 11", one caption each
  ["not_spelling_fix_v1", 1, 1, 0, 2, 2, 1, 1, 1, 0, {}],
];

const EXPECTED_FUNNEL: Record<string, Row[]> = {
  gold: [
    ...CURRENT_HEAD,
    ["is_sentence_improved_v2", 1, 1, 0, 2, 2, 1, 8, 2, 6, { not_a_sentence: 6 }],
    ["image_captioned_refs_v1", 1, 1, 0, 2, 2, 1, 2, 2, 0, {}],
    ...CURRENT_TAIL,
  ],
  silver: [
    ...CURRENT_HEAD,
    ["has_verb_v1", 4, 1, 0, 5, 5, 1, 8, 5, 3, { no_verb: 3 }],
    ["image_captioned_refs_v1", 1, 1, 0, 2, 2, 1, 5, 2, 3, { too_few_captioned_references: 3 }],
    ...CURRENT_TAIL,
  ],
  /*
   * History sample: 120 revisions of "Anarchism" (July 2005), 831 references of 11 images, all plain
   * [[Image:…]] links. Kropotkin.jpg (111 revisions) and CircleAsymbol01.gif (6) have no caption → 117
   * dropped. Short captions ("Pierre Proudhon", "Emma Goldman", …) leave Blkred flag.png (120
   * revisions, one unchanged caption), Food Not Bombs logo.png (109: 108 + 1 with the quotes escaped
   * as \"militant fist\") and Ideomap-v21.gif (11: 7 × "suject to debate", then 4 × "subject to
   * debate"). Blkred flag's 120 references are one distinct use → no pair; the Food Not Bombs pair
   * differs only in backslashes → near-equal; the Ideomap typo fix is the bronze pair.
   */
  bronze: [
    ["all", 11, 11, 11, 831, 714, 2],
    ["not_audio_v1", 11, 11, 11, 831, 714, 2, 831, 831, 0, {}],
    ["min_refs_v1", 11, 11, 11, 831, 714, 2, 831, 831, 0, {}],
    // bronze's bound counts distinct uses (improved preset); none of these images comes near 180
    ["max_uses_v1", 11, 11, 11, 831, 714, 2, 831, 831, 0, {}],
    ["has_caption_v1", 9, 9, 9, 714, 714, 2, 831, 714, 117, { no_caption: 117 }],
    ["non_empty_v1", 9, 9, 9, 714, 714, 2, 714, 714, 0, {}],
    ["readable_v1", 9, 9, 9, 714, 714, 2, 714, 714, 0, {}],
    ["rendered_v1", 9, 9, 9, 714, 714, 2, 714, 714, 0, {}],
    ["min_words_v1", 3, 3, 3, 240, 240, 2, 714, 240, 474, { too_few_words: 474 }],
    ["max_words_v1", 3, 3, 3, 240, 240, 2, 240, 240, 0, {}],
    ["not_profane_v1", 3, 3, 3, 240, 240, 2, 240, 240, 0, {}],
    ["has_verb_v1", 3, 3, 3, 240, 240, 2, 240, 240, 0, {}],
    ["image_captioned_refs_v1", 2, 2, 2, 120, 120, 2, 240, 120, 120, { too_few_captioned_references: 120 }],
    ["unique_v1", null, null, null, null, null, 2, 2, 2, 0, {}],
    ["divergent_v1", null, null, null, null, null, 2, 2, 2, 0, {}],
    ["significant_difference_v1", null, null, null, null, null, 1, 2, 1, 1, { near_equal: 1 }],
    // the Ideomap pair differs only by the "suject" → "subject" fix: not a paraphrase (improved preset)
    ["not_spelling_fix_v1", 0, 0, 0, 0, 0, 0, 1, 0, 1, { spelling_fix: 1 }],
  ],
};

const APOLLO_LINK = "A mounted slowscan TV camera shows Armstrong as he climbs down the ladder to surface";
const APOLLO_INFOBOX = "Neil Armstrong descends a ladder to become the first human to step onto the surface of the Moon";
const IDEOMAP = (word: string) =>
  "Political ideology diagram, showing anarcho-socialism at the upper left and anarcho-capitalism at the upper right. " +
  "The up-down dimension represents the extent of government; the left-right dimension represents the outward appearance " +
  "(legal fiction) of property ownership. In theory, both socialism and capitalism have statist and anti-statist variants. " +
  `The placement of persons and parties on this graph are only approximate, and ${word} to debate.`;

const apolloPair = (tier: string) => ({
  id: "187b02163fb002de",
  tier,
  image: "File:Apollo 11 first step.jpg",
  type: "caption",
  // sides in code point order of their texts: "A mounted …" < "Neil …"
  a: { text: APOLLO_LINK, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 12, uses: 1 },
  b: { text: APOLLO_INFOBOX, page: "Apollo 11", pageId: 662, revisionId: 716123666, ordinal: 0, uses: 1 },
});

const EXPECTED_PAIRS: Record<string, object[]> = {
  gold: [apolloPair("gold")],
  silver: [apolloPair("silver")],
  bronze: [],
};

/** The bronze pair of the paper's rules (no spelling-fix filter). */
const IDEOMAP_PAIR = {
    id: "0fabbe74982d3905",
    tier: "bronze",
    image: "File:Ideomap-v21.gif",
    type: "caption",
    // "subject" first appears in revision 18864795 (4 revisions), "suject" in 18581569 (7 revisions)
    a: { text: IDEOMAP("subject"), page: "Anarchism", pageId: 12, revisionId: 18864795, ordinal: 0, uses: 4 },
    b: { text: IDEOMAP("suject"), page: "Anarchism", pageId: 12, revisionId: 18581569, ordinal: 2, uses: 7 },
};

let out: string;
let stats: Stats;
const pairs: Record<string, ScoredPair[]> = {};

beforeAll(async () => {
  out = await sampleRun();
  stats = readStats(out);
  for (const tier of ["gold", "silver", "bronze"]) pairs[tier] = readPairs(out, tier);
});

describe("golden run on the embedded sample", () => {
  it("reads every revision of both inputs and accounts for it", () => {
    expect(stats.inputs.map((i) => [i.kind, i.shards, i.tiers])).toEqual([
      ["current", 1, ["gold", "silver"]],
      ["history", 1, ["bronze"]],
    ]);
    expect(stats.shards).toEqual({ total: 2, ok: 2, corrupt: [], missing: [] });
    expect(stats.complete).toBe(true);
    expect(stats.extraction).toEqual({
      "dump.bytes": 13_918_447, // 6,089,746 + 7,828,701 decompressed bytes
      "dump.pages": 207,
      "dump.revisions": 326,
      "dump.revisions.emitted": 226,
      "dump.skipped.namespace": 1,
      "dump.skipped.redirect": 99,
      "extract.current.references": 1279,
      "extract.current.references.gallery": 97,
      "extract.current.references.link": 1045,
      "extract.current.references.template": 137,
      "extract.current.revisions": 106,
      "extract.current.shuffle_records": 1276,
      "extract.history.references": 831,
      "extract.history.references.link": 831,
      "extract.history.revisions": 120,
      "extract.history.shuffle_records": 13,
      "extract.shards": 2,
    });
  });

  for (const tier of ["gold", "silver", "bronze"]) {
    it(`pins every funnel row of ${tier}`, () => {
      const t = stats.tiers[tier]!;
      expect(t.funnel.map(compact)).toEqual(EXPECTED_FUNNEL[tier]);
      expect(t.funnel.map((r) => r.paper_step)).toEqual([0, 0, 1, 2, 3, 3, 3, 3, 4, 4, 4, 5, 6, 7, 8, 9, 9]);
      expect(t.pairs).toBe(tier === "bronze" ? 0 : 1);
      expect(t.input).toBe(tier === "bronze" ? "history" : "current");
    });

    it(`pins the ${tier} pairs (ids, images, texts, sides)`, () => {
      const got = pairs[tier]!.map(({ metrics: _m, paraphrase: _p, paraphraseBy: _b, ...p }) => p);
      expect(got).toEqual(EXPECTED_PAIRS[tier]);
    });
  }

  it("scores the pairs semantically by default: Δsem,syn = semantic − syntactic, and a calibrated paraphrase verdict", () => {
    const [apollo] = pairs.gold!;
    const m = apollo!.metrics;
    expect(m.semantic).toBeCloseTo((m.vectorCosine! + m.wordMoverSimilarity!) / 2, 12);
    expect(m.deltaSemSyn).toBeCloseTo(m.semantic! - m.syntactic!, 12);
    // the infobox caption and the body caption of the Apollo photo describe different moments
    expect(apollo!.paraphrase).toBe(false);
    expect(apollo!.paraphraseBy).toEqual({ score: "mean(vectorCosine,wordMoverSimilarity)", threshold: expect.any(Number) });
    expect(m.semantic).toBeLessThan(apollo!.paraphraseBy!.threshold);
  });

  it("scores the pairs (syntactic = mean of ROUGE-1, ROUGE-L and BLEU-4)", () => {
    const apollo = pairs.gold![0]!.metrics;
    expect(apollo.syntactic).toBeCloseTo((apollo.rouge1F! + apollo.rougeLF! + apollo.bleu4!) / 3, 12);
    expect(apollo.syntactic).toBeCloseTo(0.2441, 4);
    expect(pairs.silver![0]!.metrics).toEqual(apollo);
  });

  it("without the spelling-fix filter, bronze keeps the Ideomap typo-fix pair of the paper's rules", async () => {
    const dir = tempDir("paracap-golden-typo-");
    await run(dir, [{ path: SAMPLE_HISTORY, kind: "history" }], { tiers: ["bronze"], pairs: { dropSpellingFixes: false } });
    const got = readPairs(dir, "bronze");
    expect(got.map(({ metrics: _m, paraphrase: _p, paraphraseBy: _b, ...p }) => p)).toEqual([IDEOMAP_PAIR]);
    // a one-letter typo fix is, semantically, the same caption
    expect(got[0]!.paraphrase).toBe(true);
    // one changed word of 62: word-level Levenshtein distance 1/62
    expect(got[0]!.metrics.levenshtein).toBeCloseTo(1 / 62, 12);
  });

  it("writes config.json, _SUCCESS and a report with the funnel", () => {
    expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8"))).toMatchObject({ tiers: ["gold", "silver", "bronze"], partitions: 16, captions: { minWords: 6 } });
    expect(JSON.parse(readFileSync(join(out, "_SUCCESS"), "utf8")).complete).toBe(true);
    const report = readFileSync(join(out, "report.md"), "utf8");
    expect(report).toContain("## gold (current input): 1 pair");
    expect(report).toContain("| 15 | 9 | captions differ in more than punctuation, case, whitespace and parenthesised asides | — | — | — | — | — | — | 1 (-50.0 %) |");
    expect(report).toContain("| 16 | (9) | captions differ in more than a spelling edit (≤ 2 words, each within 1–2 letters; not in the paper) | 0 | 0 | 0 | 0 | — | 0 | 0 (-100.0 %) |");
    expect(report).toContain("- 207 pages, 326 revisions read = 226 used + 1 skipped (namespace) + 99 skipped (redirect).");
  });
});

describe("the pinned numbers, re-derived from the raw XML without paracap's reader or extractor", () => {
  const bzcat = (path: string) => execFileSync("bzip2", ["-dc", path], { maxBuffer: 1 << 28 }).toString("utf8");
  const unescape = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");

  it("history: 120 revisions, 831 [[Image:]] links of 11 files, the Ideomap and Food Not Bombs caption variants", () => {
    const revisions = [...bzcat(SAMPLE_HISTORY).matchAll(/<revision>([\s\S]*?)<\/revision>/g)].map((m) => unescape(/<text[^>]*>([\s\S]*?)<\/text>/.exec(m[1]!)?.[1] ?? ""));
    expect(revisions).toHaveLength(120);
    const files = revisions.flatMap((t) => [...t.matchAll(/\[\[(?:Image|File):([^|\]]+)/g)].map((m) => m[1]!.trim()));
    expect(files).toHaveLength(831);
    expect(new Set(files).size).toBe(11);
    const withIdeomap = revisions.filter((t) => t.includes("[[Image:Ideomap-v21.gif"));
    expect(withIdeomap.filter((t) => t.includes("only approximate, and suject to debate."))).toHaveLength(7);
    expect(withIdeomap.filter((t) => t.includes("only approximate, and subject to debate."))).toHaveLength(4);
    const fnb = revisions.filter((t) => t.includes("[[Image:Food Not Bombs logo.png"));
    expect(fnb).toHaveLength(109);
    expect(fnb.filter((t) => t.includes('\\"militant fist\\"'))).toHaveLength(1);
    // written "blkred flag.png"; the image key capitalises the first letter as MediaWiki does
    expect(revisions.filter((t) => t.includes("[[Image:blkred flag.png"))).toHaveLength(120);
  });

  it("current: the Apollo image is used twice on one page, as infobox image with image_caption and as a captioned link", () => {
    const xml = unescape(bzcat(SAMPLE_CURRENT));
    const uses = xml.split("\n").filter((l) => l.includes("Apollo 11 first step.jpg"));
    expect(uses).toEqual([
      "| image                 = Apollo 11 first step.jpg",
      "[[File:Apollo 11 first step.jpg|thumb|right|A [[Apollo TV camera|mounted slowscan TV camera]] shows Armstrong as he climbs down the ladder to surface]]",
    ]);
    expect(xml).toContain("| image_caption         = [[Neil Armstrong]] descends a ladder to become the first human to step onto the surface of the Moon\n");
    expect((xml.match(/<page>/g) ?? []).length).toBe(206);
    // 100 redirects: 99 articles (skipped as redirects) and "Wikipedia:Adding Wikipedia articles to
    // Nupedia" (ns 4, skipped for its namespace first)
    expect((xml.match(/<redirect /g) ?? []).length).toBe(100);
    expect((xml.match(/<ns>0<\/ns>/g) ?? []).length).toBe(205);
  });
});

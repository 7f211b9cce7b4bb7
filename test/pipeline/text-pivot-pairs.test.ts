/**
 * The group stage's pairing of a text-pivot group: different texts of different images only, the
 * pivot's verdict counted by reason, a group over the bucket cap counted and not paired.
 */
import { describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import type { CaptionFeatures, ShuffleRef } from "../../shared/core/records.ts";
import { textPivotPairs } from "../../shared/pipeline/group-stage.ts";
import { useState } from "../../shared/pipeline/funnel.ts";
import type { TextPivot } from "../../shared/plugins/pivot-contract.ts";

const features = (text: string): CaptionFeatures => ({ text, words: text.split(" ").length, profane: false, english: true, hasVerb: true, isSentence: true, tags: "" });
const ref = (text: string, origin: string, line: number): ShuffleRef => ({
  image: "k", kind: "current", page: `cc.tsv:${line}`, pageId: line, revisionId: line, ordinal: 0, source: "row", uses: 1, caption: features(text), alt: null, origin,
});

/** keys a caption by its first word; drops a pair with a shouted caption, keeps the rest with a made-up estimate */
const pivot = (bucketCap: number): TextPivot => ({
  id: "toy", kind: "text", bucketCap, keys: (t) => [t.split(" ")[0]!],
  pair: (a, b) => ((a + b).includes("!") ? { drop: "shouted" } : { estimate: 0.5, jaccard: 0.5 }),
});

describe("textPivotPairs", () => {
  const uses = [
    ref("bird flies in the sky", "img1", 1),
    ref("bird flying in blue sky", "img2", 2),
    ref("bird flying in blue sky", "img3", 3), // same text as line 2: no pair with it
    ref("bird soaring over the sky", "img1", 4), // same image as line 1: no pair with it
    ref("bird sings loudly!", "img4", 5),
  ].map(useState);

  it("pairs different texts of different images, with the pivot's match and each side's image", () => {
    const c = new Counters();
    const pairs = [...textPivotPairs(pivot(10), "silver", "bird", uses, c)];
    const texts = pairs.map((p) => `${p.a.image}:${p.a.text} | ${p.b.image}:${p.b.text}`).sort();
    expect(texts).toEqual([
      "img1:bird flies in the sky | img2:bird flying in blue sky",
      "img1:bird flies in the sky | img3:bird flying in blue sky",
      "img2:bird flying in blue sky | img1:bird soaring over the sky",
      "img3:bird flying in blue sky | img1:bird soaring over the sky",
    ]);
    for (const p of pairs) expect(p).toMatchObject({ image: "bird", tier: "silver", pivot: { name: "toy", estimate: 0.5, jaccard: 0.5 } });
    expect(new Set(pairs.map((p) => p.id)).size).toBe(4);
    const snap = c.toJSON();
    expect(snap["pivot.toy.silver.pairs"]).toBe(4);
    expect(snap["pivot.toy.silver.pair.same_image"]).toBe(1);
    expect(snap["pivot.toy.silver.pair.same_text"]).toBe(1);
    // line 5 with each of the four others: the pivot's own reason
    expect(snap["pivot.toy.silver.pair.shouted"]).toBe(4);
  });

  it("counts a group over the bucket cap, with a sample, and makes none of its pairs", () => {
    const c = new Counters();
    expect([...textPivotPairs(pivot(4), "silver", "bird", uses, c)]).toEqual([]);
    expect(c.toJSON()).toEqual({ "pivot.toy.silver.groups_capped": 1, "pivot.toy.silver.pairs_capped": 10 });
    expect(c.samples.get("pivot.toy.silver.groups_capped")).toEqual(["bird (caption): 5 uses"]);
  });
});

import { describe, expect, it } from "vitest";
import { buildPairNgrams, orderStats } from "../../shared/metrics/ngram-ids.ts";

describe("buildPairNgrams / orderStats", () => {
  it("gives equal ids to equal n-grams across both sides and counts distinct and clipped matches", () => {
    const g = buildPairNgrams(["the", "cat", "the", "cat"], ["the", "cat", "sat"], 3);
    // bigrams a: the cat, cat the, the cat; b: the cat, cat sat
    expect(g.a[1]![0]).toBe(g.a[1]![2]);
    expect(g.a[1]![0]).toBe(g.b[1]![0]);
    expect(orderStats(g, 1)).toEqual({ distinctA: 2, distinctB: 3, distinctCommon: 2, clippedMatches: 2 });
    expect(orderStats(g, 2)).toEqual({ distinctA: 2, distinctB: 2, distinctCommon: 1, clippedMatches: 1 });
    // trigrams a: the cat the, cat the cat; b: the cat sat
    expect(orderStats(g, 3)).toEqual({ distinctA: 2, distinctB: 1, distinctCommon: 0, clippedMatches: 0 });
  });

  it("handles sides shorter than the order", () => {
    const g = buildPairNgrams(["dog"], [], 4);
    expect(g.a[3]!.length).toBe(0);
    expect(orderStats(g, 1)).toEqual({ distinctA: 1, distinctB: 0, distinctCommon: 0, clippedMatches: 0 });
  });
});

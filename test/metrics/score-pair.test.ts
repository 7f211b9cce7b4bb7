import { describe, expect, it } from "vitest";
import { METRIC_NAMES, PairScorer, scorePair } from "../../shared/metrics/index.ts";
import { fixturePairs, VICTIMS } from "./msrp-pairs.ts";

describe("scorePair", () => {
  it("syntactic = mean(rouge1F, rougeLF, bleu4) (MSRP line 1225)", () => {
    // (6/9 + 6/9 + 0.397629)/3 = 0.576987
    expect(scorePair(...VICTIMS).syntactic).toBeCloseTo(0.576987, 6);
  });

  it("names every metric once", () => {
    expect([...METRIC_NAMES].sort()).toEqual(Object.keys(scorePair("a", "b")).sort());
  });

  it("every metric is in [0, 1] and symmetric on 300 real MSRP pairs", () => {
    const pairs = fixturePairs();
    expect(pairs.length).toBe(300);
    for (const [, a, b] of pairs) {
      const ab = scorePair(a, b);
      const ba = scorePair(b, a);
      for (const name of METRIC_NAMES) {
        expect(ab[name], `${name}: ${a} | ${b}`).toBeGreaterThanOrEqual(0);
        expect(ab[name], name).toBeLessThanOrEqual(1);
        expect(ab[name], name).toBeCloseTo(ba[name], 12);
      }
    }
  });

  it("paraphrases score higher than non-paraphrases on syntactic (300 MSRP pairs)", () => {
    const pairs = fixturePairs();
    const mean = (label: boolean) => {
      const xs = pairs.filter(([l]) => l === label).map(([, a, b]) => scorePair(a, b).syntactic);
      return xs.reduce((s, x) => s + x, 0) / xs.length;
    };
    expect(mean(true)).toBeGreaterThan(mean(false));
  });

  it("separate scorers agree (the stem memo never changes results)", () => {
    const [, a, b] = fixturePairs()[7]!;
    expect(new PairScorer().score(a, b)).toEqual(scorePair(a, b));
  });

  it("edge cases: identical, disjoint, one empty", () => {
    const same = scorePair("A bird flies in the blue sky", "a bird flies in the blue sky.");
    expect(same).toMatchObject({ levenshtein: 0, wordNgramOverlap: 1, lcpNgramOverlap: 1, bleuCordeiro: 1, sumo: 0 });
    expect(same.rouge1F).toBe(1);
    const disjoint = scorePair("A bird flies", "Two dogs bark loudly");
    expect(disjoint).toEqual({
      levenshtein: 1, wordNgramOverlap: 0, lcpNgramOverlap: 0, bleuCordeiro: 0, sumo: 0,
      rouge1F: 0, rougeLF: 0, bleu4: 0, syntactic: 0,
    });
    expect(scorePair("", "Two dogs bark").levenshtein).toBe(1);
    expect(scorePair("", "Two dogs bark").syntactic).toBe(0);
  });

  it("scores a Russian or Japanese paraphrase above zero (improved); the paper's preset keeps rouge-score's zeros", () => {
    const ru: [string, string] = ["Вид на Московский Кремль с Большого Каменного моста", "Московский Кремль, вид с Большого Каменного моста"];
    const ja: [string, string] = ["東京タワーの夜景", "夜の東京タワー"];
    for (const [a, b] of [ru, ja]) {
      expect(new PairScorer().score(a, b).syntactic).toBeGreaterThan(0.5);
      expect(new PairScorer({ paper: true }).score(a, b).syntactic).toBe(0);
    }
    // English pairs score the same either way
    for (const [, a, b] of fixturePairs()) expect(new PairScorer().score(a, b)).toEqual(new PairScorer({ paper: true }).score(a, b));
  });
});

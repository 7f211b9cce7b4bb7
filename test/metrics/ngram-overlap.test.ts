import { describe, expect, it } from "vitest";
import { scorePair } from "../../shared/metrics/score-pair.ts";
import { INVESTIGATION, MOORE, SOLDIERS, VICTIMS } from "./msrp-pairs.ts";

describe("wordNgramOverlap (thesis eq. 4.2, N = 4)", () => {
  it("MSRP line 411: only unigrams shared", () => {
    // unigrams: common {moore, immediate, tuesday} 3 / min(6, 8) = 0.5; bigrams 0/5, trigrams 0/4, 4-grams 0/3
    expect(scorePair(...MOORE).wordNgramOverlap).toBeCloseTo((0.5 + 0 + 0 + 0) / 4, 12);
  });

  it("MSRP line 1135", () => {
    // 1: 4/8 (investigation closed without charges); 2: {closed without} 1/7; 3: 0/6; 4: 0/5
    expect(scorePair(...INVESTIGATION).wordNgramOverlap).toBeCloseTo((4 / 8 + 1 / 7) / 4, 12);
  });

  it("MSRP line 2531", () => {
    // 1: {every, day, american, soldiers} 4/min(6,10); 2: {every day, american soldiers} 2/min(5,9); 3: 0; 4: 0
    expect(scorePair(...SOLDIERS).wordNgramOverlap).toBeCloseTo((4 / 6 + 2 / 5) / 4, 12); // = 4/15
  });

  it("MSRP line 1225: shares a 4-gram", () => {
    // 1: {representatives, of, abuse, victims, the} 5/9; 2: 3/8; 3: 2/7; 4: {representatives of abuse victims} 1/6
    expect(scorePair(...VICTIMS).wordNgramOverlap).toBeCloseTo((5 / 9 + 3 / 8 + 2 / 7 + 1 / 6) / 4, 12);
  });

  it("short texts: orders the shorter text lacks are left out of the mean (Java gave NaN)", () => {
    // "a dog runs" vs "a dog sleeps": 1: 2/3; 2: {a dog} 1/2; 3: 0/1; 4: no 4-grams → skipped → (2/3 + 1/2 + 0)/3
    expect(scorePair("a dog runs", "a dog sleeps").wordNgramOverlap).toBeCloseTo((2 / 3 + 1 / 2) / 3, 12);
    expect(scorePair("dog", "dog").wordNgramOverlap).toBe(1); // only order 1 valid: 1/1
    expect(scorePair("", "dog").wordNgramOverlap).toBe(0); // no valid order
  });

  it("divides by the smaller DISTINCT count, so repeated words cannot push it above 1", () => {
    // a: {the} (1 distinct), b: {the, cat}: 1: 1/1; 2: a has bigram {the the}, b {the cat}: 0/1 → (1 + 0)/2
    expect(scorePair("the the", "the cat").wordNgramOverlap).toBeCloseTo(0.5, 12);
  });
});

describe("bleuCordeiro (thesis eq. 4.5)", () => {
  it("is 0 as soon as one valid order has no match (MSRP lines 411, 1135, 2531)", () => {
    expect(scorePair(...MOORE).bleuCordeiro).toBe(0);
    expect(scorePair(...INVESTIGATION).bleuCordeiro).toBe(0);
    expect(scorePair(...SOLDIERS).bleuCordeiro).toBe(0);
  });

  it("MSRP line 1225: geometric mean of the four ratios", () => {
    // (5/9 · 3/8 · 2/7 · 1/6)^(1/4) = (30/3024)^(1/4) ≈ 0.31560
    expect(scorePair(...VICTIMS).bleuCordeiro).toBeCloseTo((30 / 3024) ** 0.25, 12);
  });

  it("disjoint texts score 0 (the Java code returned 1.0), identical texts 1", () => {
    expect(scorePair("the cat sat on the mat", "dogs bark loudly at night").bleuCordeiro).toBe(0);
    expect(scorePair("the cat sat on the mat", "The cat sat on the mat.").bleuCordeiro).toBe(1);
  });

  it("short texts: mean over the valid orders only", () => {
    // "red car" vs "red car": orders 1, 2 valid, both 1 → 1; "red car" vs "red bus": 1: 1/2, 2: 0/1 → 0
    expect(scorePair("red car", "red car").bleuCordeiro).toBe(1);
    expect(scorePair("red car", "red bus").bleuCordeiro).toBe(0);
    expect(scorePair("", "").bleuCordeiro).toBe(0);
  });
});

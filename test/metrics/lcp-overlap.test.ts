import { describe, expect, it } from "vitest";
import { longestCommonPrefixes } from "../../shared/metrics/lcp-overlap.ts";
import { scorePair } from "../../shared/metrics/score-pair.ts";
import { INVESTIGATION, MOORE, SOLDIERS, VICTIMS } from "./msrp-pairs.ts";

describe("lcpNgramOverlap (exclusive n-gram overlap, thesis eq. 4.3)", () => {
  it("MSRP line 1225: a shared 4-gram counts once per order, via its trailing n-grams", () => {
    // L per position of a: representatives 4, of 3, abuse 2, victims 1, were 0, dismayed 0, by 0, the 1, development 0
    // order 1: {victims, the} 2/9; 2: {abuse victims} 1/8; 3: {of abuse victims} 1/7; 4: {representatives … victims} 1/6
    // max = 2/9 (the non-exclusive unigram overlap would be 5/9)
    expect(scorePair(...VICTIMS).lcpNgramOverlap).toBeCloseTo(2 / 9, 12);
  });

  it("MSRP line 1135", () => {
    // L: investigation 1, closed 2 (closed without), without 1, charges 1 → order 1: 3/8, order 2: 1/7 → max 3/8
    expect(scorePair(...INVESTIGATION).lcpNgramOverlap).toBeCloseTo(3 / 8, 12);
  });

  it("MSRP line 2531", () => {
    // L: every 2, day 1, american 2, soldiers 1 → order 1: {day, soldiers} 2/6; order 2: {every day, american soldiers} 2/5
    expect(scorePair(...SOLDIERS).lcpNgramOverlap).toBeCloseTo(2 / 5, 12);
  });

  it("MSRP line 411: isolated unigram matches", () => {
    expect(scorePair(...MOORE).lcpNgramOverlap).toBeCloseTo(3 / 6, 12); // {moore, immediate, tuesday} / min(6, 8)
  });

  it("identical texts 1 (long runs count at order N), disjoint 0, short texts", () => {
    // 6 words identical: L = 6,5,4,3,2,1 capped at 4 → three 4-grams / 3 distinct 4-grams = 1
    expect(scorePair("the cat sat on a mat", "the cat sat on a mat").lcpNgramOverlap).toBe(1);
    expect(scorePair("the cat", "dogs bark").lcpNgramOverlap).toBe(0);
    // "a dog runs" vs "a dog": L(a)=2, L(dog)=1 → order 1: {dog} 1/2; order 2: {a dog} 1/1 → 1
    expect(scorePair("a dog runs", "a dog").lcpNgramOverlap).toBe(1);
    expect(scorePair("", "dog").lcpNgramOverlap).toBe(0);
  });

  it("longest common prefixes of suffixes", () => {
    const { fromA, fromB } = longestCommonPrefixes(Int32Array.of(1, 2, 3, 9), Int32Array.of(5, 1, 2, 3));
    expect([...fromA]).toEqual([3, 2, 1, 0]);
    expect([...fromB]).toEqual([0, 3, 2, 1]);
  });
});
